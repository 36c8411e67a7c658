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
from tabletop_core.contract.search import batch_search_actions  # noqa: E402
from tabletop_core.envs.vector import SelfPlayVectorEnv  # noqa: E402
from tabletop_core.kernel.rng import stream_words  # noqa: E402
from tabletop_core.train.teacher import (  # noqa: E402
    collect_round,
    label_rows,
    load_rounds,
    parse_teacher,
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
    batch_search_actions(venv.state, rows, np.uint64(teacher.bot_id), stream_words(7, "bots", 32), blue, want)
    for workers in (1, 2):
        got = label_rows(venv.state, rows, teacher, blue, stream_words(7, "bots", 32), workers)
        np.testing.assert_array_equal(got, want)
        assert all(venv._mask[r, a] for r, a in zip(rows, got))


def test_a_round_keeps_its_chunks_and_a_second_call_adds_nothing(tmp_path):
    game = load_game("exhaust")
    teacher = parse_teacher(game, SPEC)
    folder = str(tmp_path / "teacher")
    args = (game, {"num_players": 4}, teacher, None, 0, 300, 0, [(0,)], folder)
    collect_round(*args, num_envs=16, progress=False)
    files = sorted(os.listdir(folder))
    stamps = [os.stat(os.path.join(folder, f)).st_mtime_ns for f in files]
    dim = game.observation_layout(game.make_options()).dim
    xs, ms, acts = load_rounds(folder, 1, dim, game.num_actions)
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
