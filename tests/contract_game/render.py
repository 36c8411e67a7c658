"""Leduc hold'em's table as text and as an SVG picture (pure: state in, string out).

A seat's view (``seat``) shows its own card, the public card and the pot; the opponent's
card stays face down until a showdown turns both up.
"""

from __future__ import annotations

import numpy as np

from .spec import BETS, NUM_SEATS, Status, card_name

SVG_WIDTH = 480
SVG_HEIGHT = 300
"""Size of :func:`render_svg`'s picture, for every option."""


def _shown(e, k: int, seat: int | None) -> bool:
    """Whether seat ``k``'s card is face up in ``seat``'s view."""
    return seat is None or seat == k or int(e["status"]) == Status.SHOWDOWN


def _colour(card_id: int) -> str:
    return "#b5452f" if card_id % 2 else "#1b1b1b"  # hearts red, spades black


def _result(e) -> str:
    st, w = int(e["status"]), int(e["winner"])
    pot = int(e["contrib"].sum())
    if st == Status.FOLDED:
        return f"player_{1 - w} folded: player_{w} takes the pot of {pot}"
    if w < 0:
        return f"showdown: split pot of {pot}"
    return f"showdown: player_{w} wins the pot of {pot}"


def render_ansi(state: np.ndarray, options=None, seat: int | None = None, i: int = 0) -> str:
    """The table of env ``i`` as text; ``seat`` set: that seat's view."""
    e = state[i]
    rnd = int(e["round"])
    lines = [
        f"Leduc hold'em — round {rnd + 1} (bets of {BETS[rnd]}), "
        f"raises {int(e['raises'])}/{int(e['cfg_max_raises'])}, pot {int(e['contrib'].sum())}",
        f"  public card: {card_name(int(e['public'])) if int(e['public']) >= 0 else '(not dealt)'}",
    ]
    playing = int(e["status"]) == Status.PLAYING
    for k in range(NUM_SEATS):
        mark = "▶" if playing and k == int(e["current"]) else " "
        card = card_name(int(e["private"][k])) if _shown(e, k, seat) else "??"
        lines.append(f"{mark} player_{k}: {card}   in pot {int(e['contrib'][k])}")
    if not playing:
        lines.append(f"hand over — {_result(e)}")
    return "\n".join(lines)


def render_svg(state: np.ndarray, options=None, seat: int | None = None, i: int = 0) -> str:
    """The table of env ``i`` as an SVG document (``SVG_WIDTH`` x ``SVG_HEIGHT``) from
    ``seat``'s view (``None``: omniscient).

    Raises:
        ValueError: if ``seat`` is not a seat.
    """
    from tabletop_core.contract.svg import THEME, Svg, banner, card, card_back, check_view_seat, seat_label

    check_view_seat(seat, NUM_SEATS)
    e = state[i]
    svg = Svg(SVG_WIDTH, SVG_HEIGHT)
    view = "omniscient view" if seat is None else f"player_{int(seat)}'s view"
    rnd = int(e["round"])
    svg.text(16, 28, f"Leduc hold'em — round {rnd + 1}", size=18, weight="bold")
    svg.text(SVG_WIDTH - 16, 28, view, size=12, fill=THEME.dim, anchor="end")
    cw, ch = 56, 80
    pub = int(e["public"])
    px = SVG_WIDTH / 2 - cw / 2
    if pub >= 0:
        card(svg, px, 60, cw, ch, card_name(pub), colour=_colour(pub))
    else:
        card_back(svg, px, 60, cw, ch)
    svg.text(SVG_WIDTH / 2, 158, f"pot {int(e['contrib'].sum())}", size=13, anchor="middle")
    playing = int(e["status"]) == Status.PLAYING
    for k in range(NUM_SEATS):
        x = 40 + k * 240
        seat_label(
            svg, x, 190, f"player_{k}", playing and k == int(e["current"]), f"in pot {int(e['contrib'][k])}"
        )
        if _shown(e, k, seat):
            c = int(e["private"][k])
            card(svg, x + 120, 175, cw * 0.8, ch * 0.8, card_name(c), colour=_colour(c))
        else:
            card_back(svg, x + 120, 175, cw * 0.8, ch * 0.8)
    if not playing:
        banner(svg, _result(e))
    return svg.to_string()
