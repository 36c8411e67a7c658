"""Exit Now as reinforcement-learning environments (documentation: :mod:`exitnow_envs.env`).

>>> import exitnow_envs
>>> env = exitnow_envs.env(num_humans=3)
>>> env.reset(seed=0)
"""

from .env import GAME, baseline_policy, env, raw_env, vector_env
from .maps import BoardSet, default_boards, layouts
from .observe import PLANE_NAMES, decode_observation
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
]


import sys as _sys  # noqa: E402

# help(exitnow_envs) shows the game's page too (the docstring of exitnow_envs/env.py)
__doc__ = f"{__doc__}\n{_sys.modules[__name__ + '.env'].__doc__}"  # noqa: A001

from tabletop_core.contract.registry import register_aec  # noqa: E402

ENV_ID = register_aec("exitnow", 1, "exitnow_envs:env")
