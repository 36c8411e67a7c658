"""What terminal play tells a person about Exit Now (pure: states in, lines out).

:func:`describe` names what a step did beyond the action itself, from the difference of
the States around it: dice rolls, event cards drawn, items taken (steals), captures and
returns, ghosts appearing, moving and banished, the item chip, a new round, the end;
:func:`illegal_reason` says why an action is not legal now. No rule is restated.
"""

from __future__ import annotations

import numpy as np

from .spec import (
    CARD_NAMES,
    CHIP_OFFSET,
    CROSS_NO,
    CROSS_YES,
    DEST_OFFSET,
    FIRST_ITEM,
    ITEM_CHIP,
    ITEM_MOVE7,
    ITEM_NAMES,
    MAX_GHOSTS,
    SLIDE_OFFSET,
    Phase,
    Status,
)


def _seat(e, k: int, viewer: int) -> str:
    n = int(e["cfg_humans"])
    if k == viewer:
        return "you"
    return "ghost_0" if k == n else f"human_{k}"


def _sq(pos) -> str:
    return f"({int(pos[0])}, {int(pos[1])})"


def describe(before: np.ndarray, after: np.ndarray, action: int, actor: int, viewer: int) -> list[str]:
    """Lines telling ``viewer`` what the step did besides the action itself."""
    b, a = before[0], after[0]
    n = int(b["cfg_humans"])
    out = []
    # event card drawn (item kinds stay hidden from the other seats)
    if int(a["deck_n"]) < int(b["deck_n"]):
        card = int(a["last_card"])
        if card != int(b["last_card"]) and card >= 0 and card < FIRST_ITEM:
            out.append(f"{_seat(a, actor, viewer)} drew the event card {CARD_NAMES[card]}")
        elif actor != viewer:
            out.append(f"{_seat(a, actor, viewer)} drew an item card")
    # items: the viewer's own by kind, others' as counts; steals
    gained = {}
    for h in range(n):
        d = int(a["items"][h].sum()) - int(b["items"][h].sum())
        if d > 0:
            gained[h] = d
            if h == viewer:
                kinds = [
                    ITEM_NAMES[k]
                    for k in range(len(ITEM_NAMES))
                    for _ in range(max(0, int(a["items"][h, k]) - int(b["items"][h, k])))
                ]
                out.append(f"you got {', '.join(kinds)}")
            elif int(a["deck_n"]) == int(b["deck_n"]):
                out.append(f"{_seat(a, h, viewer)} got {d} item{'s' if d > 1 else ''}")
        elif d < 0 and not a["captured"][h]:
            used = int(a["used"].sum()) - int(b["used"].sum())
            if used < -d:
                taker = next((k for k in gained if k != h), actor)
                out.append(f"{_seat(a, taker, viewer)} took an item from {_seat(a, h, viewer)}")
    for h in range(n):
        if a["skip"][h] and not b["skip"][h]:
            out.append(f"{_seat(a, h, viewer)} lost the next turn (stacked on)")
        if a["captured"][h] and not b["captured"][h]:
            out.append(f"{_seat(a, h, viewer)} captured: off the map, items confiscated")
        elif b["captured"][h] and not a["captured"][h]:
            out.append(f"{_seat(a, h, viewer)} rolled a 6: back at the restart square {_sq(a['hpos'][h])}")
        elif int(b["hpos"][h, 0]) < 0 and int(a["hpos"][h, 0]) >= 0 and not b["captured"][h]:
            out.append(f"{_seat(a, h, viewer)} entered at the start square {_sq(a['hpos'][h])}")
        elif h != actor and int(a["hpos"][h, 0]) >= 0 and tuple(a["hpos"][h]) != tuple(b["hpos"][h]):
            out.append(f"{_seat(a, h, viewer)} now at {_sq(a['hpos'][h])} (the map moved)")
    # ghosts
    for g in range(MAX_GHOSTS):
        if a["gon"][g] and not b["gon"][g]:
            out.append(f"ghost g{g + 1} appeared at {_sq(a['gpos'][g])}")
        elif b["gon"][g] and not a["gon"][g]:
            out.append(f"ghost g{g + 1} was banished by a Cross")
        elif a["gon"][g] and tuple(a["gpos"][g]) != tuple(b["gpos"][g]):
            out.append(f"ghost g{g + 1} now at {_sq(a['gpos'][g])}")
    # item chip
    put = np.argwhere((a["chip"] == ITEM_CHIP) & (b["chip"] != ITEM_CHIP))
    if len(put) and int(a["mapv"]) == int(b["mapv"]):
        out.append(f"the item chip is put on {_sq(put[0])}")
    if int(a["round"]) > int(b["round"]) and int(a["status"]) == Status.PLAYING:
        out.append(f"round {int(a['round']) + 1} of {int(a['cfg_max_rounds'])}")
    # dice
    if int(a["status"]) == Status.PLAYING:
        ph = int(a["phase"])
        if ph == Phase.MOVE and (int(b["phase"]) != Phase.MOVE or int(b["turn_seat"]) != int(a["turn_seat"])):
            who = _seat(a, int(a["turn_seat"]), viewer)
            verb = (
                f"move{'' if who == 'you' else 's'} 7 (Move 7)"
                if action == ITEM_MOVE7
                else f"rolled {int(a['roll'])}"
            )
            out.append(f"{who} {verb}")
        if ph == Phase.GHOST and (
            int(b["phase"]) != Phase.GHOST or int(b["ghost_idx"]) != int(a["ghost_idx"])
        ):
            out.append(
                f"ghost g{int(a['ghost_idx']) + 1} rolled {int(a['roll'])}: {int(a['moves_left'])} move"
                f"{'s' if int(a['moves_left']) != 1 else ''}"
            )
    if int(b["status"]) == Status.PLAYING and int(a["status"]) != Status.PLAYING:
        if int(a["status"]) == Status.HUMAN_WIN:
            team = " (team game: every human wins)" if a["cfg_team"] else ""
            out.append(f"game over: {_seat(a, int(a['winner']), viewer)} escaped through the exit door{team}")
        else:
            out.append(f"game over: {int(a['cfg_max_rounds'])} rounds were played, the ghost player wins")
    return out


_PHASE_TEXT = {
    Phase.ITEM: "choose before rolling: roll, or use Double Dice / Move 7",
    Phase.MOVE: "choose the square to end your move on",
    Phase.CROSS: "a ghost reached you: use a Cross or not",
    Phase.GHOST: "move the acting ghost",
    Phase.CHIP: "put the item chip on a place",
}


def illegal_reason(state: np.ndarray, action: int, seat: int) -> str:
    """Why ``action`` is not legal for ``seat`` now (one sentence, no trailing period)."""
    e = state[0]
    ph = Phase(int(e["phase"]))
    kind = (
        Phase.ITEM
        if action < DEST_OFFSET
        else Phase.MOVE
        if action < CROSS_NO
        else Phase.CROSS
        if action <= CROSS_YES
        else Phase.GHOST
        if action < CHIP_OFFSET
        else Phase.CHIP
    )
    if kind != ph:
        return f"now you {_PHASE_TEXT[ph]}"
    if ph == Phase.MOVE:
        return f"that square is not the end of a walk of {int(e['roll'])} from where you stand"
    if ph == Phase.ITEM and action != 0:
        return "you do not hold that item"
    if ph == Phase.CROSS and action == CROSS_YES:
        return "you hold no Cross"
    if ph == Phase.GHOST:
        return "the ghost cannot move that way now" if action >= SLIDE_OFFSET else ""
    return "the rules do not allow it now"
