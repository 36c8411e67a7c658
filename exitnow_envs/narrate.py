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
    MAP,
    MAX_GHOSTS,
    NUM_ACTIONS,
    SLIDE_OFFSET,
    Phase,
    Status,
    action_name,
)

MOVE_HELP = """  16 19         end your move on the square at row 16, column 19 (the map's labels)
  roll          roll the die (before it: 'double' for Double Dice, 'move7' for Move 7)
  cross, no     at contact with a ghost: use a Cross (banish it) or not
  moving onto a ghost's square is contact: without a Cross you are captured (you are
  asked to type the move twice)"""

_CARD_WHY = {
    "Add Ghost": "a new ghost on the ghost start",
    "Seal Door A": "door A becomes a wall",
    "Seal Door B": "door B becomes a wall",
    "Seal Door C": "door C becomes a wall",
    "Map Swap": "two outer boards of one kind trade places, with their pieces and chips",
    "Centre Rotation": "the centre board turns 90° clockwise, with its pieces and chips",
}
_WORDS = {"roll": 0, "double": 1, "doubledice": 1, "move7": 2, "no": CROSS_NO, "nocross": CROSS_NO}
_WORDS |= {"cross": CROSS_YES, "usecross": CROSS_YES, "yes": CROSS_YES}


def move_text(state: np.ndarray, action: int) -> str:
    """The move as a person types it: ``16 19`` (a square, row then column), ``roll``,
    ``double``, ``move7``, ``cross``/``no``; the ghost's moves by name."""
    if DEST_OFFSET <= action < CROSS_NO:
        r, c = divmod(action - DEST_OFFSET, MAP)
        return f"{r} {c}"
    for word, a in _WORDS.items():
        if a == action:
            return word
    return action_name(action)


def parse_move(text: str, state: np.ndarray, legal: dict) -> list[int] | None:
    """The actions ``text`` may mean: ``16 19`` / ``16,19`` / ``(16, 19)`` (a square),
    ``roll``, ``double``, ``move7``, ``cross``, ``no``; None when it is no move in these words."""
    clean = text.lower().translate(str.maketrans("(),", "   ")).split()
    if len(clean) == 2 and all(w.isdigit() for w in clean):
        r, c = int(clean[0]), int(clean[1])
        return [DEST_OFFSET + r * MAP + c] if r < MAP and c < MAP else []
    word = "".join(clean)
    if word in _WORDS and _WORDS[word] < NUM_ACTIONS:
        return [_WORDS[word]]
    return None


def warning(state: np.ndarray, action: int, seat: int) -> str | None:
    """A move onto a ghost's square is contact: captured, unless a Cross banishes it."""
    if not DEST_OFFSET <= action < CROSS_NO:
        return None
    e = state[0]
    r, c = divmod(action - DEST_OFFSET, MAP)
    for g in range(MAX_GHOSTS):
        if e["gon"][g] and (int(e["gpos"][g, 0]), int(e["gpos"][g, 1])) == (r, c):
            cross = int(e["items"][seat, ITEM_NAMES.index("Cross")]) if seat < int(e["cfg_humans"]) else 0
            fate = (
                "you may use your Cross to banish it" if cross else "you hold no Cross: you will be captured"
            )
            return f"({r}, {c}) is ghost g{g + 1}'s square; moving onto it is contact, and {fate}"
    return None


def describe_result(state: np.ndarray, options) -> list[str]:
    """Who escaped, or that the ghost won, and each seat's return (+1 a winner, -1 a loser)."""
    e = state[0]
    n = int(e["cfg_humans"])
    if int(e["status"]) == Status.HUMAN_WIN:
        w = int(e["winner"])
        won = set(range(n)) if e["cfg_team"] else {w}
        head = f"human_{w} escaped through the exit door" + (
            " (team game: every human wins)" if e["cfg_team"] else ""
        )
    else:
        won = {n}
        head = f"the ghost player won: {int(e['cfg_max_rounds'])} rounds passed and nobody escaped"
    names = [f"human_{k}" for k in range(n)] + ["ghost_0"]
    return [head] + [f"{names[k]}: {'won (+1)' if k in won else 'lost (-1)'}" for k in range(n + 1)]


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
            why = _CARD_WHY.get(CARD_NAMES[card], "")
            out.append(
                f"{_seat(a, actor, viewer)} drew the event card {CARD_NAMES[card]}"
                + (f": {why}" if why else "")
            )
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
            out.append(
                f"{_seat(a, h, viewer)} rolled a 6: back at the restart square {_sq(a['hpos'][h])} "
                "(a captured human returns on a 6)"
            )
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
                f"{'s' if int(a['moves_left']) != 1 else ''} (half the roll, rounded up)"
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
