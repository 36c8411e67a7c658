"""The Game as reinforcement-learning environments (documentation: :mod:`thegame_env.game`).

>>> import thegame_env
>>> env = thegame_env.env(num_players=3)
>>> env.reset(seed=0)
"""

from tabletop_core.envs.factories import game_envs

from .game import GAME
from .observe import decode_observation
from .resample import resample_hidden
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
    "resample_hidden",
]


raw_env, env, vector_env, baseline_policy = game_envs(GAME)
ENV_ID = f"tabletop/{GAME.name}-v{GAME.version}"  # PettingZoo: pettingzoo.make("aec", ENV_ID)

# help(thegame_env) shows the game's page too (the docstring of thegame_env/game.py)
__doc__ = f"{__doc__}\n{GAME.page}"  # noqa: A001
