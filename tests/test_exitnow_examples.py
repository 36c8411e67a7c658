"""Smoke tests: the Exit Now examples run to the end with a tiny budget."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

CASES = [
    ("exitnow_random_play.py", ["--humans", "2", "--seed", "1"]),
    ("exitnow_vector_selfplay.py", ["--num-envs", "8", "--steps", "40"]),
    ("exitnow_vector_selfplay.py", ["--num-envs", "8", "--steps", "40", "--bots"]),
]


@pytest.mark.parametrize("script, args", CASES, ids=[f"{s} {' '.join(a)}" for s, a in CASES])
def test_example_runs(script, args):
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert "returns:" in proc.stdout or "steps/s" in proc.stdout
