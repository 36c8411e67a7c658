"""The one conformance test every game passes: ``tabletop_core.tools.testing.api_test`` over
every option (random play single and batched, dtypes, spaces, a whole game, save/restore,
AEC ≡ vector). A new game lists itself under the ``tabletop_rl.games`` entry points and passes this."""

from __future__ import annotations

import pytest

from tabletop_core.contract.catalog import game_names, load_game
from tabletop_core.tools.testing import api_test, option_grid


@pytest.mark.parametrize("name", game_names())
def test_every_game_passes_the_api_test_over_every_option(name):
    assert api_test(name) == len(option_grid(load_game(name)))


def test_option_grid_takes_every_option_to_each_value():
    grid = option_grid(load_game("thegame"))
    assert grid[0] == {}
    assert {"on_fire": True} in grid and {"reward": "win"} in grid
    assert {"level": 1} in grid and {"level": 2} in grid
    assert {"num_players": 1} in grid and {"num_players": 5} in grid
