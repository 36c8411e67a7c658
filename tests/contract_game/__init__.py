"""Leduc hold'em, a fifth game written only against the public game contract (a test
fixture: ``tests/test_contract_game.py``).

Game logic: spec, state, rules, observe, bots, render, narrate (no core API beyond
kernels, options, encoders, svg and validation helpers). Glue to today's core API:
hooks.py, game.py, env.py and the imports below.
"""

from .env import env, raw_env, vector_env
from .game import GAME
from .observe import decode_observation

__all__ = ["GAME", "env", "raw_env", "vector_env", "decode_observation"]
