"""Leduc hold'em, two players: six cards (J, Q, K of two suits), an ante of 1 each, two
betting rounds (bets of 2, then 4; at most ``max_raises`` raises a round) with a public
card dealt between them; a pair with the public card wins the showdown, else the higher
card, and a tie splits the pot.

Agents ``player_0``, ``player_1``; actions fold / call (check) / raise; observation
``{"observation": float32 (13,), "action_mask": int8 (3,)}`` (:mod:`.observe`).

The declaration of the test suite's contract game (``tests/test_contract_game.py``): it
uses only the public contract, and nothing outside this folder names it.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.contract.game import GameDef

from . import narrate
from .bots import BOT_NAMES
from .hooks import HOOKS
from .observe import observation_layout
from .render import SVG_HEIGHT, SVG_WIDTH, render_ansi, render_svg
from .rules import episode_stats, final_info, match_stats
from .spec import MAX_CONTRIB, MAX_EPISODE_STEPS, NUM_ACTIONS, Options, action_name, agents
from .state import STATE_DTYPE, new_state, validate_state


def final_infos(state: np.ndarray, options: Options) -> list[dict]:
    """What each seat is told when the hand ends (:func:`.rules.final_info` per seat)."""
    return [final_info(state, seat) for seat in range(2)]


GAME = GameDef(
    name="leduc",
    version=1,
    title="Leduc hold'em",
    package=__package__,
    page=__doc__,
    rewards_doc="Rewards are (B, 2) float32, zero-sum.",
    num_actions=NUM_ACTIONS,
    make_options=Options,
    agents=agents,
    observation_layout=observation_layout,
    new_state=new_state,
    state_dtype=STATE_DTYPE,
    hooks=HOOKS,
    render_ansi=render_ansi,
    action_name=action_name,
    bot_names=BOT_NAMES,
    max_episode_steps=MAX_EPISODE_STEPS,
    reward_range=(-float(MAX_CONTRIB), float(MAX_CONTRIB)),
    episode_stats=episode_stats,
    match_stats=match_stats,
    final_info=final_infos,
    narrate=narrate,
    render_view=render_ansi,
    render_svg=render_svg,
    svg_size=(SVG_WIDTH, SVG_HEIGHT),
    validate_state=validate_state,
    description="two-player Leduc hold'em: six cards, two betting rounds, a public card",
)
