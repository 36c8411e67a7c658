"""The Game as reinforcement-learning environments (documentation: :mod:`thegame_env.env`).

>>> import thegame_env
>>> env = thegame_env.env(num_players=3)
>>> env.reset(seed=0)
"""

from .env import GAME, baseline_policy, env, raw_env, vector_env
from .observe import decode_observation
from .spec import END_TURN, NUM_ACTIONS, Options, action_name, play_to_action
from .state import validate_state

__all__ = [
    "GAME",
    "env",
    "raw_env",
    "vector_env",
    "baseline_policy",
    "decode_observation",
    "Options",
    "END_TURN",
    "NUM_ACTIONS",
    "action_name",
    "play_to_action",
    "validate_state",
]


import sys as _sys  # noqa: E402

# help(thegame_env) shows the game's page too (the docstring of thegame_env/env.py)
__doc__ = f"{__doc__}\n{_sys.modules[__name__ + '.env'].__doc__}"  # noqa: A001

from tabletop_core.contract.registry import register_aec  # noqa: E402

ENV_ID = register_aec("thegame", 1, "thegame_env:env")
