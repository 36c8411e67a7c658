"""The ``search`` bot against the strongest scripted bot, on the same deals (README, docs).

    python benchmarks/search.py [TABLE ...] [--games 500] [--seed 0] [--rollouts N | --bot SPEC]
        [--timing-games 20] [--timing-only]

TABLE is one of ``thegame``, ``koikoi``, ``exhaust``, ``exitnow-humans``, ``exitnow-ghost``
(default: all). Each table plays ``--games`` games with the search bot in its seats and
the same deals (game g: ``seed + g``) with the strongest scripted bot there instead, and
prints one JSON line: both figures with 95 % intervals, the paired difference with its
interval, and the search bot's time per decision on one core (measured on its own
``--timing-games`` games, one decision at a time: mean, 95th percentile and maximum over
the decisions with more than one legal action).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tabletop_core.agents.seats import is_policy, policy_actions, search_blueprint, seat_policy
from tabletop_core.contract.catalog import load_game
from tabletop_core.contract.search import batch_search_actions
from tabletop_core.kernel.rng import bot_seed_word, seed_word
from tabletop_core.tools.arena import mean_interval, run_match, wilson_interval
from tabletop_core.tools.scripts import run_script


@dataclass(frozen=True)
class Table:
    """One measured table: the lineup with ``{bot}`` in the measured seats, the measure of
    one game from its returns (G, P), whether lower is better, and the search bot with
    the settings the table is measured with (``docs/search-bot.md``)."""

    game: str
    lineup: str
    strong: str
    measure: str
    value: Callable[[np.ndarray], np.ndarray]
    is_rate: bool
    lower_is_better: bool
    options: dict
    bot: str = "search"


TABLES = {
    "thegame": Table(
        "thegame",
        "{bot},{bot}",
        "strong",
        "mean cards left (both seats)",
        lambda r: 98.0 - r[:, 0],
        False,
        True,
        {"num_players": 2},
    ),
    "koikoi": Table(
        "koikoi",
        "{bot},strong,greedy,random",
        "strong",
        "seat 0 chip change",
        lambda r: r[:, 0],
        False,
        False,
        {"num_players": 4},
    ),
    "exhaust": Table(
        "exhaust",
        "{bot},npc,npc,npc",
        "strong",
        "seat 0 loss rate",
        lambda r: (r[:, 0] < 0).astype(np.float64),
        True,
        True,
        {"num_players": 4},
    ),
    "exitnow-humans": Table(
        "exitnow",
        "{bot},human,human,ghost",
        "human",
        "human_0 escape rate",
        lambda r: (r[:, 0] > 0).astype(np.float64),
        True,
        False,
        {"num_humans": 3},
    ),
    "exitnow-ghost": Table(
        "exitnow",
        "human,human,human,{bot}",
        "ghost",
        "ghost win rate",
        lambda r: (r[:, -1] > 0).astype(np.float64),
        True,
        False,
        {"num_humans": 3},
        "search:rollouts=768",
    ),
}


def _figure(x: np.ndarray, is_rate: bool) -> dict:
    if is_rate:
        lo, hi = wilson_interval(float(np.sum(x)), len(x))
        return {"rate": round(float(np.mean(x)), 4), "low": round(lo, 4), "high": round(hi, 4)}
    m, lo, hi = mean_interval(np.asarray(x, np.float64))
    return {"mean": round(m, 3), "low": round(lo, 3), "high": round(hi, 3)}


def check_lineup(table: Table, bot: str) -> None:
    """Load every seat of ``table``'s lineup with ``bot`` in its measured seats, as a match
    would: a bad bot name, search setting or policy (file, game, options, role) is a
    ValueError naming it, before anything is played."""
    game = load_game(table.game)
    for k, n in enumerate(table.lineup.format(bot=bot).split(",")):
        if is_policy(n):
            seat_policy(game, n, k, table.options)
        else:
            game.bot_ids([n], 1)


def paired_difference(a: np.ndarray, b: np.ndarray, lower_is_better: bool) -> tuple[dict, bool]:
    """The same-deal difference ``a - b`` ((G,) figures of one game each) with its 95 %
    interval, and whether the interval is clear of zero on the better side for ``a``."""
    m, lo, hi = mean_interval(np.asarray(a, np.float64) - np.asarray(b, np.float64))
    better = hi < 0 if lower_is_better else lo > 0
    return {"mean": round(m, 4), "low": round(lo, 4), "high": round(hi, 4)}, bool(better)


def decision_times(table: Table, bot: str, games: int, seed: int) -> dict:
    """Milliseconds per decision of ``bot`` in the table's measured seats, on one core, one
    decision at a time (the way ``tabletop play`` asks it: a policy's forward pass on one
    row, a search of one position), over ``games`` games dealt from ``seed``: every
    decision of those seats with more than one legal action is timed."""
    game = load_game(table.game)
    opts = game.make_options(**table.options)
    names = table.lineup.format(bot=bot).split(",")
    measured = {k for k, n in enumerate(table.lineup.split(",")) if n == "{bot}"}
    # policies (baseline, policy:FILE.npz, search:...:blueprint=...) play from numpy; a plain
    # policy's seat keeps the strong bot's id, which only the warm-up game below plays
    policies = {k: seat_policy(game, n, k, table.options) for k, n in enumerate(names) if is_policy(n)}
    plain = [
        n if k not in policies else (search_blueprint(n) or (table.strong,))[0] for k, n in enumerate(names)
    ]
    ids = game.bot_ids(plain, len(names))
    times = []
    forced = 0
    warm = game.new_state(1, opts)  # compile (or load) the one-decision kernel before timing
    warm["rng"] = seed_word(seed)
    game.play_games(warm, ids, np.array([0], np.uint64), np.zeros((1, len(names))), np.zeros(1, np.int64))
    first = min(measured)  # a seat's decision compiles its bot's own kernel
    warm["current"] = first
    if first not in policies or search_blueprint(names[first]):
        game.bot_decision(int(ids[first]), warm, np.ones(game.num_actions, np.int8), np.zeros(1, np.uint64))
    if first in policies and search_blueprint(names[first]):  # the kernel that takes a policy's move
        batch_search_actions(
            warm,
            np.zeros(1, np.int64),
            np.uint64(policies[first].bot_id),
            np.zeros(1, np.uint64),
            np.full(1, -1, np.int64),
            np.zeros(1, np.int64),
            policies[first].net(),
        )
    elif first in policies:  # a plain policy's forward pass
        dim = game.observation_layout(opts).dim
        policies[first](np.zeros((1, dim), np.float32), np.ones((1, game.num_actions), np.int8))

    def decide(seat: int, s, obs, masks, rng) -> int:
        if seat in policies:
            return int(policy_actions(policies[seat], obs, masks, s, [0], rng)[0])
        return game.bot_decision(int(ids[seat]), s, masks[0], rng)

    for g in range(games):
        s = game.new_state(1, opts)
        s["rng"] = seed_word(seed + g)
        notes = game.new_notes(1)
        obs = np.zeros((1, game.observation_layout(opts).dim), np.float32)
        masks = np.zeros((1, game.num_actions), np.int8)
        cur = np.zeros(1, np.int64)
        game.batch_reset(s, notes, obs, masks, cur)
        rng = np.array([bot_seed_word(seed + g)], np.uint64)
        rewards = np.zeros((1, len(names)), np.float32)
        term = np.zeros(1, np.bool_)
        while s["status"][0] == 0:
            seat = int(s["current"][0])
            if seat in measured and masks[0].sum() > 1:
                t0 = time.perf_counter()
                a = decide(seat, s, obs, masks, rng)
                times.append(time.perf_counter() - t0)
            else:
                forced += seat in measured
                a = decide(seat, s, obs, masks, rng)
            acts = np.array([a], np.int64)
            game.batch_step(s, notes, acts, obs, masks, rewards, term, cur, obs, 0)
    t = np.asarray(times) * 1e3
    return {
        "decisions": len(t),
        "forced": forced,
        "mean_ms": round(float(t.mean()), 2),
        "p95_ms": round(float(np.percentile(t, 95)), 2),
        "max_ms": round(float(t.max()), 2),
    }


def measure(name: str, games: int, seed: int, bot: str, timing_games: int) -> dict:
    """One table's JSON line (the module docstring) for the search bot named ``bot``."""
    table = TABLES[name]
    game = load_game(table.game)
    search_lineup = table.lineup.format(bot=bot)
    strong_lineup = table.lineup.format(bot=table.strong)
    timing = decision_times(table, bot, timing_games, seed + games)
    t0 = time.perf_counter()
    mine = run_match(game, search_lineup, games, seed=seed, progress=True, **table.options)
    seconds = time.perf_counter() - t0
    theirs = run_match(game, strong_lineup, games, seed=seed, **table.options)
    a, b = table.value(mine.returns), table.value(theirs.returns)
    difference, better = paired_difference(a, b, table.lower_is_better)
    return {
        "table": name,
        "game": table.game,
        "measure": table.measure,
        "options": table.options,
        "games": int(len(a)),
        "seed": seed,
        "search": {
            "lineup": search_lineup,
            "bot": mine.bots[table.lineup.split(",").index("{bot}")],
            **_figure(a, table.is_rate),
        },
        "strong": {"lineup": strong_lineup, **_figure(b, table.is_rate)},
        "difference": difference,
        "search_beats_strong": better,
        "ms_per_decision": timing,
        "match_seconds": round(seconds, 1),
        "command": f"python benchmarks/search.py {name} --games {games} --seed {seed}"
        + ("" if bot == table.bot else f" --bot {bot}"),
        "machine": platform.processor() or platform.machine(),
        "threads": os.environ.get("NUMBA_NUM_THREADS", "default"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="*", metavar="TABLE", help=f"default: all of {', '.join(TABLES)}")
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--rollouts", type=int, default=None, help="rollouts per decision (default: the bot's)"
    )
    which.add_argument(
        "--bot",
        default=None,
        help="the search bot with its settings, e.g. search:rollouts=1024:z=0.5 or "
        "search:blueprint=baseline (default: the table's, search except for exitnow-ghost)",
    )
    parser.add_argument("--timing-games", type=int, default=20)
    parser.add_argument(
        "--timing-only", action="store_true", help="only the time per decision (one line per table, no match)"
    )
    args = parser.parse_args(argv)
    bot_of: dict[str, str] = {}  # each table's search bot: --bot / --rollouts, or the table's own
    unknown = [t for t in args.tables if t not in TABLES]
    if unknown:
        parser.error(f"unknown table(s) {', '.join(unknown)}; choose from {', '.join(TABLES)}")
    bot = args.bot or (None if args.rollouts is None else f"search:rollouts={args.rollouts}")
    if bot is not None and bot.partition(":")[0] != "search":
        parser.error(f"--bot names the search bot with its settings (search:...), got {bot!r}")
    for name in args.tables or list(TABLES):  # a bad setting is refused before any table runs
        bot_of[name] = bot or TABLES[name].bot
        try:
            check_lineup(TABLES[name], bot_of[name])
        except ValueError as exc:
            parser.error(str(exc))
    for name in args.tables or list(TABLES):
        if args.timing_only:
            timing = decision_times(TABLES[name], bot_of[name], args.timing_games, args.seed + args.games)
            line = {
                "table": name,
                "bot": bot_of[name],
                "ms_per_decision": timing,
                "threads": os.environ.get("NUMBA_NUM_THREADS", "default"),
            }
            print(json.dumps(line), flush=True)
            continue
        print(json.dumps(measure(name, args.games, args.seed, bot_of[name], args.timing_games)), flush=True)
    return 0


if __name__ == "__main__":
    run_script(main)
