"""Text rendering of Exhaust's table (pure: state in, string out).

The combo areas are drawn as on the table: one row per area, the cards played onto it
to the right, left to right in play order, with ``|`` between plays.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.contract.svg import THEME, Svg, banner, card, card_back, check_view_seat, pile, seat_label

from .spec import (
    COPY_KIND,
    MAX_SINGLES,
    NPC_SEAT,
    NUM_AREAS,
    NUM_KINDS,
    NUM_NUMBERS,
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


def _count(size: int) -> str:
    return f"{size} card{'' if size == 1 else 's'}"


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
            info = f"last play {top} cards" if top else "empty (3+)"
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
            # the acting seat's selection is shown apart, on its own line below
            selecting = k == int(e["current"]) and not over and int(e["sel_n"])
            hand = e["hand"][k] - (e["sel"] if selecting else 0)
            count = f"{size} in hand, {int(e['sel_n'])} selected" if selecting else _count(size)
            lines.append(f"{mark} {_seat_name(e, k)} ({count}{extra}): {_cards(hand)}")
        else:
            lines.append(f"{mark} {_seat_name(e, k)} ({_count(size)}{extra})")
    if not over:
        # the selection in progress is the acting seat's own: others see it once cast
        if int(e["sel_n"]) and (seat is None or seat == int(e["current"])):
            lines.append(f"selection ({int(e['sel_n'])} of the hand's cards): {_cards(e['sel'])}")
    else:
        loser = int(e["loser"])
        lines.append(f"game over — {_seat_name(e, loser)} is exhausted and loses")
    return "\n".join(lines)


# --- picture (SVG; rasterized by tabletop_core.contract.svg) ------------------------------------------
SVG_WIDTH = 960
SVG_HEIGHT = 680
"""Size of :func:`render_svg`'s picture in pixels, for every option (``rgb_array`` is
``(SVG_HEIGHT, SVG_WIDTH, 3)``)."""

COLOUR_INK = ("#c0392b", "#2c5fc4", "#b7860b", "#23883d")  # red, blue, yellow, green
COLOUR_TINT = ("#fbdcd8", "#d9e4fb", "#fbefc6", "#d6f0dc")
COPY_INK = "#6f42a0"
COPY_TINT = "#e9def6"
_SVG_MODE = {Mode.STANDARD: "standard", Mode.LONG: "long game", Mode.SOLO: "solo against the NPC"}


def _svg_seat_name(e, k: int) -> str:
    return "NPC" if int(e["cfg_mode"]) == Mode.SOLO and k == NPC_SEAT else f"player_{k}"


def _kind_card(svg, x, y, w, h, kind: int, edge=None) -> None:
    """One spell card: the number in its colour on a tinted face (``C`` for a copy)."""

    if kind == COPY_KIND:
        card(
            svg, x, y, w, h, "C", colour=COPY_INK, fill=COPY_TINT, edge=edge, edge_width=2.5 if edge else 1.2
        )
    else:
        col = kind // NUM_NUMBERS
        card(
            svg,
            x,
            y,
            w,
            h,
            str(kind % NUM_NUMBERS + 1),
            colour=COLOUR_INK[col],
            fill=COLOUR_TINT[col],
            edge=edge,
            edge_width=2.5 if edge else 1.2,
        )


def _kinds(counts) -> list[int]:
    out: list[int] = []
    for k in range(NUM_KINDS):
        out += [k] * int(counts[k])
    return out


def render_svg(state: np.ndarray, options=None, seat: int | None = None, i: int = 0) -> str:
    """The table of env ``i`` as an SVG document (``SVG_WIDTH`` x ``SVG_HEIGHT``).

    Drawn: every combo area in use (its rule, its top number or last play's size, and the
    cards played onto it in play order, a gap between plays), the Time Magic pile, the
    replenishment deck face down (solo: the NPC deck too), each seat's hand (spell cards in
    their colours — red, blue, yellow, green, ``C`` a copy), Time Magic and Exhaust cards,
    the acting seat's selection apart from its hand, and the loser once the game is over.

    Args:
        state: the State record array.
        options: unused (the options live in the state).
        seat: ``None`` for the omniscient view; a seat for that player's view, with what
            its observation shows: the other hands as face-down backs, the selection only
            when that seat is acting (solo: the NPC's open hand is public).
        i: env index in the batch.

    Raises:
        ValueError: if ``seat`` is not a seat of this game's agents.
    """

    e = state[i]
    mode = Mode(int(e["cfg_mode"]))
    n = int(e["cfg_seats"])
    agents = int(e["cfg_agents"])
    check_view_seat(seat, agents)
    singles = int(e["cfg_singles"])
    playing = int(e["status"]) == Status.PLAYING
    cur = int(e["current"])
    svg = Svg(SVG_WIDTH, SVG_HEIGHT)
    head = f"Exhaust — {_SVG_MODE[mode]}"
    if mode != Mode.SOLO:
        head += f", {n} players"
    if mode == Mode.LONG:
        head += f", round {int(e['round']) + 1}"
    head += f", turn {int(e['turn']) + 1}"
    svg.text(16, 28, head, size=20, weight="bold")
    view = "omniscient view" if seat is None else f"player_{int(seat)}'s view"
    svg.text(SVG_WIDTH - 16, 28, view, size=13, fill=THEME.dim, anchor="end")
    _svg_legend(svg)
    _svg_areas(singles, e, svg)
    _svg_piles(svg, e, mode)
    _svg_seats(playing, seat, cur, n, mode, e, svg)
    return svg.to_string()


def _svg_legend(svg):
    """The legend of the area kinds."""

    lx = 470
    for c, name in enumerate(("red", "blue", "yellow", "green")):
        svg.rect(lx, 16, 12, 14, fill=COLOUR_TINT[c], stroke=COLOUR_INK[c], stroke_width=2, rx=2)
        svg.text(lx + 16, 28, name, size=11, fill=THEME.dim)
        lx += 62
    svg.rect(lx, 16, 12, 14, fill=COPY_TINT, stroke=COPY_INK, stroke_width=2, rx=2)
    svg.text(lx + 16, 28, "C copy", size=11, fill=THEME.dim)


def _svg_areas(singles, e, svg):
    """The combo areas: kind, cards on it, top."""

    y = 44
    cw, ch = 20, 23
    for a in range(NUM_AREAS):
        if a < MAX_SINGLES and a >= singles:
            continue
        top = int(e["area_top"][a])
        svg.rect(12, y, 716, ch + 4, fill=THEME.panel, rx=5)
        svg.text(20, y + 18, area_label(a, singles), size=12, weight="bold")
        if a <= 6:
            info = f"above {top}" if top else "empty"
        else:
            info = f"more than {top} cards" if top else "3 or more cards"
        svg.text(158, y + 18, info, size=11, fill=THEME.dim)
        count = int(e["area_n"][a])
        plays = int(e["area_start"][a][:count].sum())
        span = 728 - 262 - cw - 6 * max(0, plays - 1)
        step = min(cw + 2, span / max(1, count - 1)) if count > 1 else cw + 2
        x = 262.0
        for j in range(count):
            if e["area_start"][a, j] and j > 0:
                x += 6
            _kind_card(svg, x, y + 2, cw, ch, int(e["area_cards"][a, j]))
            x += step
        y += ch + 6


def _svg_piles(svg, e, mode):
    """Time Magic pile, replenishment and NPC decks."""

    svg.rect(742, 44, 206, 250, fill=THEME.panel, rx=8)
    tm = int(e["tm_pile"])
    card(svg, 758, 60, 56, 80, str(tm), colour="#ffffff", fill="#5b3e8f", edge="#d9c8f5")
    svg.text(786, 156, "Time Magic", size=11, fill=THEME.dim, anchor="middle")
    pile(svg, 866, 60, 56, 80, int(e["repl_n"]), label="replenishment")
    if mode == Mode.SOLO:
        pile(svg, 812, 188, 56, 80, int(e["npc_n"]), label="NPC deck")


def _svg_seats(playing, seat, cur, n, mode, e, svg):
    """A row per seat: hand (or its size from another seat's view), Time Magic, Exhaust cards, the loser."""

    sel_visible = playing and (seat is None or int(seat) == cur)
    y = 342
    hw, hh = 30, 42
    for k in range(n):
        npc = mode == Mode.SOLO and k == NPC_SEAT
        acting = playing and k == cur and not npc
        size = int(e["hand_n"][k])
        svg.rect(
            12,
            y - 4,
            SVG_WIDTH - 24,
            hh + 16,
            fill=THEME.panel,
            rx=8,
            stroke=THEME.highlight if acting else None,
            stroke_width=2 if acting else None,
        )
        detail = f"{size} card{'s' if size != 1 else ''} · {int(e['tm'][k])} Time Magic"
        if mode == Mode.LONG and int(e["exhaust"][k]):
            detail += f" · {int(e['exhaust'][k])} Exhaust" + (" (face up)" if e["exhaust_up"][k] else "")
        if npc:
            detail = f"open hand {size} · {int(e['tm'][k])} Time Magic"
        seat_label(svg, 22, y + 18, _svg_seat_name(e, k), acting, detail, size=13)
        visible = npc or seat is None or int(seat) == k
        x = 200.0
        if visible:
            hand = e["hand"][k].astype(np.int64)
            sel = e["sel"].astype(np.int64) if (acting and sel_visible) else np.zeros_like(hand)
            rest = _kinds(hand - sel)
            chosen = _kinds(sel)
            room = SVG_WIDTH - 24 - x - (len(chosen) * (hw + 4) + 90 if chosen else 0)
            step = min(hw + 4, room / max(1, len(rest)))
            for kind in rest:
                _kind_card(svg, x, y + 2, hw, hh, kind)
                x += step
            if chosen:
                x += 16
                svg.text(x, y + 26, "selected", size=11, fill=THEME.highlight)
                x += 56
                for kind in chosen:
                    _kind_card(svg, x, y + 2, hw, hh, kind, edge=THEME.highlight)
                    x += hw + 4
        else:
            step = min(hw + 4, (SVG_WIDTH - 24 - x) / max(1, size))
            for _ in range(size):
                card_back(svg, x, y + 2, hw, hh)
                x += step
        y += hh + 18
    if not playing:
        loser = int(e["loser"])
        banner(svg, f"game over — {_svg_seat_name(e, loser)} is exhausted and loses")
