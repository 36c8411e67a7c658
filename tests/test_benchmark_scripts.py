"""Every script of ``benchmarks/`` starts and prints its help: the scripts are run by hand
and by the docs' commands, so a moved name must not leave one broken."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from interrupts import ctrl_c_after

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_benchmark_script_starts(script):
    proc = subprocess.run(
        [sys.executable, str(script), "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage" in proc.stdout.lower()


@pytest.mark.slow
def test_batch_sweep_script_takes_the_games_options_and_refuses_bad_ones():
    """``benchmarks/batches.py GAME``: the game's options as ``tabletop bench GAME`` takes
    them land in the record (Koikoi's ``--rounds`` is the game's, the sweep's is
    ``--windows``); a bad option, batch or game is a usage error (2) naming it."""
    import json

    script = str(ROOT / "benchmarks" / "batches.py")
    run = [sys.executable, script, "koikoi", "--batches", "4,8", "--windows", "1", "--no-peers"]
    proc = subprocess.run(
        [*run, "--players", "3", "--rounds", "2"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    line = json.loads(proc.stdout.strip().splitlines()[-1])
    assert line["options"]["num_players"] == 3 and line["options"]["rounds"] == 2 and line["windows"] == 1
    assert set(line["steps_per_s"]) == {"4", "8"} and min(line["steps_per_s"].values()) > 0
    for extra, says in (
        (["--players", "9"], "--players"),
        (["--batches", "0"], "--batches"),
        (["--windows", "0"], "--windows"),
    ):
        bad = subprocess.run([*run, *extra], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2 and says in bad.stderr and "Traceback" not in bad.stderr
    bad = subprocess.run(
        [sys.executable, script, "nogame"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and "invalid choice: 'nogame'" in bad.stderr


@pytest.mark.slow
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


def test_run_script_exits_with_mains_status_and_130_on_ctrl_c(capsys):
    """``run_script``: the script's status (``None`` is 0), a ``SystemExit`` inside ``main``
    as it was (argparse's 2), and Ctrl-C as ``interrupted`` with 130, without a
    traceback."""
    from tabletop_core.tools.scripts import run_script

    def stopped():
        print('{"done": 1}', flush=True)
        raise KeyboardInterrupt

    def refused():
        raise SystemExit(2)

    for main, status in ((lambda: None, 0), (lambda: 3, 3), (refused, 2), (stopped, 130)):
        with pytest.raises(SystemExit) as exc:
            run_script(main)
        assert exc.value.code == status
    out, err = capsys.readouterr()
    assert out == '{"done": 1}\n' and err == "interrupted\n"


def test_compare_prints_the_rounds_both_trees_finished_when_ctrl_c_stops_it(monkeypatch, capsys):
    """``benchmarks/compare.py``: a Ctrl-C in a later round still prints the comparison of
    the rounds both trees finished (the best of each), and a round one tree did not finish
    is left out; the KeyboardInterrupt then reaches ``run_script``."""
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("bench_compare", ROOT / "benchmarks" / "compare.py")
    compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compare)
    monkeypatch.setattr(compare, "_run", ctrl_c_after([{"a": 1.0}, {"a": 2.0}, {"a": 5.0}]))
    monkeypatch.setattr(
        sys, "argv", ["compare.py", "--old", "o", "--new", "n", "--games", "thegame", "--rounds", "3"]
    )
    with pytest.raises(KeyboardInterrupt):
        compare.main()
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == [{"game": "thegame", "figure": "a", "old": 1.0, "new": 2.0, "new_over_old": 2.0}]
