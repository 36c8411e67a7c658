"""The trainer's reference levels (``tabletop_core.train.evaluate.bot_levels``) in a game
whose bots are bound to roles: by default only the bots that fit the measured seats play
(Exit Now's ``ghost`` bot cannot take a human seat), and a named bot that does not fit
gets the contract's role error."""

from __future__ import annotations

import pytest

from tabletop_core.contract.catalog import load_game as game_def
from tabletop_core.train.evaluate import bot_levels


def test_default_levels_leave_out_bots_of_another_role():
    game = game_def("exitnow")
    levels = bot_levels(game, {}, 4, 0, "random", None, seats=(0, 1, 2))
    assert "ghost" not in levels and {"random", "human"} <= set(levels)
    for level in levels.values():
        assert level["low"] <= level["mean"] <= level["high"] and len(level["returns"]) == 4


def test_a_named_bot_of_another_role_is_refused_with_the_roles():
    with pytest.raises(ValueError, match="human seats take"):
        bot_levels(game_def("exitnow"), {}, 2, 0, "random", ["ghost"], seats=(0, 1, 2))
