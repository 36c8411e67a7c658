"""Plot learning curves (CSV from the rl_* examples) against the bots' levels.

Each ``--curve LABEL=path.csv`` (columns ``steps,seconds,mean_return``) becomes a line;
``--eval-json`` (from ``rl_sb3_maskable_ppo.py --eval-json``) adds the random and strong
bots' mean on the same deals as horizontal lines. For The Game (``reward="cards"``) the
y axis shows cards left (98 - return), lower is better.

Run: python examples/rl_plot_curves.py --curve "MaskablePPO=docs/thegame_sb3_curve.csv" \
         --eval-json docs/thegame_eval.json --out docs/thegame_learning_curves.png
"""

from __future__ import annotations

import argparse
import csv
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--curve", action="append", default=[], help="LABEL=path.csv (repeatable)")
    p.add_argument("--eval-json", default=None)
    p.add_argument("--returns", action="store_true", help="plot returns, not 98 - return (cards left)")
    p.add_argument("--hline", action="append", default=[], help="LABEL=VALUE reference level (repeatable)")
    p.add_argument("--title", default="The Game, 2 players: greedy policy on 100 fixed deals")
    p.add_argument("--out", required=True)
    args = p.parse_args()

    def y(ret: float) -> float:
        return ret if args.returns else 98.0 - ret

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for spec in args.curve:
        label, path = spec.split("=", 1)
        with open(path) as f:
            rows = list(csv.DictReader(f))
        ax.plot(
            [int(r["steps"]) for r in rows],
            [y(float(r["mean_return"])) for r in rows],
            marker=".",
            label=label,
        )
    if args.eval_json:
        with open(args.eval_json) as f:
            ev = json.load(f)
        for bot, style in (("random", ":"), ("greedy", "-."), ("strong", "--")):
            if bot in ev["mean_return"]:
                ax.axhline(y(ev["mean_return"][bot]), color="gray", linestyle=style, label=f"{bot} bot")
    for k, spec in enumerate(args.hline):
        label, value = spec.split("=", 1)
        ax.axhline(float(value), color="gray", linestyle=(":", "-.", "--")[k % 3], label=label)
    ax.set_xlabel("env steps")
    ax.set_ylabel("mean return" if args.returns else "mean cards left (lower is better)")
    ax.set_title(args.title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
