"""What terminal play tells a person about Exit Now (pure: states in, lines out).

:func:`describe` names what a step did beyond the action itself, from the difference of
the States around it: dice rolls, event cards drawn, items taken (steals), captures and
returns, ghosts appearing, sliding (where each slide stopped, and why), passing a wall and
banished, the item chip, a new round, the end; :func:`illegal_reason` says why an action
is not legal now; :func:`ghost_reach` (the ``ghosts`` command, and a line of the table)
shows where each ghost can get on its next turn; :data:`RULES_SUMMARY` is ``help rules``
(``docs/rules/exitnow.md`` in one screen), and the legend is shown once (``legend``).
The ghosts' moves are worked out by the rules' own kernels (``ghost_moves_r``,
``move_ghost_r``) on a copy of the State; no rule is restated.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.records import at

from .render import LEGEND, render_ansi
from .rules.common import DC, DIE_SIDES, DR, find_kind_r, ghost_moves_for_roll, in_map, is_sealed
from .rules.engine import move_ghost_r
from .rules.ghosts import ghost_moves_r
from .spec import (
    CARD_NAMES,
    CHIP_OFFSET,
    CROSS_NO,
    CROSS_YES,
    DEST_OFFSET,
    DIR_NAMES,
    EVENT_CHIP,
    EXIT,
    FIRST_ITEM,
    ITEM_CHIP,
    ITEM_MOVE7,
    ITEM_NAMES,
    MAP,
    MAX_GHOSTS,
    NUM_ACTIONS,
    PASS_OFFSET,
    SLIDE_OFFSET,
    WALL,
    Phase,
    Status,
    action_name,
)

MOVE_HELP = """  16 19         end your move on the square at row 16, column 19 (the map's labels)
  roll          roll the die (before it: 'double' for Double Dice, 'move7' for Move 7)
  cross, no     at contact with a ghost: use a Cross (banish it) or not
  moving onto a ghost's square is contact: without a Cross you are captured (you are
  asked to type the move twice)
  legend        the map's signs again; ghosts: where each ghost can get on its next turn"""

RULES_SUMMARY = """Exit Now, the rules in one screen (docs/rules/exitnow.md):
- Humans race to the exit door (EE); the ghost player hunts them with up to 3 ghosts.
- To leave you need an EXIT KEY: 2 of the 17 event cards are Exit Keys. End a move on an
  event chip (??) to draw the next event card: an item you keep hidden (Exit Key, Cross,
  Double Dice, Move 7, Pickaxe) or an action (Add Ghost, Seal Door, Map Swap, Centre
  Rotation). With a key, end a move on the exit door and you win.
- Your turn: roll (or first use Double Dice: roll twice, or Move 7) and move exactly that
  many squares, never straight back. You may stop early on an event chip, the item chip,
  the exit door (with a key) or a sealed door (with a Pickaxe: it breaks).
- Ending on other humans: you go on top, steal a random item from each, they lose a turn.
- Ghosts: each rolls and makes half the roll (rounded up) moves. A move SLIDES in one
  direction until the next square is a wall, a sealed door, the exit door, a chip or the
  edge (water and open doors do not stop it); a slide onto a human captures. A wall one
  square thick can be passed for two moves. 'ghosts' shows where they can get next turn.
- Captured: off the map, your items confiscated; a 6 brings you back at the restart
  square R. A Cross banishes the ghost instead. The item chip ($$) gives the
  confiscated items to whoever ends a move on it.
- The ghost player wins when the rounds run out."""

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
    """Lines telling ``viewer`` what the step did besides the action itself: the event
    card drawn, items got and stolen, humans captured, returned and moved by the map,
    ghosts appearing, sliding (:func:`slide_line`) and banished, the item chip, a new
    round, the dice, the end. ``before``/``after`` are the (1,) States around the step."""
    b, a = before[0], after[0]
    out = _card_lines(b, a, actor, viewer)
    out += _item_lines(b, a, actor, viewer)
    out += _human_lines(b, a, actor, viewer)
    out += _ghost_lines(before, after, action)
    put = np.argwhere((a["chip"] == ITEM_CHIP) & (b["chip"] != ITEM_CHIP))
    if len(put) and int(a["mapv"]) == int(b["mapv"]):
        out.append(f"the item chip is put on {_sq(put[0])}")
    if int(a["round"]) > int(b["round"]) and int(a["status"]) == Status.PLAYING:
        out.append(f"round {int(a['round']) + 1} of {int(a['cfg_max_rounds'])}")
    out += _dice_lines(b, a, action, viewer)
    if int(b["status"]) == Status.PLAYING and int(a["status"]) != Status.PLAYING:
        out.append(f"game over: {end_text(after)}")
    return out


def end_text(state: np.ndarray, i: int = 0) -> str:
    """How the finished game of env ``i`` ended: who escaped, or that the rounds ran out."""
    e = state[i]
    if int(e["status"]) == Status.HUMAN_WIN:
        team = " (team game: every human wins)" if e["cfg_team"] else ""
        return f"human_{int(e['winner'])} escaped through the exit door{team}"
    return f"{int(e['cfg_max_rounds'])} rounds were played, the ghost player wins"


def _card_lines(b, a, actor: int, viewer: int) -> list[str]:
    """The event card drawn (an item card's kind stays hidden from the other seats)."""
    if int(a["deck_n"]) >= int(b["deck_n"]):
        return []
    card = int(a["last_card"])
    if card != int(b["last_card"]) and card >= 0 and card < FIRST_ITEM:
        why = _CARD_WHY.get(CARD_NAMES[card], "")
        return [
            f"{_seat(a, actor, viewer)} drew the event card {CARD_NAMES[card]}" + (f": {why}" if why else "")
        ]
    if actor != viewer:
        return [f"{_seat(a, actor, viewer)} drew an item card"]
    return []


def _item_lines(b, a, actor: int, viewer: int) -> list[str]:
    """Items got (the viewer's own by kind, others' as counts) and steals."""
    out = []
    gained = {}
    for h in range(int(b["cfg_humans"])):
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
                if "Exit Key" in kinds:
                    out.append(
                        f"with the Exit Key the exit door {_exit_square(a)} is open to you: end a move on it to win"
                    )
            elif int(a["deck_n"]) == int(b["deck_n"]):
                out.append(f"{_seat(a, h, viewer)} got {d} item{'s' if d > 1 else ''}")
        elif d < 0 and not a["captured"][h]:
            used = int(a["used"].sum()) - int(b["used"].sum())
            if used < -d:
                taker = next((k for k in gained if k != h), actor)
                out.append(f"{_seat(a, taker, viewer)} took an item from {_seat(a, h, viewer)}")
    return out


def _human_lines(b, a, actor: int, viewer: int) -> list[str]:
    """Lost turns, captures, returns on a 6, entries, humans moved by the map."""
    out = []
    for h in range(int(b["cfg_humans"])):
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
    return out


def _ghost_lines(before: np.ndarray, after: np.ndarray, action: int) -> list[str]:
    """Ghosts appearing, banished, sliding or passing a wall (named), moved by the map."""
    b, a = before[0], after[0]
    out = []
    for g in range(MAX_GHOSTS):
        if a["gon"][g] and not b["gon"][g]:
            out.append(f"ghost g{g + 1} appeared at {_sq(a['gpos'][g])}")
        elif b["gon"][g] and not a["gon"][g]:
            out.append(f"ghost g{g + 1} was banished by a Cross")
        elif a["gon"][g] and tuple(a["gpos"][g]) != tuple(b["gpos"][g]):
            moved = SLIDE_OFFSET <= action < CHIP_OFFSET and g == int(b["ghost_idx"])
            out.append(
                slide_line(before, after, g, action)
                if moved
                else f"ghost g{g + 1} now at {_sq(a['gpos'][g])}"
            )
    return out


_STOPS = {WALL: "a wall", EXIT: "the exit door"}


def _obstacle(e, r: int, c: int) -> str:
    """What stops a ghost before the square (r, c) (rules' ``ghost_free_r`` is False
    there): the map's edge, a wall, the exit door, a sealed door, a chip."""
    if not in_map(r, c):
        return "the map's edge"
    k = int(e["cell"][r, c])
    if k in _STOPS:
        return _STOPS[k]
    if is_sealed(k):
        return "a sealed door"
    chip = int(e["chip"][r, c])
    if chip:
        return "the event chip" if chip == EVENT_CHIP else "the item chip"
    return "an obstacle"


def slide_line(before: np.ndarray, after: np.ndarray, g: int, action: int) -> str:
    """Ghost ``g``'s move ``action`` named: a slide (where it started, where it stopped,
    and what stopped it: the obstacle beyond, or the human it caught) or a wall pass."""
    b, a = before[0], after[0]
    start, end = _sq(b["gpos"][g]), _sq(a["gpos"][g])
    if action >= PASS_OFFSET:
        d = action - PASS_OFFSET
        return f"ghost g{g + 1} passed the wall {DIR_NAMES[d]} from {start} to {end} (two moves)"
    d = action - SLIDE_OFFSET
    r, c = int(a["gpos"][g, 0]), int(a["gpos"][g, 1])
    caught = [
        f"human_{h}"
        for h in range(int(a["cfg_humans"]))
        if (int(b["hpos"][h, 0]), int(b["hpos"][h, 1])) == (r, c)
    ]
    if caught:
        why = f"onto {', '.join(caught)}: contact"
    else:
        why = f"stopped by {_obstacle(a, r + int(DR[d]), c + int(DC[d]))}"
    return f"ghost g{g + 1} slid {DIR_NAMES[d]} from {start} to {end}, {why}"


def _dice_lines(b, a, action: int, viewer: int) -> list[str]:
    """The die of the human about to move, and of the ghost about to act."""
    if int(a["status"]) != Status.PLAYING:
        return []
    out = []
    ph = int(a["phase"])
    if ph == Phase.MOVE and (int(b["phase"]) != Phase.MOVE or int(b["turn_seat"]) != int(a["turn_seat"])):
        who = _seat(a, int(a["turn_seat"]), viewer)
        verb = (
            f"move{'' if who == 'you' else 's'} 7 (Move 7)"
            if action == ITEM_MOVE7
            else f"rolled {int(a['roll'])}"
        )
        out.append(f"{who} {verb}")
    if ph == Phase.GHOST and (int(b["phase"]) != Phase.GHOST or int(b["ghost_idx"]) != int(a["ghost_idx"])):
        out.append(
            f"ghost g{int(a['ghost_idx']) + 1} rolled {int(a['roll'])}: {int(a['moves_left'])} move"
            f"{'s' if int(a['moves_left']) != 1 else ''} (half the roll, rounded up)"
        )
    return out


GHOST_MOST_MOVES = ghost_moves_for_roll(DIE_SIDES)
"""Moves of a ghost's best roll (:func:`~exitnow_envs.rules.common.ghost_moves_for_roll`)."""


def _rolls_for(moves: int) -> str:
    """The rolls that give a ghost at least ``moves`` moves, in words ("a roll of 5 or 6")."""
    rolls = [r for r in range(1, DIE_SIDES + 1) if ghost_moves_for_roll(r) >= moves]
    if len(rolls) == DIE_SIDES:
        return "any roll"
    if len(rolls) == 2:
        return f"a roll of {rolls[0]} or {rolls[1]}"
    return f"a roll of {rolls[0]} or more"


_MOVES_ROLL = {m: _rolls_for(m) for m in range(1, GHOST_MOST_MOVES + 1)}


def ghost_reach(state: np.ndarray, g: int) -> dict[tuple[int, int], int]:
    """Where ghost ``g`` can get on its next turn: ``{square: fewest moves}`` over every
    sequence of up to ``GHOST_MOST_MOVES`` moves, each made by the rules' ``move_ghost_r``
    on a copy of the State (slides, wall passes, no straight reversal, a slide stopping
    on a human it catches). Empty for a ghost not on the map."""
    if not state[0]["gon"][g]:
        return {}
    start = state.copy()
    start["ghost_idx"][0], start["moves_left"][0], start["last_dir"][0] = g, GHOST_MOST_MOVES, -1
    reach: dict[tuple[int, int], int] = {}
    todo = [start]
    while todo:
        st = todo.pop()
        bits = int(at(ghost_moves_r, st, 0))
        for k in range(8):
            if not bits >> k & 1:
                continue
            nxt = st.copy()
            at(move_ghost_r, nxt, 0, (SLIDE_OFFSET if k < 4 else PASS_OFFSET) + k % 4)
            sq = (int(nxt["gpos"][0, g, 0]), int(nxt["gpos"][0, g, 1]))
            used = GHOST_MOST_MOVES - int(nxt["moves_left"][0])
            reach[sq] = min(reach.get(sq, used), used)
            if int(nxt["ghost_idx"][0]) == g and int(nxt["moves_left"][0]) > 0:
                todo.append(nxt)
    return reach


def ghosts_text(state: np.ndarray, seat: int) -> str:
    """where each ghost can get on its next turn (squares by the moves they take)"""
    e = state[0]
    lines = []
    for g in range(MAX_GHOSTS):
        if not e["gon"][g]:
            continue
        reach = ghost_reach(state, g)
        if not reach:
            lines.append(f"ghost g{g + 1} at {_sq(e['gpos'][g])} cannot move on its next turn")
            continue
        lines.append(f"ghost g{g + 1} at {_sq(e['gpos'][g])} can get to, on its next turn:")
        for m in range(1, GHOST_MOST_MOVES + 1):
            squares = sorted(sq for sq, k in reach.items() if k == m)
            if squares:
                lines.append(
                    f"  in {m} move{'s' if m > 1 else ''} ({_MOVES_ROLL[m]}): "
                    + " ".join(f"{r},{c}" for r, c in squares)
                )
    return "\n".join(lines) or "no ghost is on the map (the ghost player rolls for one: a 6 brings it in)"


def _danger_line(state: np.ndarray, seat: int) -> str | None:
    """Which humans a ghost can catch on its next turn (by the fewest moves it needs)."""
    e = state[0]
    n = int(e["cfg_humans"])
    hits = []
    for g in range(MAX_GHOSTS):
        reach = ghost_reach(state, g)
        for h in range(n):
            sq = (int(e["hpos"][h, 0]), int(e["hpos"][h, 1]))
            if sq in reach and not e["captured"][h]:
                who = "you" if h == seat else f"human_{h}"
                hits.append(f"g{g + 1} can catch {who} ({_MOVES_ROLL[reach[sq]]})")
    if not hits:
        return None
    return "ghost reach next turn: " + "; ".join(hits) + " ('ghosts' lists every square)"


def table_view(state: np.ndarray, options, seat: int | None) -> str:
    """The table without the legend (shown once at the start, and by ``legend``), with
    the humans a ghost can catch on its next turn."""
    text = render_ansi(state, options, seat=seat, legend=False)
    danger = (
        _danger_line(state, seat) if seat is not None and int(state[0]["status"]) == Status.PLAYING else None
    )
    return text + (f"\n{danger}" if danger else "")


def legend_text(state: np.ndarray, seat: int) -> str:
    """the map's signs"""
    return LEGEND


COMMANDS = {"legend": legend_text, "ghosts": ghosts_text}


def intro(state: np.ndarray, seat: int) -> list[str]:
    """Shown once at the start: the legend, and how to win (the Exit Key)."""
    return [
        LEGEND,
        "To escape you need an Exit Key: end a move on an event chip (??) to draw an event card; 2 of the "
        f"17 are Exit Keys. Then end a move on the exit door {_exit_square(state[0])}.",
    ]


def _exit_square(e) -> str:
    r, c = find_kind_r(e, EXIT)
    return f"({int(r)}, {int(c)})"


def action_group(state: np.ndarray, action: int) -> str:
    """The heading a legal move is listed under: the moves that use an item (Double Dice,
    Move 7; a square reached with the Exit Key or a Pickaxe) apart from the others."""
    if action < DEST_OFFSET:
        return "before rolling: roll, or use an item (double: Double Dice, move7: Move 7)"
    if action < CROSS_NO:
        r, c = divmod(action - DEST_OFFSET, MAP)
        k = int(state[0]["cell"][r, c])
        if k == EXIT:
            return "move, using your Exit Key: the exit door (you win)"
        if is_sealed(k):
            return "move, using your Pickaxe: it breaks the sealed door and your move ends there"
        return "move: the square to end your move on"
    if action <= CROSS_YES:
        return "a ghost reached you: use a Cross (banish it) or not"
    return action_name(action).split(" ")[0] + " " + action_name(action).split(" ")[1]


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
        r, c = divmod(action - DEST_OFFSET, MAP)
        if (
            int(e["cell"][r, c]) == EXIT
            and seat < int(e["cfg_humans"])
            and not e["items"][seat, ITEM_NAMES.index("Exit Key")]
        ):
            return "the exit door opens only with an Exit Key: end moves on event chips (??) to draw one (2 of 17 cards)"
        return f"that square is not the end of a walk of {int(e['roll'])} from where you stand"
    if ph == Phase.ITEM and action != 0:
        return "you do not hold that item"
    if ph == Phase.CROSS and action == CROSS_YES:
        return "you hold no Cross"
    if ph == Phase.GHOST:
        return "the ghost cannot move that way now" if action >= SLIDE_OFFSET else ""
    return "the rules do not allow it now"
