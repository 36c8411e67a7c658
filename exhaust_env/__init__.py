"""Exhaust as reinforcement-learning environments (documentation: :mod:`exhaust_env.game`).

>>> import exhaust_env
>>> env = exhaust_env.env(num_players=4)
>>> env.reset(seed=0)
"""

from tabletop_core.envs.factories import game_envs

from .game import GAME
from .observe import decode_observation
from .resample import resample_hidden
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
    "resample_hidden",
]


raw_env, env, vector_env, baseline_policy = game_envs(GAME)
ENV_ID = f"tabletop/{GAME.name}-v{GAME.version}"  # PettingZoo: pettingzoo.make("aec", ENV_ID)

# help(exhaust_env) shows the game's page too (the docstring of exhaust_env/game.py)
__doc__ = f"{__doc__}\n{GAME.page}"  # noqa: A001
