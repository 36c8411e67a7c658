"""Shikokushi Koikoi as reinforcement-learning environments (documentation:
:mod:`koikoi_env.env`).

>>> import koikoi_env
>>> env = koikoi_env.env(num_players=4)
>>> env.reset(seed=0)
"""

from .env import GAME, baseline_policy, env, episode_stats, raw_env, vector_env
from .observe import decode_observation
from .spec import (
    KOIKOI,
    NUM_ACTIONS,
    NUM_CARDS,
    PLAY_OFFSET,
    STOP,
    TAKE_OFFSET,
    Options,
    Phase,
    action_name,
    card_name,
    make_card,
    parse_card,
)
from .state import validate_state

__all__ = [
    "GAME",
    "env",
    "raw_env",
    "vector_env",
    "baseline_policy",
    "decode_observation",
    "episode_stats",
    "Options",
    "Phase",
    "NUM_ACTIONS",
    "NUM_CARDS",
    "PLAY_OFFSET",
    "TAKE_OFFSET",
    "KOIKOI",
    "STOP",
    "action_name",
    "card_name",
    "make_card",
    "parse_card",
    "validate_state",
]


import sys as _sys  # noqa: E402

# help(koikoi_env) shows the game's page too (the docstring of koikoi_env/env.py)
__doc__ = f"{__doc__}\n{_sys.modules[__name__ + '.env'].__doc__}"  # noqa: A001

from tabletop_core.contract.registry import register_aec  # noqa: E402

ENV_ID = register_aec("koikoi", 1, "koikoi_env:env")
