"""The ``tabletop`` command line: list, match (table and JSON), bench, play, errors."""

from __future__ import annotations

import io
import json

import pytest

from tabletop_core.cli import app as cli


def run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_list_json(capsys):
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    games = {g["game"]: g for g in json.loads(out)}
    assert "thegame" in games and "strong" in games["thegame"]["bots"]


def test_match_json_figures(capsys):
    code, out, _ = run(
        capsys, "match", "thegame", "--players", "2", "--bots", "strong", "--games", "200", "--json"
    )
    assert code == 0
    s = json.loads(out)
    assert s["games"] == 200 and s["bots"] == ["strong", "strong"]
    assert 0 <= s["stats"]["win"]["low"] <= s["stats"]["win"]["rate"] <= s["stats"]["win"]["high"] <= 1
    assert s["stats"]["score"]["mean"] < 40  # the strong bot places most cards


def test_match_is_reproducible_and_takes_game_options(capsys):
    args = (
        "match",
        "thegame",
        "--players",
        "3",
        "--bots",
        "random",
        "--games",
        "50",
        "--seed",
        "7",
        "--json",
    )
    _, a, _ = run(capsys, *args, "--on-fire", "--level", "1")
    _, b, _ = run(capsys, *args, "--on-fire", "--level", "1")
    sa, sb = json.loads(a), json.loads(b)
    assert sa["stats"] == sb["stats"]
    assert sa["options"]["on_fire"] is True and sa["options"]["level"] == 1


def test_match_table_output(capsys):
    code, out, _ = run(
        capsys, "match", "thegame", "--players", "2", "--bots", "strong,random", "--games", "100"
    )
    assert code == 0
    assert "win rate" in out and "games/s" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (("match", "thegame", "--bots", "genius", "--games", "5"), "unknown bot"),
        (("match", "thegame", "--players", "9", "--bots", "random", "--games", "5"), "--players"),
        (("match", "thegame", "--bots", "random", "--games", "5", "--level", "7"), "--level"),
        (("match", "thegame", "--bots", "random", "--games", "5", "--start-player", "3"), "start_player"),
        (("match", "thegame", "--bots", "random,random,random", "--games", "5"), "2 seats take one bot each"),
    ],
)
def test_match_errors_are_clear(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err


@pytest.mark.slow
def test_bench_quick_json(capsys):
    code, out, _ = run(capsys, "bench", "thegame", "--json", "--quick", "--no-peers", "--seconds", "0.05")
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    kinds = {r["bench"] for r in records}
    assert {"aec", "vector", "bots", "state", "start"} <= kinds
    assert all(r["python_actions_steps_per_s"] > 0 for r in records if r["bench"] == "vector")
    assert next(r for r in records if r["bench"] == "state")["bytes_per_env"] > 0


def test_play_in_terminal(capsys):
    import thegame_env

    probe = thegame_env.raw_env(num_players=2)
    probe.reset(seed=0)
    first = int(probe.legal_actions()[0])
    probe.step(first)
    second = int(probe.legal_actions()[-1])
    # an illegal entry is refused, two legal plays are made, then the person quits
    args = cli.build_parser().parse_args(["play", "thegame", "--players", "2", "--seat", "0", "--seed", "0"])
    args.options = {"num_players": 2}
    args.input = io.StringIO(f"#9999\n#{first}\n#{second}\nq\n")
    code = cli.cmd_play(args)
    out = capsys.readouterr().out
    assert code == 0
    assert "you are player_0" in out and "no action 9999" in out and "bye" in out
    assert "plays this turn: 2" in out


def test_a_baseline_match_is_batched_reproducible_and_honest(capsys):
    """`--bots baseline` plays its games in one batch: the same figures for the same seed,
    and no interval leaves its figure's range (the mean score of The Game is >= 0)."""
    argv = (
        "match",
        "thegame",
        "--players",
        "2",
        "--bots",
        "baseline",
        "--games",
        "40",
        "--seed",
        "4",
        "--json",
    )
    code, out, _ = run(capsys, *argv)
    code2, out2, _ = run(capsys, *argv)
    assert code == code2 == 0
    a, b = json.loads(out), json.loads(out2)
    a.pop("games_per_s"), b.pop("games_per_s")
    assert a == b and a["games"] == 40 and a["bots"] == ["baseline", "baseline"]
    assert 0 <= a["stats"]["score"]["low"] <= a["stats"]["score"]["mean"] <= a["stats"]["score"]["high"]
    assert "bootstrap" in a["intervals"]


def test_match_warns_before_a_long_run(capsys, monkeypatch):
    from tabletop_core.tools import arena

    monkeypatch.setattr(arena, "WARN_SECONDS", 0.0)
    code, out, err = run(
        capsys, "match", "thegame", "--players", "2", "--bots", "strong", "--games", "30", "--json"
    )
    assert code == 0 and json.loads(out)["games"] == 30
    assert "this match will take about" in err and "games/s" in err
