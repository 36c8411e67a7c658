"""Shikokushi Koikoi as reinforcement-learning environments (documentation:
:mod:`koikoi_env.game`).

>>> import koikoi_env
>>> env = koikoi_env.env(num_players=4)
>>> env.reset(seed=0)
"""

from tabletop_core.envs.factories import game_envs

from .game import GAME, episode_stats
from .observe import decode_observation
from .resample import resample_hidden
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
    "resample_hidden",
]


raw_env, env, vector_env, baseline_policy = game_envs(GAME)
ENV_ID = f"tabletop/{GAME.name}-v{GAME.version}"  # PettingZoo: pettingzoo.make("aec", ENV_ID)

# help(koikoi_env) shows the game's page too (the docstring of koikoi_env/game.py)
__doc__ = f"{__doc__}\n{GAME.page}"  # noqa: A001
