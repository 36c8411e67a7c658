"""Text rendering of The Game's table (pure: state in, string out)."""

from __future__ import annotations

import numpy as np

from tabletop_core.contract.svg import THEME, Svg, banner, card, card_back, check_view_seat, pile, seat_label
from tabletop_core.kernel.records import at

from .narrate import end_reason, end_text
from .rules import min_plays_now_r
from .spec import FIRE_CARDS, NUM_CARDS, PILE_NAMES, Status


def _card(v: int, on_fire: bool) -> str:
    return f"{v}🔥" if on_fire and v in FIRE_CARDS else str(v)


def render_ansi(state: np.ndarray, options=None, seat: int | None = None, i: int = 0) -> str:
    """The table of env ``i`` as text.

    Args:
        state: the State record array.
        seat: show only this seat's hand (a player's view); ``None`` shows every hand.
    """
    e = state[i]
    on_fire = bool(e["cfg_on_fire"])
    n = int(e["cfg_players"])
    left = NUM_CARDS - int(e["deck_pos"]) + int(e["hand_size"][:n].sum())
    lines = [
        f"The Game — turn {int(e['turn']) + 1}, draw pile {NUM_CARDS - int(e['deck_pos'])}, cards left {left}"
    ]
    tops = []
    for p in range(4):
        ft = int(e["fire_turn"][p])
        fire = f" 🔥cover by end of {'this' if ft < e['turn'] else 'next'} turn" if ft >= 0 else ""
        tops.append(
            f"  {PILE_NAMES[p]:<5} {'(1→99)  ' if p < 2 else '(100→2) '}: {int(e['piles'][p]):>3}{fire}"
        )
    lines += tops
    for k in range(n):
        mark = "▶" if k == e["current"] and e["status"] == Status.PLAYING else " "
        size = int(e["hand_size"][k])
        if seat is None or seat == k:
            cards = " ".join(_card(int(c), on_fire) for c in sorted(e["hand"][k][:size]))
            lines.append(f"{mark} player_{k} ({size}): {cards}")
        else:
            lines.append(f"{mark} player_{k} ({size} card{'' if size == 1 else 's'})")
    if e["status"] == Status.PLAYING:
        made, owed = int(e["plays_this_turn"]), int(at(min_plays_now_r, state, i))
        if made >= owed:
            due = f"the {owed} required {'are' if owed != 1 else 'is'} made: play on or end the turn"
        else:
            due = f"{owed - made} more before the turn may end"
        lines.append(f"plays this turn: {made} ({due})")
    else:
        lines.append(f"game over: {end_text(state, i)}")
    return "\n".join(lines)


# --- picture (SVG; rasterized by tabletop_core.contract.svg) ------------------------------------------
SVG_WIDTH = 800
SVG_HEIGHT = 560
"""Size of :func:`render_svg`'s picture in pixels, for every option (``rgb_array`` is
``(SVG_HEIGHT, SVG_WIDTH, 3)``)."""

_PILE_COLOURS = ("#2f6fb5", "#2f6fb5", "#b5452f", "#b5452f")  # ascending blue, descending red


def render_svg(state: np.ndarray, options=None, seat: int | None = None, i: int = 0) -> str:
    """The table of env ``i`` as an SVG document (``SVG_WIDTH`` x ``SVG_HEIGHT``).

    Drawn: the four piles with their top card and direction (ascending ``1 → 99``,
    descending ``100 → 2``; an On Fire card burning on top in orange with its deadline),
    the draw pile face down with its size, every hand (cards sorted by value; On Fire
    cards in orange), the seat to act (▶), the plays this turn and the plays owed, and
    the result once the game is over.

    Args:
        state: the State record array.
        options: unused (the options live in the state).
        seat: ``None`` for the omniscient view; a seat for that player's view: the other
            hands are drawn as face-down backs (the observation shows only their sizes).
        i: env index in the batch.

    Raises:
        ValueError: if ``seat`` is not a seat of this game.
    """
    e = state[i]
    n = int(e["cfg_players"])
    check_view_seat(seat, n)
    on_fire = bool(e["cfg_on_fire"])
    playing = int(e["status"]) == Status.PLAYING
    draw = NUM_CARDS - int(e["deck_pos"])
    left = draw + int(e["hand_size"][:n].sum())
    svg = Svg(SVG_WIDTH, SVG_HEIGHT)
    view = "omniscient view" if seat is None else f"player_{int(seat)}'s view"
    svg.text(16, 28, f"The Game — turn {int(e['turn']) + 1}", size=20, weight="bold")
    svg.text(SVG_WIDTH - 16, 28, view, size=13, fill=THEME.dim, anchor="end")
    _svg_piles(e, svg, on_fire, draw, left, playing, state, i)
    _svg_hands(n, playing, e, svg, seat, on_fire, left)
    if not playing:
        banner(
            svg, f"game over: {end_reason(state, i)}. Score {left} (cards not played)", height=40, baseline=14
        )
    return svg.to_string()


def _svg_piles(e, svg, on_fire, draw, left, playing, state, i):
    """The four piles (tops, direction, the backwards trick's card), the draw pile and the On Fire marks."""
    cw, ch = 70, 98
    for p in range(4):
        x = 24 + p * 130
        y = 62
        asc = p < 2
        ft = int(e["fire_turn"][p])
        svg.text(
            x,
            y - 8,
            f"{'↑' if asc else '↓'}{p % 2 + 1}  {'1 → 99' if asc else '100 → 2'}",
            size=13,
            weight="bold",
        )
        fire = on_fire and ft >= 0
        _svg_pile_top(svg, x, y, cw, ch, p, int(e["piles"][p]), fire)
        arrow_y = y + ch + 18
        _svg_arrow(svg, x, arrow_y, cw, asc, _PILE_COLOURS[p])
        if fire:
            when = "this" if ft < int(e["turn"]) else "next"
            svg.text(
                x, arrow_y + 24, f"fire: cover by end of {when} turn", size=10, fill=THEME.fire, weight="bold"
            )
    pile(svg, 560, 62, cw, ch, draw, label="draw pile")
    svg.text(660, 80, f"cards left {left}", size=13)
    if playing:
        plays = int(e["plays_this_turn"])
        owed = max(0, int(at(min_plays_now_r, state, i)) - plays)
        svg.text(660, 102, f"played this turn {plays}", size=13)
        svg.text(660, 124, f"still owed {owed}", size=13, fill=THEME.highlight if owed else THEME.text)
    if on_fire:
        svg.text(660, 146, "On Fire: 22, 33, …, 77", size=11, fill=THEME.fire)


def _svg_pile_top(svg, x, y, cw, ch, p, top, fire):
    """A pile's top card (a dashed outline with the start value while it is empty)."""
    asc = p < 2
    if top in (1, 100):
        svg.rect(x, y, cw, ch, fill="none", stroke=THEME.dim, stroke_width=1.5, rx=7, stroke_dasharray="5 4")
        svg.text(x + cw / 2, y + ch / 2 + 8, str(top), size=24, fill=THEME.dim, anchor="middle")
        return
    card(
        svg,
        x,
        y,
        cw,
        ch,
        str(top),
        colour=_PILE_COLOURS[p],
        fill="#ffe2c8" if fire else THEME.card_face,
        corner="↑" if asc else "↓",
        edge=THEME.fire if fire else None,
        edge_width=4 if fire else 1.2,
    )


def _svg_arrow(svg, x, arrow_y, cw, asc, colour):
    """The pile's direction under it: an arrow pointing right (up pile) or left (down pile)."""
    if asc:
        points = [
            (x, arrow_y - 4),
            (x + cw - 10, arrow_y - 4),
            (x + cw - 10, arrow_y - 9),
            (x + cw, arrow_y),
            (x + cw - 10, arrow_y + 9),
            (x + cw - 10, arrow_y + 4),
            (x, arrow_y + 4),
        ]
    else:
        points = [
            (x + cw, arrow_y - 4),
            (x + 10, arrow_y - 4),
            (x + 10, arrow_y - 9),
            (x, arrow_y),
            (x + 10, arrow_y + 9),
            (x + 10, arrow_y + 4),
            (x + cw, arrow_y + 4),
        ]
    svg.polygon(points, fill=colour)


def _svg_hands(n, playing, e, svg, seat, on_fire, left):
    """A row per seat (its hand, or card backs from another seat's view) and the result once over."""
    hw, hh = 44, 62
    for k in range(n):
        y = 218 + k * 68
        acting = playing and k == int(e["current"])
        size = int(e["hand_size"][k])
        svg.rect(
            12,
            y - 4,
            SVG_WIDTH - 24,
            64,
            fill=THEME.panel,
            rx=8,
            stroke=THEME.highlight if acting else None,
            stroke_width=2 if acting else None,
        )
        seat_label(svg, 24, y + 24, f"player_{k}", acting, f"{size} card{'s' if size != 1 else ''}")
        visible = seat is None or int(seat) == k
        cards = sorted(int(c) for c in e["hand"][k][:size])
        for j, c in enumerate(cards):
            x = 170 + j * (hw + 6)
            if visible:
                hot = on_fire and c in FIRE_CARDS
                card(
                    svg,
                    x,
                    y,
                    hw,
                    hh - 6,
                    str(c),
                    fill="#ffd7b0" if hot else THEME.card_face,
                    edge=THEME.fire if hot else None,
                )
            else:
                card_back(svg, x, y, hw, hh - 6)
