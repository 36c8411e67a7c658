"""The Game as reinforcement-learning environments (documentation: :mod:`thegame_env.game`).

>>> import thegame_env
>>> env = thegame_env.env(num_players=3)
>>> env.reset(seed=0)
"""

from tabletop_core.envs.package import export_game

from .game import GAME
from .observe import decode_observation
from .spec import END_TURN, NUM_ACTIONS, Options, action_name, play_to_action

__all__ = export_game(GAME, globals()) + [
    "decode_observation",
    "END_TURN",
    "NUM_ACTIONS",
    "Options",
    "action_name",
    "play_to_action",
]
