"""Exit Now as reinforcement-learning environments (documentation: :mod:`exitnow_envs.game`).

>>> import exitnow_envs
>>> env = exitnow_envs.env(num_humans=3)
>>> env.reset(seed=0)
"""

from tabletop_core.envs.package import export_game

from .game import GAME
from .maps import BoardSet, default_boards, layouts
from .observe import PLANE_NAMES, decode_observation
from .spec import NUM_ACTIONS, Options, Phase, Status, action_name, dest_action

__all__ = export_game(GAME, globals()) + [
    "BoardSet",
    "default_boards",
    "layouts",
    "PLANE_NAMES",
    "decode_observation",
    "NUM_ACTIONS",
    "Options",
    "Phase",
    "Status",
    "action_name",
    "dest_action",
]
