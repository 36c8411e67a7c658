"""Exhaust as reinforcement-learning environments (documentation: :mod:`exhaust_env.env`).

>>> import exhaust_env
>>> env = exhaust_env.env(num_players=4)
>>> env.reset(seed=0)
"""

from .env import GAME, env, raw_env, vector_env
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

__all__ = [
    "GAME",
    "env",
    "raw_env",
    "vector_env",
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
]


from tabletop_core.registry import register_aec

ENV_ID = register_aec("exhaust", 1, "exhaust_env:env")
