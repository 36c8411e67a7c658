"""Text rendering of a Koikoi table (pure: state in, string out).

Cards read the way a player reads them: suit symbol then rank (``♠7``, ``♥α``); suits
♠ swords 魔剣, ♥ cups 聖杯, ♦ coins 金貨, ♣ trees 聖樹.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.contract.svg import THEME, Svg, banner, card, card_back, check_view_seat, pile, seat_label

from .spec import (
    NUM_CARDS,
    NUM_NUMBER_RANKS,
    RANK_NAMES,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    Phase,
    RoundEnd,
    Status,
    card_name,
    card_rank,
    card_suit,
    multiplier,
)
from .state import LOC_CAPTURED, LOC_FIELD, LOC_HAND

_PHASE_TEXT = {
    Phase.PLAY: "plays a card from the hand",
    Phase.CHOOSE_PLAYED: "takes one of two field cards matching the played card",
    Phase.CHOOSE_FLIPPED: "takes one of two field cards matching the flipped card",
    Phase.DECIDE: "has a higher yaku score: declares koi-koi (play on) or stops (score now)",
}
_END_TEXT = {
    RoundEnd.STOP: "stopped by player_{w} for {p} point{s}",
    RoundEnd.HAND_EMPTY: "a hand ran out: no score",
    RoundEnd.DECK_EMPTY: "the deck ran out: no score",
}


def _cards(cards) -> str:
    """Cards sorted by suit then rank, as ``♠3 ♠4 ♥α``; ``-`` if none."""
    return " ".join(card_name(int(c)) for c in sorted(int(c) for c in cards)) or "-"


def render_ansi(state: np.ndarray, options=None, seat: int | None = None, i: int = 0) -> str:
    """The table of env ``i`` as text.

    Args:
        state: the State record array.
        options: unused (the options live in the state).
        seat: show only this seat's hand (a player's view); ``None`` shows every hand.
        i: env index in the batch.
    """
    e = state[i]
    n = int(e["cfg_players"])
    loc = e["loc"]
    status = Status(int(e["status"]))
    stock = NUM_CARDS - int(e["deck_pos"])
    rnd = min(int(e["round"]) + 1, int(e["cfg_rounds"]))
    lines = [
        f"Shikokushi Koikoi — round {rnd}/{int(e['cfg_rounds'])}, deck {stock} card{'' if stock == 1 else 's'}"
    ]
    lines.append(f"  field: {_cards(np.flatnonzero(loc == LOC_FIELD))}")
    if status == Status.PLAYING and int(e["pending"]) >= 0:
        lines.append(f"  pending: {card_name(int(e['pending']))}")
    for k in range(n):
        acting = status == Status.PLAYING and k == int(e["current"])
        mark = "▶" if acting else " "
        dealer = " (dealer)" if k == int(e["dealer"]) else ""
        koi = int(e["koikoi"][k])
        lines.append(
            f"{mark} player_{k}{dealer}: chips {int(e['chips'][k])}, yaku {int(e['yaku'][k])}, "
            f"koi-koi {koi} (x{multiplier(koi)})"
        )
        hand = np.flatnonzero(loc == LOC_HAND + k)
        if seat is None or seat == k:
            lines.append(f"    hand ({len(hand)}): {_cards(hand)}")
        else:
            lines.append(f"    hand: {len(hand)} card{'' if len(hand) == 1 else 's'}")
        lines.append(f"    captured: {_cards(np.flatnonzero(loc == LOC_CAPTURED + k))}")
    last = RoundEnd(int(e["last_end"]))
    if last != RoundEnd.NONE:
        lines.append(
            "last round: "
            + _END_TEXT[last].format(
                w=int(e["last_winner"]), p=int(e["last_points"]), s="s" if int(e["last_points"]) != 1 else ""
            )
        )
    if status == Status.PLAYING:
        lines.append(f"now: player_{int(e['current'])} {_PHASE_TEXT[Phase(int(e['phase']))]}")
    else:
        chips = [int(c) for c in e["chips"][:n]]
        best = max(chips)
        winners = ", ".join(f"player_{k}" for k in range(n) if chips[k] == best)
        why = "all rounds played" if status == Status.ROUNDS_DONE else "a player has no chips left"
        lines.append(f"game over ({why}) — winner(s): {winners} with {best} chips")
    return "\n".join(lines)


# --- picture (SVG; rasterized by tabletop_core.contract.svg) ------------------------------------------
SVG_WIDTH = 960
SVG_HEIGHT = 760
"""Size of :func:`render_svg`'s picture in pixels, for every option (``rgb_array`` is
``(SVG_HEIGHT, SVG_WIDTH, 3)``)."""

SUIT_INK = ("#34466e", "#b8323c", "#a8740a", "#2f7d3a")  # swords, cups, coins, trees
SUIT_TINT = ("#dfe5f3", "#f8dadc", "#f8ebc9", "#d9efdc")
_SVG_PHASE = {  # the picture's own wording (kept apart from the text view's)
    Phase.PLAY: "play a card from the hand",
    Phase.CHOOSE_PLAYED: "take one of the two field cards matching the played card",
    Phase.CHOOSE_FLIPPED: "take one of the two field cards matching the flipped card",
    Phase.DECIDE: "the yaku score rose — koi-koi or stop",
}


def _svg_round_end(e) -> str:
    last = RoundEnd(int(e["last_end"]))
    if last == RoundEnd.STOP:
        p = int(e["last_points"])
        return f"player_{int(e['last_winner'])} stopped for {p} point{'s' if p != 1 else ''}"
    return "a hand ran out: no score" if last == RoundEnd.HAND_EMPTY else "the stock ran out: no score"


def _koikoi_card(svg, x, y, w, h, c: int, edge=None) -> None:
    """One card: its suit symbol in the corner and its rank in the middle, on a face tinted
    by suit; the six non-number ranks (α..ζ) with a gold frame."""

    s, r = card_suit(c), card_rank(c)
    honour = r >= NUM_NUMBER_RANKS
    card(
        svg,
        x,
        y,
        w,
        h,
        RANK_NAMES[r],
        colour=SUIT_INK[s],
        fill=SUIT_TINT[s],
        corner=SUIT_SYMBOLS[s],
        edge=edge or ("#c9a227" if honour else None),
        edge_width=2.5 if (edge or honour) else 1.2,
    )


def render_svg(state: np.ndarray, options=None, seat: int | None = None, i: int = 0) -> str:
    """The table of env ``i`` as an SVG document (``SVG_WIDTH`` x ``SVG_HEIGHT``).

    Drawn: a legend of the four suits (♠ swords, ♥ cups, ♦ coins, ♣ trees) and the ranks
    (0-15 the numbers, α β γ δ ε ζ the six non-number ranks, framed in gold), the field,
    the card waiting for a choice, the stock face down with its size, and for every seat
    its chips, yaku score, koi-koi count and multiplier, the dealer, its hand and its
    captured cards (sorted by suit and rank); the decision to make, the last round's end
    and the result once the game is over.

    Args:
        state: the State record array.
        options: unused (the options live in the state).
        seat: ``None`` for the omniscient view; a seat for that player's view: the other
            hands are face-down backs (its observation shows only their sizes).
        i: env index in the batch.

    Raises:
        ValueError: if ``seat`` is not a seat of this game.
    """

    e = state[i]
    n = int(e["cfg_players"])
    check_view_seat(seat, n)
    loc = e["loc"]
    status = Status(int(e["status"]))
    playing = status == Status.PLAYING
    stock = NUM_CARDS - int(e["deck_pos"])
    rnd = min(int(e["round"]) + 1, int(e["cfg_rounds"]))
    svg = Svg(SVG_WIDTH, SVG_HEIGHT)
    svg.text(16, 28, f"Shikokushi Koikoi — round {rnd}/{int(e['cfg_rounds'])}", size=20, weight="bold")
    view = "omniscient view" if seat is None else f"player_{int(seat)}'s view"
    svg.text(SVG_WIDTH - 16, 28, view, size=13, fill=THEME.dim, anchor="end")
    _svg_legend(svg)
    cw, ch = _svg_field(svg, loc, e, playing, stock)
    _svg_seats(n, playing, e, svg, loc, seat, cw, ch)
    _svg_status(e, playing, svg, n, status)
    return svg.to_string()


def _svg_legend(svg):
    """The legend of the suits."""

    x = 16
    for s in range(4):
        svg.rect(x, 40, 14, 16, fill=SUIT_TINT[s], stroke=SUIT_INK[s], stroke_width=1.5, rx=2)
        svg.text(x + 18, 53, f"{SUIT_SYMBOLS[s]} {SUIT_NAMES[s]}", size=12, fill=THEME.text)
        x += 96
    svg.rect(x, 40, 14, 16, fill=THEME.card_face, stroke="#c9a227", stroke_width=2.5, rx=2)
    svg.text(x + 18, 53, "ranks 0–15 are numbers; α β γ δ ε ζ the six non-number ranks (gold frame)", size=12)


def _svg_field(svg, loc, e, playing, stock):
    """The field, the pending card and the stock."""

    svg.rect(12, 64, SVG_WIDTH - 24, 84, fill=THEME.panel, rx=8)
    svg.text(22, 84, "field", size=13, weight="bold")
    field = sorted(int(c) for c in np.flatnonzero(loc == LOC_FIELD))
    cw, ch = 40, 58
    step = min(cw + 4, (700 - 80) / max(1, len(field)))
    for j, c in enumerate(field):
        _koikoi_card(svg, 80 + j * step, 76, cw, ch, c)
    pend = int(e["pending"])
    if playing and pend >= 0:
        svg.text(738, 84, "waiting", size=11, fill=THEME.highlight, anchor="middle")
        _koikoi_card(svg, 718, 88, cw, ch - 6, pend, edge=THEME.highlight)
    pile(svg, 800, 74, 40, 58, stock, label=None)
    svg.text(860, 98, "stock", size=12, fill=THEME.dim)
    svg.text(860, 114, f"{stock} cards", size=12, fill=THEME.dim)
    return cw, ch


def _svg_seats(n, playing, e, svg, loc, seat, cw, ch):
    """A row per seat: hand (or backs from another seat's view), captured cards, yaku, chips."""

    y = 158
    row = 140 if n <= 4 else 120
    for k in range(n):
        acting = playing and k == int(e["current"])
        svg.rect(
            12,
            y,
            SVG_WIDTH - 24,
            row - 8,
            fill=THEME.panel,
            rx=8,
            stroke=THEME.highlight if acting else None,
            stroke_width=2 if acting else None,
        )
        koi = int(e["koikoi"][k])
        dealer = " · dealer" if k == int(e["dealer"]) else ""
        seat_label(svg, 22, y + 22, f"player_{k}", acting, f"chips {int(e['chips'][k])}{dealer}", size=14)
        svg.text(22, y + 58, f"yaku {int(e['yaku'][k])}", size=12, fill=THEME.text)
        svg.text(22, y + 74, f"koi-koi {koi} (x{multiplier(koi)})", size=12, fill=THEME.text)
        hand = sorted(int(c) for c in np.flatnonzero(loc == LOC_HAND + k))
        svg.text(180, y + 16, f"hand ({len(hand)})", size=11, fill=THEME.dim)
        visible = seat is None or int(seat) == k
        for j, c in enumerate(hand):
            hx = 180 + j * (cw + 4)
            if visible:
                _koikoi_card(svg, hx, y + 22, cw, ch - 4, c)
            else:
                card_back(svg, hx, y + 22, cw, ch - 4)
        capt = sorted(int(c) for c in np.flatnonzero(loc == LOC_CAPTURED + k))
        svg.text(560, y + 16, f"captured ({len(capt)})", size=11, fill=THEME.dim)
        sw, sh = 24, 34
        per_row = max(15, -(-len(capt) // 3))  # up to three rows of cards, sorted by suit
        cstep = min(sw + 2, (SVG_WIDTH - 24 - 560 - sw) / max(1, per_row - 1))
        for j, c in enumerate(capt):
            _koikoi_card(svg, 560 + (j % per_row) * cstep, y + 22 + (j // per_row) * (sh + 3), sw, sh, c)
        y += row


def _svg_status(e, playing, svg, n, status):
    """The status line: the decision to make or the round's result."""

    last = RoundEnd(int(e["last_end"]))
    msg = ""
    if last != RoundEnd.NONE:
        msg = "last round: " + _svg_round_end(e) + " · "
    if playing:
        msg += f"player_{int(e['current'])}: {_SVG_PHASE[Phase(int(e['phase']))]}"
        svg.text(16, SVG_HEIGHT - 14, msg, size=13, fill=THEME.text)
    else:
        chips = [int(c) for c in e["chips"][:n]]
        best = max(chips)
        winners = ", ".join(f"player_{k}" for k in range(n) if chips[k] == best)
        why = "all rounds played" if status == Status.ROUNDS_DONE else "a player has no chips left"
        banner(svg, f"game over ({why}) — winner(s): {winners} with {best} chips", size=15)
