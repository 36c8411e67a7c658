"""CLI options come from each game's own declarations; match tables show no seat means."""

from __future__ import annotations

import inspect
import json

import pytest

from tabletop_core import cli
from tabletop_core.contract.catalog import available_games, load_game

GAMES = available_games()


def run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command", ["match", "play", "render", "bench"])
@pytest.mark.parametrize("game", GAMES)
def test_help_lists_every_game_option(capsys, command, game):
    code, out, _ = run(capsys, command, game, "--help")
    assert code == 0
    infos = [o for o in load_game(game).option_infos if o.cli]
    assert infos
    for info in infos:
        assert info.flag in out, (command, game, info.flag)
        assert info.help.split("(")[0].split()[0] in out


def test_list_spells_options_as_the_help_does(capsys):
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    rows = {r["game"]: r for r in json.loads(out)}
    for game in GAMES:
        flags = set(rows[game]["options"])
        assert flags == {o.flag for o in load_game(game).option_infos if o.cli}
        assert not any(f.startswith("--num-") for f in flags)  # one spelling: --players / --humans


def test_declarations_match_the_options_and_the_env_signature():
    import importlib

    from tabletop_core.contract.catalog import load_game

    for game in GAMES:
        g = load_game(game)
        defaults = g.make_options()
        raw = importlib.import_module(load_game(game).package).raw_env
        params = inspect.signature(raw.__init__).parameters
        for info in g.option_infos:
            assert getattr(defaults, info.name) == info.default
            assert params[info.name].default == info.default, (game, info.name)
            if info.cli and info.default is not None:
                assert info.parse(str(info.default)) == info.default


@pytest.mark.parametrize("command", ["match", "play", "render"])
def test_unknown_option_is_a_usage_error(capsys, command):
    code, _, err = run(capsys, command, "thegame", "--bogus", "3", "--bots", "random", "--out", "x.png")
    assert code == 2
    assert "usage: tabletop " in err and "unrecognized arguments: --bogus 3" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ("match", "koikoi", "--players", "5", "--bots", "random"),
            "argument --players: '5' is not allowed: use 2..4",
        ),
        (("match", "exhaust", "--mode", "coop", "--bots", "random"), "use 'standard', 'long' or 'solo'"),
        (("match", "exitnow", "--layout", "fancy", "--bots", "random"), "'default' or 'random'"),
        (("match", "nogame", "--bots", "random"), "invalid choice: 'nogame'"),
    ],
)
def test_bad_values_name_what_is_allowed(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err


def test_exit_now_takes_humans_and_players(capsys):
    for flag in ("--humans", "--players"):
        code, out, _ = run(
            capsys, "match", "exitnow", flag, "2", "--bots", "random", "--games", "20", "--json"
        )
        assert code == 0 and json.loads(out)["options"]["num_humans"] == 2


@pytest.mark.parametrize(
    "game, argv, absent, present",
    [
        ("koikoi", ("--players", "2"), ["chips_2", "chips_3", "winner"], ["chips_0", "chips_1", "top_chips"]),
        ("exhaust", ("--players", "3"), ["player_won", "loser", "rounds"], ["turns"]),
        ("exhaust", ("--mode", "solo"), ["loser"], ["player_won"]),
        ("exitnow", ("--humans", "2"), ["winner"], ["human_win", "rounds"]),
        ("thegame", ("--players", "2"), ["fire_loss"], ["score", "win", "perfect"]),
    ],
)
def test_match_figures_are_those_meaningful_for_the_options(capsys, game, argv, absent, present):
    code, out, _ = run(capsys, "match", game, *argv, "--bots", "random", "--games", "30", "--json")
    assert code == 0
    s = json.loads(out)
    for key in absent:
        assert key not in s["stats"]
    for key in present:
        assert s["stats"][key]["definition"] == s["definitions"][key] != ""


def test_the_game_defines_score_and_win_in_the_table(capsys):
    code, out, _ = run(capsys, "match", "thegame", "--bots", "strong", "--games", "50", "--on-fire")
    assert code == 0
    assert "cards left in the hands and the draw pile" in out and "the team won: score <= 9" in out
    assert "fire loss rate" in out


@pytest.mark.parametrize("game", GAMES)
def test_no_match_table_prints_a_mean_of_seat_numbers(capsys, game):
    code, out, _ = run(capsys, "match", game, "--bots", "random", "--games", "30")
    assert code == 0
    for seat_figure in ("winner", "loser"):
        assert seat_figure not in out
    assert "win = share of games with a positive episode return" in out or "team return" in out


@pytest.mark.parametrize("bots", ["strong", "baseline"])
def test_a_match_builds_its_options_object_once(capsys, monkeypatch, bots):
    """From the parser to the state the options travel as one object: a match from the
    command line (scripted bots, or the baseline policy in every seat) builds it once."""
    import thegame_env

    built = []
    post_init = thegame_env.Options.__post_init__

    def counted(self):
        built.append(self)
        post_init(self)

    monkeypatch.setattr(thegame_env.Options, "__post_init__", counted)
    code, out, _ = run(capsys, "match", "thegame", "--players", "2", "--bots", bots, "--games", "8", "--json")
    assert code == 0 and json.loads(out)["options"]["num_players"] == 2
    assert len(built) == 1


def test_as_options_takes_the_object_a_dict_or_keywords():
    import thegame_env
    from tabletop_core.contract.options import as_options, options_dict

    opts = thegame_env.Options(num_players=3)
    assert as_options(thegame_env.Options, opts) is opts
    assert as_options(thegame_env.Options, {"num_players": 3}) == opts
    assert as_options(thegame_env.Options, None, num_players=3) == opts
    assert as_options(thegame_env.Options, opts, level=1).level == 1
    assert options_dict(opts)["num_players"] == 3
    with pytest.raises(ValueError, match="num_players"):
        as_options(thegame_env.Options, opts, num_players=99)
    with pytest.raises(ValueError, match="Options or a dict"):
        as_options(thegame_env.Options, 3)


def test_the_player_count_is_players_on_the_command_line_wherever_it_is_declared():
    from dataclasses import dataclass

    from tabletop_core.contract.options import FLAGS, option, option_infos

    @dataclass(frozen=True)
    class Options:
        num_players: int = option(2, "number of players", low=2, high=5)

    assert FLAGS["num_players"] == "--players"
    assert [o.flag for o in option_infos(Options)] == ["--players"]
    for name in GAMES:
        game = load_game(name)
        flags = {o.name: (o.flag, *o.aliases) for o in game.option_infos}
        assert "--players" in flags[game.players_option]
