"""A Koikoi bot match in compiled code: mean chip change per game per seat, 95 % intervals.

Run: python examples/koikoi_bot_match.py --games 2000 --bots strong,greedy,random,random
(the same as ``tabletop match koikoi --players 4 --bots strong,greedy,random,random``).
"""

from __future__ import annotations

import argparse

import koikoi_env
from tabletop_core.tools.arena import run_match, summarize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--bots", default="strong,greedy,random,random")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    bots = args.bots.split(",")
    result = run_match(
        koikoi_env.GAME, bots, args.games, seed=args.seed, num_players=len(bots), rounds=args.rounds
    )
    summary = summarize(result, ratings=False)
    print(f"{args.games} games, {len(bots)} players, {summary['mean_steps']:.0f} agent steps per game")
    for seat in summary["seats"]:
        m = seat["mean_return"]
        print(
            f"{seat['agent']} {seat['bot']:>6}: {m['mean']:+7.2f} [{m['low']:+.2f}, {m['high']:+.2f}] chips per game"
        )


if __name__ == "__main__":
    main()
