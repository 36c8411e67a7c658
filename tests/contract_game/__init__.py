"""Leduc hold'em, a fifth game written only against the public game contract (a test
fixture: ``tests/test_contract_game.py``): its rooms are the four games' rooms (spec,
state, rules, observe, bots, render, narrate, hooks) and one declaration, ``game.py``.
"""

from tabletop_core.envs.factories import game_envs

from .game import GAME
from .observe import decode_observation

raw_env, env, vector_env, baseline_policy = game_envs(GAME)

__all__ = ["GAME", "env", "raw_env", "vector_env", "decode_observation"]
