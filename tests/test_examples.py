"""Smoke tests: every example runs to the end with a tiny budget."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

CASES = [
    ("thegame_random_play.py", ["--players", "2", "--seed", "1"]),
    ("thegame_vector_selfplay.py", ["--num-envs", "16", "--steps", "50"]),
    ("thegame_vector_selfplay.py", ["--num-envs", "16", "--steps", "50", "--in-kernel"]),
    ("koikoi_random_play.py", []),
    ("koikoi_vector_selfplay.py", ["--num-envs", "16", "--steps", "50"]),
    ("koikoi_bot_match.py", ["--games", "50"]),
]


@pytest.mark.parametrize("script, args", CASES, ids=[f"{s}{' '.join(a)}" for s, a in CASES])
def test_example_runs(script, args):
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
