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


def first_move(block: str) -> str:
    """The first move of the last 'your move' list, as the list shows it (typed words)."""
    listing = block.rsplit("legal move", 1)[-1].split("\n")[1:]
    entry = next(line for line in listing if line.startswith("  "))
    return re.split(r"\s{3,}", entry.strip())[0]


def play_full_game(child, choose=first_move) -> tuple[str, list[str]]:
    """Answer every prompt with ``choose(screen)`` (a move as a person types it; a move
    the game warns about is typed again); return the transcript and the lines typed."""
    transcript, typed = [], []
    while True:
        k = child.expect(["\r\n> ", pexpect.EOF])
        screen = child.before.replace("\r\n", "\n")
        transcript.append(screen)
        if k == 1:
            break
        line = typed[-1] if "careful: " in screen.rsplit("\n", 2)[-1] else choose(screen)
        typed.append(line)
        child.sendline(line)
    child.close()
    assert child.exitstatus == 0, "".join(transcript)[-3000:]
    return "\n".join(transcript), typed


@pytest.mark.slow
@pytest.mark.parametrize(
    "game, env_moves",
    [
        (
            "thegame",
            [
                r"player_1 drew \d cards?",
                r"backwards trick: (\d+) on \d+, exactly 10 back",
                r"game over: .*Score \d+ \(cards left in hands and draw pile\)",
            ],
        ),
        (
            "exhaust",
            [
                r"player_\d \(strong\): cast [RBYGC]\d* .*on ",
                r"took \d Time Magic card|from the replenishment deck",
                r"Time Magic: (you|player_\d) passed the turn with it \(no cast\); the card goes back",
                r"game over: .* could not act and lost \(no cast fits, no Time Magic card to pass with",
            ],
        ),
        (
            "koikoi",
            [
                r"flipped \S+ from the deck",
                r"drew \S+",
                r"made (Great|Triple|[♠♥♦♣]) [^:]*: \d+ points?\. Yaku score \d+",
                r"round 1 over: ",
                r"game over \(",
            ],
        ),
        (
            "exitnow",
            [
                r"ghost_0 \(smart\): ghost slide",
                r"ghost g1 rolled \d",
                r"ghost g\d slid (up|down|left|right) from \(\d+, \d+\) to \(\d+, \d+\), (stopped by|onto)",
                r"human_\d rolled \d",
                r"game over: ",
            ],
        ),
    ],
)
def test_full_game_with_defaults_shows_the_environments_moves(game, env_moves):
    out, _ = play_full_game(spawn(game, "--seed", "3"))
    assert f"{game}: you are " in out and "legal move" in out
    for pattern in env_moves:
        assert re.search(pattern, out), (pattern, out[-4000:])
    assert out.count("game over") == 1 and out.count("legend: ") <= 1
    assert "the result:" in out and "episode returns (every reward of the game summed):" in out
    assert "Traceback" not in out and "{" not in out.rsplit("the result:", 1)[-1]


def replayed_returns(game: str, argv: list[str], typed: list[str]):
    """Play the same game in-process with the same typed lines; the final State and
    the rewards of every step summed per agent (the env's episode returns)."""
    import io

    from tabletop_core.cli import app as cli
    from tabletop_core.tools.play import TerminalPlay

    args = cli.build_parser().parse_args(["play", game, *argv])
    options = cli.options_from_args(args, args.game_def.make_options)
    play = TerminalPlay(
        args.game_def,
        options,
        0,
        None,
        args.seed,
        input=io.StringIO("\n".join(typed) + "\n"),
        output=io.StringIO(),
    )
    totals: dict[str, float] = {}
    step = play.env.step

    def counted(action):
        step(action)
        for agent, r in play.env.rewards.items():
            totals[agent] = totals.get(agent, 0.0) + float(r)

    play.env.step = counted
    play.run()
    assert play.env._done
    return play.env._state, totals


def _summary(out: str) -> str:
    return out.rsplit("the result:", 1)[-1]


def check_thegame(state, returns, summary):
    from tabletop_core.kernel.records import at
    from thegame_env.rules import score_r

    left = int(at(score_r, state, 0))
    assert set(returns.values()) == {98.0 - left}
    assert f"the team placed {98 - left} of 98 cards; {left} left in hands and draw pile" in summary
    assert f"every seat (player_0, player_1): +{98 - left} each" in summary


def check_koikoi(state, returns, summary):
    for k, (agent, r) in enumerate(returns.items()):
        chips = int(state["chips"][0, k])
        assert chips - 25 == r
        assert f"{agent}: {chips} chips, {int(r):+d} from 25" in summary


def check_exhaust(state, returns, summary):
    loser = int(state["loser"][0])
    assert [a for a, r in returns.items() if r == -1.0] == [f"player_{loser}"]
    assert f"player_{loser} could not act and lost" in summary
    for agent, r in returns.items():
        assert f"{agent}: {'lost (-1)' if r < 0 else 'won (+1)'}" in summary


def check_exitnow(state, returns, summary):
    assert ("escaped through the exit door" in summary) == (returns["ghost_0"] == -1.0)
    for agent, r in returns.items():
        assert f"{agent}: {'lost (-1)' if r < 0 else 'won (+1)'}" in summary


def choose_thegame(screen: str) -> str:
    """A card alone where one pile takes it, else card and pile; 'end' once allowed."""
    move = first_move(screen)
    if "(the 2 required are made" in screen or "(the 1 required is made" in screen:
        return "end"
    card = move.split()[0]
    moves = re.split(r"\s{3,}|\n\s*", screen.rsplit("legal move", 1)[-1])
    return card if sum(m.split(" ")[0] == card for m in moves) == 1 else move


def choose_koikoi(screen: str) -> str:
    """The first listed card as a keyboard types it (♠4 as s4; its rank alone where no
    other listed card has that rank)."""
    move = first_move(screen)
    if move in ("koi", "stop"):
        return "stop"
    listed = re.split(r"\s{3,}|\n\s*", screen.rsplit("legal move", 1)[-1])
    same_rank = [m for m in listed if m[1:] == move[1:] and m[:1] in "♠♥♦♣"]
    return move[1:] if len(same_rank) == 1 else "shdc"["♠♥♦♣".index(move[0])] + move[1:]


@pytest.mark.slow
@pytest.mark.parametrize(
    "game, argv, choose, check",
    [
        ("thegame", ["--seed", "5"], choose_thegame, check_thegame),
        ("koikoi", ["--seed", "11", "--players", "2", "--rounds", "2"], choose_koikoi, check_koikoi),
        ("exhaust", ["--seed", "3", "--players", "3"], first_move, check_exhaust),
        ("exitnow", ["--seed", "3", "--humans", "1", "--max-rounds", "6"], first_move, check_exitnow),
    ],
)
def test_a_whole_game_typed_as_a_person_types_ends_with_the_episode_returns(game, argv, choose, check):
    """A person plays a whole game typing cards and squares (never action ids); the final
    summary names each seat's whole-game result in the game's words, and it equals the
    rewards of every step summed (replayed in-process with the same lines)."""
    out, typed = play_full_game(spawn(game, *argv), choose)
    assert typed and not any(t.startswith("#") or t.isdigit() and len(t) > 2 for t in typed)
    state, returns = replayed_returns(game, argv, typed)
    summary = _summary(out)
    check(state, returns, summary)
    shown = ", ".join(f"{k} {v:+g}" for k, v in returns.items())
    assert f"episode returns (every reward of the game summed): {shown}" in summary
    assert "Traceback" not in out and "{" not in summary


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
    out = session("thegame", ["?", "help", "fly away", "end", "play", "#392", "#9999", "#x", "q"])
    assert out.count("commands:") == 2 and "undo" in out and "q, quit" in out
    assert out.count("moves in The Game:") == 2 and "33 up1" in out and "33 d2" in out
    assert "unknown command 'fly away'" in out
    assert "not legal now: end (end turn) — two plays owed before ending the turn" in out
    assert re.search(r"ambiguous: 'play' matches \d+: play \d+ on up1, .* and \d+ more", out)
    assert "not legal now: 392 (end turn) — two plays owed" in out
    assert "no action 9999: action numbers are 0..392" in out
    assert "after # comes an action number" in out


def test_the_game_says_why_a_card_does_not_go():
    out = session("thegame", ["play 99 on down1", "43 a1", "32 up1", "32", "66", "q"])
    # seed 0 deals player_0 30 32 43 66 69 74 78
    assert "not legal now: play 99 on down1 (play 99 on down1) — you do not hold 99" in out
    assert "you: play 43 on up1" in out
    assert "not legal now: 32 up1 (play 32 on up1) — 32 does not go on up1, whose top card is 43" in out
    assert "'32' could be 32 up2, 32 down1, 32 down2: type one of them" in out
    assert "plays this turn: 1 (1 more before the turn may end)" in out


def test_exhaust_selection_apart_from_the_hand_and_undo():
    out = session("exhaust", ["cast on Pair", "add R6", "r7", "undo", "tm", "undo all", "q"])
    assert "not legal now: cast on Pair (cast - on Pair) — the selection is empty" in out
    assert "selection (2 of the hand's cards): R6 R7" in out
    assert "▶ player_0 (15 in hand, 2 selected, 0 Time Magic): R15 B3" in out  # R6 R7 out of the hand line
    assert out.count("undone") == 2
    assert "not legal now: tm (play Time Magic) — you hold no Time Magic card" in out


def test_koikoi_and_exit_now_errors_name_the_decision():
    out = session("koikoi", ["koi-koi", "take", "q"])
    assert "not legal now: koi-koi (koi-koi) — koi-koi and stop come only after your yaku score rises" in out
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


def test_exit_now_warns_before_a_move_onto_a_ghost_and_takes_it_when_typed_again():
    import io

    from exitnow_envs import narrate
    from exitnow_envs.spec import DEST_OFFSET, MAP
    from tabletop_core.contract.catalog import load_game
    from tabletop_core.tools.play import TerminalPlay

    play = TerminalPlay(load_game("exitnow"), {"num_humans": 1}, seed=3, output=io.StringIO())
    play.env.reset(seed=3)
    st = play.env._state
    st["gon"][0, 0], st["gpos"][0, 0] = 1, (16, 19)
    action = DEST_OFFSET + 16 * MAP + 19
    text = narrate.warning(st, action, 0)
    assert "(16, 19) is ghost g1's square" in text and "captured" in text
    assert narrate.warning(st, DEST_OFFSET + 18 * MAP + 17, 0) is None
    names = play.legal_names()
    assert play._confirmed(play.command("16 19", names)) is None
    assert "careful: (16, 19) is ghost g1's square" in play.out.getvalue()
    assert play._confirmed(play.command("16 19", names)) == action


def test_help_rules_is_one_screen_per_game_and_help_offers_undo_only_where_it_works():
    for game in ("thegame", "exhaust", "koikoi", "exitnow"):
        out = session(game, ["help", "help rules", "help nothing", "undo", "q"])
        rules = out.split("the rules in one screen", 1)[1].split("\n> ", 1)[0]
        assert 8 <= rules.count("\n") <= 22 and all(len(x) <= 100 for x in rules.splitlines()), game
        assert "help rules" in out and "no help on 'nothing'; topics: rules" in out
        undoable = game in ("thegame", "exhaust")
        assert ("\n  undo " in out.split("moves in", 1)[0]) == undoable, game
        assert ("nothing to undo" in out) == undoable and (
            "has no undo: every move is final" in out
        ) != undoable


def test_the_game_undo_takes_back_a_card_played_this_turn_and_its_reward():
    import io

    from tabletop_core.contract.catalog import load_game
    from tabletop_core.tools.play import TerminalPlay

    # seed 0 deals player_0 30 32 43 66 69 74 78
    lines = ["43 a1", "undo", "30 a1", "32 a1", "undo all", "q"]
    play = TerminalPlay(load_game("thegame"), {}, seed=0, input=io.StringIO("\n".join(lines) + "\n"))
    play.out = io.StringIO()
    play.run()
    out = play.out.getvalue()
    assert out.count("undone") == 2 and "nothing to undo" not in out
    assert int(play.env._state["piles"][0, 0]) == 1 and play.returns["player_0"] == 0.0
    assert "▶ player_0 (7): 30 32 43 66 69 74 78" in out.rsplit("undone", 1)[1]


def test_the_game_names_the_backwards_trick_and_fire_cards():
    from thegame_env import narrate, raw_env
    from thegame_env.spec import play_to_action

    env = raw_env()
    env.reset(seed=0)
    before = env._state.copy()
    before["piles"][0, 0] = 63
    after = before.copy()
    after["piles"][0, 0] = 53
    assert narrate.describe(before, after, play_to_action(0, 53), 0, 0) == [
        "backwards trick: 53 on 63, exactly 10 back"
    ]
    before["piles"][0, 2], after["piles"][0, 2] = 37, 47
    assert narrate.describe(before, after, play_to_action(2, 47), 0, 0) == [
        "backwards trick: 47 on 37, exactly 10 back"
    ]
    before["cfg_on_fire"][0] = after["cfg_on_fire"][0] = 1
    before["piles"][0, 1], after["piles"][0, 1] = 30, 33
    assert narrate.describe(before, after, play_to_action(1, 33), 0, 0) == [
        "fire card 33 on up2: cover it with a non-fire card by the end of the next player's turn, "
        "or the team loses"
    ]
    assert "backwards trick" in narrate.RULES_SUMMARY


def test_koikoi_names_each_yaku_with_its_points():
    import numpy as np

    from koikoi_env import narrate, raw_env
    from koikoi_env.rules import yaku_score_r
    from tabletop_core.kernel.records import at

    env = raw_env(num_players=2)
    env.reset(seed=1)
    before = env._state.copy()
    after = before.copy()
    after["capt_bits"][0, 0, 0] = 0b111 | (0b111 << 16)  # ♠ 0 1 2 and three non-numbers
    after["capt_bits"][0, 0, 2] = 0b1_1111_1001  # ♦ 0 and 3..8: seven cards, a run of 6
    after["yaku"][0, 0] = at(yaku_score_r, after, 0, 0)
    assert narrate.yaku_made(after, 0) == [
        ("Great ♠", 5),
        ("Triple ♠ (run of 3)", 5),
        ("♠ swords (6 cards)", 1),
        ("Triple ♦ (run of 6)", 14),
        ("♦ coins (7 cards)", 2),
    ]
    assert sum(p for _, p in narrate.yaku_made(after, 0)) == int(after["yaku"][0, 0]) == 27
    line = narrate.describe(before, after, 0, 0, 0)[-1]
    assert (
        line.startswith("you made Great ♠: 5 points; Triple ♠ (run of 3): 5 points;")
        and "Yaku score 27" in line
    )
    out = session("koikoi", ["help yaku", "help", "q"])
    assert "Great X" in out and "Triple X" in out and "help yaku" in out
    assert np.all(before["yaku"] == 0)


def test_exhaust_explains_time_magic_and_that_only_cannot_act_loses():
    from exhaust_env import narrate, raw_env
    from exhaust_env.spec import PLAY_TIME_MAGIC

    env = raw_env(num_players=2)
    env.reset(seed=0)
    saved = env.get_state()
    saved["state"]["tm"][0, 0] = 1
    saved["state"]["tm_pile"][0] -= 1
    env.set_state(saved)
    before = env._state.copy()
    env.step(PLAY_TIME_MAGIC)
    (line,) = narrate.describe(before, env._state, PLAY_TIME_MAGIC, 0, 0)
    assert line.startswith("Time Magic: you passed the turn with it (no cast); the card goes back")
    assert "CANNOT ACT" in narrate.RULES_SUMMARY


def test_exit_now_shows_the_legend_once_the_exit_key_ghost_reach_and_item_moves():
    from exitnow_envs import narrate, raw_env
    from exitnow_envs.rules.common import find_kind_r
    from exitnow_envs.spec import DEST_OFFSET, EXIT, ITEM_NAMES, MAP, SEALED_A, SLIDE_OFFSET

    out = session("exitnow", ["legend", "ghosts", "0 10", "table", "q"], "--seed", "3")
    assert out.count("legend: ## wall") == 2  # once at the start, once asked for
    assert "you need an Exit Key: end a move on an event chip (??)" in out
    assert "the exit door opens only with an Exit Key" in out
    assert re.search(
        r"ghost g1 at \(\d+, \d+\) can get to, on its next turn:\n  in 1 move \(any roll\): \d", out
    )
    env = raw_env(num_humans=1)
    env.reset(seed=3)
    st = env._state
    r, c = (int(v) for v in find_kind_r(st[0], EXIT))
    assert "Exit Key" in narrate.action_group(st, DEST_OFFSET + r * MAP + c)
    st["cell"][0, 5, 5] = SEALED_A
    assert "Pickaxe" in narrate.action_group(st, DEST_OFFSET + 5 * MAP + 5)
    assert narrate.action_group(st, DEST_OFFSET + 6 * MAP + 6).startswith("move: ")
    # a ghost's slide is named with where it stopped and why; its reach is every such landing
    st["gon"][0, 0], st["gpos"][0, 0] = 1, (16, 19)
    reach = narrate.ghost_reach(st, 0)
    assert reach and min(reach.values()) == 1 and max(reach.values()) <= narrate.GHOST_MOST_MOVES
    after = st.copy()
    (sq,) = [sq for sq, k in reach.items() if k == 1][:1]
    after["gpos"][0, 0] = sq
    d = 0 if sq[0] < 16 else 2 if sq[0] > 16 else 1 if sq[1] > 19 else 3
    line = narrate.slide_line(st, after, 0, SLIDE_OFFSET + d)
    assert line.startswith(
        f"ghost g1 slid {('up', 'right', 'down', 'left')[d]} from (16, 19) to ({sq[0]}, {sq[1]}), "
    )
    st["items"][0, 0, ITEM_NAMES.index("Exit Key")] = 1
    assert "Exit Key" not in narrate.illegal_reason(st, DEST_OFFSET + r * MAP + c, 0)
