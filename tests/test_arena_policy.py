"""Bot matches with a trained policy in one seat (``--bots policy:FILE.npz``)."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_core import cli
from tabletop_core.agents.policy import MLPPolicy
from tabletop_core.tools.arena import run_match, summarize

koikoi_env = pytest.importorskip("koikoi_env")


def _random_policy(path, obs_dim, num_actions, seed=0):
    rng = np.random.default_rng(seed)
    w = {
        "W0": rng.standard_normal((obs_dim, 32)).astype(np.float32) / np.sqrt(obs_dim),
        "b0": np.zeros(32, np.float32),
        "W1": rng.standard_normal((32, num_actions)).astype(np.float32),
        "b1": np.zeros(num_actions, np.float32),
        "scale": np.full(obs_dim, 0.1, np.float32),
    }
    np.savez(path, **w)
    return str(path)


@pytest.fixture
def policy_file(tmp_path):
    layout = koikoi_env.GAME.observation_layout(koikoi_env.Options(num_players=3, rounds=1))
    return _random_policy(tmp_path / "p.npz", layout.dim, koikoi_env.GAME.num_actions)


def test_policy_seat_match_conserves_chips_and_is_reproducible(policy_file):
    bots = [f"policy:{policy_file}", "greedy", "random"]
    a = run_match(koikoi_env.GAME, bots, 60, seed=5, chunk=25, num_players=3, rounds=1)
    b = run_match(koikoi_env.GAME, bots, 60, seed=5, chunk=25, num_players=3, rounds=1)
    np.testing.assert_array_equal(a.returns, b.returns)
    np.testing.assert_allclose(a.returns.sum(axis=1), 0.0)  # chips are conserved
    assert (a.steps > 0).all() and a.bots == ["policy", "greedy", "random"]
    s = summarize(a, ratings=False)
    assert s["seats"][0]["bot"] == "policy" and "bankrupt" in s["stats"]  # the game's own figures
    chips = sum(a.stats[f"chips_{k}"] for k in range(3))
    assert (chips == chips[0]).all()  # read from each game's final position: chips conserved
    for k in range(3):  # and each seat's chips moved by its return
        d = a.stats[f"chips_{k}"] - a.returns[:, k]
        assert (d == d[0]).all()


def test_policy_seat_errors(policy_file, tmp_path):
    g = koikoi_env.GAME
    every = run_match(g, [f"policy:{policy_file}"] * 3, 5, num_players=3, rounds=1)  # policies only
    np.testing.assert_allclose(every.returns.sum(axis=1), 0.0)
    with pytest.raises(ValueError, match="another game or other options"):
        run_match(g, [f"policy:{policy_file}", "random", "random", "random"], 5, num_players=4, rounds=1)
    with pytest.raises(ValueError, match="does not exist"):
        run_match(g, ["policy:/nonexistent.npz", "random", "random"], 5, num_players=3, rounds=1)
    with pytest.raises(ValueError, match="W0"):
        MLPPolicy({"b0": np.zeros(3)})
    import thegame_env

    with pytest.raises(ValueError, match="competitive"):
        run_match(thegame_env.GAME, [f"policy:{policy_file}", "random"], 5, num_players=2)


def test_policies_in_several_seats(policy_file, tmp_path):
    """Two policy seats (one file, or two different networks) beside a bot: each seat is
    played by its own policy, chips are conserved and the match is reproducible."""
    layout = koikoi_env.GAME.observation_layout(koikoi_env.Options(num_players=3, rounds=1))
    other = _random_policy(tmp_path / "q.npz", layout.dim, koikoi_env.GAME.num_actions, seed=1)
    kw = dict(seed=3, chunk=20, num_players=3, rounds=1)
    same = run_match(koikoi_env.GAME, [f"policy:{policy_file}", f"policy:{policy_file}", "greedy"], 40, **kw)
    again = run_match(koikoi_env.GAME, [f"policy:{policy_file}", f"policy:{policy_file}", "greedy"], 40, **kw)
    mixed = run_match(koikoi_env.GAME, [f"policy:{policy_file}", f"policy:{other}", "greedy"], 40, **kw)
    np.testing.assert_array_equal(same.returns, again.returns)
    np.testing.assert_allclose(mixed.returns.sum(axis=1), 0.0)
    assert not np.array_equal(same.returns, mixed.returns)  # seat 1 really plays the other net


def test_policy_meta_is_checked(tmp_path):
    """A policy records its game and observation layout; another game or a changed
    layout is refused with a message naming what it was made for."""
    import thegame_env

    g = koikoi_env.GAME
    opts = koikoi_env.Options(num_players=3, rounds=1)
    layout = g.observation_layout(opts)
    pol = MLPPolicy.load(_random_policy(tmp_path / "m.npz", layout.dim, g.num_actions))
    pol.meta = {"game": "koikoi", "options": {"num_players": 3}, "layout": layout.digest(), "seats": [[0]]}
    pol.save(tmp_path / "ok.npz")
    back = MLPPolicy.load(str(tmp_path / "ok.npz"))
    assert back.meta == pol.meta
    back.check_game(g, opts)
    back.check_game(g, opts, strict_options=True)
    with pytest.raises(ValueError, match="trained for koikoi with num_players=3"):
        back.check_game(g, koikoi_env.Options(num_players=4, rounds=1), strict_options=True)
    pol.meta["layout"] = "0" * 16
    pol.save(tmp_path / "old.npz")
    with pytest.raises(ValueError, match="the observation changed since"):
        run_match(g, [f"policy:{tmp_path / 'old.npz'}", "random", "random"], 2, num_players=3, rounds=1)
    pol.meta["game"] = "thegame"
    with pytest.raises(ValueError, match="trained for 'thegame'"):
        pol.check_game(g, opts)
    # a damaged meta in a policy file is a ValueError on load, never a crash later
    weights = {f"W{k}": w for k, (w, _) in enumerate(pol.layers)} | {
        f"b{k}": b for k, (_, b) in enumerate(pol.layers)
    }
    for bad in ('"x"', "[1]", '{"options": 3}', '{"seats": [[0, "a"]]}', '{"seats": 5}', "{not json"):
        np.savez(tmp_path / "bad.npz", **weights, meta=np.array(bad))
        with pytest.raises(ValueError, match="meta"):
            MLPPolicy.load(str(tmp_path / "bad.npz"))
    assert layout.digest() != thegame_env.GAME.observation_layout(thegame_env.Options()).digest()


def test_policy_seat_from_the_cli(policy_file, capsys):
    code = cli.main(
        [
            "match",
            "koikoi",
            "--players",
            "3",
            "--bots",
            f"policy:{policy_file},greedy,random",
            "--games",
            "30",
            "--rounds",
            "1",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "policy" in out and "greedy" in out


@pytest.mark.parametrize(
    "content, message",
    [
        (b"garbage", "is not a NumPy .npz archive; a policy is an .npz of weights"),
        (None, "non-finite values in W0"),
        ("npy", "is one NumPy array"),
        ("truncated", "not a readable .npz"),
    ],
)
def test_damaged_policy_files_get_a_clear_error(tmp_path, content, message):
    from tabletop_core.agents.policy import MLPPolicy

    path = tmp_path / "p.npz"
    good = {"W0": np.zeros((4, 3), np.float32), "b0": np.zeros(3, np.float32)}
    if content is None:
        np.savez(path, **{**good, "W0": np.full((4, 3), np.nan, np.float32)})
    elif content == "npy":
        with open(path, "wb") as f:
            np.save(f, np.zeros(3))
    elif content == "truncated":
        np.savez(tmp_path / "full.npz", **good)
        path.write_bytes((tmp_path / "full.npz").read_bytes()[:100])
    else:
        path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        MLPPolicy.load(str(path))


def test_a_policy_takes_added_observation_pieces_with_zero_weights_and_plays_as_before():
    """with_added_pieces (the shipping command's --added): a policy trained before a piece
    was added plays the new observation exactly as it played the old one."""
    from tabletop_core.contract.encoders import ObservationLayout

    new = ObservationLayout([("a", (3,)), ("b", (2, 2), 4), ("c", (), 9), ("d", (5,))])
    old = ObservationLayout([("a", (3,)), ("c", (), 9)])
    rng = np.random.default_rng(1)
    weights = {
        "W0": rng.standard_normal((old.dim, 6)).astype(np.float32),
        "b0": rng.standard_normal(6).astype(np.float32),
        "W1": rng.standard_normal((6, 7)).astype(np.float32),
        "b1": np.zeros(7, np.float32),
        "scale": rng.uniform(0.5, 2, old.dim).astype(np.float32),
        "meta": {"game": "g", "layout": old.digest(), "seats": [[0]]},
    }
    pol = MLPPolicy(weights)
    grown = pol.with_added_pieces(new, ["b", "d"])
    assert grown.obs_dim == new.dim and grown.meta["layout"] == new.digest()
    assert pol.obs_dim == old.dim  # the original is unchanged
    obs_new = rng.uniform(0, 1, (200, new.dim)).astype(np.float32)
    keep = np.r_[new.offset["a"] : new.offset["a"] + 3, new.offset["c"]]
    mask = rng.integers(0, 2, (200, 7)).astype(np.int8)
    mask[:, 0] = 1
    np.testing.assert_array_equal(grown(obs_new, mask), pol(obs_new[:, keep], mask))

    with pytest.raises(ValueError, match="added pieces must be names"):
        pol.with_added_pieces(new, ["nope"])
    with pytest.raises(ValueError, match="the observation changed otherwise"):
        pol.with_added_pieces(new, ["b"])  # trained without d too: the recorded layout says so
    weights.pop("meta")
    with pytest.raises(ValueError, match="reads 4 inputs"):
        MLPPolicy(weights).with_added_pieces(new, ["b"])


def test_shipping_with_added_pieces_refuses_a_policy_already_on_the_layout(tmp_path, capsys):
    from tabletop_core.agents.baseline import main

    layout = koikoi_env.GAME.observation_layout(koikoi_env.Options())
    path = _random_policy(tmp_path / "p.npz", layout.dim, koikoi_env.GAME.num_actions)
    with pytest.raises(SystemExit):  # argparse's error, not a traceback
        main(["koikoi", path, "--added", "hand", "--out", str(tmp_path / "out.npz")])
    assert f"reads {layout.dim} inputs; the observation without hand has" in capsys.readouterr().err
    assert not (tmp_path / "out.npz").exists()


def test_ratings_are_read_from_the_first_ten_thousand_games():
    """A long match (or one interrupted after millions of games) does not wait on openskill's
    one-game-at-a-time updates: the ratings come from its first MAX_RATED_GAMES games."""
    pytest.importorskip("openskill")
    import dataclasses

    from tabletop_core.tools.arena import MAX_RATED_GAMES

    rng = np.random.default_rng(0)
    g = MAX_RATED_GAMES + 3000
    returns = rng.integers(-1, 2, size=(g, 2)).astype(np.float64)
    long = run_match(koikoi_env.GAME, "greedy,random", 4, seed=0, num_players=2, rounds=1)
    long = dataclasses.replace(long, returns=returns, steps=np.ones(g, np.int64), stats={})
    short = dataclasses.replace(
        long, returns=returns[:MAX_RATED_GAMES], steps=np.ones(MAX_RATED_GAMES, np.int64)
    )
    a, b = summarize(long), summarize(short)
    assert [s["rating"] for s in a["seats"]] == [s["rating"] for s in b["seats"]]
    assert a["seats"][0]["mean_return"] != b["seats"][0]["mean_return"]  # the other figures use every game
    assert "first 10,000 games" in a["definitions"]["rating"]
    assert "first" not in b["definitions"]["rating"]
