"""The soak (``tabletop soak``, ``benchmarks/soak.py``): a small one per game in CI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_core.cli import main
from tabletop_core.contract.catalog import load_game
from tabletop_core.tools.soak import soak


@pytest.mark.slow
@pytest.mark.parametrize("name", ["thegame", "exhaust", "koikoi", "exitnow"])
def test_small_soak_has_no_violation(name):
    r = soak(name, 64, num_envs=32, seed=1)
    assert r["violations"] == 0, r["examples"]
    assert r["games"] == 64 and r["random_games"] == 32 and r["bot_games"] == 32
    assert r["steps"] > 0 and r["games_per_s"] > 0


def test_soak_cli_prints_one_json_line(capsys):
    assert main(["soak", "thegame", "--games", "8", "--num-envs", "4", "--players", "3", "--on-fire"]) == 0
    line = capsys.readouterr().out.strip().splitlines()
    assert len(line) == 1
    r = json.loads(line[0])
    assert r["bench"] == "soak" and r["game"] == "thegame" and r["violations"] == 0
    assert r["options"] == {"on_fire": True, "num_players": 3}


def test_soak_rejects_bad_arguments():
    with pytest.raises(ValueError, match="games"):
        soak("thegame", 0)
    with pytest.raises(ValueError, match="validate_every"):
        soak("thegame", 4, validate_every=0)
    with pytest.raises(ValueError, match="unknown game"):
        soak("chess", 4)


def test_return_identities_catch_broken_returns():
    class Opts:
        reward = "cards"
        zero_sum = False
        team = False

    ok = load_game("thegame").return_identity(np.array([[5.0, 5.0], [5.0, 4.0]]), np.zeros(2), Opts)
    assert ok.tolist() == [True, False]
    ok = load_game("exhaust").return_identity(
        np.array([[-1.0, 1.0, 1.0], [-1.0, -1.0, 1.0]]), np.zeros(2), Opts
    )
    assert ok.tolist() == [True, False]
    ok = load_game("koikoi").return_identity(np.array([[3.0, -3.0], [3.0, -2.0]]), np.zeros(2), Opts)
    assert ok.tolist() == [True, False]
    ok = load_game("exitnow").return_identity(
        np.array([[1.0, -1.0, -1.0], [1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]]), np.zeros(3), Opts
    )
    assert ok.tolist() == [True, False, True]
