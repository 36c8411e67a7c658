"""Shikokushi Koikoi as reinforcement-learning environments (documentation:
:mod:`koikoi_env.game`).

>>> import koikoi_env
>>> env = koikoi_env.env(num_players=4)
>>> env.reset(seed=0)
"""

from tabletop_core.envs.package import export_game

from .game import GAME, episode_stats
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

__all__ = export_game(GAME, globals()) + [
    "episode_stats",
    "decode_observation",
    "KOIKOI",
    "NUM_ACTIONS",
    "NUM_CARDS",
    "PLAY_OFFSET",
    "STOP",
    "TAKE_OFFSET",
    "Options",
    "Phase",
    "action_name",
    "card_name",
    "make_card",
    "parse_card",
]
