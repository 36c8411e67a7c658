"""The ``tabletop`` command line: list games, bot matches, benchmarks, terminal play.

Examples::

    tabletop list
    tabletop match thegame --players 3 --bots strong,strong,strong --games 10000 --seed 0
    tabletop match thegame --players 2 --bots strong --games 1000 --on-fire --level 1 --json
    tabletop match exitnow --humans 3 --bots human,human,human,ghost --games 1000
    tabletop bench thegame --quick     # add --json for one JSON line per measurement
    tabletop play koikoi               # you are seat 0, the default bot plays the others
    tabletop play thegame --players 3 --seat 1 --bots strong,greedy
    tabletop render exitnow --layout 5 --out map.png
    tabletop match exhaust --help      # the command's arguments and every Exhaust option
    tabletop render koikoi --view player_0 --steps 20 --out table.svg
    tabletop replay koikoi --bots strong --seed 3 --out game.html
    tabletop soak thegame --games 100000      # invariants checked at every step, one JSON line

Per-game option plumbing (for every command that takes a game):
    Each game declares its options once, as the fields of its ``spec.Options`` dataclass
    made by :func:`tabletop_core.contract.options.option` (default, help, allowed values, flag).
    :func:`add_game_subparsers` turns a command into one sub-parser per game
    (``tabletop COMMAND GAME ...``) holding the command's own arguments (added by a
    ``setup(parser, game)`` callback) and one argument per game option, so
    ``tabletop COMMAND GAME --help`` lists them all with the same spelling as
    ``tabletop list``, a bad value or an unknown option exits 2 with a usage message, and
    the handler receives ``args.game`` (the name), ``args.game_def`` (the
    :class:`~tabletop_core.contract.game.GameDef`) and ``args.options`` (the game options given,
    as keyword arguments for ``raw_env``/``run_match``). To add a command::

        def _setup_soak(p, game):                 # the command's own arguments
            p.add_argument("--hours", type=float, default=1.0)

        def cmd_soak(args) -> int:                # exit status; ValueError -> exit 2
            ... args.game_def, args.options, args.hours ...

        # in build_parser():
        add_game_subparsers(sub, "soak", cmd_soak, help="...", setup=_setup_soak)

Argument parsing uses argparse; tables and progress bars use ``rich``
(``pip install tabletop-rl[cli]``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable

from tabletop_core.agents.baseline import BASELINE, baseline_files
from tabletop_core.cli.train import (
    TRAIN_HELP,
    add_bench_flag,
    bench_train_handler,
    setup_train,
    train_handler,
)
from tabletop_core.contract.catalog import available_games, load_game
from tabletop_core.contract.game import GameDef
from tabletop_core.contract.options import add_option_arguments, as_options, options_from_args
from tabletop_core.kernel.rng import SEED_LIMIT
from tabletop_core.tools.arena import INTERVALS, run_match, summarize
from tabletop_core.tools.bench import (
    THREAD_CASES,
    bench_record_count,
    copy_case,
    run_benchmarks,
    thread_cases,
)
from tabletop_core.tools.jsonutil import json_default
from tabletop_core.tools.play import play_in_terminal
from tabletop_core.tools.progress import ProgressBar, compile_notice
from tabletop_core.tools.replay import render_to_file, replay_game
from tabletop_core.tools.soak import cmd_soak, setup_soak_parser

__all__ = ["main", "build_parser", "add_game_subparsers", "seed_arg", "SEED_RANGE"]

#: The seeds the commands take: the generator's state is one uint64 word.
SEED_RANGE = "0 <= SEED < 2**64"

SEARCH_HELP = (
    "search may take settings, e.g. search:rollouts=512:bot=greedy:z=1 "
    "(rollouts per decision, the rollout bot, standard errors a gain must exceed), and where a seat "
    "may hold a trained policy search:blueprint=baseline:top=4:own=policy (the policy's move as the "
    "default, only its 4 best moves searched, the policy playing the seat in the rollouts); "
    "docs/search-bot.md"
)


MAX_BENCH_SECONDS = 3600.0


def bench_seconds_arg(text: str) -> float:
    """The argparse ``type`` of ``tabletop bench --seconds``: a finite number of seconds
    above 0 and at most :data:`MAX_BENCH_SECONDS` (0 would time no step and divide by
    zero; nan or inf would never end a window)."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seconds is a number of seconds, got {text!r}") from None
    if not 0.0 < seconds <= MAX_BENCH_SECONDS:  # also false for nan
        raise argparse.ArgumentTypeError(
            f"--seconds must be above 0 and at most {MAX_BENCH_SECONDS:g}, got {text}"
        )
    return seconds


MAX_BENCH_BATCH = 1 << 16
"""The largest vector batch ``tabletop bench --batches`` takes (Exit Now's rows at that
batch are 2 GB)."""


def bench_batches_arg(text: str) -> tuple[int, ...]:
    """The argparse ``type`` of ``tabletop bench --batches``: comma-separated batch sizes,
    each an integer in 1..:data:`MAX_BENCH_BATCH`, returned sorted, each once."""
    parts = [t.strip() for t in text.split(",")]
    try:
        sizes = sorted({int(t) for t in parts})
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--batches is a comma-separated list of integers (e.g. 256,1024,4096), got {text!r}"
        ) from None
    bad = [b for b in sizes if not 1 <= b <= MAX_BENCH_BATCH]
    if bad:
        raise argparse.ArgumentTypeError(f"--batches: each batch is in 1..{MAX_BENCH_BATCH}, got {bad[0]}")
    return tuple(sizes)


def seed_arg(text: str) -> int:
    """The argparse ``type`` of a ``--seed``: an integer with ``0 <= seed < 2**64`` (the
    generator's state is one uint64 word; a seed outside would deal as another one)."""
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is an integer ({SEED_RANGE}), got {text!r}") from None
    if not 0 <= seed < SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"a seed is in {SEED_RANGE} (= {SEED_LIMIT}), got {seed}")
    return seed


def add_game_subparsers(
    subparsers: argparse._SubParsersAction,
    command: str,
    handler: Callable[[argparse.Namespace], int],
    *,
    help: str,
    setup: Callable[[argparse.ArgumentParser, GameDef], None] | None = None,
    description: str | None = None,
    show_defaults: bool = False,
) -> argparse.ArgumentParser:
    """Add ``tabletop COMMAND GAME [arguments] [game options]`` with one sub-parser per game.

    Args:
        subparsers: the ``add_subparsers()`` object of the ``tabletop`` parser.
        command: the command's name (``"match"``).
        handler: ``handler(args) -> exit status``; ``args`` has the command's arguments
            and ``game`` (name), ``game_def`` (GameDef) and ``options`` (dict of the game
            options given on the command line).
        help: one line for ``tabletop --help``.
        setup: ``setup(parser, game)`` adds the command's own arguments to the sub-parser
            of ``game`` (called once per game).
        description: longer text for ``tabletop COMMAND --help``.
        show_defaults: ``--help`` shows the default of every argument of the command's own
            (those ``setup`` adds) that does not say it already.

    Returns:
        The command's parser.
    """
    command_parser = subparsers.add_parser(command, help=help, description=description or help)
    add_game_parsers(
        command_parser, f"tabletop {command}", handler, help=help, setup=setup, show_defaults=show_defaults
    )
    return command_parser


def add_game_parsers(
    parser: argparse.ArgumentParser,
    label: str,
    handler: Callable[[argparse.Namespace], int],
    *,
    help: str,
    setup: Callable[[argparse.ArgumentParser, GameDef], None] | None = None,
    show_defaults: bool = False,
) -> None:
    """Give ``parser`` one sub-parser per game (``GAME [arguments] [game options]``), as
    :func:`add_game_subparsers` does for a ``tabletop`` command; also what a script in
    ``benchmarks/`` uses to take the games' options as ``tabletop`` does.

    Args:
        parser: the parser that takes ``GAME`` as its first argument.
        label: how the sub-parsers' descriptions name the command (``"tabletop match"``).
        handler, help, setup, show_defaults: as for :func:`add_game_subparsers`; each
            game's sub-parser sets ``handler``, ``game_def`` and ``parser_`` (itself).
    """
    games = parser.add_subparsers(dest="game", required=True, metavar="GAME", title="games")
    for name in available_games():
        game = load_game(name)
        gp = games.add_parser(
            name, help=game.description, description=f"{label} {name}: {help}. {name}: {game.description}."
        )
        if setup is not None:
            setup(gp, game)
            if show_defaults:
                _show_defaults(gp)
        add_option_arguments(gp, game.make_options, title=f"{name} options")
        gp.set_defaults(handler=handler, game_def=game, parser_=gp)


def _show_defaults(parser: argparse.ArgumentParser) -> None:
    """Add ``(default: X)`` to the help of each argument with a default its help does not
    mention (flags, --help and arguments without a default are left as they are)."""
    for action in parser._actions:
        if action.option_strings == [] or action.nargs == 0 or action.default in (None, argparse.SUPPRESS):
            continue
        text = action.help or ""
        if "default" in text or text == argparse.SUPPRESS:
            continue
        action.help = f"{text} (default: %(default)s)".strip()


def _console():
    try:
        from rich.console import Console
    except ImportError:
        return None
    return Console(width=None if sys.stdout.isatty() else 140)


def _require_rich() -> None:
    try:
        import rich  # noqa: F401
    except ImportError:
        sys.exit("this command needs the 'cli' extra: pip install 'tabletop-rl[cli]' (or use --json)")


def _fmt_ci(d: dict, pct: bool = False) -> str:
    if "rate" in d:
        v, lo, hi = d["rate"], d["low"], d["high"]
    else:
        v, lo, hi = d["mean"], d["low"], d["high"]
    if pct:
        return f"{100 * v:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]"
    return f"{v:.2f} [{lo:.2f}, {hi:.2f}]"


# --- list -----------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    rows = []
    for name in available_games():
        game = load_game(name)
        opts = [o for o in game.option_infos if o.cli]
        rows.append(
            {
                "game": name,
                "env_id": game.env_id,
                # "baseline": the shipped trained policy, a seat entry as the bots are
                "bots": list(game.bot_choices) + ([BASELINE] if baseline_files(game) else []),
                "options": {o.flag: o.default for o in opts},
                "option_help": {o.flag: o.describe() for o in opts},
                "about": game.description,
            }
        )
    if args.json:
        print(json.dumps(rows))
        return 0
    _require_rich()
    from rich.table import Table

    table = Table(
        title="tabletop-rl games (tabletop COMMAND GAME --help shows each option)",
        caption="bots: the scripted bots and baseline, the shipped trained policy "
        "(a seat may also be policy:FILE.npz)",
    )
    for col in ("game", "bots", "options (defaults)", "about"):
        table.add_column(col, overflow="fold")
    for r in rows:
        opts = ", ".join(
            f"{flag} {'(see --help)' if value is None else value}" for flag, value in r["options"].items()
        )
        table.add_row(r["game"], ", ".join(r["bots"]), opts, r["about"])
    _console().print(table)
    return 0


# --- match ----------------------------------------------------------------------------------
def _setup_match(p: argparse.ArgumentParser, game: GameDef) -> None:
    p.add_argument(
        "--bots",
        required=True,
        help=f"one bot per seat (comma-separated) or one for all; a seat may be policy:FILE.npz or "
        f"baseline (the shipped trained policy); bots: {', '.join(game.bot_choices)}, baseline; "
        f"{SEARCH_HELP}",
    )
    p.add_argument(
        "--games", type=int, default=10000, help="games to play (default 10000, at most 100,000,000)"
    )
    p.add_argument(
        "--seed",
        type=seed_arg,
        default=0,
        help=f"game g is dealt with seed + g, {SEED_RANGE} (default 0)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")


def cmd_match(args: argparse.Namespace) -> int:
    game = args.game_def
    if not args.json:
        _require_rich()
    opts = as_options(game.make_options, args.options)  # the options object, built once here
    result = run_match(game, args.bots, args.games, seed=args.seed, progress=True, options=opts)
    summary = summarize(result)
    if args.json:
        print(json.dumps(summary, default=json_default))
    else:
        _print_match(game, summary)
    if result.interrupted:  # Ctrl-C: the figures above are those of the games played
        print(
            f"tabletop: interrupted after {result.games:,} of {result.requested:,} games "
            "(the figures are those of the games played)",
            file=sys.stderr,
        )
        return 130
    return 0


def _print_match(game: GameDef, s: dict) -> None:
    """The match summary as rich tables: the game figures (each with its definition) and,
    in a competitive game, one row per seat. No figure is a mean of seat numbers."""
    from rich.table import Table

    console = _console()
    # an option left to the game (None) shows what it became: the seats counted, or nothing
    shown = {
        k: len(s["seats"]) if k == game.players_option and v is None else v for k, v in s["options"].items()
    }
    opts = ", ".join(f"{k}={v}" for k, v in shown.items() if v is not None and k != "boards")
    title = f"{s['game']} — {s['games']} games, seed {s['seed']} ({opts})"
    if s.get("interrupted"):
        title += " — interrupted, the games played so far"
    rate = s["games_per_s"]
    speed = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"
    speed = f"{speed} games/s · {s['mean_steps']:.1f} agent steps a game"
    defs = s["definitions"]
    if not game.cooperative:
        table = Table(title=title)
        for col in ("seat", "bot", "mean return", "win rate", "loss rate", "rating μ ± σ (ordinal)"):
            table.add_column(col, justify="right" if col not in ("seat", "bot") else "left")
        for seat in s["seats"]:
            rating = seat.get("rating")
            rtxt = f"{rating['mu']:.1f} ± {rating['sigma']:.2f} ({rating['ordinal']:.1f})" if rating else "-"
            table.add_row(
                seat["agent"],
                seat["bot"],
                _fmt_ci(seat["mean_return"]),
                _fmt_ci(seat["win_rate"], pct=True),
                _fmt_ci(seat["loss_rate"], pct=True),
                rtxt,
            )
        table.caption = f"win = {defs['win_rate']}; loss = {defs['loss_rate']}\n{INTERVALS}\n{speed}"
        console.print(table)
        if not s["stats"]:
            return
        title = f"{s['game']} — game figures"
    figures = Table(title=title)
    figures.add_column("figure")
    figures.add_column("value [95 % interval]", justify="right")
    figures.add_column("definition", overflow="fold")
    if game.cooperative:
        figures.add_row("bots", ", ".join(s["bots"]), "")
    for key, d in s["stats"].items():
        label = key.replace("_", " ") + (" rate" if "rate" in d else " (mean)")
        figures.add_row(label, _fmt_ci(d, pct="rate" in d), d.get("definition", ""))
    if game.cooperative:
        reward = s["options"].get("reward")
        figures.add_row(
            "team return (mean)",
            _fmt_ci(s["seats"][0]["mean_return"]),
            "every seat's episode return (one shared reward" + (f", reward={reward!r})" if reward else ")"),
        )
        figures.caption = f"{INTERVALS}\n{speed}"
    elif not figures.caption:
        figures.caption = INTERVALS
    console.print(figures)


# --- bench ----------------------------------------------------------------------------------
def _setup_bench(p: argparse.ArgumentParser, game: GameDef) -> None:
    p.add_argument("--json", action="store_true", help="one JSON line per measurement")
    p.add_argument(
        "--seconds", type=bench_seconds_arg, default=2.0, help="time per measurement (0 < seconds <= 3600)"
    )
    p.add_argument("--quick", action="store_true", help="smaller batches and fewer games")
    p.add_argument(
        "--batches",
        type=bench_batches_arg,
        default=None,
        help="the vector env's batch sizes, comma-separated (default 1,64,1024,4096; --quick: 1,64,1024); "
        "Pgx is compared at each one from 1024",
    )
    p.add_argument("--no-peers", action="store_true", help="skip PettingZoo classic and Pgx peers")
    p.add_argument(
        "--threads",
        action="store_true",
        help="only default vs one thread (quiet, busy process, torch) and copy=True vs copy=False",
    )
    add_bench_flag(p)


def cmd_bench(args: argparse.Namespace) -> int:
    if getattr(args, "train", False):
        return bench_train_handler(args)
    batches = args.batches or ((1, 64, 1024, 4096) if not args.quick else (1, 64, 1024))
    if args.threads:  # only default vs one thread (quiet, busy, torch) and copy=True vs False

        def threads_and_copy():
            yield from thread_cases(args.game_def, args.options, seconds=max(args.seconds, 4.0))
            yield copy_case(args.game_def, args.options, seconds=max(args.seconds, 4.0))

        records = threads_and_copy()
    else:
        records = run_benchmarks(
            args.game_def,
            args.game_def.package,
            args.options,
            seconds=args.seconds,
            batches=batches,
            peers=not args.no_peers,
            bot_games=2000 if args.quick else 20000,
        )
    expected = (
        len(THREAD_CASES) + 1
        if args.threads
        else bench_record_count(args.game_def, batches, not args.no_peers)
    )
    records = _with_progress(records, args.game, expected)
    if args.json:
        for r in records:
            print(json.dumps(r, default=json_default), flush=True)
        return 0
    _require_rich()
    console = _console()
    console.print(BENCH_TERMS, markup=False, highlight=False, style="dim")
    for r in records:
        console.print(_bench_line(r), markup=False, highlight=False)
    return 0


def _with_progress(records, game: str, expected: int):
    """``records`` as they come, with progress on stderr: how many of about ``expected``
    measurements are done and the time left (a bar on a terminal, a line every 15 s
    otherwise); a first measurement that compiles says so."""
    bar = ProgressBar(expected, f"bench {game}", unit="measurements", plain_every=15.0, transient=True)
    done = 0
    try:
        with compile_notice(game):
            first = next(records, None)
        if first is None:
            return
        done += 1
        bar.update(done)
        yield first
        for r in records:
            done += 1
            bar.update(min(done, expected))
            yield r
    finally:
        bar.close()


BENCH_TERMS = (
    "threads: the vector env's stepping threads; 'in use': how many its default chose after "
    "timing both;\ncores: CPU time over wall time of the run (2.0 = two cores busy); "
    "×: our steps/s over the peer's (above 1: faster); 'interleaved windows, medians': the "
    "median of that ratio over rounds that time ours and the peer's back to back; 'rows only': "
    "a loop that only writes observation rows of the game's width, over the peer, in those "
    "rounds: the most a step writing its rows in full can reach"
)
"""The terms of ``tabletop bench``'s lines, printed above them."""


def _bench_line(r: dict) -> str:
    kind = r["bench"]
    if kind == "threads" and "error" in r:
        return f"threads, {r['case']}: {r['error']}"
    if kind == "copy":
        return (
            f"copy=True (batch {r['batch']}): {r['copy_steps_per_s']:,.0f} · copy=False "
            f"{r['no_copy_steps_per_s']:,.0f} steps/s (×{r['ratio']:.2f})"
        )
    if kind == "threads":
        return (
            f"threads, {r['case']} (batch {r['batch']}): default ({r['threads']} threads, "
            f"{r['threads_in_use']} in use) {r['default_steps_per_s']:,.0f} · one thread "
            f"{r['one_thread_steps_per_s']:,.0f} steps/s (×{r['ratio']:.2f})"
        )
    if kind == "aec":
        return f"AEC env(): {r['wrapped_steps_per_s']:,.0f} steps/s · raw_env: {r['raw_steps_per_s']:,.0f} steps/s"
    if kind in ("peer", "peer_best"):
        return _peer_line(r)
    if kind == "vector":
        return (
            f"vector batch {r['batch']:>5}, {r['threads']} thread{'s' if r['threads'] > 1 else ' '}: "
            f"{r['python_actions_steps_per_s']:>12,.0f} steps/s (Python actions) · "
            f"{r['kernel_actions_steps_per_s']:>12,.0f} steps/s (in-kernel actions) · {r['cores_used']:.1f} cores"
        )
    if kind == "bots":
        return f"bot match '{r['bot']}': {r['games_per_s']:,.0f} games/s (one core)"
    if kind == "state":
        return f"state: {r['bytes_per_env']} bytes per env"
    if kind == "start":
        parts = []
        for label in ("cold", "warm"):
            d = r.get(label, {})
            parts.append(
                f"{label} {d['first_step_s']:.2f} s" if "first_step_s" in d else f"{label} failed: {d}"
            )
        return "start to first step: " + " · ".join(parts)
    return json.dumps(r)


def _peer_line(r: dict) -> str:
    """A ``tabletop bench`` line comparing with a peer (PettingZoo classic, Pgx)."""
    kind = r["bench"]
    if kind == "peer" and "error" in r:
        return f"peer {r['peer']}: {r['error']}"
    if kind == "peer" and "ratio_wrapped" in r:
        return (
            f"peer {r['peer']}: wrapped {r['wrapped_steps_per_s']:,.0f} (ours ×{r['ratio_wrapped']:.2f}) · "
            f"raw {r['raw_steps_per_s']:,.0f} (ours ×{r['ratio_raw']:.2f}) steps/s"
        )
    if kind == "peer":
        one = ""
        if "ratio_kernel_actions_one_thread" in r:
            one = (
                f"; one thread ×{r['ratio_python_actions_one_thread']:.2f}, "
                f"×{r['ratio_kernel_actions_one_thread']:.2f}"
            )
        return (
            f"peer {r['peer']} batch {r['batch']}: {r['steps_per_s']:,.0f} steps/s on {r['cores_used']:.1f} cores · "
            f"ours ({r['threads']} threads) ×{r['ratio_python_actions']:.2f} (Python actions), "
            f"×{r['ratio_kernel_actions']:.2f} (in-kernel actions){one}; interleaved windows, medians "
            f"×{r['median_window_ratio_python_actions']:.2f}, ×{r['median_window_ratio_kernel_actions']:.2f}"
            + (
                f"; rows only ×{r['median_window_ratio_row_fill']:.2f} (the ceiling)"
                if "median_window_ratio_row_fill" in r
                else ""
            )
        )
    if kind == "peer_best":
        return (
            f"peer {r['peer']} at its fastest batch ({r['peer_batch']}): {r['peer_steps_per_s']:,.0f} steps/s · "
            f"ours at ours: ×{r['ratio_python_actions']:.2f} (Python actions, batch {r['python_actions_batch']}), "
            f"×{r['ratio_kernel_actions']:.2f} (in-kernel actions, batch {r['kernel_actions_batch']})"
        )
    return json.dumps(r)


# --- play -----------------------------------------------------------------------------------
def _setup_play(p: argparse.ArgumentParser, game: GameDef) -> None:
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 first (default 0)")
    p.add_argument(
        "--bots",
        default=None,
        help=f"bots for the OTHER seats in seat order (comma-separated), or one for all of them "
        f"(default {game.play_bot}); bots: {', '.join(game.bot_choices)}, baseline (the shipped trained "
        f"policy), policy:FILE.npz; {SEARCH_HELP}",
    )
    p.add_argument(
        "--seed", type=seed_arg, default=None, help=f"deal of the game, {SEED_RANGE} (default: a fresh one)"
    )
    p.add_argument(
        "--view",
        nargs=2,
        metavar=("svg", "FILE"),
        default=None,
        help="also write the table's picture (SVG) to FILE after every move",
    )
    p.set_defaults(input=None, output=None)


def cmd_play(args: argparse.Namespace) -> int:
    view_file = None
    if args.view is not None:
        kind, view_file = args.view
        if kind != "svg":
            raise ValueError(f"--view takes 'svg FILE', got {kind!r}")
    return play_in_terminal(
        args.game_def,
        args.options,
        seat=args.seat,
        bots=args.bots,
        seed=args.seed,
        svg_file=view_file,
        input=args.input,
        output=args.output,
    )


# --- render and replay (pictures: tabletop_core.tools.replay) ---------------------------------------
def _setup_render(p: argparse.ArgumentParser, game: GameDef) -> None:
    p.add_argument("--out", required=True, help="file to write: .svg or .png")
    p.add_argument("--seed", type=seed_arg, default=0, help=f"deal to draw, {SEED_RANGE} (default 0)")
    p.add_argument("--view", default="omniscient", help="omniscient, a seat number or an agent name")
    p.add_argument("--steps", type=int, default=0, help="bot moves to play before the picture (default 0)")


def cmd_render(args: argparse.Namespace) -> int:
    """Write the table of a game (dealt with --seed, after --steps bot moves) as SVG or PNG."""
    report: dict = {}
    try:
        path, (w, h) = render_to_file(
            args.game,
            args.out,
            seed=args.seed,
            view=args.view,
            steps=args.steps,
            report=report,
            **args.options,
        )
    except ImportError as exc:  # .png without the render extra
        raise ValueError(str(exc)) from None
    print(f"wrote {path} ({w}x{h})")
    if report.get("ended") and report["steps"] < args.steps:
        print(
            f"the game ended at step {report['steps']} (of the {args.steps} asked for): the picture is its end"
        )
    return 0


def _setup_replay(p: argparse.ArgumentParser, game: GameDef) -> None:
    p.add_argument("--out", required=True, help=".html file to write (or .gif: an animation)")
    p.add_argument(
        "--bots",
        default=None,
        help=f"one bot per seat (comma-separated) or one for all, or policy:FILE.npz; bots: "
        f"{', '.join(game.bot_choices)}, baseline (the shipped trained policy); {SEARCH_HELP}",
    )
    p.add_argument("--seed", type=seed_arg, default=0, help=f"deal of the game, {SEED_RANGE} (default 0)")


def cmd_replay(args: argparse.Namespace) -> int:
    """Play one game with bots and write it as a self-contained HTML replay (or a GIF)."""
    path, frames = replay_game(args.game, args.out, bots=args.bots, seed=args.seed, **args.options)
    print(f"wrote {path} ({frames - 1} moves: steps 0 / {frames - 1} on its slider; open it in a browser)")
    return 0


# --- entry point ----------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The ``tabletop`` parser: ``list`` and one ``COMMAND GAME`` sub-parser per game for
    match, bench, play and render (see the module docstring)."""
    p = argparse.ArgumentParser(prog="tabletop", description="tabletop-rl: bot matches, benchmarks and play.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sp = sub.add_parser("list", help="games, their options and bots")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(handler=cmd_list)

    add_game_subparsers(
        sub, "match", cmd_match, help="a bot match played in compiled code", setup=_setup_match
    )
    add_game_subparsers(
        sub,
        "bench",
        cmd_bench,
        help="throughput: AEC, vector env, bots, peers, start time",
        setup=_setup_bench,
    )
    add_game_subparsers(sub, "play", cmd_play, help="play in the terminal against bots", setup=_setup_play)
    add_game_subparsers(
        sub, "render", cmd_render, help="write a picture of a table (SVG or PNG)", setup=_setup_render
    )
    add_game_subparsers(
        sub,
        "replay",
        cmd_replay,
        help="play one game with bots and write an HTML replay",
        setup=_setup_replay,
    )
    add_game_subparsers(
        sub,
        "soak",
        cmd_soak,
        help="random and bot games in the vector env, invariants checked every step",
        setup=setup_soak_parser,
    )
    add_game_subparsers(sub, "train", train_handler, help=TRAIN_HELP, setup=setup_train, show_defaults=True)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run ``tabletop`` with ``argv`` (default: the process's arguments); returns the exit
    status: 0 done, 2 usage error or bad value (the message names it), 130 interrupted."""
    try:
        parser = build_parser()  # loads the catalog: every game's module and kernels
        args, extra = parser.parse_known_args(argv)
        if extra:
            (getattr(args, "parser_", None) or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else 2
    except KeyboardInterrupt:
        print("\ntabletop: interrupted", file=sys.stderr)
        return 130
    if getattr(args, "game_def", None) is not None:
        args.options = options_from_args(args, args.game_def.make_options)
    try:
        return args.handler(args)
    except ValueError as exc:
        print(f"tabletop: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError as exc:  # e.g. a batch too large for this machine
        print(f"tabletop: error: not enough memory for this command ({exc})", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a new line, so the shell's prompt does not follow the ^C
        print("\ntabletop: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped (e.g. head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # as the Python docs advise
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
