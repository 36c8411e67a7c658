"""Text rendering of Exhaust's table (pure: state in, string out).

The combo areas are drawn as on the table: one row per area, the cards played onto it
to the right, left to right in play order, with ``|`` between plays.
"""

from __future__ import annotations

import numpy as np

from .spec import (
    MAX_SINGLES,
    NPC_SEAT,
    NUM_AREAS,
    NUM_KINDS,
    Mode,
    Status,
    area_label,
    card_name,
)

_MODE_TEXT = {Mode.STANDARD: "standard", Mode.LONG: "long game", Mode.SOLO: "solo"}


def _cards(counts) -> str:
    out = []
    for k in range(NUM_KINDS):
        out += [card_name(k)] * int(counts[k])
    return " ".join(out) if out else "-"


def _seat_name(e, k: int) -> str:
    if int(e["cfg_mode"]) == Mode.SOLO and k == NPC_SEAT:
        return "NPC"
    return f"player_{k}"


def render_ansi(state: np.ndarray, options=None, seat: int | None = None, i: int = 0) -> str:
    """The table of env ``i`` as text.

    Args:
        state: the State record array.
        seat: show only this seat's hand (a player's view); ``None`` shows every hand.
    """
    e = state[i]
    mode = Mode(int(e["cfg_mode"]))
    n = int(e["cfg_seats"])
    singles = int(e["cfg_singles"])
    head = f"Exhaust — {_MODE_TEXT[mode]}"
    if mode != Mode.SOLO:
        head += f", {n} players"
    if mode == Mode.LONG:
        head += f", round {int(e['round']) + 1}"
    head += f", turn {int(e['turn']) + 1} | Time Magic pile {int(e['tm_pile'])} | replenishment deck {int(e['repl_n'])}"
    lines = [head]
    for a in range(NUM_AREAS):
        if a < MAX_SINGLES and a >= singles:
            continue
        top = int(e["area_top"][a])
        label = area_label(a, singles)
        if a <= 6:
            info = f"top {top}" if top else "empty"
        else:
            info = f"last {top} cards" if top else "empty (3+)"
        plays = []
        for j in range(int(e["area_n"][a])):
            if e["area_start"][a, j] and j > 0:
                plays.append("|")
            plays.append(card_name(int(e["area_cards"][a, j])))
        lines.append(f"  {label:<18} {info:<13} ▸ {' '.join(plays)}")
    over = int(e["status"]) != Status.PLAYING
    for k in range(n):
        mark = "▶" if k == int(e["current"]) and not over else " "
        size = int(e["hand_n"][k])
        extra = f", {int(e['tm'][k])} Time Magic"
        if mode == Mode.LONG:
            ex = int(e["exhaust"][k])
            extra += f", {ex} Exhaust" + (" (face up)" if e["exhaust_up"][k] else "") if ex else ""
        if mode == Mode.SOLO and k == NPC_SEAT:
            lines.append(f"  NPC ({size} open{extra}, deck {int(e['npc_n'])}): {_cards(e['hand'][k])}")
        elif seat is None or seat == k:
            lines.append(f"{mark} {_seat_name(e, k)} ({size} cards{extra}): {_cards(e['hand'][k])}")
        else:
            lines.append(f"{mark} {_seat_name(e, k)} ({size} cards{extra})")
    if not over:
        # the selection in progress is the acting seat's own: others see it once cast
        if int(e["sel_n"]) and (seat is None or seat == int(e["current"])):
            lines.append(f"selection: {_cards(e['sel'])}")
    else:
        loser = int(e["loser"])
        lines.append(f"game over — {_seat_name(e, loser)} is exhausted and loses")
    return "\n".join(lines)
