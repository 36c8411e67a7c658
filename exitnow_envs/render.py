"""Rendering of Exit Now (pure: state in, text or image out).

* :func:`render_ansi`: the map as text, two characters a square (legend printed below),
  plus the turn, the pieces, public item counts and the event deck size.
* :func:`render_rgb`: an ``(H, W, 3)`` uint8 image of the map drawn with NumPy only.
"""

from __future__ import annotations

import numpy as np

from .spec import (
    CARD_NAMES,
    DOOR_A,
    DOOR_C,
    EVENT_CHIP,
    EXIT,
    FLOOR,
    GHOST_START,
    ITEM_CHIP,
    ITEM_NAMES,
    MAP,
    PLACE,
    RESTART,
    SEALED_A,
    SEALED_C,
    START,
    WALL,
    WATER,
    Phase,
    Status,
)

_SQUARE_TEXT = {
    FLOOR: " .",
    WALL: "##",
    WATER: "~~",
    EXIT: "EE",
    PLACE: " o",
    START: " S",
    RESTART: " R",
    GHOST_START: " G",
}
LEGEND = (
    "legend: ## wall  ~~ water  EE exit  ?? event chip  $$ item chip  o chip place  "
    "A/B/C door  A# sealed door  S start  R restart  G ghost start  h0.. humans (top shown, +n more)  "
    "g1.. ghosts"
)


def _square(e, r: int, c: int) -> str:
    k = int(e["cell"][r, c])
    if DOOR_A <= k <= DOOR_C:
        return " " + "ABC"[k - DOOR_A]
    if SEALED_A <= k <= SEALED_C:
        return "ABC"[k - SEALED_A] + "#"
    chip = int(e["chip"][r, c])
    if chip == EVENT_CHIP:
        return "??"
    if chip == ITEM_CHIP:
        return "$$"
    return _SQUARE_TEXT[k]


def render_ansi(state: np.ndarray, options=None, i: int = 0, seat: int | None = None) -> str:
    """The game of env ``i`` as text (the map, then one line per seat, then the status).

    Shows only public information (item counts, not kinds); with ``seat`` a human's own
    item kinds are added (a player's view)."""
    e = state[i]
    n = int(e["cfg_humans"])
    grid = [[_square(e, r, c) for c in range(MAP)] for r in range(MAP)]
    stacks: dict[tuple[int, int], list[int]] = {}
    for h in range(n):
        r, c = int(e["hpos"][h, 0]), int(e["hpos"][h, 1])
        if r >= 0:
            stacks.setdefault((r, c), []).append(h)
    for (r, c), hs in stacks.items():
        top = max(hs, key=lambda h: int(e["hheight"][h]))
        grid[r][c] = f"h{top}" if len(hs) == 1 else f"{top}+"
    for g in range(3):
        if e["gon"][g]:
            grid[int(e["gpos"][g, 0])][int(e["gpos"][g, 1])] = f"g{g + 1}"
    lines = [
        f"Exit Now — round {int(e['round']) + 1}/{int(e['cfg_max_rounds'])}, layout {int(e['layout'])}, "
        f"event deck {int(e['deck_n'])}, confiscated {int(e['confiscated'].sum())}, "
        f"used {', '.join(f'{ITEM_NAMES[k]} {int(v)}' for k, v in enumerate(e['used']) if v) or 'none'}"
    ]
    lines += ["".join(row) for row in grid]
    status = int(e["status"])
    for h in range(n):
        mark = "▶" if status == 0 and int(e["current"]) == h else " "
        if e["captured"][h]:
            where = "captured"
        elif int(e["hpos"][h, 0]) < 0:
            where = "not entered"
        else:
            where = f"at ({int(e['hpos'][h, 0])}, {int(e['hpos'][h, 1])})"
        skip = ", loses next turn" if e["skip"][h] else ""
        count = int(e["items"][h].sum())
        held = f"{count} item{'' if count == 1 else 's'}"
        if seat == h and e["items"][h].sum():
            held += (
                " (" + ", ".join(f"{ITEM_NAMES[k]} x{int(v)}" for k, v in enumerate(e["items"][h]) if v) + ")"
            )
        lines.append(f"{mark} human_{h}: {where}, {held}{skip}")
    mark = "▶" if status == 0 and int(e["current"]) == n else " "
    ghosts = ", ".join(
        f"g{g + 1} at ({int(e['gpos'][g, 0])}, {int(e['gpos'][g, 1])})" for g in range(3) if e["gon"][g]
    )
    lines.append(f"{mark} ghost_0: {ghosts or 'no ghost on the map'}")
    if status == Status.PLAYING:
        ph = Phase(int(e["phase"]))
        extra = ""
        if ph == Phase.MOVE:
            extra = f" (move {int(e['roll'])})"
        elif ph == Phase.GHOST:
            extra = (
                f" (ghost {int(e['ghost_idx']) + 1}, die {int(e['roll'])}, moves left {int(e['moves_left'])})"
            )
        lines.append(f"decision: {ph.name.lower()}{extra}")
    elif status == Status.HUMAN_WIN:
        lines.append(f"game over — human_{int(e['winner'])} escaped through the exit door")
    else:
        lines.append("game over — the ghost wins (rounds exhausted)")
    if int(e["last_card"]) >= 0:
        lines.append(f"last action card: {CARD_NAMES[int(e['last_card'])]}")
    lines.append(LEGEND)
    return "\n".join(lines)


_COLORS = {
    FLOOR: (222, 214, 196),
    WALL: (60, 52, 48),
    WATER: (90, 140, 210),
    EXIT: (40, 170, 70),
    PLACE: (222, 214, 196),
    START: (250, 240, 150),
    RESTART: (250, 200, 120),
    GHOST_START: (170, 150, 200),
}
_DOOR = (150, 95, 40)
_SEALED = (95, 50, 20)
_HUMAN_COLORS = ((220, 40, 40), (40, 90, 220), (240, 160, 0), (30, 160, 160), (200, 60, 200))
_GHOST = (250, 250, 250)
_GHOST_EDGE = (30, 30, 30)


def render_rgb(state: np.ndarray, i: int = 0, cell: int = 16) -> np.ndarray:
    """An image of env ``i``'s map: ``(21 * cell, 21 * cell, 3)`` uint8.

    Squares by kind (wall dark, water blue, exit green, doors brown with a light bar when
    open and a dark bar when sealed, 1-3 dots below for A, B, C), event chips as yellow diamonds, the item chip as a gold square, humans as
    coloured discs (human_0 red, 1 blue, 2 orange, 3 teal, 4 magenta; stacked humans in
    quarters), ghosts as white discs with a dark ring and 1-3 dots for their number.
    """
    e = state[i]
    size = MAP * cell
    img = np.zeros((size, size, 3), np.uint8)
    yy, xx = np.mgrid[0:cell, 0:cell]
    cy = cx = (cell - 1) / 2
    dist = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
    disc = dist <= cell * 0.38
    ring = (dist <= cell * 0.45) & ~disc
    diamond = (np.abs(yy - cy) + np.abs(xx - cx)) <= cell * 0.35
    small = (np.abs(yy - cy) <= cell * 0.28) & (np.abs(xx - cx) <= cell * 0.28)
    for r in range(MAP):
        for c in range(MAP):
            k = int(e["cell"][r, c])
            if DOOR_A <= k <= DOOR_C:
                col = _DOOR
            elif SEALED_A <= k <= SEALED_C:
                col = _SEALED
            else:
                col = _COLORS[k]
            tile = img[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell]
            tile[:] = col
            tile[0, :] = tile[0, :] * 0.85
            tile[:, 0] = tile[:, 0] * 0.85
            if SEALED_A <= k <= SEALED_C:
                tile[cell // 2 - 1 : cell // 2 + 1, :] = (20, 10, 0)
            if DOOR_A <= k <= DOOR_C:
                tile[cell // 2 - 1 : cell // 2 + 1, cell // 4 : 3 * cell // 4] = (250, 230, 180)
            if DOOR_A <= k <= SEALED_C:  # door letter as 1, 2 or 3 light dots (A, B, C)
                letter = (k - DOOR_A) % 3
                for j in range(letter + 1):
                    x = int(cell * (0.25 + 0.22 * j))
                    tile[cell - 5 : cell - 3, x : x + 2] = (250, 230, 180)
            chip = int(e["chip"][r, c])
            if chip == EVENT_CHIP:
                tile[diamond] = (240, 200, 20)
            elif chip == ITEM_CHIP:
                tile[small] = (200, 160, 30)
                tile[cell // 2, cell // 4 : 3 * cell // 4] = (90, 60, 0)
    n = int(e["cfg_humans"])
    stacks: dict[tuple[int, int], list[int]] = {}
    for h in range(n):
        r, c = int(e["hpos"][h, 0]), int(e["hpos"][h, 1])
        if r >= 0:
            stacks.setdefault((r, c), []).append(h)
    for (r, c), hs in stacks.items():
        tile = img[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell]
        hs = sorted(hs, key=lambda h: int(e["hheight"][h]))
        if len(hs) == 1:
            tile[disc] = _HUMAN_COLORS[hs[0]]
        else:
            for j, h in enumerate(hs[-4:]):
                quad = disc & ((yy >= cy) == (j // 2 == 1)) & ((xx >= cx) == (j % 2 == 1))
                tile[quad] = _HUMAN_COLORS[h]
    for g in range(3):
        if e["gon"][g]:
            r, c = int(e["gpos"][g, 0]), int(e["gpos"][g, 1])
            tile = img[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell]
            tile[disc] = _GHOST
            tile[ring] = _GHOST_EDGE
            for j in range(g + 1):
                x = int(cell * (0.3 + 0.2 * j))
                tile[cell // 2 - 1 : cell // 2 + 1, x : x + 2] = _GHOST_EDGE
    return img
