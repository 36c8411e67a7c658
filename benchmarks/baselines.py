"""The shipped baselines against their targets, and the round-robin ratings (README).

    python benchmarks/baselines.py [GAME ...] [--games 10000] [--seed 0] [--rr-games 10000]

Prints one JSON line per measure (the issue's lineups, the baseline and the scripted bots
on the same deals, 95 % intervals) and one per round robin (``tabletop_core.ratings``).
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from tabletop_core.arena import mean_interval, run_match, wilson_interval
from tabletop_core.games import GAME_PACKAGES, load_game
from tabletop_core.jsonutil import json_default
from tabletop_core.ratings import round_robin


def _mean(x) -> dict:
    m, lo, hi = mean_interval(np.asarray(x, np.float64))
    return {"mean": round(m, 3), "low": round(lo, 3), "high": round(hi, 3)}


def _rate(hits, n) -> dict:
    lo, hi = wilson_interval(float(np.sum(hits)), n)
    return {"rate": round(float(np.mean(hits)), 4), "low": round(lo, 4), "high": round(hi, 4)}


def measures(name: str, games: int, seed: int) -> list[dict]:
    """The issue's rows for one game: the baseline and the scripted bots in its place."""
    game = load_game(name)
    out = []
    if name == "thegame":  # mean cards left = NUM_CARDS - the team's return (reward 'cards')
        from thegame_env.spec import NUM_CARDS

        for bot in ("baseline", "greedy", "strong"):
            r = run_match(game, [bot, bot], games, seed=seed)
            out.append(
                {
                    "lineup": f"{bot} in both seats",
                    "measure": "mean cards left",
                    **_mean(NUM_CARDS - r.returns[:, 0]),
                }
            )
    elif name == "koikoi":
        for bot in ("baseline", "greedy", "strong"):
            r = run_match(game, [bot, "strong", "greedy", "random"], games, seed=seed)
            out.append(
                {
                    "lineup": f"{bot},strong,greedy,random",
                    "measure": "seat 0 chip change",
                    **_mean(r.returns[:, 0]),
                }
            )
    elif name == "exhaust":
        for bot in ("baseline", "npc", "strong"):
            rates = []
            for k in range(4):
                up = ["npc"] * 4
                up[k] = bot
                r = run_match(game, up, games, seed=seed)
                rates.append(_rate(r.returns[:, k] < 0, games))
            out.append(
                {
                    "lineup": f"{bot} in each seat vs three npc",
                    "measure": "loss rate, mean over seats",
                    "rate": round(float(np.mean([x["rate"] for x in rates])), 4),
                    "per_seat": rates,
                }
            )
    elif name == "exitnow":
        for bot in ("baseline", "human"):
            r = run_match(game, [bot] * 3 + ["ghost"], games, seed=seed)
            out.append(
                {
                    "lineup": f"{bot} humans vs ghost",
                    "measure": "escape rate",
                    **_rate(r.returns[:, :3].max(axis=1) > 0, games),
                }
            )
        for bot in ("baseline", "ghost"):
            r = run_match(game, ["human"] * 3 + [bot], games, seed=seed)
            out.append(
                {
                    "lineup": f"{bot} ghost vs human bots",
                    "measure": "ghost win rate",
                    **_rate(r.returns[:, 3] > 0, games),
                }
            )
    return [{"game": name, "games": games, "seed": seed, **o} for o in out]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("games_", nargs="*", metavar="GAME", help=f"default: all ({', '.join(GAME_PACKAGES)})")
    ap.add_argument("--games", type=int, default=10_000, help="games per measure (0: only the round robin)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rr-games", type=int, default=10_000, help="games of the round robin (0: none)")
    args = ap.parse_args(argv)
    for name in args.games_ or list(GAME_PACKAGES):
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
    sys.exit(main())
