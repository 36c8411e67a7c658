"""The Game as reinforcement-learning environments (documentation: :mod:`thegame_env.env`).

>>> import thegame_env
>>> env = thegame_env.env(num_players=3)
>>> env.reset(seed=0)
"""

from .env import GAME, env, raw_env, vector_env
from .observe import decode_observation
from .spec import END_TURN, NUM_ACTIONS, Options, action_name, play_to_action

__all__ = [
    "GAME",
    "env",
    "raw_env",
    "vector_env",
    "decode_observation",
    "Options",
    "END_TURN",
    "NUM_ACTIONS",
    "action_name",
    "play_to_action",
]


from tabletop_core.registry import register_aec  # noqa: E402

ENV_ID = register_aec("thegame", 1, "thegame_env:env")
