"""Throughput of two checkouts of this repository side by side, in one run: ``tabletop
bench GAME`` from each tree in turn (alternating, ``--rounds`` times, the best round of
each kept), then one JSON line per figure with both values and their ratio.

    python benchmarks/compare.py --old ../old --new . --games thegame koikoi

Used to check that a refactor keeps the speed: the machines here are shared and noisy, so
only figures of the same run are compared. Figures: the AEC loop (wrapped, raw), the vector
env at each batch and thread count (actions from Python and from the kernel), full bot
games per second, and the cold and warm start to the first AEC step.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from tabletop_core.tools.scripts import run_script


def _figures(records: list[dict]) -> dict[str, float]:
    out: dict[str, float] = {}
    for r in records:
        kind = r.get("bench")
        if kind == "aec":
            out["aec_wrapped_steps_per_s"] = r["wrapped_steps_per_s"]
            out["aec_raw_steps_per_s"] = r["raw_steps_per_s"]
        elif kind == "vector":
            tag = f"batch{r['batch']}_threads{r['threads']}"
            out[f"vector_{tag}_python_steps_per_s"] = r["python_actions_steps_per_s"]
            out[f"vector_{tag}_kernel_steps_per_s"] = r["kernel_actions_steps_per_s"]
        elif kind == "bots":
            out[f"bots_{r['bot']}_games_per_s"] = r["games_per_s"]
        elif kind == "start":
            for label in ("cold", "warm"):
                if "first_step_s" in r.get(label, {}):
                    out[f"start_{label}_s"] = r[label]["first_step_s"]
    return out


def _run(tree: str, game: str, seconds: float) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    cmd = [sys.executable, "-m", "tabletop_core.cli", "bench", game, "--json", "--no-peers", "--quick"]
    cmd += ["--seconds", str(seconds)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=os.path.abspath(tree))
    if proc.returncode != 0:
        raise SystemExit(f"bench failed in {tree}: {proc.stderr.strip()[-400:]}")
    return _figures([json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--old", required=True, help="checkout of the code before")
    p.add_argument("--new", default=".", help="checkout of the code after")
    p.add_argument("--games", nargs="+", default=["thegame", "exhaust", "koikoi", "exitnow"])
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--seconds", type=float, default=1.0)
    args = p.parse_args()
    for game in args.games:
        best: dict[str, dict[str, float]] = {"old": {}, "new": {}}
        try:
            for _ in range(args.rounds):
                got = {
                    label: _run(tree, game, args.seconds)
                    for label, tree in (("old", args.old), ("new", args.new))
                }
                for label, figures in got.items():  # a round counts once both trees ran it
                    for k, v in figures.items():
                        keep = min if k.startswith("start_") else max
                        best[label][k] = keep(best[label].get(k, v), v)
        finally:  # a Ctrl-C: the rounds both trees finished are still compared
            for k in sorted(best["old"].keys() & best["new"].keys()):
                old, new = best["old"][k], best["new"][k]
                print(
                    json.dumps({"game": game, "figure": k, "old": old, "new": new, "new_over_old": new / old})
                )


if __name__ == "__main__":
    run_script(main)
