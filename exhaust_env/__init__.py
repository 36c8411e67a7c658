"""Exhaust as reinforcement-learning environments (documentation: :mod:`exhaust_env.game`).

>>> import exhaust_env
>>> env = exhaust_env.env(num_players=4)
>>> env.reset(seed=0)
"""

from tabletop_core.envs.package import export_game

from .game import GAME
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

__all__ = export_game(GAME, globals()) + [
    "decode_observation",
    "CAST_OFFSET",
    "FLIP_EXHAUST",
    "NUM_ACTIONS",
    "PLAY_TIME_MAGIC",
    "Options",
    "action_name",
    "card_name",
    "kind_of",
    "parse_card",
]
