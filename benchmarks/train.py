"""Training throughput of `tabletop train` against sb3-contrib MaskablePPO, one JSON line
per measurement (the same as `tabletop bench GAME --train`).

    python benchmarks/train.py                     # The Game, 2 players
    python benchmarks/train.py --game koikoi --seconds 30
    python benchmarks/train.py --quality           # time to quality: The Game, 2 players

Lines (see tabletop_core/train/bench.py): "matmul" (torch's matmul throughput on the
network's shapes, same run), "train" (steps/s end to end, time split, mfu and
mfu_paired), "sb3"
(MaskablePPO steps/s, same env and rollout size) and "summary" (speedup_vs_sb3, mfu,
env_plumbing_share).

With ``--quality``: time to quality instead. One ``tabletop train thegame --players 2
--minutes M --seed S`` run per ``--minutes`` value (default 5 and 20), from scratch with the
defaults, and one "quality" line per run: the final evaluation against the greedy and
strong bots' levels on the same evaluation deals, and the training minutes at which an
evaluation first passed the greedy bot's level.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tabletop_core.tools.scripts import run_script  # noqa: E402
from tabletop_core.train.config import ConfigError, TrainConfig  # noqa: E402


def wait_for_idle(limit_s: float = 180.0) -> float:
    """Wait (at most ``limit_s`` seconds) until the 1-minute load average is below 1, and
    return it. ``tabletop train`` takes the cores the load average leaves idle
    (``default_threads``: one on 2 cores from a load of 1), and a run started right after
    another would see the previous run's own load and take fewer threads on an otherwise
    idle machine."""
    deadline = time.monotonic() + limit_s
    load = os.getloadavg()[0]
    if load >= 1.0:
        print(f"waiting for the load average ({load:.2f}) to fall below 1 ...", file=sys.stderr, flush=True)
    while load >= 1.0 and time.monotonic() < deadline:
        time.sleep(5)
        load = os.getloadavg()[0]
    return load


def quality_run(minutes: float, seed: int, out: str) -> dict:
    """One from-scratch run of ``tabletop train thegame --players 2`` and its quality line
    (``threads``: the torch threads the trainer chose)."""
    from tabletop_core.train.loop import train  # imports torch (the train extra)

    run_dir = os.path.join(out, f"thegame2p_{minutes:g}min_seed{seed}")
    cfg = TrainConfig(game="thegame", options={"num_players": 2}, minutes=minutes, seed=seed, out=run_dir)
    summary = train(cfg)
    greedy = summary["levels"]["greedy"]["mean"]
    passed = None
    threads = None
    with open(os.path.join(run_dir, "log.jsonl")) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("kind") == "config" and threads is None:
                threads = rec.get("threads")
            if rec.get("kind") == "eval" and rec.get("mean", float("-inf")) > greedy:
                passed = round(rec["seconds"] / 60, 2)
                break
    final = summary["final_eval"]
    return {
        "kind": "quality",
        "game": "thegame",
        "options": {"num_players": 2},
        "minutes": minutes,
        "seed": seed,
        "steps": summary["steps"],
        "steps_per_s": round(summary["steps_per_s"]),
        "threads": threads,
        "final_eval": {k: final[k] for k in ("mean", "low", "high", "games") if k in final},
        "greedy": greedy,
        "strong": summary["levels"].get("strong", {}).get("mean"),
        "above_greedy": final["mean"] > greedy,
        "minutes_to_greedy": passed,
        "command": f"tabletop train thegame --players 2 --minutes {minutes:g} --seed {seed}",
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="thegame")
    p.add_argument("--seconds", type=float, default=30.0, help="timed window of the trainer")
    p.add_argument("--no-sb3", action="store_true", help="skip the MaskablePPO measurement")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: the trainer's choice)")
    p.add_argument("--minibatch", type=int, default=None, help="PPO minibatch (default: the trainer's)")
    p.add_argument(
        "--bf16", choices=("auto", "on", "off"), default="auto", help="the trainer's --bf16 (default: auto)"
    )
    p.add_argument("--quality", action="store_true", help="time to quality instead of throughput")
    p.add_argument("--minutes", type=float, nargs="+", default=[5.0, 20.0], help="--quality: run budgets")
    p.add_argument("--seed", type=int, default=0, help="--quality: the runs' seed")
    p.add_argument("--out", default="runs/quality", help="--quality: folder for the runs")
    args = p.parse_args()
    try:
        import torch  # noqa: F401  (the train extra; --help works without it)
    except ImportError:
        sys.exit(
            "benchmarks/train.py needs torch: pip install torch==2.13.0 && pip install 'tabletop-rl[train]'"
        )
    if args.quality:
        bad = [m for m in args.minutes if not m > 0]
        if bad:
            p.error(f"--minutes must be positive numbers, got {bad}")
        for minutes in args.minutes:
            wait_for_idle()
            print(json.dumps(quality_run(minutes, args.seed, args.out)), flush=True)
        return
    from tabletop_core.train.bench import iter_train_bench

    records = iter_train_bench(
        args.game,
        seconds=args.seconds,
        sb3=not args.no_sb3,
        threads=args.threads,
        minibatch=args.minibatch,
        bf16=args.bf16,
    )
    try:
        for rec in records:  # each line as soon as it is final: a Ctrl-C keeps them
            print(json.dumps(rec), flush=True)
    except ConfigError as exc:  # a bad --game, --threads or --minibatch: named, no traceback
        p.error(str(exc))


if __name__ == "__main__":
    run_script(main)
