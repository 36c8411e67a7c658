"""``benchmarks/learned.py``: a trained policy beside the scripted bot, the search bot and
the search bot guided by the policy on the search table's deals; the curve of a run's
policy files; its picture; and the usage errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from interrupts import ctrl_c_after

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = str(ROOT / "benchmarks" / "learned.py")
GHOST = "exitnow_envs/baselines/ghost.npz"
HUMANS = "exitnow_envs/baselines/humans.npz"
FAST = ["--games", "4", "--rollouts", "4", "--timing-games", "1"]


def _run(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """The script run from the checkout root, on this checkout's packages."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, SCRIPT, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env
    )


def _lines(proc: subprocess.CompletedProcess) -> list[dict]:
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]


def test_a_table_line_has_the_four_lineups_their_differences_and_times():
    from tabletop_core.contract.catalog import load_game
    from tabletop_core.tools.arena import run_match

    (line,) = _lines(_run("exitnow-humans", *FAST))
    assert line["table"] == "exitnow-humans" and line["policy"] == "baseline"
    assert line["games"] == 4 and line["seed"] == 0 and line["lower_is_better"] is False
    lineups = {
        "policy": "baseline,human,human,ghost",
        "strong": "human,human,human,ghost",
        "search": "search:rollouts=4,human,human,ghost",
        "search_policy": "search:rollouts=4:blueprint=baseline,human,human,ghost",
    }
    rates = {}
    for key, lineup in lineups.items():
        fig = line["figures"][key]
        assert fig["lineup"] == lineup and fig["low"] <= fig["rate"] <= fig["high"]
        rates[key] = fig["rate"]
    game = load_game("exitnow")
    alone = run_match(game, lineups["policy"], 4, seed=0, num_humans=3)
    assert rates["policy"] == float(np.mean(alone.returns[:, 0] > 0)), "the policy's games are the same deals"
    for name, (a, b) in {
        "policy - strong": ("policy", "strong"),
        "search_policy - search": ("search_policy", "search"),
    }.items():
        diff = line["differences"][name]
        assert diff["mean"] == pytest.approx(rates[a] - rates[b], abs=1e-4)
        assert diff["low"] <= diff["mean"] <= diff["high"]
        assert diff["better"] == (diff["low"] > 0) and diff["worse"] == (diff["high"] < 0)
    times = line["ms_per_decision"]
    assert set(times) == {"policy", "search", "search_policy"}
    assert all(t["decisions"] > 0 and 0 < t["mean_ms"] <= t["max_ms"] for t in times.values())
    ratio = times["search_policy"]["mean_ms"] / times["search"]["mean_ms"]
    assert line["search_policy_over_search_time"] == pytest.approx(ratio, rel=0.02)
    assert line["command"].startswith(
        "python benchmarks/learned.py exitnow-humans --policy baseline --games 4"
    )
    assert line["machine"] and "commit" in line
    _check_figure_line(line, rates)


def _check_figure_line(line: dict, rates: dict) -> None:
    """``--figure-line``'s form: the docs' table id, the search table's name, and a row whose
    cells hold the same rates as the line."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_learned", ROOT / "benchmarks" / "learned.py")
    learned = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(learned)
    doc = learned.figure_line(line)
    assert doc["table"] == "learned" and doc["name"] == "exitnow-humans"
    cells = doc["cells"]
    assert cells["table"] == "Exit Now, human_0"
    assert cells["policy"].startswith(f"{100 * rates['policy']:.1f} %")
    assert cells["strongest scripted"].startswith(f"human {100 * rates['strong']:.1f} %")
    assert cells["with − without, same deals"].endswith(("better", "worse", "unclear"))


def test_a_policy_file_plays_alone_and_as_the_blueprint():
    """``--policy policy:FILE.npz`` puts the file in the measured seat (the ghost seat of
    ``exitnow-ghost``) and guides the search with ``blueprint=FILE.npz``; the shipped ghost
    file plays as the baseline does."""
    from tabletop_core.contract.catalog import load_game
    from tabletop_core.tools.arena import run_match

    (line,) = _lines(_run("exitnow-ghost", "--policy", f"policy:{GHOST}", *FAST))
    assert line["policy"] == f"policy:{GHOST}"
    figures = line["figures"]
    assert figures["policy"]["lineup"] == f"human,human,human,policy:{GHOST}"
    assert figures["search_policy"]["lineup"] == f"human,human,human,search:rollouts=4:blueprint={GHOST}"
    assert figures["search_policy"]["bot"] == f"search:rollouts=4:blueprint={GHOST}"
    assert "policy:" + GHOST in line["command"]
    baseline = run_match(load_game("exitnow"), "human,human,human,baseline", 4, seed=0, num_humans=3)
    assert figures["policy"]["rate"] == float(np.mean(baseline.returns[:, -1] > 0))


def test_a_guided_line_is_its_own_docs_table():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import learned

    with open(ROOT / "docs" / "figures" / "learned.jsonl") as f:
        stored = json.loads(f.readline())
    line = {**stored, "table": stored["name"]}  # the measured line the stored one was made from
    plain = learned.figure_line(line)
    assert plain["table"] == "learned" and "policy" in plain["cells"]
    doc = learned.figure_line({**line, "guided": "top=4"})
    assert doc["table"] == "guided" and doc["name"] == line["table"]
    assert doc["cells"]["deals"] == f"{line['games']}, seed {line['seed']}"
    assert doc["cells"]["with the policy (settings)"].endswith(" (top=4)")
    assert doc["cells"]["with − without, same deals"] == plain["cells"]["with − without, same deals"]


def test_guided_settings_are_added_to_the_search_with_the_policy():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from learned import _bots, with_settings
    from search import TABLES

    assert with_settings("search:rollouts=768", "rollouts=192:own=policy") == "search:rollouts=192:own=policy"
    assert with_settings("search", "blueprint=baseline:") == "search:blueprint=baseline"
    bots = _bots(TABLES["exitnow-ghost"], "baseline", None, "rollouts=192:own=policy")
    assert bots["search"] == "search:rollouts=768"
    assert bots["search_policy"] == "search:rollouts=192:blueprint=baseline:own=policy"


@pytest.mark.parametrize(
    "args, says",
    [
        (["exitnow-humans", "--policy", "greedy"], "--policy must be baseline, policy:FILE.npz or FILE.npz"),
        (["exitnow-humans", "--policy", "policy:missing.npz"], "policy file 'missing.npz' does not exist"),
        (["exitnow-humans", "--policy", GHOST], "trained for ghost seats"),
        (["exhaust", "--policy", HUMANS], "trained for 'exitnow', not 'exhaust'"),
        (["nosuchtable"], "unknown table(s) nosuchtable"),
        (["exhaust", "--games", "0"], "--games must be at least 1"),
        (["exhaust", "--rollouts", "0"], "--rollouts must be at least 1"),
        (["exhaust", "exitnow-humans", "--curve", "."], "--curve measures one TABLE, got 2"),
        (["exhaust", "--curve", "nowhere"], "--curve: no folder 'nowhere'"),
        (["exhaust", "--curve", "docs"], "no imitated-K.npz or policy.npz in 'docs'"),
        (["--plot", "x.png"], "--plot OUT.png draws --plot-from FILE.jsonl"),
        (["exhaust", "--guided", "own=me"], "own must be one of bot, policy"),
        (["exhaust", "--guided", "top=many"], "top must be an int"),
    ],
)
def test_bad_arguments_are_usage_errors_naming_them(args, says):
    proc = _run(*args, timeout=120)
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def _run_folder(tmp_path: Path) -> Path:
    """A run folder as the trainer leaves it: two rounds' policy files and their log lines."""
    run = tmp_path / "run"
    run.mkdir()
    for k in (1, 0):
        shutil.copy(ROOT / HUMANS, run / f"imitated-{k}.npz")
    log = [
        {"kind": "config", "config": {"game": "exitnow"}},
        {"kind": "imitate", "round": 0, "seconds": 60.0},
        {"kind": "dagger", "round": 1, "seconds": 100.0},
        {"kind": "dagger", "round": 1, "seconds": 150.0},
    ]
    (run / "log.jsonl").write_text("".join(json.dumps(x) + "\n" for x in log))
    return run


def test_curve_evaluates_each_round_then_the_levels(tmp_path):
    run = _run_folder(tmp_path)
    lines = _lines(_run("exitnow-humans", "--curve", str(run), "--games", "4", "--rollouts", "4"))
    assert [x["kind"] for x in lines] == ["round", "round", "levels"]
    assert [x["round"] for x in lines[:2]] == [0, 1]
    assert [x["file"] for x in lines[:2]] == ["imitated-0.npz", "imitated-1.npz"]
    assert [x["seconds"] for x in lines[:2]] == [60.0, 150.0]
    assert all(x["seconds_from"] == "log" and x["games"] == 4 for x in lines[:2])
    assert lines[0]["rate"] == lines[1]["rate"], "the same weights on the same deals"
    levels = lines[2]["levels"]
    assert levels["strong"]["bot"] == "human" and levels["search"]["bot"] == "search:rollouts=4"
    assert all(d["low"] <= d["rate"] <= d["high"] for d in levels.values())


def test_a_curve_becomes_a_row_of_the_runs_table(tmp_path):
    """``--runs-table`` turns each curve (its rounds, then its levels line) into one row:
    the teacher's target and labels from the run's config, its minutes, the start and
    final figures and the two levels, with the commands that made them."""
    learned = pytest.importorskip("benchmarks.learned")
    run = _run_folder(tmp_path)
    log = (run / "log.jsonl").read_text().splitlines()
    config = {
        "game": "exitnow",
        "init_policy": str(ROOT / HUMANS),
        "imitate": "search:blueprint=self:target=move",
    }
    log[0] = json.dumps({"kind": "config", "config": config | {"imitate_rounds": 1, "imitate_samples": 300}})
    (run / "log.jsonl").write_text("\n".join(log) + "\n")
    proc = _run(
        "exitnow-humans",
        "--curve",
        str(run),
        "--games",
        "4",
        "--rollouts",
        "4",
        "--run-command",
        "tabletop train x",
    )
    curve = tmp_path / "curve.jsonl"
    curve.write_text(proc.stdout)
    rows = learned.runs_table(_lines(proc))
    assert len(rows) == 1 and rows[0]["table"] == "expert_runs"
    cells = rows[0]["cells"]
    assert cells["target"] == "move" and cells["decisions"] == "600" and cells["minutes"] == "2"
    assert cells["start"] and cells["final"] and cells["strongest scripted"].startswith("human ")
    assert cells["final − scripted, same deals"].endswith(("better", "worse", "unclear"))
    assert rows[0]["command"][0] == "tabletop train x" and "--curve" in rows[0]["command"][1]
    printed = _lines(_run("--runs-table", str(curve)))
    assert [r["cells"] for r in printed] == [cells]


def test_curve_starts_from_the_runs_init_policy(tmp_path):
    """A run started from --init-policy (its config line says which file) is drawn from
    that policy at 0 s, before its rounds."""
    run = _run_folder(tmp_path)
    log = (run / "log.jsonl").read_text().splitlines()
    log[0] = json.dumps({"kind": "config", "config": {"game": "exitnow", "init_policy": str(ROOT / HUMANS)}})
    (run / "log.jsonl").write_text("\n".join(log) + "\n")
    lines = _lines(_run("exitnow-humans", "--curve", str(run), "--games", "4", "--rollouts", "4"))
    assert [x["round"] for x in lines[:3]] == ["start", 0, 1]
    assert lines[0]["seconds"] == 0.0 and lines[0]["file"] == "humans.npz"
    assert lines[0]["rate"] == lines[1]["rate"], "the same weights on the same deals"


def test_curve_seconds_fall_back_to_the_files_times(tmp_path):
    """Without log lines for a round, its seconds are its file's modification time after
    the first policy file's; ``policy.npz`` comes last, with the log's largest seconds."""
    learned = pytest.importorskip("benchmarks.learned")
    run = _run_folder(tmp_path)
    (run / "log.jsonl").write_text('{"kind": "eval", "step": 5, "seconds": 400.0}\n{"kind": "cut')
    shutil.copy(ROOT / HUMANS, run / "policy.npz")
    files = learned.curve_files(str(run))
    assert [(k, os.path.basename(p)) for k, p in files] == [
        (0, "imitated-0.npz"),
        (1, "imitated-1.npz"),
        (None, "policy.npz"),
    ]
    assert learned._log_seconds(str(run)) == ({}, 400.0)
    assert learned._log_seconds(str(tmp_path)) == ({}, None)


def test_plot_draws_the_curve_lines(tmp_path):
    matplotlib_image = pytest.importorskip("matplotlib.image")
    rows = [
        {"kind": "round", "table": "exhaust", "measure": "seat 0 loss rate", "lower_is_better": True}
        | {"round": k, "seconds": s, "games": 200, "rate": r, "low": r - 0.05, "high": r + 0.05}
        for k, s, r in [(0, 120, 0.5), (1, 400, 0.42), (None, 600, 0.4)]
    ]
    rows.append({"kind": "levels", "table": "exhaust", "levels": {"strong": {"bot": "strong", "rate": 0.45}}})
    src = tmp_path / "curve.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in rows))
    out = tmp_path / "curve.png"
    proc = _run("--plot", str(out), "--plot-from", str(src), timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert matplotlib_image.imread(str(out)).shape[1] >= 600
    src.write_text('{"kind": "levels", "table": "exhaust", "levels": {}}\n')
    bad = _run("--plot", str(tmp_path / "none.png"), "--plot-from", str(src), timeout=120)
    assert bad.returncode == 1 and "no curve" in bad.stderr and "Traceback" not in bad.stderr


def test_ctrl_c_keeps_the_lines_already_printed(monkeypatch, capsys):
    learned = pytest.importorskip("benchmarks.learned")
    from tabletop_core.tools.scripts import run_script

    monkeypatch.setattr(learned, "measure", ctrl_c_after([{"table": "exhaust"}]))
    with pytest.raises(SystemExit) as stop:
        run_script(lambda: learned.main(["exhaust", "exitnow-humans"]))
    assert stop.value.code == 130
    out, err = capsys.readouterr()
    assert [json.loads(x) for x in out.splitlines()] == [{"table": "exhaust"}]
    assert err.strip().endswith("interrupted") and "Traceback" not in err
