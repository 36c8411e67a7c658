"""Rendering of Exit Now (pure: state in, text or image out).

* :func:`render_ansi`: the map as text, two characters a square (legend printed below),
  plus the turn, the pieces, public item counts and the event deck size.
* :func:`render_rgb`: an ``(H, W, 3)`` uint8 image of the map drawn with NumPy only.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.contract.svg import THEME, Svg, pile

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
    "g1.. ghosts\n"
    "        map: row numbers left and right, column numbers above and below (type a square as 'row col')\n"
    "        confiscated items: taken from captured humans, face down (ending on the item chip takes them all)"
    "  used items: items spent (face up: Double Dice, Move 7, ...)"
)


def _human_stacks(e, n: int) -> dict[tuple[int, int], list[int]]:
    """The squares holding humans, each with its humans bottom to top (``hheight``)."""
    stacks: dict[tuple[int, int], list[int]] = {}
    for h in range(n):
        r, c = int(e["hpos"][h, 0]), int(e["hpos"][h, 1])
        if r >= 0:
            stacks.setdefault((r, c), []).append(h)
    return {sq: sorted(hs, key=lambda h: int(e["hheight"][h])) for sq, hs in stacks.items()}


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


def _labelled(grid: list[list[str]]) -> list[str]:
    """The map's rows with the row number on both sides and the column numbers above
    and below (a square is typed ``row col``)."""
    n = len(grid[0])
    tens = "   " + "".join(f"{c // 10 if c >= 10 else ' ':>2}" for c in range(n))
    units = "   " + "".join(f"{c % 10:>2}" for c in range(n))
    rows = [f"{r:>2} " + "".join(row) + f" {r}" for r, row in enumerate(grid)]
    return [tens, units, *rows, units, tens]


def render_ansi(
    state: np.ndarray, options=None, i: int = 0, seat: int | None = None, legend: bool = True
) -> str:
    """The game of env ``i`` as text (the map, then one line per seat, then the status,
    then :data:`LEGEND` unless ``legend`` is False: terminal play shows it once).

    Shows only public information (item counts, not kinds); with ``seat`` a human's own
    item kinds are added (a player's view)."""
    e = state[i]
    n = int(e["cfg_humans"])
    grid = [[_square(e, r, c) for c in range(MAP)] for r in range(MAP)]
    stacks = _human_stacks(e, n)
    for (r, c), hs in stacks.items():
        top = hs[-1]
        grid[r][c] = f"h{top}" if len(hs) == 1 else f"{top}+"
    for g in range(3):
        if e["gon"][g]:
            grid[int(e["gpos"][g, 0])][int(e["gpos"][g, 1])] = f"g{g + 1}"
    rounds = int(e["cfg_max_rounds"])
    lines = [
        f"Exit Now — round {min(int(e['round']) + 1, rounds)}/{rounds}, layout {int(e['layout'])}, "
        f"event deck {int(e['deck_n'])}, confiscated items {int(e['confiscated'].sum())}, used items "
        f"{', '.join(f'{ITEM_NAMES[k]} {int(v)}' for k, v in enumerate(e['used']) if v) or 'none'}"
    ]
    lines += _labelled(grid)
    lines += _seat_lines(e, n, seat)
    lines.append(_status_line(e))
    if int(e["last_card"]) >= 0:
        lines.append(f"last action card: {CARD_NAMES[int(e['last_card'])]}")
    if legend:
        lines.append(LEGEND)
    return "\n".join(lines)


def _seat_lines(e, n: int, seat: int | None) -> list[str]:
    """A line per human (where, items, a lost turn) and one for the ghost player."""
    status = int(e["status"])
    lines = []
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
    return lines


def _status_line(e) -> str:
    """The decision to make, or how the game ended."""
    status = int(e["status"])
    if status == Status.PLAYING:
        ph = Phase(int(e["phase"]))
        extra = ""
        if ph == Phase.MOVE:
            extra = f" (move {int(e['roll'])})"
        elif ph == Phase.GHOST:
            extra = (
                f" (ghost {int(e['ghost_idx']) + 1}, die {int(e['roll'])}, moves left {int(e['moves_left'])})"
            )
        return f"decision: {ph.name.lower()}{extra}"
    if status == Status.HUMAN_WIN:
        return f"game over — human_{int(e['winner'])} escaped through the exit door"
    return "game over — the ghost wins (rounds exhausted)"


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
            _rgb_tile(
                e, img[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell], r, c, cell, diamond, small
            )
    n = int(e["cfg_humans"])
    stacks = _human_stacks(e, n)
    for (r, c), hs in stacks.items():
        tile = img[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell]
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


def _square_color(k: int):
    """The fill of a square of kind ``k``: one colour for every door, one for every
    sealed door, else the kind's own."""
    if DOOR_A <= k <= DOOR_C:
        return _DOOR
    if SEALED_A <= k <= SEALED_C:
        return _SEALED
    return _COLORS[k]


def _rgb_tile(e, tile, r: int, c: int, cell: int, diamond, small) -> None:
    """One square of :func:`render_rgb` drawn into ``tile`` (its pixels, in place)."""
    k = int(e["cell"][r, c])
    col = _square_color(k)
    tile[:] = col
    tile[0, :] = tile[0, :] * 0.85
    tile[:, 0] = tile[:, 0] * 0.85
    if SEALED_A <= k <= SEALED_C:
        tile[cell // 2 - 1 : cell // 2 + 1, :] = (20, 10, 0)
    if DOOR_A <= k <= DOOR_C:
        tile[cell // 2 - 1 : cell // 2 + 1, cell // 4 : 3 * cell // 4] = (250, 230, 180)
    if DOOR_A <= k <= DOOR_C or SEALED_A <= k <= SEALED_C:  # door letter: 1-3 dots (A-C)
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


# --- picture (SVG; rasterized by tabletop_core.contract.svg) ------------------------------------------
SVG_WIDTH = 900
SVG_HEIGHT = 600
"""Size of :func:`render_svg`'s picture in pixels, for every option (``rgb_array`` is
``(SVG_HEIGHT, SVG_WIDTH, 3)``)."""

_SVG_CELL = 25
_MAP_X, _MAP_Y = 28, 46  # room on the left and above for the row and column numbers


def _rgb(col) -> str:
    r, g, b = (int(v) for v in col)
    return f"#{r:02x}{g:02x}{b:02x}"


def render_svg(state: np.ndarray, options=None, seat: int | None = None, i: int = 0) -> str:
    """The game of env ``i`` as an SVG document (``SVG_WIDTH`` x ``SVG_HEIGHT``).

    Drawn: the map (squares by kind as in :func:`render_rgb`, doors with their letter,
    sealed doors barred, event chips as yellow ``?`` diamonds, the item chip as a gold
    square), humans as numbered discs in their colours (a stack shows its top human and
    ``+n``), ghosts as white discs ``g1``..``g3``; beside it the round, the event deck face
    down, the confiscated and used piles, a line per seat (where each human is, how many
    items it holds, a lost turn), the decision to make, the last action card, and a
    legend.

    Args:
        state: the State record array.
        options: unused (the options live in the state).
        seat: ``None`` for the omniscient view (every human's item kinds and the
            confiscated pile's contents); a seat (humans ``0..n-1``, the ghost player
            ``n``) for that player's view, which shows, as its observation does, only its
            own item kinds and every human's item count.
        i: env index in the batch.

    Raises:
        ValueError: if ``seat`` is not a seat of this game.
    """
    e = state[i]
    n = int(e["cfg_humans"])
    if seat is not None and not 0 <= int(seat) <= n:
        raise ValueError(
            f"seat must be None (omniscient) or 0..{n} (human_0..human_{n - 1}, ghost_0), got {seat!r}"
        )
    status = int(e["status"])
    playing = status == Status.PLAYING
    svg = Svg(SVG_WIDTH, SVG_HEIGHT)
    svg.text(
        14,
        30,
        f"Exit Now — round {min(int(e['round']) + 1, int(e['cfg_max_rounds']))}/{int(e['cfg_max_rounds'])}",
        size=20,
        weight="bold",
    )
    names = [f"human_{h}" for h in range(n)] + ["ghost_0"]
    view = "omniscient view" if seat is None else f"{names[int(seat)]}'s view"
    svg.text(SVG_WIDTH - 14, 30, view, size=13, fill=THEME.dim, anchor="end")
    cs = _SVG_CELL
    _svg_map(e, cs, svg)
    _svg_pieces(n, e, cs, svg)
    pw, px = _svg_panel(cs, svg, e, seat, playing, names, status)
    y = _svg_seats(n, playing, e, svg, px, pw, seat)
    _svg_legend(y, svg, px, pw)
    return svg.to_string()


def _svg_map(e, cs, svg):
    """Squares by kind, door letters, sealed bars, event and item chips; row numbers on the
    left and column numbers above, as a square is typed in terminal play (``row col``)."""
    for k in range(MAP):
        svg.text(_MAP_X - 4, _MAP_Y + k * cs + cs / 2 + 3, str(k), size=8, fill="#8a8a8a", anchor="end")
        svg.text(_MAP_X + k * cs + cs / 2, _MAP_Y - 3, str(k), size=8, fill="#8a8a8a", anchor="middle")
    for r in range(MAP):
        for c in range(MAP):
            _svg_square(e, cs, svg, r, c)
            _svg_chip(e, cs, svg, r, c)


def _svg_square(e, cs, svg, r: int, c: int) -> None:
    """One square by kind, with its door letter (barred when sealed) or sign."""
    k = int(e["cell"][r, c])
    x, y = _MAP_X + c * cs, _MAP_Y + r * cs
    col = _square_color(k)
    svg.rect(x, y, cs, cs, fill=_rgb(col), stroke="#00000033", stroke_width=0.6)
    if DOOR_A <= k <= DOOR_C or SEALED_A <= k <= SEALED_C:
        sealed = k >= SEALED_A
        if sealed:
            svg.line(x + 2, y + cs / 2, x + cs - 2, y + cs / 2, stroke="#140a00", stroke_width=4)
        svg.text(
            x + cs / 2,
            y + cs / 2 + 5,
            "ABC"[(k - DOOR_A) % 3],
            size=13,
            fill="#fae6b4",
            anchor="middle",
            weight="bold",
        )
    elif k == EXIT:
        svg.text(x + cs / 2, y + cs / 2 + 4, "EXIT", size=7, fill="#ffffff", anchor="middle", weight="bold")
    elif k in (START, RESTART, GHOST_START):
        svg.text(
            x + cs / 2,
            y + cs / 2 + 4,
            {START: "S", RESTART: "R", GHOST_START: "G"}[k],
            size=11,
            fill="#5a4a30",
            anchor="middle",
        )
    elif k == PLACE and int(e["chip"][r, c]) == 0:
        svg.circle(x + cs / 2, y + cs / 2, 3, fill="#9c9080")


def _svg_chip(e, cs, svg, r: int, c: int) -> None:
    """The event chip (a yellow ? diamond) or the item chip (a gold $ square) on a square."""
    chip = int(e["chip"][r, c])
    cx, cy = _MAP_X + c * cs + cs / 2, _MAP_Y + r * cs + cs / 2
    if chip == EVENT_CHIP:
        d = cs * 0.4
        svg.polygon(
            [(cx, cy - d), (cx + d, cy), (cx, cy + d), (cx - d, cy)],
            fill="#f0c814",
            stroke="#8a6d00",
            stroke_width=1,
        )
        svg.text(cx, cy + 4, "?", size=11, fill="#5a4500", anchor="middle", weight="bold")
    elif chip == ITEM_CHIP:
        d = cs * 0.32
        svg.rect(cx - d, cy - d, 2 * d, 2 * d, fill="#c8a01e", stroke="#5a3c00", stroke_width=1.2, rx=2)
        svg.text(cx, cy + 4, "$", size=11, fill="#3c2800", anchor="middle", weight="bold")


def _svg_pieces(n, e, cs, svg):
    """Humans (a stack shows its top human and +n) and ghosts."""
    stacks = _human_stacks(e, n)
    for (r, c), hs in stacks.items():
        top = hs[-1]
        cx, cy = _MAP_X + c * cs + cs / 2, _MAP_Y + r * cs + cs / 2
        svg.circle(cx, cy, cs * 0.42, fill=_rgb(_HUMAN_COLORS[top]), stroke="#ffffff", stroke_width=1.5)
        svg.text(cx, cy + 4, str(top), size=11, fill="#ffffff", anchor="middle", weight="bold")
        if len(hs) > 1:
            svg.text(cx + cs * 0.3, cy - cs * 0.25, f"+{len(hs) - 1}", size=9, fill="#000000", weight="bold")
    squares: dict[tuple[int, int], list[int]] = {}
    for g in range(3):
        if e["gon"][g]:
            squares.setdefault((int(e["gpos"][g, 0]), int(e["gpos"][g, 1])), []).append(g)
    for (r, c), gs in squares.items():  # ghosts sharing a square side by side, smaller
        k = len(gs)
        radius = cs * (0.42 if k == 1 else 0.46 / k)
        for j, g in enumerate(gs):
            cx = _MAP_X + c * cs + cs / 2 + (j - (k - 1) / 2) * cs * 0.96 / k
            cy = _MAP_Y + r * cs + cs / 2
            svg.circle(cx, cy, radius, fill=_rgb(_GHOST), stroke=_rgb(_GHOST_EDGE), stroke_width=2)
            size = 10 if k == 1 else 12 - 2.5 * k
            svg.text(
                cx,
                cy + size / 2.5,
                f"g{g + 1}",
                size=size,
                fill=_rgb(_GHOST_EDGE),
                anchor="middle",
                weight="bold",
            )


def _svg_panel(cs, svg, e, seat, playing, names, status):
    """Round, event deck, confiscated and used piles."""
    px = _MAP_X + MAP * cs + 14
    pw = SVG_WIDTH - px - 10
    svg.rect(px, 46, pw, 150, fill=THEME.panel, rx=8)
    pile(svg, px + 12, 58, 40, 58, int(e["deck_n"]), label="event deck")
    conf = int(e["confiscated"].sum())
    svg.text(px + 64, 70, f"confiscated: {conf} (from captured humans)", size=12)
    if seat is None and conf:
        svg.text(
            px + 64,
            86,
            ", ".join(f"{ITEM_NAMES[k]} {int(v)}" for k, v in enumerate(e["confiscated"]) if v),
            size=10,
            fill=THEME.dim,
        )
    used = ", ".join(f"{ITEM_NAMES[k]} {int(v)}" for k, v in enumerate(e["used"]) if v) or "none"
    svg.text(px + 64, 104, f"used: {used} (items spent)", size=11)
    lc = int(e["last_card"])
    svg.text(px + 64, 122, f"last action card: {CARD_NAMES[lc] if lc >= 0 else '-'}", size=11)
    if playing:
        ph = Phase(int(e["phase"]))
        extra = ""
        if ph == Phase.MOVE:
            extra = f": move {int(e['roll'])}"
        elif ph == Phase.GHOST:
            extra = f": g{int(e['ghost_idx']) + 1}, die {int(e['roll'])}, {int(e['moves_left'])} moves left"
        svg.text(
            px + 12,
            150,
            f"{names[int(e['current'])]} decides: {ph.name.lower()}{extra}",
            size=12,
            fill=THEME.highlight,
        )
    elif status == Status.HUMAN_WIN:
        svg.text(
            px + 12,
            150,
            f"game over — human_{int(e['winner'])} escaped!",
            size=13,
            fill=THEME.highlight,
            weight="bold",
        )
    else:
        svg.text(
            px + 12,
            150,
            "game over — the ghost wins (rounds over)",
            size=13,
            fill=THEME.highlight,
            weight="bold",
        )
    if e["cfg_team"]:
        svg.text(px + 12, 170, "team game: every human wins when one escapes", size=10, fill=THEME.dim)
    return pw, px


def _svg_seats(n, playing, e, svg, px, pw, seat):
    """A line per seat, the decision to make and the last action card."""
    y = 214
    for h in range(n + 1):
        acting = playing and int(e["current"]) == h
        svg.rect(
            px,
            y - 14,
            pw,
            40,
            fill=THEME.panel,
            rx=6,
            stroke=THEME.highlight if acting else None,
            stroke_width=2 if acting else None,
        )
        if h < n:
            svg.circle(px + 16, y + 2, 9, fill=_rgb(_HUMAN_COLORS[h]), stroke="#ffffff", stroke_width=1.2)
            svg.text(px + 16, y + 6, str(h), size=10, fill="#ffffff", anchor="middle", weight="bold")
            if e["captured"][h]:
                where = "captured"
            elif int(e["hpos"][h, 0]) < 0:
                where = "not entered"
            else:
                where = f"at ({int(e['hpos'][h, 0])}, {int(e['hpos'][h, 1])})"
            count = int(e["items"][h].sum())
            line = f"{'▶ ' if acting else ''}human_{h} {where} · {count} item{'s' if count != 1 else ''}"
            svg.text(
                px + 32, y + 6, line, size=12, fill=THEME.highlight if acting else THEME.text, weight="bold"
            )
            detail = []
            if (seat is None or int(seat) == h) and count:
                detail.append(
                    ", ".join(f"{ITEM_NAMES[k]} x{int(v)}" for k, v in enumerate(e["items"][h]) if v)
                )
            if e["skip"][h]:
                detail.append("loses next turn")
            if detail:
                svg.text(px + 32, y + 20, " · ".join(detail), size=10, fill=THEME.dim)
        else:
            svg.circle(px + 16, y + 2, 9, fill=_rgb(_GHOST), stroke=_rgb(_GHOST_EDGE), stroke_width=2)
            on = int(e["gon"].sum())
            svg.text(
                px + 32,
                y + 6,
                f"{'▶ ' if acting else ''}ghost_0 · {on} ghost{'s' if on != 1 else ''} on the map",
                size=12,
                fill=THEME.highlight if acting else THEME.text,
                weight="bold",
            )
        y += 44
    return y


def _svg_legend(y, svg, px, pw):
    """The legend."""
    y = max(y, 470)
    svg.text(px, y - 6, "legend", size=12, weight="bold")
    items = [
        (_rgb(_COLORS[WALL]), "wall"),
        (_rgb(_COLORS[WATER]), "water"),
        (_rgb(_COLORS[EXIT]), "exit door"),
        (_rgb(_DOOR), "door A/B/C"),
        (_rgb(_SEALED), "sealed door"),
        ("#f0c814", "? event chip"),
        ("#c8a01e", "$ item chip"),
        (_rgb(_COLORS[START]), "S start"),
        (_rgb(_COLORS[RESTART]), "R restart"),
        (_rgb(_COLORS[GHOST_START]), "G ghost start"),
        (_rgb(_HUMAN_COLORS[0]), "0-4 humans"),
        (_rgb(_GHOST), "g1-g3 ghosts"),
        ("#9c9080", "· empty chip place"),
    ]
    for j, (col, label) in enumerate(items):
        lx = px + (j % 2) * (pw / 2)
        ly = y + (j // 2) * 18
        svg.rect(lx, ly, 12, 12, fill=col, stroke="#000000", stroke_width=0.6, rx=2)
        svg.text(lx + 17, ly + 10, label, size=11)
