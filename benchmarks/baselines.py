"""The shipped baselines against their targets, and the round-robin ratings (README).

    python benchmarks/baselines.py [GAME ...] [--games 10000] [--seed 0] [--rr-games 10000]

Prints one JSON line per measure (the issue's lineups, the baseline and the scripted bots
on the same deals, 95 % intervals) and one per round robin (``tabletop_core.tools.ratings``).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from tabletop_core.contract.catalog import game_names, load_game
from tabletop_core.tools.arena import mean_interval, run_match, wilson_interval
from tabletop_core.tools.jsonutil import json_default
from tabletop_core.tools.ratings import round_robin
from tabletop_core.tools.scripts import run_script
from thegame_env.spec import NUM_CARDS


def _mean(x) -> dict:
    m, lo, hi = mean_interval(np.asarray(x, np.float64))
    return {"mean": round(m, 3), "low": round(lo, 3), "high": round(hi, 3)}


def _rate(hits, n) -> dict:
    lo, hi = wilson_interval(float(np.sum(hits)), n)
    return {"rate": round(float(np.mean(hits)), 4), "low": round(lo, 4), "high": round(hi, 4)}


# The first target in each row: the scripted bot the baseline must beat there.
FIRST_TARGET = {
    "thegame": "greedy",
    "koikoi": "greedy",
    "exhaust": "npc",
    "exitnow humans": "human",
    "exitnow ghost": "ghost",
}


def _rows(name: str, games: int, seed: int) -> list[tuple[str, str, str, str, np.ndarray, bool]]:
    """``(row, measure, bot, lineup, per-game value, is_rate)`` for every bot in every row
    of the issue's table, the bots of a row playing the same deals. The value is (games,)
    float64, or (4, games) for Exhaust (one match per seat of the bot)."""
    game = load_game(name)
    rows = []
    if name == "thegame":  # mean cards left = NUM_CARDS - the team's return (reward 'cards')
        for bot in ("baseline", "greedy", "strong"):
            r = run_match(game, [bot, bot], games, seed=seed)
            rows.append(
                (name, "mean cards left", bot, f"{bot} in both seats", NUM_CARDS - r.returns[:, 0], False)
            )
    elif name == "koikoi":
        for bot in ("baseline", "greedy", "strong"):
            r = run_match(game, [bot, "strong", "greedy", "random"], games, seed=seed)
            rows.append(
                (
                    name,
                    "seat 0 chip change",
                    bot,
                    f"{bot},strong,greedy,random",
                    r.returns[:, 0].astype(np.float64),
                    False,
                )
            )
    elif name == "exhaust":
        for bot in ("baseline", "npc", "strong"):
            losses = []  # (4, games): a loss of the bot in seat k on game g
            for k in range(4):
                up = ["npc"] * 4
                up[k] = bot
                losses.append(run_match(game, up, games, seed=seed).returns[:, k] < 0)
            rows.append(
                (
                    name,
                    "loss rate, mean over seats",
                    bot,
                    f"{bot} in each seat vs three npc",
                    np.asarray(losses, np.float64),
                    True,
                )
            )
    elif name == "exitnow":
        for bot in ("baseline", "human"):
            r = run_match(game, [bot] * 3 + ["ghost"], games, seed=seed)
            rows.append(
                (
                    "exitnow humans",
                    "escape rate",
                    bot,
                    f"{bot} humans vs ghost",
                    (r.returns[:, :3].max(axis=1) > 0).astype(np.float64),
                    True,
                )
            )
        for bot in ("baseline", "ghost"):
            r = run_match(game, ["human"] * 3 + [bot], games, seed=seed)
            rows.append(
                (
                    "exitnow ghost",
                    "ghost win rate",
                    bot,
                    f"{bot} ghost vs human bots",
                    (r.returns[:, 3] > 0).astype(np.float64),
                    True,
                )
            )
    return rows


def measures(name: str, games: int, seed: int) -> list[dict]:
    """The issue's rows for one game: the baseline and the scripted bots in its place.

    The baseline's line also gives ``paired_difference``: the mean over the games of
    (baseline - first-target bot) on each deal, with its 95 % interval. The two play the
    same deals, so this, not whether the two lines' intervals overlap, says whether the
    baseline beats the bot.
    """
    out = []
    rows = _rows(name, games, seed)
    for row, measure, bot, lineup, value, is_rate in rows:
        line = {"lineup": lineup, "measure": measure}
        if value.ndim == 2:  # Exhaust: one match per seat
            line["rate"] = round(float(value.mean()), 4)
            line["per_seat"] = [_rate(v, games) for v in value]
        elif is_rate:
            line.update(_rate(value, games))
        else:
            line.update(_mean(value))
        if bot == "baseline":
            target = next(v for r, _, b, _, v, _ in rows if r == row and b == FIRST_TARGET[row])
            diff = value - target
            line["paired_difference"] = {
                "vs": FIRST_TARGET[row],
                **_mean(diff.mean(axis=0) if diff.ndim == 2 else diff),
            }
        out.append(line)
    return [{"game": name, "games": games, "seed": seed, **o} for o in out]


def _count(text: str) -> int:
    """argparse type: a number of games, 0 or more."""
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"a number of games must be 0 or more, got {n}")
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("games_", nargs="*", metavar="GAME", help=f"default: all ({', '.join(game_names())})")
    ap.add_argument(
        "--games", type=_count, default=10_000, help="games per measure (0: only the round robin)"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rr-games", type=_count, default=10_000, help="games of the round robin (0: none)")
    args = ap.parse_args(argv)
    for name in args.games_ or game_names():
        for row in measures(name, args.games, args.seed) if args.games else []:
            print(json.dumps(row, default=json_default), flush=True)
        if args.rr_games:
            game = load_game(name)
            # Exit Now's "human" and "ghost" are the smart bot's role names: one entrant
            bots = [b for b in game.bot_names if not (name == "exitnow" and b in ("human", "ghost"))]
            rr = round_robin(game, [*bots, "baseline"], args.rr_games, seed=args.seed)
            print(json.dumps({"game": name, "round_robin": rr}, default=json_default), flush=True)
    return 0


if __name__ == "__main__":
    run_script(main)
