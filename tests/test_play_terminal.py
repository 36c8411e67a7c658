"""Scripted terminal sessions of ``tabletop play`` (pexpect): a full game per game with
the defaults, the environment's own moves shown, and the specific messages for bad input."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[1]
ENTRY = re.compile(r"(?:^|\s)(\d+): ", re.M)


def spawn(*args: str):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100", "LINES": "40"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "tabletop_core.cli", "play", *args],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=240,
        dimensions=(40, 100),
    )
    return child


def play_full_game(child) -> str:
    """Answer every prompt with the first legal action listed; return the transcript."""
    transcript = []
    while True:
        k = child.expect(["\r\n> ", pexpect.EOF])
        transcript.append(child.before)
        if k == 1:
            break
        block = child.before.rsplit("legal action", 1)[-1]
        first = ENTRY.search(block)
        assert first, block
        child.sendline(first.group(1))
    child.close()
    assert child.exitstatus == 0, "".join(transcript)[-3000:]
    return "".join(transcript).replace("\r\n", "\n")


@pytest.mark.parametrize(
    "game, env_moves",
    [
        (
            "thegame",
            [r"player_1 drew \d cards?", r"game over: .*Score \d+ \(cards left in hands and draw pile\)"],
        ),
        (
            "exhaust",
            [
                r"player_\d \(strong\): cast [RBYGC]\d* .*on ",
                r"took \d Time Magic card|from the replenishment deck",
                r"game over: .* could not act and lost",
            ],
        ),
        ("koikoi", [r"flipped \S+ from the deck", r"drew \S+", r"round 1 over: ", r"game over \("]),
        (
            "exitnow",
            [r"ghost_0 \(smart\): ghost slide", r"ghost g1 rolled \d", r"human_\d rolled \d", r"game over: "],
        ),
    ],
)
def test_full_game_with_defaults_shows_the_environments_moves(game, env_moves):
    out = play_full_game(spawn(game, "--seed", "3"))
    assert f"{game}: you are " in out and "legal action" in out
    for pattern in env_moves:
        assert re.search(pattern, out), (pattern, out[-4000:])
    assert "game over — episode returns:" in out
    assert "Traceback" not in out


def session(game: str, lines: list[str], *argv: str) -> str:
    """Run ``tabletop play GAME`` in-process with scripted input lines; the output."""
    import io

    from tabletop_core.cli import app as cli

    args = cli.build_parser().parse_args(["play", game, "--seed", "0", *argv])
    args.options = cli.options_from_args(args, args.game_def.make_options)
    args.input = io.StringIO("".join(x + "\n" for x in lines))
    args.output = io.StringIO()
    assert cli.cmd_play(args) == 0
    return args.output.getvalue()


def test_help_and_specific_errors_in_the_game():
    out = session("thegame", ["?", "help", "fly away", "end", "play", "392", "9999", "q"])
    assert out.count("commands:") == 2 and "undo" in out and "q, quit" in out
    assert "unknown command 'fly away'" in out
    assert "not legal now: end turn — two plays owed before ending the turn" in out
    assert re.search(r"ambiguous: 'play' matches \d+: play \d+ on ↑1, .* and \d+ more", out)
    assert "not legal now: 392 (end turn) — two plays owed" in out
    assert "no action 9999: action numbers are 0..392" in out


def test_the_game_says_why_a_card_does_not_go():
    out = session("thegame", ["play 99 on ↓1", "43 ↑1", "play 32 on ↑1", "q"])
    # seed 0 deals player_0 30 32 43 66 69 74 78
    assert "not legal now: play 99 on ↓1 — you do not hold 99" in out
    assert "you: play 43 on ↑1" in out
    assert "not legal now: play 32 on ↑1 — 32 does not go on ↑1, whose top card is 43" in out


def test_exhaust_selection_apart_from_the_hand_and_undo():
    out = session("exhaust", ["cast on Pair", "add R6", "add R7", "undo", "play Time Magic", "undo all", "q"])
    assert "not legal now: cast on Pair — the selection is empty" in out
    assert "selection (2 of the hand's cards): R6 R7" in out
    assert "▶ player_0 (15 cards, 0 Time Magic): R15 B3" in out  # R6 R7 out of the hand line
    assert out.count("undone") == 2
    assert "not legal now: play Time Magic — you hold no Time Magic card" in out


def test_koikoi_and_exit_now_errors_name_the_decision():
    out = session("koikoi", ["koi-koi", "take", "q"])
    assert "not legal now: koi-koi — koi-koi and stop come only after your yaku score rises" in out
    assert "not legal now: take" in out and "play a card from your hand" in out
    out = session("exitnow", ["ghost slide up", "q"])
    assert "not legal now: ghost slide up — now you" in out


def test_bots_name_the_other_seats_only():
    out = session("koikoi", ["q"], "--players", "3", "--seat", "1", "--bots", "greedy,random")
    assert "you are player_1; bots: player_0 greedy, player_2 random" in out
    from tabletop_core.cli import app as cli

    assert cli.main(["play", "koikoi", "--players", "3", "--bots", "a,b,c"]) == 2
    assert cli.main(["play", "thegame", "--seat", "4"]) == 2


def test_view_svg_writes_the_picture_after_every_move(tmp_path):
    import io

    from tabletop_core.contract.catalog import load_game
    from tabletop_core.tools.play import play_in_terminal

    target = tmp_path / "table.svg"
    out = io.StringIO()
    code = play_in_terminal(
        load_game("koikoi"),
        {},
        seat=0,
        bots=None,
        seed=3,
        svg_file=str(target),
        input=io.StringIO("q\n"),
        output=out,
    )
    assert code == 0
    svg = target.read_text()
    assert svg.lstrip().startswith("<") and "</svg>" in svg


def test_view_takes_only_svg(tmp_path, capsys):
    from tabletop_core.cli import app as cli

    code = cli.main(["play", "koikoi", "--view", "png", str(tmp_path / "t.svg")])
    assert code == 2 and "--view takes 'svg FILE'" in capsys.readouterr().err


@pytest.mark.parametrize("width", [40, 80, 133])
def test_columns_fit_the_width_and_never_split_an_entry(width):
    from tabletop_core.tools.play import columns

    entries = [f"{k}: play {k % 98 + 2} on ↑{k % 2 + 1}" for k in range(0, 392, 7)]
    lines = columns(entries, width)
    assert all(len(line) <= width for line in lines)
    cells = [c for line in lines for c in re.split(r"\s{3,}", line.strip())]
    assert sorted(cells) == sorted(entries)


@pytest.mark.parametrize(
    "game, options",
    [
        ("thegame", {"num_players": 3, "on_fire": True}),
        ("exhaust", {"mode": "long", "num_players": 3}),
        ("exhaust", {"mode": "solo"}),
        ("koikoi", {"num_players": 2, "rounds": 2}),
        ("exitnow", {"num_humans": 2}),
    ],
)
def test_narration_covers_whole_games_and_every_illegal_action_has_a_reason(game, options):
    """Bots play whole games; each step is narrated from seat 0's view without error, and
    every action outside the mask gets a non-empty reason."""
    import importlib

    import numpy as np

    from tabletop_core.contract.catalog import load_game
    from tabletop_core.kernel.rng import seed_word

    g = load_game(game)
    module = importlib.import_module(load_game(game).package)
    narrate = load_game(game).narrate
    lines = []
    for seed in range(3):
        env = module.raw_env(**options)
        env.reset(seed=seed)
        rng = np.array([seed_word(seed)], np.uint64)
        n = len(env.possible_agents)
        bots = g.bot_ids([g.play_bot if seed else "random"] * n, n)
        while not env._done:
            actor = int(env._cur[0])
            legal = set(env.legal_actions().tolist())
            for a in range(seed, g.num_actions, 5):
                if a not in legal:
                    assert narrate.illegal_reason(env._state, a, actor)
            a = g.bot_decision(bots[actor], env._state, env._mask[0], rng)
            before = env._state.copy()
            env.step(a)
            lines += narrate.describe(before, env._state, a, actor, 0)
    assert sum("game over" in x for x in lines) == 3
    assert all(isinstance(x, str) and x and "  " not in x for x in lines)
