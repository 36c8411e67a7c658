"""The learning curve of a run as a PNG (matplotlib), with the scripted bots' levels."""

from __future__ import annotations

import json

__all__ = ["level_labels", "plot_curve"]


def level_labels(levels: dict[str, dict]) -> list[tuple[float, str]]:
    """One ``(mean, label)`` per distinct level of ``levels`` (``{bot: {"mean": ...}}``),
    lowest first: bots at the same level share one dashed line and label (Exit Now's
    ``smart``, ``human`` and ``ghost`` are one bot in its two roles)."""
    same: dict[float, list[str]] = {}
    for bot, d in levels.items():
        same.setdefault(float(d["mean"]), []).append(bot)
    return [(m, f"{' = '.join(b)} bot{'s' if len(b) > 1 else ''} {m:.3g}") for m, b in sorted(same.items())]


def plot_curve(log_path: str, out_path: str, title: str | None = None) -> None:
    """Plot the evaluations of ``log.jsonl`` (mean return of the greedy policy on the fixed
    deals, with its 95 % interval) against env steps, and every scripted bot's level on
    the same deals as a dashed line.

    Raises:
        ImportError: without matplotlib (the ``train`` extra).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evals, levels, config = [], {}, {}
    with open(log_path) as f:
        for line in f:
            rec = json.loads(line)
            if rec["kind"] == "eval":
                evals.append(rec)
            elif rec["kind"] == "levels":
                levels = rec["levels"]
            elif rec["kind"] == "config":
                config = rec["config"]
    evals.sort(key=lambda r: (r["step"], r.get("final", False)))
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    xs = [r["step"] / 1e6 for r in evals]
    ax.plot(xs, [r["mean"] for r in evals], "o-", ms=3, color="C0", label="trained policy (greedy)")
    ax.fill_between(xs, [r["low"] for r in evals], [r["high"] for r in evals], color="C0", alpha=0.2)
    for k, (mean, label) in enumerate(level_labels(levels)):
        ax.axhline(mean, ls="--", lw=1, color=f"C{k + 1}")
        ax.annotate(
            label,
            (0.01, mean),
            xycoords=("axes fraction", "data"),
            textcoords="offset points",
            xytext=(0, 2),
            fontsize=8,
            color=f"C{k + 1}",
        )
    ax.set_xlabel("env steps (millions)")
    ax.set_ylabel("mean return on fixed deals")
    opts = ", ".join(f"{k}={v}" for k, v in (config.get("options") or {}).items())
    ax.set_title(
        title or f"tabletop train {config.get('game', '')} {opts} (seed {config.get('seed', '')})",
        fontsize=10,
    )
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_path)
    plt.close(fig)
