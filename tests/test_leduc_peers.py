"""Leduc hold'em (``tests/contract_game``) against its peers (``benchmarks/peers.py``,
``docs/leduc-peers.md``): the exact facts of uniform random play of OUR game, from a walk of
its whole tree through the kernels, pinned to values OpenSpiel's own tree walk gives too;
and, where a peer is installed (the ``peers`` extra), the same facts from OpenSpiel's tree,
and Monte-Carlo means of Pgx and RLCard within the stated tolerance of the exact value of
the rules each plays.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from interrupts import ctrl_c_after

ROOT = Path(__file__).resolve().parents[1]


def _load_bench():
    spec = importlib.util.spec_from_file_location("leduc_peers_bench", ROOT / "benchmarks" / "peers.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up by name
    spec.loader.exec_module(mod)
    return mod


peers = _load_bench()

# Uniform random play of standard Leduc hold'em (seat 0 acts first), exact: the first
# actor's return, the second's, the absolute return and the actions of a hand. OpenSpiel's
# leduc_poker gives the same values and the same 468 information states per player.
EXACT = {
    "return_first": Fraction(-5, 64),
    "return_second": Fraction(5, 64),
    "abs_return": Fraction(215, 64),
    "steps": Fraction(65, 16),
}
INFO_STATES = [468, 468]


@pytest.fixture(scope="module")
def tree():
    return peers.our_tree()


def test_our_tree_walk_gives_the_pinned_facts(tree):
    assert tree["expected"] == EXACT
    assert tree["info_states"] == INFO_STATES
    assert tree["decisions"] == 3780 and tree["terminals"] == 5520  # over the 30 deals


def test_the_rules_model_is_our_game_on_the_standard_rules(tree):
    """:func:`rules_walk`, which the Monte-Carlo checks of the peers use with their rules,
    equals the walk of our kernels on ours."""
    model = peers.rules_walk(peers.STANDARD)
    assert model == {"expected": tree["expected"], "info_states": tree["info_states"]}


def test_each_rule_difference_of_rlcard_changes_the_exact_figures():
    """Undoing any one difference listed for RLCard moves the exact figures of its rules (so
    its Monte-Carlo check sees each one), and all of them give the pinned value."""
    rl = peers.PEER_RULES["rlcard"][0]
    got = peers.rules_walk(rl)["expected"]
    assert got["return_first"] == Fraction(-137, 1458) and got["return_second"] == -got["return_first"]
    assert peers.differing_fields(rl) == ["blinds", "free_fold", "round2_first", "chip_value"]
    for field in peers.differing_fields(rl):
        undone = dataclasses.replace(rl, **{field: getattr(peers.STANDARD, field)})
        assert peers.rules_walk(undone)["expected"] != got, field


@pytest.mark.slow
def test_our_vector_env_agrees_with_the_tree_walk():
    mc = peers.ours_monte_carlo(20000, seed=3, batch=1024)
    assert mc["episodes"] >= 20000
    assert peers.compare(mc, EXACT)["agree"], mc


def test_compare_flags_a_mean_outside_the_tolerance():
    mc = {"mean": {k: float(v) for k, v in EXACT.items()}, "se": dict.fromkeys(peers.STATS, 0.01)}
    assert peers.compare(mc, EXACT)["agree"]
    mc["mean"]["steps"] += 0.05  # five standard errors off
    out = peers.compare(mc, EXACT)
    assert not out["agree"] and out["z"]["steps"] == pytest.approx(5.0)


# --- the peers, where installed -------------------------------------------------------------
def test_openspiel_tree_walk_gives_the_same_facts():
    pytest.importorskip("pyspiel")
    got = peers.openspiel_tree()
    assert got["info_states"] == INFO_STATES
    for k, v in EXACT.items():
        assert got["expected"][k] == pytest.approx(float(v), abs=1e-12), k


def test_pgx_random_play_agrees_with_our_rules():
    pytest.importorskip("pgx")
    rules, _ = peers.PEER_RULES["pgx"]
    assert rules == peers.STANDARD
    mc = peers.pgx_monte_carlo(20000, seed=0, batch=1024)
    assert peers.compare(mc, EXACT)["agree"], mc


def test_rlcard_random_play_agrees_with_its_rules_and_not_with_ours():
    pytest.importorskip("rlcard")
    rules, _ = peers.PEER_RULES["rlcard"]
    mc = peers.rlcard_monte_carlo(20000, seed=0)
    assert peers.compare(mc, peers.rules_walk(rules)["expected"])["agree"], mc
    assert not peers.compare(mc, EXACT)["agree"]
    for field in peers.differing_fields(rules):  # each listed difference is seen
        undone = dataclasses.replace(rules, **{field: getattr(peers.STANDARD, field)})
        assert not peers.compare(mc, peers.rules_walk(undone)["expected"])["agree"], field


# --- the script ------------------------------------------------------------------------------
def test_the_script_prints_one_record_per_implementation_and_notes_missing_peers():
    run = [sys.executable, str(ROOT / "benchmarks" / "peers.py"), "--seconds", "0.4", "--rounds", "1"]
    run += ["--batch", "256", "--episodes", "2000", "--seed", "5", "--json"]
    proc = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    recs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["impl"] for r in recs] == ["ours", *peers.PEERS]
    for r in recs:
        assert r["batch"] == 256 and r["seed"] == 5 and r["seconds"] == 0.4
        assert r["command"].startswith("python benchmarks/peers.py") and r["machine"]["cores"] >= 1
        if "skipped" in r:
            assert f"{r['impl']}: skipped" in proc.stderr
        else:
            assert r["steps_per_s"] > 0 and r["rules"]["agree"], r
    ours = recs[0]["rules"]
    assert ours["info_states"] == INFO_STATES and ours["expected_exact"]["return_first"] == "-5/64"
    assert "Rules check" in proc.stderr and "steps/s" in proc.stderr


def test_a_bad_flag_is_a_usage_error():
    script = str(ROOT / "benchmarks" / "peers.py")
    for extra, says in ((["--seconds", "0"], "--seconds"), (["--batch", "x"], "--batch")):
        proc = subprocess.run([sys.executable, script, *extra], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 2 and says in proc.stderr and "Traceback" not in proc.stderr


def test_ctrl_c_exits_130_without_a_traceback(monkeypatch, capsys):
    monkeypatch.setattr(peers, "make_loops", lambda batch, seed: ({"ours": lambda: 1}, {}))
    monkeypatch.setattr(peers, "_rate", ctrl_c_after([1.0, 2.0]))
    monkeypatch.setattr(sys, "argv", ["peers.py", "--seconds", "1"])
    with pytest.raises(SystemExit) as exc:
        peers.run_script(peers.main)
    assert exc.value.code == 130
    assert "interrupted" in capsys.readouterr().err
