"""Leduc hold'em, a fifth game written only against the public game contract (a test
fixture: ``tests/test_contract_game.py``).

Game logic: spec, state, rules, observe, bots, render, narrate (no core API beyond
kernels, options, encoders, svg and validation helpers). Glue to today's core API:
hooks.py, game.py, env.py and the imports below.

Caveat (today's core): the batch loops of ``tabletop_core.loops`` inline these kernels
but are cached on disk under a stamp that covers only the four shipped packages
(``tabletop_core.jit._PACKAGES``), so after editing a file here run with
``TABLETOP_NO_CACHE=1`` (or clear ``tabletop_core/__pycache__``): otherwise the envs keep
running the old rules.
"""

from .env import env, raw_env, vector_env
from .game import GAME
from .observe import decode_observation

__all__ = ["GAME", "env", "raw_env", "vector_env", "decode_observation"]
