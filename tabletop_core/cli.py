"""The ``tabletop`` command line: list games, bot matches, benchmarks, terminal play.

Examples::

    tabletop list
    tabletop match thegame --players 3 --bots strong,strong,strong --games 10000 --seed 0
    tabletop match thegame --players 2 --bots strong --games 1000 --on-fire --level 1 --json
    tabletop bench thegame            # add --json for one JSON line per measurement
    tabletop play thegame --players 2 --seat 0 --bots strong
    tabletop render exitnow --layout 5 --out map.png
    tabletop train thegame --players 2 --minutes 20 --seed 0 --out runs/thegame2

Game options are given as ``--option-name VALUE`` (``--on-fire`` alone means True); they
are validated by the game, which names what is allowed. Argument parsing uses argparse;
tables and progress bars use ``rich`` (``pip install tabletop-rl[cli]``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any

import numpy as np

from .games import GAME_PACKAGES, load_game

__all__ = ["main"]


def _parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def _game_options(extra: list[str]) -> dict[str, Any]:
    """``["--on-fire", "--level", "1"]`` -> ``{"on_fire": True, "level": 1}``."""
    opts: dict[str, Any] = {}
    k = 0
    while k < len(extra):
        tok = extra[k]
        if not tok.startswith("--"):
            raise ValueError(f"unexpected argument {tok!r}; game options look like --name value")
        name = tok[2:]
        if "=" in name:
            name, value = name.split("=", 1)
            opts[name.replace("-", "_")] = _parse_value(value)
            k += 1
            continue
        if k + 1 < len(extra) and not extra[k + 1].startswith("--"):
            opts[name.replace("-", "_")] = _parse_value(extra[k + 1])
            k += 2
        else:
            opts[name.replace("-", "_")] = True
            k += 1
    return opts


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
    for name in GAME_PACKAGES:
        try:
            game = load_game(name)
        except ValueError:
            continue
        opts = game.make_options()
        fields = ", ".join(
            f"--{f.name.replace('_', '-')} {getattr(opts, f.name)!r}" for f in dataclasses.fields(opts)
        )
        rows.append(
            {
                "game": name,
                "env_id": game.env_id,
                "bots": list(game.bot_names),
                "options": fields,
                "about": game.description,
            }
        )
    if args.json:
        print(json.dumps(rows))
        return 0
    _require_rich()
    from rich.table import Table

    table = Table(title="tabletop-rl games")
    for col in ("game", "bots", "options (defaults)", "about"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(r["game"], ", ".join(r["bots"]), r["options"], r["about"])
    _console().print(table)
    return 0


# --- match ----------------------------------------------------------------------------------
def cmd_match(args: argparse.Namespace, extra: list[str]) -> int:
    from .arena import run_match, summarize

    game = load_game(args.game)
    options = _game_options(extra)
    if args.players is not None:
        options[game.players_option] = args.players
    if not args.json:
        _require_rich()
    result = run_match(game, args.bots, args.games, seed=args.seed, progress=not args.json, **options)
    summary = summarize(result)
    if args.json:
        print(json.dumps(summary, default=_json_default))
        return 0
    _print_match(game, summary)
    return 0


def _print_match(game, s: dict) -> None:
    from rich.table import Table

    console = _console()
    opts = ", ".join(f"{k}={v}" for k, v in s["options"].items())
    title = f"{s['game']} — {s['games']} games, seed {s['seed']} ({opts})"
    if game.cooperative:
        table = Table(title=title)
        table.add_column("figure")
        table.add_column("value [95 % interval]", justify="right")
        table.add_row("bots", ", ".join(s["bots"]))
        for key, d in s["stats"].items():
            table.add_row(key + (" rate" if "rate" in d else " (mean)"), _fmt_ci(d, pct="rate" in d))
        table.add_row("mean return", _fmt_ci(s["seats"][0]["mean_return"]))
    else:
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
    table.caption = f"{s['games_per_s']:,.0f} games/s · {s['mean_steps']:.1f} steps/game"
    console.print(table)
    if not game.cooperative and s["stats"]:
        figures = Table(title=f"{s['game']} — game figures")
        figures.add_column("figure")
        figures.add_column("value [95 % interval]", justify="right")
        for key, d in s["stats"].items():
            figures.add_row(key + (" rate" if "rate" in d else " (mean)"), _fmt_ci(d, pct="rate" in d))
        console.print(figures)


# --- bench ----------------------------------------------------------------------------------
def cmd_bench(args: argparse.Namespace, extra: list[str]) -> int:
    from .bench import _json_default as jd
    from .bench import run_benchmarks

    game = load_game(args.game)
    options = _game_options(extra)
    batches = (1, 64, 1024, 4096) if not args.quick else (1, 64, 1024)
    if args.threads:  # only default vs one thread (quiet, busy, torch) and copy=True vs False
        from .bench import copy_case, thread_cases

        def threads_and_copy():
            yield from thread_cases(game, options, seconds=max(args.seconds, 4.0))
            yield copy_case(game, options, seconds=max(args.seconds, 4.0))

        records = threads_and_copy()
    else:
        records = run_benchmarks(
            game,
            GAME_PACKAGES[args.game],
            options,
            seconds=args.seconds,
            batches=batches,
            peers=not args.no_peers,
            bot_games=2000 if args.quick else 20000,
        )
    if args.json:
        for r in records:
            print(json.dumps(r, default=jd), flush=True)
        return 0
    _require_rich()
    console = _console()
    rows = []
    with console.status(f"benchmarking {args.game} ..."):
        for r in records:
            rows.append(r)
            console.print(_bench_line(r), markup=False, highlight=False)
    return 0


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
            f"×{r['ratio_kernel_actions']:.2f} (in-kernel actions){one}"
        )
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


def _json_default(x):
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


# --- play -----------------------------------------------------------------------------------
def cmd_play(args: argparse.Namespace, extra: list[str]) -> int:
    from .aec import TabletopAECEnv
    from .rng import seed_word

    game = load_game(args.game)
    options = _game_options(extra)
    if args.players is not None:
        options[game.players_option] = args.players
    module = __import__(GAME_PACKAGES[args.game])
    env: TabletopAECEnv = module.raw_env(**options)
    seats = len(env.possible_agents)
    if not 0 <= args.seat < seats:
        raise ValueError(f"--seat must be in 0..{seats - 1}")
    bot_ids = game.bot_ids(args.bots, seats) if "," in args.bots else game.bot_ids([args.bots] * seats, seats)
    if game.bot_action is None:
        raise ValueError(f"{args.game} has no bot_action kernel for terminal play")
    rng = np.array([seed_word(args.seed + 777)], np.uint64)
    env.reset(seed=args.seed)
    me = env.possible_agents[args.seat]
    view = game.render_view or (lambda s, o, seat: game.render_ansi(s, o))
    reader = args.input or sys.stdin
    print(f"You are {me}. Type an action number, or part of its name (e.g. 'end'); 'q' quits.\n")
    while not all(env.terminations.values()):
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        if seat != args.seat:
            a = int(game.bot_action(bot_ids[seat], env._state, 0, env._mask[0], rng, 0))
            print(f"{agent} ({game.bot_names[bot_ids[seat]]}): {game.action_name(a, env._state)}")
            env.step(a)
            continue
        print(view(env._state, env.options, args.seat))
        legal = env.legal_actions()
        names = {int(a): game.action_name(int(a), env._state) for a in legal}
        print("legal: " + " | ".join(f"{a}: {n}" for a, n in names.items()))
        while True:
            print("> ", end="", flush=True)
            line = reader.readline()
            if not line or line.strip().lower() in ("q", "quit", "exit"):
                print("bye")
                return 0
            choice = _match_action(line.strip(), names)
            if choice is not None:
                break
            print("not a legal action; type one of the numbers above")
        env.step(choice)
    print(game.render_ansi(env._state, env.options))
    final = env.infos.get(me, {})
    print(f"game over: rewards {dict(env._cumulative_rewards)} {final}")
    return 0


def _match_action(text: str, names: dict[int, str]) -> int | None:
    if text.lstrip("-").isdigit():
        a = int(text)
        return a if a in names else None
    hits = [a for a, n in names.items() if text.lower() in n.lower()]
    return hits[0] if len(hits) == 1 else None


# --- render ---------------------------------------------------------------------------------
def cmd_render(args: argparse.Namespace, extra: list[str]) -> int:
    """Write the table of a freshly dealt game as a PNG (games with an ``rgb_array`` mode)."""
    options = _game_options(extra)
    game = load_game(args.game)
    if args.players is not None:
        options[game.players_option] = args.players
    module = __import__(GAME_PACKAGES[args.game])
    modes = module.raw_env.metadata.get("render_modes", [])
    if "rgb_array" not in modes:
        raise ValueError(f"{args.game} has no picture rendering (render modes: {', '.join(modes)})")
    env = module.raw_env(render_mode="rgb_array", **options)
    env.reset(seed=args.seed)
    image = env.render()
    try:
        from PIL import Image
    except ImportError:
        sys.exit("tabletop render needs Pillow: pip install 'tabletop-rl[cli]'")
    Image.fromarray(np.asarray(image, np.uint8)).save(args.out)
    print(f"wrote {args.out} ({image.shape[1]}x{image.shape[0]})")
    return 0


# --- entry point ----------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    games = list(GAME_PACKAGES)
    p = argparse.ArgumentParser(prog="tabletop", description="tabletop-rl: bot matches, benchmarks and play.")
    sub = p.add_subparsers(dest="command", required=True)

    sp = sub.add_parser("list", help="games, their options and bots")
    sp.add_argument("--json", action="store_true")

    sp = sub.add_parser("match", help="a bot match played in compiled code")
    sp.add_argument("game", choices=games)
    sp.add_argument("--bots", required=True, help="one bot per seat (comma-separated) or one for all")
    sp.add_argument(
        "--players",
        "--humans",
        dest="players",
        type=int,
        default=None,
        help="number of players (Exit Now: humans)",
    )
    sp.add_argument("--games", type=int, default=10000)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--json", action="store_true", help="print one JSON object instead of a table")

    sp = sub.add_parser("bench", help="throughput: AEC, vector env, bots, peers, start time")
    sp.add_argument("game", choices=games)
    sp.add_argument("--json", action="store_true", help="one JSON line per measurement")
    sp.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    sp.add_argument("--quick", action="store_true", help="smaller batches and fewer games")
    sp.add_argument("--no-peers", action="store_true", help="skip PettingZoo classic and Pgx peers")
    sp.add_argument(
        "--threads",
        action="store_true",
        help="only default vs one thread (quiet, busy process, torch) and copy=True vs copy=False",
    )

    sp = sub.add_parser("play", help="play in the terminal against bots")
    sp.add_argument("game", choices=games)
    sp.add_argument("--players", "--humans", dest="players", type=int, default=None)
    sp.add_argument("--seat", type=int, default=0)
    sp.add_argument("--bots", default="strong", help="bot(s) for the other seats")
    sp.add_argument("--seed", type=int, default=0)
    sp.set_defaults(input=None)

    sp = sub.add_parser("render", help="write a picture of a freshly dealt table (PNG)")
    sp.add_argument("game", choices=games)
    sp.add_argument("--out", required=True, help="PNG file to write")
    sp.add_argument("--players", "--humans", dest="players", type=int, default=None)
    sp.add_argument("--seed", type=int, default=0)

    # `tabletop train` and `tabletop bench --train`: arguments in tabletop_core/train/cli.py
    from .train.cli import add_bench_flag, add_train_parser

    add_train_parser(sub, games)
    add_bench_flag(sub.choices["bench"])
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    try:
        if args.command == "train" or getattr(args, "train", False):
            from .train.cli import cmd_bench_train, cmd_train

            return cmd_train(args, extra) if args.command == "train" else cmd_bench_train(args, extra)
        if args.command == "list":
            if extra:
                parser.error(f"unrecognized arguments: {' '.join(extra)}")
            return cmd_list(args)
        if args.command == "match":
            return cmd_match(args, extra)
        if args.command == "bench":
            return cmd_bench(args, extra)
        if args.command == "play":
            return cmd_play(args, extra)
        if args.command == "render":
            return cmd_render(args, extra)
    except ValueError as exc:
        print(f"tabletop: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
