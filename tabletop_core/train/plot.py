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


def _read_log(log_path: str) -> tuple[list[dict], dict, dict, list[dict], list[tuple[int, dict]]]:
    """From ``log.jsonl``: the evaluations (by step, the final one last), the bots'
    levels, the run's config, the cloning epochs and the DAgger rounds (each with the
    number of cloning epochs before it)."""
    evals, levels, config, imitation, dagger = [], {}, {}, [], []
    with open(log_path) as f:
        for line in f:
            rec = json.loads(line)
            if rec["kind"] == "eval":
                evals.append(rec)
            elif rec["kind"] == "levels":
                levels = rec["levels"]
            elif rec["kind"] == "config":
                config = rec["config"]
            elif rec["kind"] == "imitate":
                imitation.append(rec)
            elif rec["kind"] == "dagger":
                dagger.append((len(imitation), rec))
    evals.sort(key=lambda r: (r["step"], r.get("final", False)))
    return evals, levels, config, imitation, dagger


def _plot_cloning(ax, imitation: list[dict], dagger: list[tuple[int, dict]]) -> None:
    """The cloning panel: the share of the bot's moves matched per epoch and per DAgger round."""
    epochs = range(1, len(imitation) + 1)
    ax.plot(epochs, [100 * r["accuracy"] for r in imitation], "o-", ms=3, label="cloning epoch")
    if dagger:
        ax.plot(
            [k + 0.5 for k, _ in dagger],
            [100 * r["agreement"] for _, r in dagger],
            "s",
            color="C3",
            label="DAgger: on its own play",
        )
    ax.set_xlabel("epoch (all rounds)")
    ax.set_ylabel(f"% of {imitation[0].get('bot', 'the bot')}'s moves matched")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)


def _plot_levels(ax, levels: dict[str, dict]) -> None:
    """Each distinct bot level as a dashed line, labelled at the left edge."""
    for k, (mean, label) in enumerate(level_labels(levels)):
        ax.axhline(mean, ls="--", lw=1, color=f"C{k + 1}")
        ax.annotate(
            label,
            (0.01, mean),
            xycoords=("axes fraction", "data"),
            textcoords="offset points",
            xytext=(0, 3),
            va="bottom",
            fontsize=8,
            color=f"C{k + 1}",
            bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.85},
        )


def plot_curve(log_path: str, out_path: str, title: str | None = None) -> None:
    """Plot the evaluations of ``log.jsonl`` (mean return of the greedy policy on the fixed
    deals, with its 95 % interval) against env steps, and every scripted bot's level on
    the same deals as a dashed line. A run that cloned a bot (``--imitate``) gets a
    second panel on the left: the share of the bot's moves the actor matched in each
    cloning epoch, and in each DAgger round the agreement on the positions it reached.

    Raises:
        ImportError: without matplotlib (the ``train`` extra).
    """
    import matplotlib  # here, not at the top: matplotlib is optional (the ``train`` extra)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evals, levels, config, imitation, dagger = _read_log(log_path)
    if imitation:
        fig, (clone, ax) = plt.subplots(1, 2, figsize=(9.6, 3.6), dpi=100, width_ratios=(1, 2))
        _plot_cloning(clone, imitation, dagger)
    else:
        fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    xs = [r["step"] / 1e6 for r in evals]
    ax.plot(
        xs,
        [r["mean"] for r in evals],
        "o-",
        ms=3,
        color="C0",
        label="trained policy (argmax: its most likely move)",
    )
    ax.fill_between(xs, [r["low"] for r in evals], [r["high"] for r in evals], color="C0", alpha=0.2)
    _plot_levels(ax, levels)
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
