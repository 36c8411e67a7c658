"""Every script of ``benchmarks/`` starts and prints its help: the scripts are run by hand
and by the docs' commands, so a moved name must not leave one broken."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_benchmark_script_starts(script):
    proc = subprocess.run(
        [sys.executable, str(script), "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage" in proc.stdout.lower()


def test_search_table_times_the_guided_search_and_refuses_a_bad_blueprint():
    import json

    script = str(ROOT / "benchmarks" / "search.py")
    run = [sys.executable, script, "exitnow-ghost", "--timing-only", "--timing-games", "1", "--bot"]
    proc = subprocess.run(
        [*run, "search:rollouts=4:blueprint=baseline"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    line = json.loads(proc.stdout.strip().splitlines()[-1])
    assert line["bot"] == "search:rollouts=4:blueprint=baseline" and line["ms_per_decision"]["decisions"] > 0
    bad = subprocess.run(
        [*run, "search:blueprint=greedy"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and "blueprint must be one of baseline" in bad.stderr


def test_search_table_plays_its_own_settings_unless_told():
    """The ghost table is measured with its own budget (``search:rollouts=768``); --rollouts
    replaces it."""
    import json

    script = str(ROOT / "benchmarks" / "search.py")
    run = [sys.executable, script, "exitnow-ghost", "--timing-only", "--timing-games", "1"]
    for extra, want in (([], "search:rollouts=768"), (["--rollouts", "8"], "search:rollouts=8")):
        proc = subprocess.run([*run, *extra], cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert json.loads(proc.stdout.strip().splitlines()[-1])["bot"] == want
