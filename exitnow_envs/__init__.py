"""Exit Now as reinforcement-learning environments (documentation: :mod:`exitnow_envs.game`).

>>> import exitnow_envs
>>> env = exitnow_envs.env(num_humans=3)
>>> env.reset(seed=0)
"""

from tabletop_core.envs.factories import game_envs

from .game import GAME
from .maps import BoardSet, default_boards, layouts
from .observe import PLANE_NAMES, decode_observation
from .resample import resample_hidden
from .spec import NUM_ACTIONS, Options, Phase, Status, action_name, dest_action
from .state import validate_state

__all__ = [
    "GAME",
    "env",
    "raw_env",
    "vector_env",
    "baseline_policy",
    "decode_observation",
    "layouts",
    "BoardSet",
    "default_boards",
    "PLANE_NAMES",
    "Options",
    "Phase",
    "Status",
    "NUM_ACTIONS",
    "action_name",
    "dest_action",
    "validate_state",
    "resample_hidden",
]


raw_env, env, vector_env, baseline_policy = game_envs(GAME)
ENV_ID = f"tabletop/{GAME.name}-v{GAME.version}"  # PettingZoo: pettingzoo.make("aec", ENV_ID)

# help(exitnow_envs) shows the game's page too (the docstring of exitnow_envs/game.py)
__doc__ = f"{__doc__}\n{GAME.page}"  # noqa: A001
