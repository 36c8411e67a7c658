"""Bot matches with a trained policy in one seat (``--bots policy:FILE.npz``)."""

from __future__ import annotations

import io

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


@pytest.mark.slow
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


def _numpy_greedy(pol: MLPPolicy, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The policy's greedy action written plainly in numpy: the reference of its compiled pass."""
    x = obs * pol.scale if pol.scale is not None else obs
    for k, (w, b) in enumerate(pol.layers):
        x = x @ w + b
        if k < len(pol.layers) - 1:
            x = np.tanh(x) if pol.activation == "tanh" else np.maximum(x, np.float32(0.0))
    for (o, n), gain in zip(pol.action_inputs, pol.action_gain):
        x[:, :n] += gain * np.asarray(obs[:, o : o + n], np.float32)
    return np.where(mask != 0, x, -np.inf).argmax(axis=1).astype(np.int64)


@pytest.mark.slow
@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_the_compiled_greedy_pass_equals_numpy_and_ignores_the_rest_of_the_batch(activation):
    """On sparse observations and random masks: the same actions as the numpy pass, for the
    whole batch and row by row; three layers and one (no hidden layer) alike."""
    rng = np.random.default_rng(1)
    d, a, b = 40, 17, 300
    obs = (rng.random((b, d)) * (rng.random((b, d)) < 0.2)).astype(np.float32)
    mask = (rng.random((b, a)) < 0.3).astype(np.int8)
    mask[0] = 0  # no legal action: 0, as argmax over -inf
    deep = {
        "W0": rng.standard_normal((d, 24)).astype(np.float32),
        "b0": rng.standard_normal(24).astype(np.float32),
        "W1": rng.standard_normal((24, 20)).astype(np.float32),
        "b1": rng.standard_normal(20).astype(np.float32),
        "W2": rng.standard_normal((20, a)).astype(np.float32),
        "b2": rng.standard_normal(a).astype(np.float32),
        "scale": rng.random(d).astype(np.float32),
        "activation": np.array(activation),
        "action_inputs": np.array([[3, 5]]),
        "action_gain": np.array([0.5], np.float32),
    }
    linear = {"W0": rng.standard_normal((d, a)).astype(np.float32), "b0": np.zeros(a, np.float32)}
    for weights in (deep, linear):
        pol = MLPPolicy(weights)
        batch = pol(obs, mask)
        np.testing.assert_array_equal(batch, _numpy_greedy(pol, obs, mask))
        one = np.concatenate([pol(obs[i : i + 1], mask[i : i + 1]) for i in range(b)])
        np.testing.assert_array_equal(batch, one)
        assert batch[0] == 0 and all(mask[i, batch[i]] for i in range(1, b) if mask[i].any())


def test_a_policy_with_read_only_weights_plays_as_the_same_policy_after_a_pickle():
    """Weights handed back read-only (a zero-copy deserializer, as Ray's, does that to some
    arrays and not others) and a pickled copy play the same actions as the policy itself."""
    import pickle

    rng = np.random.default_rng(2)
    d, a = 12, 9
    weights = {
        "W0": rng.standard_normal((d, 8)).astype(np.float32),
        "b0": rng.standard_normal(8).astype(np.float32),
        "W1": rng.standard_normal((8, a)).astype(np.float32),
        "b1": rng.standard_normal(a).astype(np.float32),
    }
    obs = rng.random((6, d)).astype(np.float32)
    mask = (rng.random((6, a)) < 0.5).astype(np.int8)
    want = MLPPolicy(weights)(obs, mask)
    frozen = {k: v.copy() for k, v in weights.items()}
    for key in ("W0", "b0"):  # the first layer read-only, the last (stored transposed) not
        frozen[key].setflags(write=False)
    np.testing.assert_array_equal(MLPPolicy(frozen)(obs, mask), want)
    copy = pickle.loads(pickle.dumps(MLPPolicy(weights), protocol=5))
    np.testing.assert_array_equal(copy(obs, mask), want)


def test_a_batched_policy_match_equals_games_played_one_at_a_time(policy_file):
    """The policy match plays its games in one batch whose rows deal the next game as one
    ends: every game's returns, steps and final figures are those of the same game played
    alone (chunk=1), whatever the batch, and the same for the same seed."""
    bots = [f"policy:{policy_file}", "greedy", "random"]
    kw = dict(seed=11, num_players=3, rounds=1)
    alone = run_match(koikoi_env.GAME, bots, 24, chunk=1, **kw)
    for chunk in (5, 1000):
        batch = run_match(koikoi_env.GAME, bots, 24, chunk=chunk, **kw)
        np.testing.assert_array_equal(batch.returns, alone.returns)
        np.testing.assert_array_equal(batch.steps, alone.steps)
        assert batch.stats.keys() == alone.stats.keys()
        for key in alone.stats:
            np.testing.assert_array_equal(batch.stats[key], alone.stats[key])
    other = run_match(koikoi_env.GAME, bots, 24, chunk=5, seed=12, num_players=3, rounds=1)
    assert not np.array_equal(other.returns, alone.returns)


def test_a_match_takes_the_options_object():
    """run_match takes the game's options object as itself (or a dict, or keywords)."""
    opts = koikoi_env.Options(num_players=3, rounds=1)
    a = run_match(koikoi_env.GAME, "greedy", 6, seed=2, options=opts)
    b = run_match(koikoi_env.GAME, "greedy", 6, seed=2, num_players=3, rounds=1)
    c = run_match(koikoi_env.GAME, "greedy", 6, seed=2, options={"num_players": 3, "rounds": 1})
    assert a.options is opts and a.options == b.options == c.options
    np.testing.assert_array_equal(a.returns, b.returns)
    np.testing.assert_array_equal(a.returns, c.returns)
    with pytest.raises(ValueError, match="Options or a dict"):
        run_match(koikoi_env.GAME, "greedy", 6, options=[3])
    with pytest.raises(ValueError, match="chunk"):
        run_match(koikoi_env.GAME, "greedy", 6, chunk=0, options=opts)


@pytest.mark.slow
def test_no_interval_leaves_the_range_of_the_measure():
    """Five games of The Game: the mean score (>= 0) keeps a low end >= 0, every rate stays
    in [0, 1], every interval holds its figure; the table says how they are made."""
    import thegame_env
    from tabletop_core.tools.arena import INTERVALS

    r = run_match(thegame_env.GAME, "random", 5, seed=0, num_players=2)
    s = summarize(r, ratings=False)
    assert s["intervals"] == INTERVALS and "Wilson" in INTERVALS and "bootstrap" in INTERVALS
    score = s["stats"]["score"]
    assert r.stats["score"].min() <= score["low"] <= score["mean"] <= score["high"] <= r.stats["score"].max()
    for d in s["stats"].values():
        if "rate" in d:
            assert 0.0 <= d["low"] <= d["rate"] <= d["high"] <= 1.0


def test_bootstrap_interval_stays_within_the_values_seen():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from tabletop_core.tools.arena import bootstrap_interval

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.integers(0, 60), min_size=2, max_size=40))
    def check(values):
        x = np.array(values, np.float64)
        m, lo, hi = bootstrap_interval(x)
        assert x.min() <= lo <= hi <= x.max()
        assert bootstrap_interval(x) == (m, lo, hi)  # the same interval every time

    check()
    assert bootstrap_interval(np.array([0.0, 0.0, 0.0, 4.0, 0.0]))[1] >= 0.0  # mean_interval's low is < 0
    m, lo, hi = bootstrap_interval(np.array([3.0]))
    assert m == 3.0 and np.isnan(lo) and np.isnan(hi)


def test_progress_lines_off_a_terminal_give_the_time_left(capsys):
    from tabletop_core.tools.progress import ProgressBar, format_duration

    bar = ProgressBar(1000, "match", unit="games", plain_every=0.0, stream=io.StringIO())
    bar.t0 -= 10.0  # ten seconds in
    bar.update(250)
    err = capsys.readouterr().err
    assert "match: 250/1,000 games" in err and "25.0 games/s" in err and "about 30 s left" in err
    assert format_duration(45) == "45 s" and format_duration(720) == "12 min"
    assert format_duration(7500) == "2 h 05 min"


def test_a_slow_warm_up_says_the_kernels_compile(capsys, monkeypatch):
    import time

    from tabletop_core.tools import progress

    monkeypatch.setattr(progress, "COMPILE_NOTICE_S", 0.05)
    with progress.compile_notice("thegame"):
        time.sleep(0.5)
    with progress.compile_notice("koikoi"):
        pass  # a warm cache: nothing said
    time.sleep(0.1)
    err = capsys.readouterr().err
    assert err.count("compiling the kernels for thegame (first run only; cached after)") == 1
    assert "koikoi" not in err


def test_a_long_match_warns_with_its_estimate(capsys, monkeypatch):
    from tabletop_core.tools import arena

    arena._warn_if_long(10_000, 100, 12.0)  # 20 min at the first games' rate
    assert "about 20 min" in capsys.readouterr().err
    arena._warn_if_long(10_000, 5000, 12.0)  # 24 s: nothing
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(arena, "WARN_SECONDS", 0.0)
    run_match(koikoi_env.GAME, "greedy", 4, seed=0, progress=True, num_players=2, rounds=1)
    assert "this match will take about" in capsys.readouterr().err


@pytest.mark.slow
def test_search_games_on_several_threads_equal_one_thread(monkeypatch):
    """A search match plays one game per core at once; each game is dealt and searched
    from its own seeds, so the figures equal those of one thread."""
    import thegame_env
    from tabletop_core.tools import arena

    lineup = ["search:rollouts=8:bot=greedy", "strong"]
    monkeypatch.setattr(arena, "available_cores", lambda: 1)
    one = run_match(thegame_env.GAME, lineup, 4, seed=3, num_players=2)
    monkeypatch.setattr(arena, "available_cores", lambda: 3)
    three = run_match(thegame_env.GAME, lineup, 4, seed=3, num_players=2)
    np.testing.assert_array_equal(one.returns, three.returns)
    np.testing.assert_array_equal(one.steps, three.steps)
    for key in one.stats:
        np.testing.assert_array_equal(one.stats[key], three.stats[key])
