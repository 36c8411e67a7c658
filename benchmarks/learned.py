"""A trained policy beside the scripted bot and the search bot, on the search table's deals.

    python benchmarks/learned.py [TABLE ...] [--policy SPEC] [--games 500] [--seed 0]
        [--rollouts N] [--timing-games 20] [--timing-only]
    python benchmarks/learned.py TABLE --curve RUN_DIR [--games 200] [--seed 0] [--rollouts N]
    python benchmarks/learned.py --plot OUT.png --plot-from CURVE.jsonl

TABLE is one of the tables of ``benchmarks/search.py`` (``thegame``, ``koikoi``,
``exhaust``, ``exitnow-humans``, ``exitnow-ghost``; default: all). SPEC is ``baseline`` (the
game's shipped trained policy, the default) or a trained policy file, ``policy:FILE.npz``
or ``FILE.npz``.

Each table plays four lineups on the same deals (game g: ``seed + g``), each in the
table's measured seats: the trained policy alone (greedy), the strongest scripted bot,
the search bot (``docs/search-bot.md``) and the search bot with the policy as its default
move (``search:...:blueprint=SPEC``). It prints one JSON line: the four figures with 95 %
intervals (``figures``: ``policy``, ``strong``, ``search``, ``search_policy``), the same-deal differences ``policy - strong`` and ``search_policy - search``
with their intervals (``better``/``worse``: the interval is clear of zero on that side,
given whether lower is better), and the time per decision on one core of the policy, the
search and the guided search (one decision at a time, as ``tabletop play`` asks it, on
``--timing-games`` games of their own), with the guided search's time over the plain one.

``--curve RUN_DIR``: the policy a training run started from (its ``--init-policy``, round
``"start"`` at 0 s), the policies it wrote, ``RUN_DIR/imitated-K.npz`` (K = 0,
1, 2, ...) and ``RUN_DIR/policy.npz`` last, each alone in the table's seats on the same
deals: one JSON line per file (``kind: "round"``) with the wall seconds of the run when it
was written (from ``RUN_DIR/log.jsonl``: the last ``imitate``/``dagger`` line of that round;
for ``policy.npz`` the log's largest ``seconds``; where the log has none, the file's
modification time after the first policy file's, ``seconds_from`` says which), then one
line (``kind: "levels"``) with the strongest scripted bot and the search bot on the same
deals, the last policy's same-deal difference from the scripted bot (``final - strong``),
the run's teacher settings and minutes (``--run-command``: the command that made the run,
kept there). ``--runs-table FILE.jsonl`` prints one row per curve of such lines, as the
docs' ``expert_runs`` table keeps it. ``--plot OUT.png`` draws such lines (``--plot-from``, or the curve just measured):
strength against wall-clock minutes, the rounds as labelled points, the two levels as
dashed lines (matplotlib).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import subprocess
import sys

try:  # run as a script: its folder is on sys.path, search.py beside it
    from search import TABLES, Table, _figure, check_lineup, decision_times, paired_difference
except ImportError:  # imported as benchmarks.learned
    from benchmarks.search import TABLES, Table, _figure, check_lineup, decision_times, paired_difference

from tabletop_core.contract.catalog import load_game
from tabletop_core.tools.arena import run_match
from tabletop_core.tools.scripts import run_script
from tabletop_core.train.teacher import teacher_target

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINEUPS = ("policy", "strong", "search", "search_policy")
"""The four lineups of a table, in the order they are played."""
ROUND_FILE = re.compile(r"imitated-(\d+)\.npz")


def policy_entries(spec: str) -> tuple[str, str]:
    """``(the seat entry, the blueprint)`` of the policy SPEC: ``baseline`` -> ``("baseline",
    "baseline")``; ``policy:FILE.npz`` or ``FILE.npz`` -> ``("policy:FILE.npz", "FILE.npz")``.

    Raises:
        ValueError: SPEC is neither ``baseline`` nor a ``.npz`` file name.
    """
    spec = spec.strip()
    if spec == "baseline":
        return spec, spec
    path = spec.removeprefix("policy:")
    if not path.endswith(".npz") or ":" in path:
        raise ValueError(
            f"--policy must be baseline, policy:FILE.npz or FILE.npz (a trained policy file), got {spec!r}"
        )
    return "policy:" + path, path


def with_settings(bot: str, settings: str) -> str:
    """The search bot ``bot`` with ``settings`` (``key=value:...``) added, a setting it
    already names taking the new value: ``with_settings("search:rollouts=768", "rollouts=192:own=policy")``
    -> ``"search:rollouts=192:own=policy"``."""
    pairs = dict(p.partition("=")[::2] for p in bot.split(":")[1:])
    pairs.update(p.partition("=")[::2] for p in settings.split(":") if p)
    return ":".join([bot.split(":")[0]] + [f"{k}={v}" for k, v in pairs.items()])


def _bots(table: Table, spec: str, rollouts: int | None, guided: str = "") -> dict[str, str]:
    """The bot in the measured seats of each of the four lineups (:data:`LINEUPS`);
    ``guided``: settings added to the search with the policy (``top=8:own=policy``)."""
    entry, blueprint = policy_entries(spec)
    search = table.bot if rollouts is None else f"search:rollouts={rollouts}"
    return {
        "policy": entry,
        "strong": table.strong,
        "search": search,
        "search_policy": with_settings(search, f"blueprint={blueprint}:{guided}"),
    }


def _commit() -> str | None:
    """The checkout's commit (``git rev-parse HEAD``), or None outside a git checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() or None


def _timings(table: Table, bots: dict[str, str], games: int, seed: int) -> dict:
    """Milliseconds per decision of the policy, the search and the guided search, and the
    guided search's mean over the plain one's."""
    times = {k: decision_times(table, bots[k], games, seed) for k in ("policy", "search", "search_policy")}
    ratio = times["search_policy"]["mean_ms"] / max(times["search"]["mean_ms"], 1e-9)
    return {"ms_per_decision": times, "search_policy_over_search_time": round(ratio, 3)}


def _command(name: str, args: argparse.Namespace) -> str:
    """The command that measures this one table again."""
    cmd = f"python benchmarks/learned.py {name} --policy {shlex.quote(args.policy)} --games {args.games} --seed {args.seed}"
    if args.rollouts is not None:
        cmd += f" --rollouts {args.rollouts}"
    if args.guided:
        cmd += f" --guided {shlex.quote(args.guided)}"
    return cmd + f" --timing-games {args.timing_games}"


def measure(name: str, args: argparse.Namespace) -> dict:
    """One table's JSON line (the module docstring) for the policy ``args.policy``."""
    table = TABLES[name]
    game = load_game(table.game)
    bots = _bots(table, args.policy, args.rollouts, args.guided)
    timing = _timings(table, bots, args.timing_games, args.seed + args.games)
    seat = table.lineup.split(",").index("{bot}")
    figures, values = {}, {}
    for key in LINEUPS:
        lineup = table.lineup.format(bot=bots[key])
        r = run_match(game, lineup, args.games, seed=args.seed, progress=True, **table.options)
        values[key] = table.value(r.returns)
        figures[key] = {"lineup": lineup, "bot": r.bots[seat], **_figure(values[key], table.is_rate)}
    differences = {}
    for a, b in (("policy", "strong"), ("search_policy", "search")):
        diff, better = paired_difference(values[a], values[b], table.lower_is_better)
        _, worse = paired_difference(values[b], values[a], table.lower_is_better)
        differences[f"{a} - {b}"] = {**diff, "better": better, "worse": worse}
    return {
        "table": name,
        "game": table.game,
        "measure": table.measure,
        "lower_is_better": table.lower_is_better,
        "options": table.options,
        "policy": args.policy,
        "guided": args.guided,
        "games": args.games,
        "seed": args.seed,
        "figures": figures,
        "differences": differences,
        **timing,
        "command": _command(name, args),
        "machine": platform.processor() or platform.machine(),
        "commit": _commit(),
        "threads": os.environ.get("NUMBA_NUM_THREADS", "default"),
    }


LABELS = {
    "thegame": "The Game, 2 p",
    "koikoi": "Koikoi, 4 p, seat 0",
    "exhaust": "Exhaust, 4 p, seat 0",
    "exitnow-humans": "Exit Now, human_0",
    "exitnow-ghost": "Exit Now, ghost",
}
"""How the docs' table names each table."""


def _cell(fig: dict, is_rate: bool) -> str:
    """A figure with its interval as the docs show it: ``"25.6 % [22.0, 29.6]"`` or
    ``"2.73 [2.24, 3.21]"``."""
    if "rate" in fig:
        return f"{100 * fig['rate']:.1f} % [{100 * fig['low']:.1f}, {100 * fig['high']:.1f}]"
    return f"{fig['mean']:.2f} [{fig['low']:.2f}, {fig['high']:.2f}]"


def _diff_cell(d: dict, is_rate: bool) -> str:
    """A same-deal difference with its interval and the verdict: ``better`` or ``worse`` (the
    interval is clear of zero on that side), else ``unclear``."""
    k, unit = (100, " points") if is_rate else (1, "")
    verdict = "better" if d["better"] else "worse" if d["worse"] else "unclear"
    return f"{k * d['mean']:+.2f}{unit} [{k * d['low']:+.2f}, {k * d['high']:+.2f}]: {verdict}"


def figure_line(line: dict) -> dict:
    """A table's line (:func:`measure`) in the form ``docs/figures/learned.jsonl`` keeps and
    the docs' ``figure-table`` directive reads: ``table`` is ``"learned"`` (``"guided"`` for
    a line measured with ``--guided``: the guided search beside the plain one), ``name``
    the search table, ``cells`` the row as shown."""
    name = line["table"]
    rate = TABLES[name].is_rate
    f, d, ms = line["figures"], line["differences"], line["ms_per_decision"]
    if line.get("guided"):
        cells = {
            "table": LABELS[name],
            "measure": line["measure"] + (" (lower is better)" if line["lower_is_better"] else ""),
            "deals": f"{line['games']}, seed {line['seed']}",
            "search": _cell(f["search"], rate),
            "with the policy (settings)": f"{_cell(f['search_policy'], rate)} ({line['guided']})",
            "with − without, same deals": _diff_cell(d["search_policy - search"], rate),
            "ms a decision (search / with)": " / ".join(
                f"{ms[k]['mean_ms']:.2f}" for k in ("search", "search_policy")
            ),
        }
        return {**line, "table": "guided", "name": name, "cells": cells}
    cells = {
        "table": LABELS[name],
        "measure": line["measure"] + (" (lower is better)" if line["lower_is_better"] else ""),
        "policy": _cell(f["policy"], rate),
        "strongest scripted": f"{f['strong']['bot']} {_cell(f['strong'], rate)}",
        "policy − scripted, same deals": _diff_cell(d["policy - strong"], rate),
        "search": _cell(f["search"], rate),
        "search with the policy": _cell(f["search_policy"], rate),
        "with − without, same deals": _diff_cell(d["search_policy - search"], rate),
        "ms a decision (policy / search / with)": " / ".join(
            f"{ms[k]['mean_ms']:.2f}" for k in ("policy", "search", "search_policy")
        ),
    }
    return {**line, "table": "learned", "name": name, "cells": cells}


def curve_files(run_dir: str) -> list[tuple[int | None, str]]:
    """``(round, path)`` of each policy file of a run: ``imitated-K.npz`` by K, then
    ``policy.npz`` (round None) if present."""
    rounds = []
    for f in os.listdir(run_dir):
        m = ROUND_FILE.fullmatch(f)
        if m:
            rounds.append((int(m.group(1)), os.path.join(run_dir, f)))
    rounds.sort()
    final = os.path.join(run_dir, "policy.npz")
    return rounds + ([(None, final)] if os.path.isfile(final) else [])


def _configs(run_dir: str) -> list[dict]:
    """The ``config`` of each ``config`` line of ``RUN_DIR/log.jsonl`` (one per start of
    the run: a resumed run adds one), oldest first; empty without a log."""
    path = os.path.join(run_dir, "log.jsonl")
    if not os.path.isfile(path):
        return []
    out = []
    with open(path) as f:
        for line in f:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a run that was stopped
            if isinstance(rec, dict) and rec.get("kind") == "config":
                out.append(rec.get("config") or {})
    return out


def start_file(run_dir: str) -> str | None:
    """The policy a run started from (its ``--init-policy``, as the first ``config`` line of
    ``RUN_DIR/log.jsonl`` records it), if there is one and it is still there."""
    configs = _configs(run_dir)
    init = configs[0].get("init_policy") if configs else None
    return init if isinstance(init, str) and os.path.isfile(init) else None


def run_teacher(run_dir: str) -> dict:
    """The search teacher's settings of a run (``--imitate``, ``--imitate-rounds``,
    ``--imitate-samples``, ``--init-policy``, ``--seed``, ``--lr``) from the last ``config``
    line of ``RUN_DIR/log.jsonl`` (a resumed run's settings), and what the actor learned
    (``target``: ``values`` or ``move``, :func:`tabletop_core.train.teacher.teacher_target`);
    empty without one."""
    configs = _configs(run_dir)
    if not configs:
        return {}
    cfg = configs[-1]
    keys = ("imitate", "imitate_rounds", "imitate_samples", "init_policy", "seed", "lr")
    return {**{k: cfg.get(k) for k in keys}, "target": teacher_target(str(cfg.get("imitate") or ""))}


def runs_table(lines: list[dict]) -> list[dict]:
    """One ``cells`` line (table ``expert_runs``, as ``docs/figures/expert-curves.jsonl``
    keeps it for the docs) per curve in ``lines``: the teacher's target, the decisions it
    studied, the run's minutes, the start and final policies' figures, and the scripted and search levels on
    the same deals, with the final policy's same-deal difference from the scripted bot. A
    curve's lines are its ``round`` lines up to its ``levels`` line."""
    out, rounds = [], []
    for x in lines:
        if x.get("kind") == "round":
            rounds.append(x)
            continue
        if x.get("kind") != "levels" or not rounds:
            continue
        name = x["table"]
        rate = TABLES[name].is_rate
        start = next((r for r in rounds if r["round"] == "start"), None)
        final = rounds[-1]
        teacher = x.get("teacher") or {}
        lv = x["levels"]
        cells = {
            "table": f"{LABELS[name]}: {x['measure']}"
            + (" (lower is better)" if TABLES[name].lower_is_better else ""),
            "target": teacher.get("target", "?"),
            "decisions": f"{(teacher.get('imitate_rounds', 0) + 1) * teacher.get('imitate_samples', 0):,}",
            "minutes": f"{x.get('minutes', 0):.0f}",
            "start": _cell(start, rate) if start else "",
            "final": _cell(final, rate),
            "strongest scripted": f"{lv['strong']['bot']} {_cell(lv['strong'], rate)}",
            "final − scripted, same deals": _diff_cell(x["final - strong"], rate)
            if "final - strong" in x
            else "",
            "search": _cell(lv["search"], rate),
        }
        command = [c for c in (x.get("run_command"), x.get("command")) if c]
        row = {
            "table": "expert_runs",
            "name": name,
            "games": x["games"],
            "seed": x.get("seed"),
            "cells": cells,
        }
        row["budget"] = f"{cells['decisions']} decisions, {cells['minutes']} minutes"
        row.update(command=command, commit=x.get("commit"), machine_kind=x.get("machine_kind"))
        out.append(row)
        rounds = []
    return out


def _log_seconds(run_dir: str) -> tuple[dict[int, float], float | None]:
    """From ``RUN_DIR/log.jsonl``: each imitation round's wall seconds (the largest of its
    ``imitate``/``dagger`` lines) and the largest ``seconds`` of any line (empty and None
    without a log)."""
    rounds: dict[int, float] = {}
    last = None
    path = os.path.join(run_dir, "log.jsonl")
    if not os.path.isfile(path):
        return rounds, last
    with open(path) as f:
        for line in f:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a run that was stopped
            sec = rec.get("seconds") if isinstance(rec, dict) else None
            if not isinstance(sec, (int, float)):
                continue
            last = sec if last is None else max(last, sec)
            if rec.get("kind") in ("imitate", "dagger") and isinstance(rec.get("round"), int):
                rounds[rec["round"]] = max(rounds.get(rec["round"], sec), sec)
    return rounds, last


def curve(name: str, args: argparse.Namespace) -> list[dict]:
    """The ``--curve`` lines of one table (the module docstring), each printed as it is final."""
    table = TABLES[name]
    game = load_game(table.game)
    files = curve_files(args.curve)
    rounds, last = _log_seconds(args.curve)
    start = min(os.path.getmtime(p) for _, p in files)
    lines = []
    init = start_file(args.curve)
    for k, path in ([("start", init)] if init else []) + files:
        sec = 0.0 if k == "start" else rounds.get(k) if k is not None else last
        line = {
            "kind": "round",
            "table": name,
            "measure": table.measure,
            "lower_is_better": table.lower_is_better,
        }
        line.update(round=k, file=os.path.basename(path))
        line.update(seconds=round(sec, 1) if sec is not None else round(os.path.getmtime(path) - start, 1))
        line["seconds_from"] = "log" if sec is not None else "mtime"
        r = run_match(
            game, table.lineup.format(bot="policy:" + path), args.games, seed=args.seed, **table.options
        )
        final_values = table.value(r.returns)
        line.update(games=args.games, seed=args.seed, **_figure(final_values, table.is_rate))
        print(json.dumps(line), flush=True)
        lines.append(line)
    bots = _bots(table, "baseline", args.rollouts)
    levels, values = {}, {}
    for key in ("strong", "search"):
        lineup = table.lineup.format(bot=bots[key])
        r = run_match(game, lineup, args.games, seed=args.seed, progress=True, **table.options)
        values[key] = table.value(r.returns)
        levels[key] = {"bot": bots[key], **_figure(values[key], table.is_rate)}
    line = {"kind": "levels", "table": name, "measure": table.measure, "games": args.games, "seed": args.seed}
    line.update(levels=levels, run=os.path.abspath(args.curve), commit=_commit())
    diff, better = paired_difference(final_values, values["strong"], table.lower_is_better)
    _, worse = paired_difference(values["strong"], final_values, table.lower_is_better)
    line["final - strong"] = {**diff, "better": better, "worse": worse}
    line.update(teacher=run_teacher(args.curve), minutes=round((last or 0.0) / 60, 1))
    if args.run_command:
        line["run_command"] = args.run_command
    line["command"] = (
        f"python benchmarks/learned.py {name} --curve {args.curve} --games {args.games} --seed {args.seed}"
    )
    print(json.dumps(line), flush=True)
    return [*lines, line]


def _level(d: dict) -> float:
    return float(d["rate"] if "rate" in d else d["mean"])


def _plot_table(ax, name: str, lines: list[dict]) -> None:
    """One table's panel: its policy files' figures by wall-clock minutes, and its levels."""
    pts = [x for x in lines if x.get("kind") == "round" and x["table"] == name]
    last = pts[-1] if len(pts) > 1 and pts[-1]["round"] is None else None
    if last is not None and (last["seconds"], _level(last)) == (pts[-2]["seconds"], _level(pts[-2])):
        pts = pts[:-1]  # a run without PPO: its policy.npz is its last round's actor, one point
    xs = [x["seconds"] / 60 for x in pts]
    ys = [_level(x) for x in pts]
    ax.fill_between(xs, [x["low"] for x in pts], [x["high"] for x in pts], color="C0", alpha=0.2, lw=0)
    ax.plot(xs, ys, "o-", ms=4, color="C0", label="trained policy alone (greedy), 95 % interval")
    for x, y, p in zip(xs, ys, pts, strict=True):
        label = "final" if p["round"] is None else str(p["round"])
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    levels = [x for x in lines if x.get("kind") == "levels" and x["table"] == name]
    words = {"strong": "scripted", "search": "search"}
    for k, (key, d) in enumerate((levels[-1]["levels"] if levels else {}).items()):
        text = f"{words.get(key, key)} ({d.get('bot', key)}): {_level(d):.3g}"
        ax.axhline(_level(d), ls="--", lw=1.2, color=f"C{k + 1}", label=text)
    better = "lower is better" if pts[0].get("lower_is_better") else "higher is better"
    ax.set_xlim(left=0)
    ax.margins(x=0.06, y=0.12)
    ax.set_xlabel("wall-clock minutes of the run (labels: imitation round)")
    ax.set_ylabel(f"{pts[0].get('measure', 'figure')}\n({better})")
    ax.set_title(f"{name}: each round's policy on {pts[0].get('games', '?')} fixed deals", fontsize=10)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    ax.grid(alpha=0.3)


def plot(lines: list[dict], out: str) -> None:
    """Draw ``--curve`` lines (one panel per table) into the PNG ``out``: each policy
    file's figure with its interval against the run's wall-clock minutes, labelled with
    its round, and the scripted bot's and the search bot's levels as dashed lines.

    Raises:
        ValueError: no ``kind: "round"`` line among ``lines``.
        ImportError: without matplotlib (the ``train`` extra).
    """
    names = list(dict.fromkeys(x["table"] for x in lines if x.get("kind") == "round"))
    if not names:
        raise ValueError("no curve lines (kind 'round') to plot")
    import matplotlib  # here, not at the top: matplotlib is optional (the ``train`` extra)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(names), figsize=(6.4 * len(names), 4.4), dpi=100, squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        _plot_table(ax, name, lines)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="*", metavar="TABLE", help=f"default: all of {', '.join(TABLES)}")
    parser.add_argument(
        "--policy", default="baseline", help="baseline (default), policy:FILE.npz or FILE.npz"
    )
    parser.add_argument("--games", type=int, default=None, help="games per lineup (default 500; --curve 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rollouts", type=int, default=None, help="the search bot's rollouts (default: the table's)"
    )
    parser.add_argument(
        "--guided",
        default="",
        metavar="SETTINGS",
        help="settings added to the search with the policy, e.g. rollouts=192:own=policy or top=8 "
        "(docs/search-bot.md; default: the policy's move as the default move only)",
    )
    parser.add_argument("--timing-games", type=int, default=20)
    parser.add_argument("--timing-only", action="store_true", help="only the times per decision (no match)")
    parser.add_argument(
        "--figure-line",
        action="store_true",
        help="print each table's line as docs/figures/learned.jsonl keeps it (with the row the docs show)",
    )
    parser.add_argument("--curve", metavar="RUN_DIR", default=None, help="each imitated-K.npz of a run alone")
    parser.add_argument("--plot", metavar="OUT.png", default=None, help="draw curve lines into a PNG")
    parser.add_argument("--plot-from", metavar="FILE.jsonl", default=None, help="the curve lines to draw")
    parser.add_argument(
        "--run-command",
        default=None,
        help="with --curve: the command that made the run, kept in its levels line",
    )
    parser.add_argument(
        "--runs-table",
        metavar="FILE.jsonl",
        default=None,
        help="print one row per curve of FILE.jsonl as the docs' expert_runs table keeps it",
    )
    return parser


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """Refuse bad arguments (a usage error, status 2) before anything is played; the tables."""
    unknown = [t for t in args.tables if t not in TABLES]
    if unknown:
        parser.error(f"unknown table(s) {', '.join(unknown)}; choose from {', '.join(TABLES)}")
    if args.games is not None and args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    if args.rollouts is not None and args.rollouts < 1:
        parser.error(f"--rollouts must be at least 1, got {args.rollouts}")
    if args.timing_games < 1:
        parser.error(f"--timing-games must be at least 1, got {args.timing_games}")
    if args.plot_from is not None and args.plot is None:
        parser.error("--plot-from names the lines --plot OUT.png draws")
    if args.plot is not None and args.plot_from is None and args.curve is None:
        parser.error("--plot OUT.png draws --plot-from FILE.jsonl (or the --curve just measured)")
    if args.plot_from is not None and not os.path.isfile(args.plot_from):
        parser.error(f"--plot-from: no file {args.plot_from!r}")
    if args.plot_from is not None and (args.tables or args.curve):
        parser.error("--plot-from draws lines already measured: give no TABLE or --curve with it")
    if args.curve is not None:
        if len(args.tables) != 1:
            parser.error(f"--curve measures one TABLE, got {len(args.tables)}")
        if not os.path.isdir(args.curve):
            parser.error(f"--curve: no folder {args.curve!r}")
        if not curve_files(args.curve):
            parser.error(f"--curve: no imitated-K.npz or policy.npz in {args.curve!r}")
        args.games = args.games or 200
    args.games = args.games or 500
    tables = [] if args.plot_from else args.tables or list(TABLES)
    try:
        for name in tables:
            files = [p for _, p in curve_files(args.curve)] if args.curve else [args.policy]
            for spec in files:
                for bot in _bots(TABLES[name], spec, args.rollouts, args.guided).values():
                    check_lineup(TABLES[name], bot)
    except ValueError as exc:
        parser.error(str(exc))
    return tables


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.runs_table is not None:
        if not os.path.isfile(args.runs_table):
            parser.error(f"--runs-table: no file {args.runs_table!r}")
        with open(args.runs_table) as f:
            for row in runs_table([json.loads(x) for x in f if x.strip()]):
                print(json.dumps(row))
        return 0
    tables = _check(parser, args)
    lines: list[dict] = []
    for name in tables:
        if args.curve:
            lines += curve(name, args)
        elif args.timing_only:
            timing = _timings(
                TABLES[name],
                _bots(TABLES[name], args.policy, args.rollouts, args.guided),
                args.timing_games,
                args.seed + args.games,
            )
            print(json.dumps({"table": name, "policy": args.policy, **timing}), flush=True)
        else:
            line = measure(name, args)
            print(json.dumps(figure_line(line) if args.figure_line else line), flush=True)
    if args.plot:
        try:
            if args.plot_from:
                with open(args.plot_from) as f:
                    lines = [json.loads(x) for x in f if x.strip()]
            plot(lines, args.plot)
        except ImportError:
            print("--plot needs matplotlib: pip install 'tabletop-rl[train]'", file=sys.stderr)
            return 1
        except (ValueError, KeyError, TypeError) as exc:
            print(f"--plot: {args.plot_from or 'the curve'} holds no curve to draw ({exc})", file=sys.stderr)
            return 1
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_script(main)
