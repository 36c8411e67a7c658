"""Exhaust as reinforcement-learning environments (documentation: :mod:`exhaust_env.env`).

>>> import exhaust_env
>>> env = exhaust_env.env(num_players=4)
>>> env.reset(seed=0)
"""

from .env import GAME, baseline_policy, env, raw_env, vector_env
from .observe import decode_observation
from .spec import (
    CAST_OFFSET,
    FLIP_EXHAUST,
    NUM_ACTIONS,
    PLAY_TIME_MAGIC,
    Options,
    action_name,
    card_name,
    kind_of,
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
    "Options",
    "CAST_OFFSET",
    "PLAY_TIME_MAGIC",
    "FLIP_EXHAUST",
    "NUM_ACTIONS",
    "action_name",
    "card_name",
    "kind_of",
    "parse_card",
    "validate_state",
]


import sys as _sys  # noqa: E402

# help(exhaust_env) shows the game's page too (the docstring of exhaust_env/env.py)
__doc__ = f"{__doc__}\n{_sys.modules[__name__ + '.env'].__doc__}"  # noqa: A001

from tabletop_core.contract.registry import register_aec

ENV_ID = register_aec("exhaust", 1, "exhaust_env:env")
