"""Smoke tests: Exhaust's examples run to the end with a tiny budget and print results."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

CASES = [
    ("exhaust_random_play.py", ["--mode", "solo", "--seed", "2"], "returns"),
    ("exhaust_vector_selfplay.py", ["--num-envs", "8", "--steps", "40"], "steps/s"),
    ("exhaust_vector_selfplay.py", ["--num-envs", "8", "--steps", "40", "--bots", "npc"], "loss rate"),
]


@pytest.mark.parametrize("script, args, expect", CASES, ids=[f"{s} {' '.join(a)}" for s, a, _ in CASES])
def test_example_runs(script, args, expect):
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert expect in proc.stdout
