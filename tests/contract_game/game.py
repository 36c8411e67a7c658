"""Leduc hold'em, two players: six cards (J, Q, K of two suits), an ante of 1 each, two
betting rounds (bets of 2, then 4; at most ``max_raises`` raises a round) with a public
card dealt between them; a pair with the public card wins the showdown, else the higher
card, and a tie splits the pot.

Agents ``player_0``, ``player_1``; actions fold / call (check) / raise; observation
``{"observation": float32 (13,), "action_mask": int8 (3,)}`` (:data:`.rules.LAYOUT`).

The declaration of the test suite's contract game (``tests/test_contract_game.py``): it
uses only the public contract, and nothing outside this folder names it. The compiled part
(State, rules, observation, bots, hooks) is :mod:`.rules`; this module holds the options,
the names, the views and the declaration.
"""

from __future__ import annotations

import types
from dataclasses import dataclass

import numpy as np

from tabletop_core.contract.game import Bots, Docs, GameDef, Views, player_agents
from tabletop_core.contract.options import check_options, option

from .rules import (
    BETS,
    BOT_NAMES,
    CALL,
    FOLD,
    LAYOUT,
    MAX_CONTRIB,
    MAX_RAISES,
    NUM_ACTIONS,
    NUM_SEATS,
    RAISE,
    REWARD_NAMES,
    Status,
)

ACTION_NAMES = ("fold", "call", "raise")
RANK_NAMES, SUIT_NAMES = ("J", "Q", "K"), ("♠", "♥")
SVG_WIDTH, SVG_HEIGHT = 480, 300


@dataclass(frozen=True)
class Options:
    """Validated options of one hand of Leduc hold'em.

    Args:
        max_raises: raises allowed per betting round (1..4; standard 2).
        start_player: the seat that acts first in each round.
        reward: ``"chips"`` (net chips, zero-sum) or ``"win"`` (+1 / -1 / 0 at the end).

    Raises:
        ValueError: for a value outside these.
    """

    max_raises: int = option(2, "raises allowed per betting round", low=1, high=MAX_RAISES)
    start_player: int = option(0, "seat that acts first in each round", low=0, high=NUM_SEATS - 1)
    reward: str = option("chips", "'chips': net chips won; 'win': +1/-1/0 at the end", choices=REWARD_NAMES)

    def __post_init__(self):
        check_options(self)


def rank_of(card: int) -> int:
    return int(card) // 2


def card_name(card: int) -> str:
    """``"K♥"``; ``"?"`` for no card (-1)."""
    return "?" if card < 0 else RANK_NAMES[rank_of(card)] + SUIT_NAMES[int(card) % 2]


def action_name(action: int) -> str:
    """``"fold"`` / ``"call"`` / ``"raise"``.

    Raises:
        ValueError: for an action outside 0..2.
    """
    if not 0 <= int(action) < NUM_ACTIONS:
        raise ValueError(f"action must be 0..{NUM_ACTIONS - 1}, got {action!r}")
    return ACTION_NAMES[int(action)]


def decode_observation(vector: np.ndarray) -> dict[str, np.ndarray]:
    """The named pieces of an observation (``(D,)`` or ``(B, D)``) in game units."""
    return LAYOUT.decode(vector)


# --- the views: the opponent's card stays face down until a showdown --------------------------
def _shown(e, k: int, seat: int | None) -> bool:
    return seat is None or seat == k or int(e["status"]) == Status.SHOWDOWN


def _result(e) -> str:
    st, w, pot = int(e["status"]), int(e["winner"]), int(e["contrib"].sum())
    if st == Status.FOLDED:
        return f"player_{1 - w} folded: player_{w} takes the pot of {pot}"
    return f"showdown: split pot of {pot}" if w < 0 else f"showdown: player_{w} wins the pot of {pot}"


def render_ansi(state: np.ndarray, options=None, seat: int | None = None, i: int = 0) -> str:
    """The table of env ``i`` as text; ``seat`` set: that seat's view."""
    e = state[i]
    rnd, pub = int(e["round"]), int(e["public"])
    lines = [
        f"Leduc hold'em — round {rnd + 1} (bets of {BETS[rnd]}), "
        f"raises {int(e['raises'])}/{int(e['cfg_max_raises'])}, pot {int(e['contrib'].sum())}",
        f"  public card: {card_name(pub) if pub >= 0 else '(not dealt)'}",
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

    def face(x, y, w, h, c):
        if c < 0:
            return card_back(svg, x, y, w, h)
        card(svg, x, y, w, h, card_name(c), colour="#b5452f" if c % 2 else "#1b1b1b")

    check_view_seat(seat, NUM_SEATS)
    e = state[i]
    svg = Svg(SVG_WIDTH, SVG_HEIGHT)
    svg.text(16, 28, f"Leduc hold'em — round {int(e['round']) + 1}", size=18, weight="bold")
    view = "omniscient view" if seat is None else f"player_{int(seat)}'s view"
    svg.text(SVG_WIDTH - 16, 28, view, size=12, fill=THEME.dim, anchor="end")
    face(SVG_WIDTH / 2 - 28, 60, 56, 80, int(e["public"]))
    svg.text(SVG_WIDTH / 2, 158, f"pot {int(e['contrib'].sum())}", size=13, anchor="middle")
    playing = int(e["status"]) == Status.PLAYING
    for k in range(NUM_SEATS):
        x = 40 + k * 240
        acting = playing and k == int(e["current"])
        seat_label(svg, x, 190, f"player_{k}", acting, f"in pot {int(e['contrib'][k])}")
        face(x + 120, 175, 56 * 0.8, 80 * 0.8, int(e["private"][k]) if _shown(e, k, seat) else -1)
    if not playing:
        banner(svg, _result(e))
    return svg.to_string()


def describe(before: np.ndarray, after: np.ndarray, action: int, actor: int, viewer: int) -> list[str]:
    """Lines telling ``viewer`` what ``action`` did beyond its name: the public card dealt,
    the end of the hand."""
    b, a = before[0], after[0]
    out = []
    if int(b["round"]) == 0 and int(a["round"]) == 1:
        out.append(f"the public card is {card_name(int(a['public']))}")
    if int(a["status"]) != Status.PLAYING:
        if int(a["status"]) == Status.SHOWDOWN:
            out.append(
                "showdown: " + ", ".join(f"player_{k} {card_name(int(a['private'][k]))}" for k in range(2))
            )
        out.append(_result(a))
    return out


def illegal_reason(state: np.ndarray, action: int, seat: int) -> str:
    """Why ``action`` is not legal for ``seat`` now."""
    e = state[0]
    if int(e["status"]) != Status.PLAYING:
        return "the hand is over"
    reasons = {
        FOLD: "nothing to fold to: check instead",
        RAISE: f"no raise left this round ({int(e['cfg_max_raises'])} made)",
        CALL: "the rules do not allow it now",
    }
    return reasons.get(action, f"no action {action}")


narration = types.SimpleNamespace(describe=describe, illegal_reason=illegal_reason)
"""What terminal play tells a person (``GameDef.narrate``)."""


# --- what an ended hand reports ---------------------------------------------------------------
def episode_stats(final: np.ndarray) -> dict[str, np.ndarray]:
    """``showdown`` (the hand reached the showdown), ``split`` (it was split) and
    ``pot`` (chips in the pot at the end) of finished hands ``final`` (G,)."""
    showdown = final["status"] == Status.SHOWDOWN
    return {
        "showdown": showdown,
        "split": showdown & (final["winner"] < 0),
        "pot": final["contrib"].astype(np.int64).sum(axis=1),
    }


def match_stats(options) -> dict[str, str]:
    """The figures of :func:`episode_stats` with their definitions."""
    return {
        "showdown": "the hand reached the showdown (nobody folded)",
        "split": "the showdown was a tie (same rank, no pair): the pot is split",
        "pot": "chips in the pot at the end, antes included",
    }


def final_info(state: np.ndarray, options) -> list[dict]:
    """What each seat is told when the hand ends (an AEC env's ``infos``)."""
    e = state[0]
    w = int(e["winner"])
    status = Status(int(e["status"])).name.lower()
    chips = int(e["contrib"][1 - w]) if w >= 0 else 0
    return [
        {"status": status, "winner": w, "won": w == seat, "chips": chips * (1 if w == seat else -1)}
        for seat in range(NUM_SEATS)
    ]


def agents(options=None) -> list[str]:
    """Agent names in seat order."""
    return player_agents(NUM_SEATS)


def observation_layout(options=None):
    """The layout (the same for every option)."""
    return LAYOUT


GAME = GameDef(
    name="leduc",
    version=1,
    module=__name__,
    docs=Docs(
        "Leduc hold'em",
        "two-player Leduc hold'em: six cards, two betting rounds, a public card",
        "Rewards are (B, 2) float32, zero-sum.",
    ),
    bots=Bots(BOT_NAMES),
    zero_sum=True,
    reward_range=(-float(MAX_CONTRIB), float(MAX_CONTRIB)),
    views=Views(render_ansi, render_svg, (SVG_WIDTH, SVG_HEIGHT), narration),
)
