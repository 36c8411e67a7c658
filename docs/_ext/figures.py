"""The measured figures of the site: ``docs/figures/*.jsonl``, looked up and drawn.

Each line of a figure file is one JSON record with a ``table`` and the ``command`` that
made it. This module is what the docs extension, the plots and the tests read those
files through:

- :func:`load` and :func:`lookup` find records (``lookup("benchmarks.jsonl",
  table="bench", game="koikoi", row="random-bot games/s (one core)")``);
- :func:`first_number` reads the number a cell starts with (``"2,389,506 (×0.89)"`` is
  2389506.0, ``"1.27 M (1.9 MiB)"`` is 1270000.0);
- :func:`speed_vs_batch`, :func:`time_to_quality` and :func:`learning_curves` gather the
  series of the three plots, and :func:`draw` draws one of them with matplotlib.

Importable without Sphinx (``sys.path`` holding ``docs/_ext``); matplotlib is imported
only by :func:`draw`.
"""

from __future__ import annotations

import csv
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent.parent
FIGURES = DOCS / "figures"

# The Game deals 98 cards: cards left = 98 - return (the return pays one per card played).
THEGAME_CARDS = 98
# The names a plot is asked for by (the ``tabletop-plot`` directive's argument).
PLOTS = ("speed-vs-batch", "time-to-quality", "learning-curves")
_NUMBER = re.compile(r"[+\-−]?\d[\d,]*(?:\.\d+)?")
_SCALE = {"k": 1e3, "M": 1e6, "G": 1e9}


def load(name: str) -> list[dict[str, Any]]:
    """The records of ``docs/figures/<name>``, in file order.

    Raises:
        FileNotFoundError: no such figure file.
        ValueError: a line that is not JSON (the message names the file and line).
    """
    path = FIGURES / name
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: {exc}") from exc
    return out


def _field(record: dict[str, Any], key: str) -> Any:
    """``record[key]``, where a dotted key reads nested dicts (``"cells.game"``)."""
    value: Any = record
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def select(name: str, **selector: Any) -> list[dict[str, Any]]:
    """The records of a figure file whose fields equal the selector's values (a key with
    ``__`` reads a nested field: ``cells__game="Koikoi, 4 p"``)."""
    wanted = {k.replace("__", "."): v for k, v in selector.items()}
    return [r for r in load(name) if all(_field(r, k) == v for k, v in wanted.items())]


def lookup(name: str, **selector: Any) -> dict[str, Any]:
    """The one record of a figure file that the selector picks (see :func:`select`).

    Raises:
        LookupError: no record, or more than one, matches (the message says which).
    """
    found = select(name, **selector)
    if len(found) != 1:
        raise LookupError(f"{name}: {len(found)} records match {selector} (want exactly one)")
    return found[0]


def first_number(text: Any) -> float:
    """The number a figure cell starts with, as a float: thousands commas dropped, a
    Unicode minus read as ``-``, a following ``k``/``M``/``G`` applied.

    Raises:
        ValueError: the text holds no number.
    """
    if isinstance(text, (int, float)):
        return float(text)
    m = _NUMBER.search(str(text))
    if m is None:
        raise ValueError(f"no number in {text!r}")
    value = float(m.group(0).replace(",", "").replace("−", "-"))
    rest = str(text)[m.end() :].lstrip()
    if rest[:1] in _SCALE and (len(rest) == 1 or not rest[1].isalpha()):
        value *= _SCALE[rest[0]]
    return value


def commands_of(records: list[dict[str, Any]]) -> list[str]:
    """The commands of the records, in order, once each."""
    out: list[str] = []
    for r in records:
        for c in [r["command"]] if isinstance(r.get("command"), str) else r.get("command", []):
            if c not in out:
                out.append(c)
    return out


def read_curve(path: Path) -> list[dict[str, float]]:
    """The rows of a learning-curve CSV (``steps,seconds,mean_return``) as floats."""
    with path.open(encoding="utf-8", newline="") as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


@dataclass
class Series:
    """One line or set of points of a plot: ``x`` and ``y`` of the same length."""

    label: str
    x: list[float]
    y: list[float]
    style: str = "line"  # "line" or "points"


@dataclass
class PlotData:
    """What one plot shows: its series, horizontal reference levels, axis labels, and the
    caption's sources (files and commands)."""

    title: str
    xlabel: str
    ylabel: str
    series: list[Series]
    levels: dict[str, float] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    note: str = ""
    logx: int = 0  # the base of a log x axis (0: linear)
    logy: bool = False


# --- (a) steps/s against batch ---------------------------------------------------------------
SWEEP_GAMES = ("The Game", "Exhaust", "Koikoi", "Exit Now", "Pgx")


def speed_vs_batch() -> PlotData:
    """Vector-env steps/s against batch, one line per game and one for Pgx, from the
    ``batches`` records of ``benchmarks.jsonl`` (cells ``"batch N": "R M (...)"``)."""
    records = select("benchmarks.jsonl", table="batches")
    series = []
    for r in records:
        cells = r["cells"]
        points = sorted(
            (int(k.split()[1]), first_number(v)) for k, v in cells.items() if k.startswith("batch ")
        )
        series.append(Series(cells["game"], [p[0] for p in points], [p[1] for p in points]))
    missing = [g for g in SWEEP_GAMES if not any(s.label.startswith(g) for s in series)]
    note = f"No batch sweep recorded for {', '.join(missing)}. " if missing else ""
    return PlotData(
        title="Vector env: steps/s against batch (in-kernel random bots, copy=False, medians)",
        xlabel="batch (envs)",
        ylabel="env steps/s",
        series=series,
        sources=["docs/figures/benchmarks.jsonl (table batches)"],
        commands=commands_of(records),
        note=note,
        logx=2,
    )


# --- (b) time to quality: The Game's cards left against wall-clock minutes ----------------------
_MINUTES = re.compile(r"\((\d+(?:\.\d+)?) min\b\s*([^,)]*)")


def _train_records() -> list[dict[str, Any]]:
    return select("training.jsonl", table="train", game="thegame")


def _label(record: dict[str, Any]) -> str:
    return next(iter(record["cells"].values()))


def _current_train(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``tabletop train`` runs of the current code (runs of older code say ``before``)."""
    return [r for r in records if _label(r).startswith("tabletop train") and " before " not in _label(r)]


def _bot_levels(records: list[dict[str, Any]]) -> dict[str, float]:
    return {_label(r): float(r["cells"]["mean cards left"]) for r in records if _label(r).endswith(" bot")}


def time_to_quality() -> PlotData:
    """The Game (2 players): mean cards left against wall-clock minutes of training,
    ``tabletop train`` (the runs of ``training.jsonl``, one point per run, grouped by CPU)
    against MaskablePPO (its evaluation curve, ``docs/thegame_sb3_curve.csv``, and its final
    evaluation), with the greedy and strong bots' levels."""
    records = _train_records()
    groups: dict[str, Series] = {}
    for r in _current_train(records):
        m = _MINUTES.search(_label(r))
        if m is None:
            continue
        cpu = m.group(2).strip() or "CPU"
        s = groups.setdefault(cpu, Series(f"tabletop train ({cpu})", [], [], style="points"))
        s.x.append(float(m.group(1)))
        s.y.append(float(r["cells"]["mean cards left"]))
    sb3 = read_curve(DOCS / "thegame_sb3_curve.csv")
    ppo = Series(
        "MaskablePPO (evaluations on 100 deals)",
        [row["seconds"] / 60 for row in sb3],
        [THEGAME_CARDS - row["mean_return"] for row in sb3],
    )
    series = [*groups.values(), ppo]
    ppo_final = [r for r in records if _label(r).startswith("MaskablePPO")]
    for r in ppo_final:
        m = _MINUTES.search(_label(r))
        if m:
            series.append(
                Series(
                    "MaskablePPO (final, 500 deals)",
                    [float(m.group(1))],
                    [float(r["cells"]["mean cards left"])],
                    "points",
                )
            )
    return PlotData(
        title="The Game, 2 players: time to quality (lower is better)",
        xlabel="wall-clock minutes of training",
        ylabel="mean cards left",
        series=series,
        levels=_bot_levels(records),
        sources=[
            "docs/figures/training.jsonl (table train)",
            "docs/thegame_sb3_curve.csv",
            "docs/thegame_eval.json",
        ],
        commands=commands_of([r for r in records if r in _current_train(records) or r in ppo_final])
        + commands_of([r for r in records if _label(r).endswith(" bot")]),
        note="Each tabletop train point is one run's final policy on 500 fixed deals.",
    )


# --- (c) learning curves of a game in one metric ------------------------------------------------
def learning_curves(game: str = "thegame") -> PlotData:
    """The learning curves of one game against env steps, every learner in the game's one
    metric: The Game's mean cards left (MaskablePPO, the CleanRL-style PPO and the final
    ``tabletop train`` runs, with the bots' levels), or Koikoi's seat-0 chip change
    (MaskablePPO).

    Raises:
        ValueError: a game without recorded learning curves.
    """
    if game == "thegame":
        records = _train_records()
        series = []
        for label, file in (
            ("sb3-contrib MaskablePPO", "thegame_sb3_curve.csv"),
            ("CleanRL-style self-play PPO", "thegame_cleanrl_curve.csv"),
        ):
            # the untrained evaluation (step 0) has no place on the log axis
            rows = [r for r in read_curve(DOCS / file) if r["steps"] >= 1000]
            series.append(
                Series(label, [r["steps"] for r in rows], [THEGAME_CARDS - r["mean_return"] for r in rows])
            )
        runs = _current_train(records)
        steps = [first_number(re.search(r"([\d.]+ M) steps", _label(r)).group(1)) for r in runs]
        series.append(
            Series(
                "tabletop train (final, 500 deals)",
                steps,
                [float(r["cells"]["mean cards left"]) for r in runs],
                "points",
            )
        )
        return PlotData(
            title="The Game, 2 players: learning curves (lower is better)",
            xlabel="env steps",
            ylabel="mean cards left",
            series=series,
            levels=_bot_levels(records),
            sources=[
                "docs/thegame_sb3_curve.csv",
                "docs/thegame_cleanrl_curve.csv",
                "docs/figures/training.jsonl (table train)",
            ],
            commands=commands_of(runs)
            + [
                "python examples/rl_sb3_maskable_ppo.py --game thegame --players 2 --curve docs/thegame_sb3_curve.csv",
                "python examples/rl_cleanrl_selfplay_ppo.py --game thegame --players 2 --curve docs/thegame_cleanrl_curve.csv",
            ],
            note="The curves evaluate on 100 fixed deals, the final runs on 500.",
            logx=10,
        )
    if game == "koikoi":
        rows = read_curve(DOCS / "koikoi_sb3_curve.csv")
        return PlotData(
            title="Koikoi, 4 players: learning curve (higher is better)",
            xlabel="env steps",
            ylabel="seat 0 chip change per game",
            series=[
                Series(
                    "sb3-contrib MaskablePPO, seat 0 vs greedy, random, random",
                    [r["steps"] for r in rows],
                    [r["mean_return"] for r in rows],
                )
            ],
            sources=["docs/koikoi_sb3_curve.csv", "docs/koikoi_eval.json"],
            commands=[
                "python examples/rl_sb3_maskable_ppo.py --game koikoi --players 4 --seat 0 --opponents greedy,random,random --curve docs/koikoi_sb3_curve.csv"
            ],
        )
    raise ValueError(f"no learning curves recorded for game {game!r}; allowed: 'thegame', 'koikoi'")


def plot_data(name: str, game: str = "thegame") -> PlotData:
    """The data of plot ``name`` (one of :data:`PLOTS`).

    Raises:
        ValueError: an unknown plot name (the message lists the allowed ones).
    """
    if name == "speed-vs-batch":
        return speed_vs_batch()
    if name == "time-to-quality":
        return time_to_quality()
    if name == "learning-curves":
        return learning_curves(game)
    raise ValueError(f"unknown plot {name!r}; allowed: {', '.join(PLOTS)}")


def draw(data: PlotData, out: Path) -> Path:
    """Draw ``data`` with matplotlib (Agg) into the PNG ``out`` and return ``out``."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.2), dpi=130)
    for s in data.series:
        if s.style == "points":
            ax.plot(s.x, s.y, "o", label=s.label, markersize=6)
        else:
            ax.plot(s.x, s.y, "-o", label=s.label, markersize=3, linewidth=1.6)
    for k, (label, level) in enumerate(data.levels.items()):
        ax.axhline(level, color="0.35", linestyle=("--", ":", "-.")[k % 3], linewidth=1)
        ax.annotate(
            f"{label} {level:g}",
            (0.01, level),
            xycoords=("axes fraction", "data"),
            ha="left",
            va="bottom",
            fontsize=8,
            color="0.25",
        )
    if data.logx:
        ax.set_xscale("log", base=data.logx)
        if data.logx == 2:  # batches: 256, 1024, ... rather than powers of two
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    if data.logy:
        ax.set_yscale("log")
    if max((abs(y) for s in data.series for y in s.y), default=0) >= 1e5:
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v / 1e6:g} M"))
    ax.set_xlabel(data.xlabel)
    ax.set_ylabel(data.ylabel)
    ax.set_title(data.title, fontsize=11)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}.tmp.png")  # parallel readers may draw the same plot
    fig.savefig(tmp, metadata={"Software": None})
    plt.close(fig)
    tmp.replace(out)
    return out
