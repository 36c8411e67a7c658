"""The shipped trained baselines (``docs/baselines.md``): one per game, held against the
current observation layout, legal over random deals, refusing other options, playable
as the bot ``baseline`` everywhere a bot is named."""

from __future__ import annotations

import importlib
import os

import numpy as np
import pytest

from tabletop_core import cli
from tabletop_core.agents.baseline import baseline_files, baseline_policy
from tabletop_core.contract.catalog import game_names, load_game
from tabletop_core.tools.arena import run_match

GAMES = game_names()

# the baseline in the seats it is measured in (README, docs/baselines.md); Exit Now's in
# every seat, so both of its files (the humans' and the ghost's) play
LINEUPS = {
    "thegame": ["baseline", "baseline"],
    "koikoi": ["baseline", "strong", "greedy", "random"],
    "exhaust": ["baseline", "npc", "npc", "npc"],
    "exitnow": ["baseline", "baseline", "baseline", "baseline"],
}


@pytest.mark.parametrize("name", GAMES)
def test_every_game_ships_a_small_baseline_made_for_the_current_layout(name):
    game = load_game(name)
    files = baseline_files(game)
    assert files, f"{name} ships no baseline"
    opts = game.make_options()
    seats = set()
    for path in files:
        assert os.path.getsize(path) <= 2 * 1024 * 1024, f"{path} is over 2 MB"
    for k in range(len(game.agents(opts))):
        pol = baseline_policy(game, k)
        # the layout the baseline was trained on is the layout now
        assert pol.meta["layout"] == game.observation_layout(opts).digest()
        assert pol.meta["game"] == name
        held = {s for grp in pol.meta["seats"] for s in grp}
        assert k in held, (k, pol.meta["seats"])  # the file that plays a seat was trained for it
        seats |= held
    assert seats == set(range(len(game.agents(opts))))


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_baseline_plays_only_legal_actions_over_200_deals(name):
    """The single-agent core refuses an illegal action with a ValueError, so 200 complete
    games without one are 200 deals of legal play in the baseline's seats."""
    game = load_game(name)
    r = run_match(game, LINEUPS[name], 200, seed=12345)
    assert r.returns.shape == (200, len(LINEUPS[name]))
    assert (r.steps > 0).all()
    assert np.isfinite(r.returns).all()


@pytest.mark.parametrize("name", GAMES)
def test_baseline_refuses_other_options(name):
    other = {
        "thegame": {"num_players": 3},
        "koikoi": {"num_players": 3},
        "exhaust": {"num_players": 3},
        "exitnow": {"num_humans": 2},
    }[name]
    module = importlib.import_module(load_game(name).package)
    with pytest.raises(ValueError, match="trained for"):
        module.baseline_policy(**other)
    assert module.baseline_policy().meta["game"] == name


@pytest.mark.parametrize(
    "name, bots",
    [
        ("koikoi", ["baseline", "strong", "greedy", "random"]),
        ("exitnow", ["human", "human", "human", "baseline"]),
        ("exitnow", ["baseline", "baseline", "baseline", "ghost"]),
        ("exhaust", ["npc", "baseline", "strong", "random"]),
        ("thegame", ["baseline", "baseline"]),
    ],
)
def test_step_bots_with_the_baseline_plays_the_matches_deals(name, bots):
    """vector_env(...).step_bots with the baseline in some seats and scripted bots in the
    others: each env's first episode is the arena's game on the same deal, to the chip."""
    game = load_game(name)
    module = importlib.import_module(load_game(name).package)
    n = 24
    venv = module.vector_env(n, seed=7)
    venv.reset(seed=7)
    returns = np.zeros((n, venv.num_players))
    live = np.ones(n, bool)
    while live.any():
        _, rewards, term, trunc, info = venv.step_bots(bots)
        assert (info["actions"] >= 0).all()
        returns[live] += rewards[live]
        live &= ~(term | trunc)
    match = run_match(game, bots, n, seed=7)
    np.testing.assert_array_equal(returns, match.returns)


def test_step_bots_refuses_a_baseline_made_for_other_options_and_steps_nothing():
    import koikoi_env

    venv = koikoi_env.vector_env(3, seed=0, num_players=3)
    venv.reset(seed=0)
    before = venv.get_state()
    with pytest.raises(ValueError, match="trained for koikoi with .*num_players=4"):
        venv.step_bots("baseline,strong,greedy")
    with pytest.raises(ValueError, match="3 seats take one bot each"):
        venv.step_bots("baseline,strong")
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        venv.step_bots("baseline,nobody,greedy")
    after = venv.get_state()
    np.testing.assert_array_equal(before["state"], after["state"])
    np.testing.assert_array_equal(before["bot_rng"], after["bot_rng"])


def test_match_with_baseline_from_the_cli(capsys):
    code = cli.main(["match", "koikoi", "--bots", "baseline,strong,greedy,random", "--games", "20"])
    out = capsys.readouterr().out
    assert code == 0 and "baseline" in out


def test_play_against_the_baseline():
    import io

    from tabletop_core.tools.play import play_in_terminal

    out = io.StringIO()
    # the person quits at once; the baseline seats before the person's turn act greedily
    code = play_in_terminal(
        load_game("exitnow"), {}, seat=3, bots="baseline", seed=1, input=io.StringIO("q\n"), output=out
    )
    assert code == 0 and "baseline" in out.getvalue()
