"""Leduc hold'em, a fifth game written only against the public game contract (a test
fixture: ``tests/test_contract_game.py``): the compiled part in ``rules.py``, the
declaration in ``game.py``, and this face made from it."""

from tabletop_core.envs.package import export_game

from .game import GAME, Options, action_name, card_name, decode_observation

__all__ = export_game(GAME, globals()) + ["Options", "action_name", "card_name", "decode_observation"]
