"""The ``tabletop`` command line at its edges: each mistake a newcomer can make ends in one
clear message and exit status 2 (130 when interrupted), never a traceback."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_core import cli


def run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_huge_games_is_refused_before_allocating(capsys):
    code, out, err = run(capsys, "match", "thegame", "--bots", "random", "--games", "100000000000")
    assert code == 2
    assert "at most 100,000,000" in err and "Traceback" not in err + out


@pytest.mark.parametrize("seed", ["-1", "18446744073709551616", "99999999999999999999999", "1.5"])
def test_out_of_range_seed_is_refused(capsys, seed):
    code, out, err = run(capsys, "match", "thegame", "--bots", "random", "--games", "3", "--seed", seed)
    assert code == 2
    assert "0 <= SEED < 2**64" in err and "Traceback" not in err


def test_seed_plus_games_must_stay_below_2_64(capsys):
    code, _, err = run(
        capsys, "match", "thegame", "--bots", "random", "--games", "10", "--seed", str(2**64 - 5)
    )
    assert code == 2 and "below 2**64" in err and "seed + 9" in err
    code, out, _ = run(
        capsys, "match", "thegame", "--bots", "random", "--games", "5", "--seed", str(2**64 - 5), "--json"
    )
    assert code == 0


def test_envs_refuse_seeds_outside_the_generator_word():
    import thegame_env

    env = thegame_env.raw_env()
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match="2\\*\\*64"):
            env.reset(seed=bad)
    env.reset(seed=2**64 - 1)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        thegame_env.vector_env(num_envs=4, seed=2**64 - 2)
    venv = thegame_env.vector_env(num_envs=4)
    with pytest.raises(ValueError, match="0 or more"):
        venv.reset(seed=-1)
    with pytest.raises(ValueError, match="0 or more"):
        venv.reset(seed=[0, 1, -2, 3])
    obs, _ = venv.reset(seed=np.uint64(2**64 - 4))
    assert obs.shape[0] == 4


@pytest.mark.parametrize(
    "bots, message",
    [
        ("ghost,ghost,ghost,human", "seat 0 (human_0) is a human seat, not a ghost seat"),
        ("human", "seat 3 (ghost_0) is a ghost seat, not a human seat"),
        ("policy:exitnow_envs/baselines/ghost.npz,smart,smart,smart", "trained for ghost seats; seat 0"),
        ("smart,smart,smart,policy:exitnow_envs/baselines/humans.npz", "trained for human seats; seat 3"),
    ],
)
def test_exit_now_refuses_a_bot_in_the_wrong_role(capsys, bots, message):
    code, out, err = run(capsys, "match", "exitnow", "--bots", bots, "--games", "3")
    assert code == 2 and message in err and "Traceback" not in err


def test_exit_now_roles_are_declared_by_the_game_not_the_core():
    import exitnow_envs

    game = exitnow_envs.GAME
    assert dict(game.bot_roles) == {"human": "human", "ghost": "ghost"}
    game.check_roles(["human", "random", "smart", "ghost"], {})
    game.check_roles([None, "human", "human", "ghost"], {})  # None: the person or a policy
    with pytest.raises(ValueError, match="ghost seats take random, smart, ghost"):
        game.check_roles(["human", "human", "human", "human"], {})


def test_match_and_replay_accept_the_right_roles(capsys, tmp_path):
    code, out, _ = run(
        capsys,
        "match",
        "exitnow",
        "--bots",
        "human,human,smart,policy:exitnow_envs/baselines/ghost.npz",
        "--games",
        "3",
        "--json",
    )
    assert code == 0
    code, _, err = run(capsys, "replay", "exitnow", "--bots", "ghost", "--out", str(tmp_path / "r.html"))
    assert code == 2 and "is a human seat" in err


@pytest.mark.parametrize(
    "content, message",
    [
        (b"a text file\n", "is not a NumPy .npz archive"),
        (b"\x80\x04pickled", "is not a NumPy .npz archive"),
        ("npy", "is one NumPy array (.npy)"),
    ],
)
def test_a_policy_file_that_is_no_npz_gets_a_plain_message(capsys, tmp_path, content, message):
    path = tmp_path / "policy.npz"
    if content == "npy":
        with open(path, "wb") as f:
            np.save(f, np.zeros(3))
    else:
        path.write_bytes(content)
    code, _, err = run(capsys, "match", "thegame", "--bots", f"policy:{path}", "--games", "3")
    assert code == 2 and message in err
    assert "allow_pickle" not in err and "Traceback" not in err


def test_list_and_unknown_bot_messages_name_the_baseline(capsys):
    import json

    code, out, _ = run(capsys, "list", "--json")
    assert all("baseline" in g["bots"] for g in json.loads(out))
    code, out, _ = run(capsys, "list")
    assert "baseline" in out
    code, _, err = run(capsys, "match", "koikoi", "--bots", "genius", "--games", "3")
    assert code == 2 and "available bots: random, greedy, strong, search, baseline" in err


def _as_from_a_terminal() -> None:
    """In the child, before exec: SIGINT back to its default, as for a command started
    from a terminal (a background job, such as ``nohup pytest ... &``, inherits it ignored,
    and Python then never raises KeyboardInterrupt)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture(scope="module")
def warm_match_cache():
    """One short match first, to its end: it compiles the match's kernels and writes them
    to numba's cache, so the Ctrl-C tests below time the signal against a start-up that
    loads them (seconds), not a cold compilation (minutes on a loaded machine)."""
    import subprocess
    import sys

    argv = [
        sys.executable,
        "-m",
        "tabletop_core.cli",
        "match",
        "thegame",
        "--bots",
        "random",
        "--games",
        "10",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_ctrl_c_in_a_match_prints_the_games_played_and_exits_130(warm_match_cache):
    """SIGINT (Ctrl-C) in a long match: the table of the games played so far, the word
    "interrupted" and exit status 130."""
    import json
    import signal
    import subprocess
    import sys
    import time

    argv = [sys.executable, "-m", "tabletop_core.cli", "match", "thegame", "--bots", "random"]
    for wait in (12, 30, 90):  # a loaded machine may still be compiling: wait longer, then again
        proc = subprocess.Popen(
            [*argv, "--games", "50000000", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_as_from_a_terminal,
        )
        time.sleep(wait)  # start-up and the compiled (cached) kernels; then it plays chunks of 2000
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 130, err
        assert "interrupted" in err and "Traceback" not in err
        if out.strip():  # at least one chunk of games was played before the signal
            break
    summary = json.loads(out)
    assert summary["interrupted"] is True and 0 < summary["games"] < 50_000_000
    assert summary["stats"]["score"]["mean"] > 0  # The Game's own figure: cards left


def test_policy_seats_keep_the_games_own_figures():
    """A match with baseline/policy seats reports the game's figures (The Game's cards
    left, Exhaust's and Koikoi's tables) read from each game's final position."""
    import exhaust_env
    import koikoi_env
    import thegame_env
    from tabletop_core.tools.arena import run_match, summarize

    r = run_match(thegame_env.GAME, "baseline", 40, seed=3)
    assert set(r.stats) >= {"score", "win"}
    assert np.array_equal(98 - r.stats["score"], r.returns[:, 0])  # reward=cards: cards placed
    bots = run_match(exhaust_env.GAME, "npc,strong,random,strong", 40, seed=3)
    mixed = run_match(exhaust_env.GAME, "baseline,strong,random,strong", 40, seed=3)
    assert set(mixed.stats) == set(bots.stats) and mixed.stats
    k = run_match(koikoi_env.GAME, "baseline,strong,strong,strong", 6, seed=3, rounds=8)
    assert set(k.stats) == set(run_match(koikoi_env.GAME, "strong", 6, seed=3).stats) and k.stats
    assert summarize(k)["stats"]


def test_a_baseline_refused_for_other_options_names_them_readably(capsys):
    code, _, err = run(capsys, "match", "koikoi", "--bots", "baseline", "--games", "3", "--rounds", "2")
    assert code == 2 and "asked for first_dealer=0, num_players=4, rounds=2" in err
    assert "Options(" not in err


def test_pettingzoo_make_works_after_register_games():
    """One documented call registers every game of the catalog with PettingZoo (in a
    fresh process: no game package imported before)."""
    import subprocess
    import sys

    code = (
        "import sys, pettingzoo\n"
        "from tabletop_core.envs import register_games\n"
        "ids = register_games()\n"
        "env = pettingzoo.make('aec', 'tabletop/thegame-v1', num_players=3)\n"
        "env.reset(seed=0)\n"
        "print(sorted(ids), len(env.agents))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    for game in ("thegame", "koikoi", "exhaust", "exitnow"):
        assert f"tabletop/{game}-v" in out.stdout
    assert out.stdout.strip().endswith(" 3")


def test_exhaust_header_players_and_bot_count_read_plainly(capsys):
    code, out, _ = run(capsys, "match", "exhaust", "--bots", "strong", "--games", "20")
    assert code == 0 and "num_players=4" in out and "None" not in out
    code, _, err = run(capsys, "match", "exhaust", "--players", "1", "--bots", "strong", "--games", "3")
    assert code == 2 and "--mode solo" in err
    code, _, err = run(capsys, "match", "exhaust", "--mode", "solo", "--bots", "strong,npc", "--games", "3")
    assert code == 2 and "1 seat takes one bot, got 2: strong, npc" in err and "1 bots" not in err


def test_render_says_when_the_game_ended_before_the_steps(capsys, tmp_path):
    code, out, _ = run(capsys, "render", "thegame", "--steps", "100000", "--out", str(tmp_path / "t.svg"))
    assert code == 0 and "the game ended at step" in out and "of the 100000 asked for" in out
    code, out, _ = run(capsys, "render", "thegame", "--steps", "3", "--out", str(tmp_path / "t.svg"))
    assert code == 0 and "ended" not in out


def test_bench_suggests_an_install_that_exists():
    import inspect

    from tabletop_core.tools import bench

    text = inspect.getsource(bench)
    assert "tabletop-rl[bench]" not in text and '.[bench]"' in text


def test_train_help_shows_the_defaults(capsys):
    code, out, _ = run(capsys, "train", "thegame", "--help")
    assert code == 0
    for flag in ("--seed SEED", "--lr LR", "--epochs EPOCHS", "--rollout ROLLOUT"):
        line = next(x for x in out.splitlines() if x.strip().startswith(flag))
        assert "default" in line, line


def test_minibatch_default_follows_the_device():
    """Without ``--minibatch`` a run takes 1024 samples on the CPU and 4096 on a GPU (launch
    bound at 1024); a given one is kept. No torch needed: the config fills it in."""
    from tabletop_core.train.config import TrainConfig, default_minibatch, validate

    assert default_minibatch("cpu") == 1024
    assert default_minibatch("cuda") == default_minibatch("cuda:1") == 4096
    cfg = TrainConfig(minutes=1)
    validate(cfg)
    assert cfg.minibatch == 1024
    cfg = TrainConfig(minutes=1, minibatch=512)
    validate(cfg)
    assert cfg.minibatch == 512


def test_train_says_what_it_trains_before_it_starts():
    """The first line of ``tabletop train`` names the game, options, budget, opponents,
    seed and output folder (no torch needed to build it)."""
    from tabletop_core.cli.train import start_line
    from tabletop_core.train import TrainConfig

    line = start_line(
        TrainConfig(
            game="koikoi", options={"num_players": 2}, minutes=5, seed=7, out="runs/x", opponents="greedy"
        )
    )
    for part in ("koikoi", "num_players=2", "5 min", "greedy", "seed 7", "runs/x/"):
        assert part in line, (part, line)


def test_bench_explains_its_terms():
    from tabletop_core.cli.app import BENCH_TERMS

    assert "cores" in BENCH_TERMS and "in use" in BENCH_TERMS


def test_bench_plays_every_bot_in_the_seats_of_its_role():
    """``tabletop bench`` times every scripted bot; a bot bound to one role (Exit Now's
    ``human``, ``ghost``) plays its role's seats and the other role's bot the rest."""
    from tabletop_core.contract.catalog import game_names, load_game
    from tabletop_core.tools.bench import bot_games_per_second

    for name in game_names():
        game = load_game(name)
        for bot in game.bot_names:
            assert bot_games_per_second(game, bot, 20, {}) > 0, (name, bot)


def test_paired_ratios_are_the_medians_of_each_rounds_ratio(monkeypatch):
    """The Pgx comparison's interleaved figure: every round times ours (Python actions,
    in-kernel actions), the loop that only writes rows and the peer, in an order turned by
    one each round, and the record keeps the median over the rounds of each / peer in the
    same round (not the best window of each side)."""
    from tabletop_core.tools import bench
    from thegame_env.game import GAME

    # each round's rates by loop
    rounds = [
        {"python": 4.0, "kernel": 6.0, "rows": 8.0, "peer": 2.0},
        {"python": 8.0, "kernel": 6.0, "rows": 16.0, "peer": 8.0},
        {"python": 3.0, "kernel": 9.0, "rows": 3.0, "peer": 1.0},
        {"python": 5.0, "kernel": 5.0, "rows": 20.0, "peer": 5.0},
        {"python": 1.0, "kernel": 2.0, "rows": 4.0, "peer": 4.0},
        {"python": 2.0, "kernel": 2.0, "rows": 6.0, "peer": 2.0},
        {"python": 2.0, "kernel": 2.0, "rows": 6.0, "peer": 1.0},
        {"python": 1.0, "kernel": 1.0, "rows": 2.0, "peer": 4.0},
    ]
    loops = ("python", "kernel", "rows", "peer")
    monkeypatch.setattr(bench, "PAIRED_ROUNDS", len(rounds))
    calls = []
    names = {}

    def fake_timed(fn, seconds, windows=3):
        calls.append(fn)
        if len(calls) <= 4:  # the settling windows, one per loop in the order of ``loops``
            names[fn] = loops[len(calls) - 1]
            return 9.0
        return rounds[(len(calls) - 5) // 4][names[fn]]

    monkeypatch.setattr(bench, "_timed", fake_timed)
    peer = lambda: 1  # noqa: E731
    out = bench._paired_ratios(GAME, 8, 1.0, {"num_players": 2}, peer)
    assert names[peer] == "peer"
    assert [names[f] for f in calls[4::4]] == ["python", "kernel", "rows", "peer"] * 2  # the order turns
    assert all(len({names[f] for f in calls[k : k + 4]}) == 4 for k in range(4, len(calls), 4))
    assert out["median_window_ratio_python_actions"] == 1.0  # of 2, 1, 3, 1, 0.25, 1, 2, 0.25
    assert out["median_window_ratio_kernel_actions"] == 1.0  # of 3, 0.75, 9, 1, 0.5, 1, 2, 0.25
    assert out["median_window_ratio_row_fill"] == 3.0  # of 4, 2, 3, 4, 1, 3, 6, 0.5


def test_pgx_is_compared_at_each_large_batch_with_ours_at_that_batch(monkeypatch):
    """The vector records give Pgx a "peer" record at every batch of at least
    ``PEER_MIN_BATCH``, each dividing ours at that batch by Pgx's at that batch (the
    one-thread ratio only at the largest), in batch order; ``peer_best`` looks for Pgx's
    best up to 8 times the largest batch too; without Pgx, one record says so."""
    from tabletop_core.tools import bench
    from thegame_env.game import GAME

    def fake_rates(game, b, seconds, options, num_threads=None):
        one = num_threads == 1
        return {
            "threads": 1 if one else 2,
            "python_actions": b / (4 if one else 1),
            "kernel_actions": 2.0 * b,
            "cores_used": 2.0,
        }

    pgx_batches = []

    def fake_pgx(b, seconds):
        pgx_batches.append(b)
        return 10.0 * b, 1.5, lambda: b

    monkeypatch.setattr(bench, "_vector_rates", fake_rates)
    monkeypatch.setattr(bench, "_pgx_connect_four", fake_pgx)
    monkeypatch.setattr(
        bench, "_paired_ratios", lambda game, b, s, o, step: {"median_window_ratio_kernel_actions": b / 1e4}
    )
    rec = lambda kind, **f: {"bench": kind, **f}  # noqa: E731
    out = list(bench._vector_records(rec, GAME, {}, 1.0, (1, 64, 1024, 4096), True))
    peers = [r for r in out if r["bench"] == "peer"]
    assert pgx_batches == [1024, 4096, 16384, 32768] and [r["batch"] for r in peers] == [1024, 4096]
    assert [r["ratio_python_actions"] for r in peers] == [0.1, 0.1]
    assert [r["ratio_kernel_actions"] for r in peers] == [0.2, 0.2]
    assert [r["median_window_ratio_kernel_actions"] for r in peers] == [0.1024, 0.4096]
    assert "ratio_python_actions_one_thread" not in peers[0]
    assert peers[1]["ratio_python_actions_one_thread"] == 0.025
    assert [r["batch"] for r in out if r["bench"] == "vector"] == [1, 64, 1024, 4096, 4096]
    (best,) = [r for r in out if r["bench"] == "peer_best"]  # Pgx fastest at 32768, ours at 4096
    assert best["peer_batch"] == 32768 and best["python_actions_batch"] == 4096
    assert best["ratio_kernel_actions"] == 8192 / 327680 and best["kernel_actions_steps_per_s"] == 8192
    assert list(best["peer_rates"]) == [1024, 4096, 16384, 32768]
    monkeypatch.setattr(bench, "_pgx_connect_four", lambda b, s: (4e4 if b == 1024 else 1e4, 1.0, lambda: b))
    (best,) = [
        r
        for r in bench._vector_records(rec, GAME, {}, 1.0, (64, 1024, 4096), True)
        if r["bench"] == "peer_best"
    ]
    assert best["peer_batch"] == 1024 and best["ratio_python_actions"] == 4096 / 4e4
    from tabletop_core.cli.app import _bench_line

    assert "its fastest batch (1024)" in _bench_line(best) and "batch 4096" in _bench_line(best)
    small = [r for r in bench._vector_records(rec, GAME, {}, 1.0, (8, 64), True) if r["bench"] == "peer"]
    assert [r["batch"] for r in small] == [64]  # none large enough: the largest
    monkeypatch.setattr(bench, "_pgx_connect_four", lambda b, s: None)
    missing = [
        r for r in bench._vector_records(rec, GAME, {}, 1.0, (1024, 4096), True) if r["bench"] == "peer"
    ]
    assert len(missing) == 1 and "not installed" in missing[0]["error"]


def test_row_fill_loop_writes_every_row_in_full():
    """The ceiling's loop writes each row of its width whole, on one thread or several,
    and refuses an empty shape by name."""
    from tabletop_core.tools import bench

    for threads in (1, 2):
        fill = bench.row_fill_loop(5, 1030, threads)
        arr = fill.rows
        assert fill() == 5
        expect = np.zeros(1030, np.float32)
        expect[[0, 512, 1024]] = 1.0
        assert np.array_equal(arr, np.broadcast_to(expect, (5, 1030)))
        arr[:] = 7.0
        fill()
        assert np.array_equal(arr, np.broadcast_to(expect, (5, 1030)))
    with pytest.raises(ValueError, match="batch and dim"):
        bench.row_fill_loop(0, 10, 1)


def test_bench_line_names_the_row_fill_ceiling():
    """The Pgx line of ``tabletop bench`` (text) gives the row-fill ceiling beside the
    ratios where the record has it, and reads an older record without it."""
    from tabletop_core.cli.app import _bench_line

    r = {
        "bench": "peer",
        "peer": "pgx connect_four",
        "batch": 4096,
        "steps_per_s": 1.5e6,
        "cores_used": 1.6,
        "threads": 2,
        "ratio_python_actions": 0.65,
        "ratio_kernel_actions": 0.70,
        "median_window_ratio_python_actions": 0.59,
        "median_window_ratio_kernel_actions": 0.68,
        "median_window_ratio_row_fill": 1.51,
    }
    assert "rows only ×1.51 (the ceiling)" in _bench_line(r)
    del r["median_window_ratio_row_fill"]
    assert "rows only" not in _bench_line(r) and "×0.68" in _bench_line(r)


@pytest.mark.parametrize("batches", ["0", "-4", "1024,x", "", "70000", "1.5"])
def test_bench_refuses_batches_outside_what_the_vector_env_takes(capsys, batches):
    """``--batches`` takes comma-separated integers in 1..MAX_BENCH_BATCH: anything else
    is refused by the parser with a message naming the flag."""
    code, _, err = run(capsys, "bench", "thegame", "--quick", "--no-peers", "--batches", batches)
    assert code == 2 and "--batches" in err


def test_bench_batches_are_sorted_and_taken_once():
    from tabletop_core.cli.app import bench_batches_arg

    assert bench_batches_arg("4096, 256,1024,256") == (256, 1024, 4096)


@pytest.mark.parametrize("seconds", ["0", "-1", "nan", "inf", "1e9", "abc"])
def test_bench_refuses_seconds_that_time_nothing_or_never_end(capsys, seconds):
    """``--seconds`` 0 or below divided by zero deep in the bench, nan and inf never ended
    a window: each is refused by the parser, naming what is allowed."""
    code, _, err = run(capsys, "bench", "thegame", "--quick", "--no-peers", "--seconds", seconds)
    assert code == 2 and "--seconds" in err


def test_batch_sweep_times_every_batch_and_refuses_empty_sweeps():
    """``batch_sweep`` gives ours at every batch (positive steps/s, the buffer's size),
    no peer key when asked for none, runs a batch smaller than the thread count on one
    thread per env, and raises a ValueError naming what was wrong."""
    from tabletop_core.tools.bench import batch_sweep
    from thegame_env.game import GAME

    r = batch_sweep(GAME, {"num_players": 2}, (1, 8), windows=2, seconds=0.01, num_threads=1, peer=False)
    assert r["bench"] == "batch_sweep" and r["options"]["num_players"] == 2 and r["threads"] == 1
    assert set(r["steps_per_s"]) == {1, 8} and all(v > 0 for v in r["steps_per_s"].values())
    assert r["obs_mib"][8] == round(8 * r["obs_floats"] * 4 / 2**20, 1) and "peer_steps_per_s" not in r
    wide = batch_sweep(GAME, {"num_players": 2}, (1, 8), windows=1, seconds=0.01, num_threads=999, peer=False)
    assert set(wide["steps_per_s"]) == {1, 8}  # more threads than envs: one per env
    for bad in ({"batches": ()}, {"batches": (0, 8)}, {"windows": 0}, {"seconds": 0.0}, {"num_threads": 0}):
        with pytest.raises(ValueError, match="batch_sweep needs"):
            batch_sweep(GAME, None, **{"batches": (8,), **bad})
