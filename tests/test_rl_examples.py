"""Smoke tests of the RL framework examples (examples/rl_*.py, examples/ray_rollouts.py).

Each runs an example as a subprocess with a tiny budget and checks that it finished and
printed its summary line, so a framework upgrade that breaks an example shows up. Each is
skipped when its framework is not installed (extras ``rl``, ``rllib``, ``ray``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run_example(script: str, *args: str, timeout: int = 600) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_DEDUP_LOGS": "0", "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, f"{script} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    last = proc.stdout.strip().splitlines()[-1]
    return last


def test_sb3_maskable_ppo(tmp_path):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "eval.json"
    last = run_example(
        "rl_sb3_maskable_ppo.py",
        *("--steps", "256", "--num-envs", "4", "--n-steps", "64", "--final-episodes", "8"),
        *(
            "--eval-every",
            "128",
            "--eval-episodes",
            "4",
            "--eval-json",
            str(out),
            "--curve",
            str(tmp_path / "c.csv"),
        ),
    )
    assert last.startswith("mean_return=") and "strong=" in last
    assert out.exists() and (tmp_path / "c.csv").read_text().startswith("steps,")


def test_sb3_competitive_seat_exported_to_a_bot_match(tmp_path):
    """MaskablePPO on one Koikoi seat against bots, exported, then played in `tabletop match`."""
    pytest.importorskip("sb3_contrib")
    policy = tmp_path / "policy.npz"
    last = run_example(
        "rl_sb3_maskable_ppo.py",
        *("--game", "koikoi", "--players", "3", "--seat", "0", "--opponents", "greedy,random"),
        *("--steps", "256", "--num-envs", "4", "--n-steps", "64", "--final-episodes", "4"),
        *("--export-npz", str(policy)),
    )
    assert last.startswith("mean_return=") and policy.exists()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tabletop_core.cli",
            "match",
            "koikoi",
            "--players",
            "3",
            "--games",
            "20",
            "--json",
        ]
        + ["--bots", f"policy:{policy},greedy,random"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert '"bot": "policy"' in proc.stdout


def test_cleanrl_selfplay_ppo(tmp_path):
    """The example is now a thin call of `tabletop train` (tests/test_train.py covers the
    trainer; its per-seat GAE test moved there)."""
    pytest.importorskip("torch")
    weights = tmp_path / "actor.npz"
    last = run_example(
        "rl_cleanrl_selfplay_ppo.py",
        *("--steps", "2048", "--num-envs", "64", "--eval-episodes", "8"),
        *("--out", str(tmp_path / "run"), "--save-policy", str(weights)),
    )
    assert last.startswith("mean_return=")
    saved = set(np.load(weights))
    assert saved >= {"W0", "b0", "W2", "b2"} and "scale" not in saved  # observations are in [0, 1]


def test_torchrl_pettingzoo_wrapper():
    pytest.importorskip("torchrl")
    last = run_example("rl_torchrl.py", "--steps", "256", "--frames-per-batch", "128")
    assert last.startswith("mean_return=")


def test_tianshou_dqn_against_bot():
    pytest.importorskip("tianshou")
    last = run_example("rl_tianshou_dqn.py", "--steps", "256", "--num-envs", "2", "--test-episodes", "2")
    assert last.startswith("mean_return=") and "bot=strong" in last


def test_rllib_ppo_action_masking():
    pytest.importorskip("ray.rllib")
    pytest.importorskip("torch")
    last = run_example("rl_rllib_ppo.py", "--steps", "256", "--batch", "256")
    assert last.startswith("mean_return=")


def test_ray_rollouts_bots_and_policy(tmp_path):
    pytest.importorskip("ray")
    saved = tmp_path / "traj.npz"
    last = run_example(
        "ray_rollouts.py",
        *("--workers", "2", "--num-envs", "16", "--steps", "20", "--bots", "strong", "--save", str(saved)),
    )
    assert last.startswith("workers=2") and "steps_per_s=" in last
    traj = np.load(saved)
    assert traj["actions"].shape == (2, 20, 16) and traj["rewards"].shape == (2, 20, 16, 2)
    last = run_example(
        "ray_rollouts.py", "--workers", "1", "--num-envs", "8", "--steps", "10", "--policy", "random-mlp"
    )
    assert last.startswith("workers=1")
