"""Training from a search teacher (``tabletop train GAME --imitate search``,
tabletop_core/train/teacher.py): the labels are the search bot's own choices whatever the
number of threads, the rounds are kept on disk and resume where they stopped, and the
teacher's settings get clear errors before anything runs."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_core import cli  # noqa: E402
from tabletop_core.contract.catalog import load_game  # noqa: E402
from tabletop_core.contract.search import batch_search_actions, batch_search_values  # noqa: E402
from tabletop_core.envs.vector import SelfPlayVectorEnv  # noqa: E402
from tabletop_core.kernel.rng import stream_words  # noqa: E402
from tabletop_core.train.teacher import (  # noqa: E402
    collect_round,
    label_rows,
    load_rounds,
    parse_teacher,
    value_logits,
)

SPEC = "search:rollouts=4"


def _train(tmp_path, *args: str) -> int:
    return cli.main(["train", *args, "--out", str(tmp_path / "run"), "--no-progress"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--imitate", "search:rollouts=0"], "rollouts must be in"),
        (["--imitate", "search:depth=3"], "unknown search setting"),
        (["--imitate", "search:blueprint=baseline"], "blueprint=self"),
        (["--imitate", "search:target=visits"], "target must be values"),
        (
            ["--imitate", "search:top=3"],
            "top= steers the search with the actor being trained; add blueprint=self",
        ),
        (["--imitate", "search:blueprint=self:own=me"], "own must be one of bot, policy"),
        (["--imitate", "champion"], "search[:rollouts=N]"),
    ],
)
def test_a_bad_teacher_is_refused_before_anything_runs(tmp_path, capsys, args, message):
    assert _train(tmp_path, "koikoi", "--steps", "10", *args) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run" / "teacher").exists()


def test_labels_are_the_search_bots_choices_on_any_number_of_threads():
    """``label_rows`` splits the rows between threads; each env's search draws from its own
    generator, so one thread and two give the serial kernel's labels exactly."""
    game = load_game("exhaust")
    teacher = parse_teacher(game, SPEC)
    venv = SelfPlayVectorEnv(game, 32, seed=3, copy=False, num_threads=1)
    venv.reset(seed=3)
    for _ in range(5):
        venv.step_bots("random")
    rows = np.flatnonzero(venv._mask.sum(axis=1) > 1).astype(np.int64)
    blue = np.full(rows.size, -1, np.int64)
    want = np.empty(rows.size, np.int64)
    batch_search_actions(
        venv.state, rows, np.uint64(teacher.bot_id), stream_words(7, "bots", 32), blue, want, None
    )
    values = []
    for workers in (1, 2):
        got, q, noise = label_rows(venv.state, rows, teacher, blue, stream_words(7, "bots", 32), workers)
        np.testing.assert_array_equal(got, want)
        assert all(venv._mask[r, a] for r, a in zip(rows, got))
        assert q.shape == (rows.size, game.num_actions) and noise.shape == (rows.size,)
        legal = venv._mask[rows] != 0
        assert np.isfinite(q[legal]).all() and np.isnan(q[~legal]).all(), (
            "a value for each legal action, NaN elsewhere"
        )
        assert (noise >= 0).all()
        values.append(q)
    np.testing.assert_array_equal(values[0], values[1])


@pytest.mark.slow
def test_a_steering_teacher_searches_with_the_actor_inside():
    """``blueprint=self:top=K:own=policy``: the teacher's id carries the settings and
    ``label_rows`` hands the actor's network to the search, on any number of threads."""
    from tabletop_core.agents.policy import MLPPolicy
    from tabletop_core.contract.search import guide_params

    game = load_game("exhaust")
    teacher = parse_teacher(game, "search:rollouts=8:blueprint=self:top=3:own=policy")
    assert teacher.guided and guide_params(teacher.bot_id) == (3, True)
    net = MLPPolicy.load("exhaust_env/baselines/baseline.npz").packed().args
    venv = SelfPlayVectorEnv(game, 16, seed=3, copy=False, num_threads=1, num_players=4)
    venv.reset(seed=3)
    for _ in range(5):
        venv.step_bots("random")
    rows = np.flatnonzero(venv._mask.sum(axis=1) > 1).astype(np.int64)
    blue = venv._mask[rows].argmax(axis=1).astype(np.int64)
    want = np.empty(rows.size, np.int64)
    batch_search_actions(
        venv.state, rows, np.uint64(teacher.bot_id), stream_words(7, "bots", 16), blue, want, net
    )
    for workers in (1, 2):
        got, q, _ = label_rows(venv.state, rows, teacher, blue, stream_words(7, "bots", 16), workers, net)
        np.testing.assert_array_equal(got, want)
        assert ((~np.isnan(q)).sum(axis=1) <= 4).all(), "top=3 and the default move at most"


@pytest.mark.parametrize("name", ["thegame", "koikoi", "exhaust", "exitnow"])
def test_the_searchs_values_come_with_the_same_move_from_the_same_draws(name):
    """``batch_search_values`` is the search itself, keeping what it learned: the same
    actions as ``batch_search_actions`` and the bot generators advanced the same way, in
    every game, with a value for each legal action and none for the others."""
    game = load_game(name)
    teacher = parse_teacher(game, "search:rollouts=16")
    venv = SelfPlayVectorEnv(game, 8, seed=5, copy=False, num_threads=1)
    venv.reset(seed=5)
    for _ in range(3):
        venv.step_bots("random")
    rows = np.flatnonzero(venv._mask.sum(axis=1) > 0).astype(np.int64)
    blue = np.full(rows.size, -1, np.int64)
    a_rng, b_rng = stream_words(9, "bots", 8), stream_words(9, "bots", 8)
    want = np.empty(rows.size, np.int64)
    batch_search_actions(venv.state, rows, np.uint64(teacher.bot_id), a_rng, blue, want, None)
    got, q, noise = (
        np.empty(rows.size, np.int64),
        np.empty((rows.size, game.num_actions)),
        np.empty(rows.size),
    )
    batch_search_values(venv.state, rows, np.uint64(teacher.bot_id), b_rng, blue, got, q, noise, None)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a_rng, b_rng)
    legal = venv._mask[rows] != 0
    assert np.isfinite(q[legal]).all() and np.isnan(q[~legal]).all()
    assert (noise >= 0).all()


def _improved_target(own_logits: np.ndarray, mask: np.ndarray, logits: np.ndarray) -> np.ndarray:
    """The target ``fit_actor`` trains toward (``imitate._improved``) for an actor whose
    logits are ``own_logits`` at every row."""
    from tabletop_core.train.imitate import _improved

    class Actor:
        def actor_logits(self, x):
            return torch.as_tensor(own_logits, dtype=torch.float32)[: len(x)]

    n, cpu = len(own_logits), torch.device("cpu")
    return _improved(
        Actor(), torch.zeros(n, 1), torch.from_numpy(mask != 0), torch.from_numpy(logits), n, cpu
    ).numpy()


def test_the_value_target_keeps_the_actors_preference_between_moves_the_search_could_not_tell_apart():
    """``target=values``: the actor's own policy times ``exp((q - max q) / noise)`` over
    the legal actions: ties keep the actor's preference, a move better by one noise gets
    e times the weight, illegal actions get none, and a row without noise keeps only its
    best moves."""
    nan = np.nan
    q = np.array(
        [
            [1.0, 1.0, nan, 0.0],  # a tie, noise 0.01: the actor's own split, the worse one ~0
            [0.0, 0.5, 0.0, nan],  # noise 0.5: the best e times either other
            [2.0, 0.0, 0.0, 0.0],  # no noise: the best only
            [3.0, 9.0, 1.0, 0.0],  # action 1 is not legal (its value is ignored)
        ]
    )
    mask = np.array([[1, 1, 0, 1], [1, 1, 1, 0], [1, 1, 1, 1], [1, 0, 1, 1]], np.int8)
    noise = np.array([0.01, 0.5, 0.0, 1.0])
    logits = value_logits(q, mask, noise)
    assert logits.dtype == np.float32 and (logits[mask == 0] <= -1e8).all()
    own = np.log(
        np.array([[0.9, 0.1, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [0.01, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
    )
    flat = _improved_target(np.zeros((4, 4)), mask, logits)
    mine = _improved_target(own, mask, logits)
    for p in (flat, mine):
        assert p.dtype == np.float32 and p.shape == (4, 4)
        np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-6)
        assert (p[mask == 0] == 0).all()
        np.testing.assert_allclose(p[2], [1.0, 0.0, 0.0, 0.0], atol=1e-6)
        assert p[3].argmax() == 0
    np.testing.assert_allclose(flat[0], [0.5, 0.5, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(mine[0], [0.9, 0.1, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(flat[1, 1] / flat[1, 0], np.e, rtol=1e-5)


def test_a_value_target_fit_moves_the_actor_toward_the_better_move_and_keeps_it_elsewhere():
    """``fit_actor(..., targets=value_logits)`` on rows where the search found a better
    move than the actor's own, and rows of a tie: the actor takes the better move where it
    was found and keeps its own choice on the ties."""
    from tabletop_core.train.imitate import fit_actor
    from tabletop_core.train.model import Agent

    torch.manual_seed(0)
    agent = Agent(4, 3, (16,), "relu")
    xs = torch.eye(4)[torch.tensor([0, 1] * 64)].to(torch.bfloat16)
    ms = torch.ones(128, 3, dtype=torch.bool)
    with torch.no_grad():
        before = agent.actor_logits(torch.eye(4)[:2]).argmax(dim=1)
    q = np.zeros((128, 3))
    better = (before[0].item() + 1) % 3
    q[0::2, better] = 1.0  # state 0: the search found `better` one noise unit ahead
    noise = np.full(128, 0.1)
    targets = torch.from_numpy(value_logits(q, np.ones((128, 3)), noise))
    fit_actor(agent, xs, ms, torch.zeros(128, dtype=torch.int64), 30, 0, lr=1e-2, targets=targets)
    with torch.no_grad():
        after = agent.actor_logits(torch.eye(4)[:2]).argmax(dim=1)
    assert after[0].item() == better
    assert after[1].item() == before[1].item(), "a tie keeps the actor's own move"


def test_a_round_keeps_its_chunks_and_a_second_call_adds_nothing(tmp_path):
    game = load_game("exhaust")
    teacher = parse_teacher(game, SPEC)
    folder = str(tmp_path / "teacher")
    args = (game, {"num_players": 4}, teacher, None, 0, 300, 0, [(0,)], folder)
    collect_round(*args, num_envs=16, progress=False)
    files = sorted(os.listdir(folder))
    stamps = [os.stat(os.path.join(folder, f)).st_mtime_ns for f in files]
    dim = game.observation_layout(game.make_options()).dim
    xs, ms, acts, none = load_rounds(folder, 1, dim, game.num_actions)
    assert none is None, "target=move: the actor learns the moves"
    *_, targets = load_rounds(folder, 1, dim, game.num_actions, "values")
    assert targets.shape == ms.shape and bool((targets[~ms] <= -1e8).all()), "no weight off the legal moves"
    assert bool((targets[ms] <= 0).all()) and bool((targets.max(dim=1).values == 0).all()), (
        "0 at the best move"
    )
    assert len(acts) >= 300 and xs.shape == (len(acts), dim)
    assert bool(ms[torch.arange(len(acts)), acts].all()), "every label is a legal action"
    assert bool((ms.sum(dim=1) > 1).all()), "a decision with one legal action is not kept"
    collect_round(*args, num_envs=16, progress=False)  # resumed: the round is complete
    assert sorted(os.listdir(folder)) == files
    assert [os.stat(os.path.join(folder, f)).st_mtime_ns for f in files] == stamps


def test_expert_iteration_resumes_at_the_first_unfinished_round(tmp_path):
    """A run of one round, then the same run asked for two rounds with --resume: round 0's
    chunks and actor are kept, round 1 is labelled with the actor playing and the teacher
    guided by it (blueprint=self), and the log counts the rounds' samples."""
    base = [
        "exhaust", "--players", "4", "--seats", "0", "--opponents", "npc", "--steps", "0",
        "--num-envs", "16", "--rollout", "4", "--minibatch", "32", "--eval-games", "4",
        "--final-games", "4", "--eval-opponents", "npc", "--imitate", SPEC + ":blueprint=self",
        "--imitate-samples", "200", "--imitate-epochs", "1", "--seed", "0",
    ]  # fmt: skip
    assert _train(tmp_path, *base, "--imitate-rounds", "0") == 0
    run = tmp_path / "run"
    first = sorted(os.listdir(run / "teacher"))
    stamp = os.stat(run / "imitated-0.npz").st_mtime_ns
    assert _train(tmp_path, *base, "--imitate-rounds", "1", "--resume") == 0
    names = sorted(os.listdir(run / "teacher"))
    assert names[: len(first)] == first and any(n.startswith("round-01-") for n in names)
    assert os.stat(run / "imitated-0.npz").st_mtime_ns == stamp
    lines = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    rounds = [(x["round"], x["samples"]) for x in lines if x["kind"] in ("imitate", "dagger")]
    assert rounds == [(0, 200), (1, 400)]
    agreement = [x["agreement"] for x in lines if x["kind"] == "dagger"][0]
    assert 0.0 <= agreement <= 1.0
    # --steps 0: no PPO update after the rounds, the last round's actor is the policy
    with np.load(run / "policy.npz") as a, np.load(run / "imitated-1.npz") as b:
        for key in ("W0", "b0", "W1", "b1"):
            np.testing.assert_array_equal(a[key], b[key])


def test_a_run_stopped_in_its_first_round_resumes_from_its_init_policy(tmp_path):
    """Stopped before its first checkpoint (only the teacher's chunks on disk), a run asked
    to --resume starts its actor from --init-policy again, as the first start did."""
    from tabletop_core.agents.policy import MLPPolicy
    from tabletop_core.train import TrainConfig
    from tabletop_core.train.loop import _start

    init = os.path.join(os.path.dirname(load_game("exhaust").baseline_dir), "baselines", "baseline.npz")
    (tmp_path / "teacher").mkdir()
    cfg = TrainConfig(
        game="exhaust",
        options={"num_players": 4},
        steps=1,
        num_envs=16,
        rollout=4,
        minibatch=32,
        opponents="npc",
        seats="0",
        init_policy=init,
        imitate=SPEC,
        imitate_rounds=1,
        resume=True,
        out=str(tmp_path),
    )
    trainer, log = _start(cfg)
    log.close()
    rng = np.random.default_rng(0)
    obs = rng.random((32, trainer.obs_dim)).astype(np.float32)
    mask = (rng.random((32, trainer.num_actions)) < 0.5).astype(np.int8)
    np.testing.assert_array_equal(trainer.policy()(obs, mask), MLPPolicy.load(init)(obs, mask))


def test_steps_zero_is_for_a_run_that_only_imitates(tmp_path, capsys):
    assert _train(tmp_path, "koikoi", "--steps", "0") == 2
    assert "--steps 0 (no PPO) is for a run that only imitates" in capsys.readouterr().err
    assert _train(tmp_path, "koikoi", "--steps", "-1", "--imitate", SPEC) == 2
    assert "--steps" in capsys.readouterr().err


def test_a_search_teacher_may_start_from_an_init_policy_without_further_rounds():
    """Round 0 of a search teacher labels the --init-policy actor's own play, so that pair
    is one run (a scripted bot's cloning with --init-policy still needs DAgger rounds)."""
    from tabletop_core.train import TrainConfig
    from tabletop_core.train.config import ConfigError, validate

    init = os.path.join(load_game("exhaust").baseline_dir, "baseline.npz")
    base = dict(game="exhaust", options={"num_players": 4}, steps=0, init_policy=init, imitate_rounds=0)
    validate(TrainConfig(**base, imitate=SPEC))
    with pytest.raises(ConfigError, match="both set the starting actor"):
        validate(TrainConfig(**base, imitate="npc"))


def test_a_chunk_of_another_game_or_a_damaged_one_is_a_clear_error(tmp_path):
    """Labels left in the same --out by a run of another game or other options, or a chunk
    file that is not one, stop the round with a ValueError naming the file (the CLI's
    error, exit 2), before anything is labelled or trained."""
    game = load_game("exhaust")
    teacher = parse_teacher(game, SPEC)
    folder = tmp_path / "teacher"
    folder.mkdir()
    other = folder / "round-00-0000.npz"
    np.savez(
        other, obs=np.zeros((3, 7), np.float16), mask=np.zeros((3, 1), np.uint8), act=np.zeros(3, np.int32)
    )
    args = (game, {"num_players": 4}, teacher, None, 0, 300, 0, [(0,)], str(folder))
    with pytest.raises(ValueError, match="round-00-0000.npz holds observations of size 7"):
        collect_round(*args, num_envs=16, progress=False)
    other.write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="is not a search teacher's chunk"):
        collect_round(*args, num_envs=16, progress=False)
    with pytest.raises(ValueError, match="is not a search teacher's chunk"):
        load_rounds(str(folder), 1, 10, game.num_actions)
    assert sorted(os.listdir(folder)) == ["round-00-0000.npz"], "nothing was labelled"
