"""The README's headline figures are the measured ones: each cell against its JSON line.

:data:`HEADLINE` maps a README cell, named by its table's row label (the start of the
first cell, markup dropped) and column header, to the record of ``docs/figures/*.jsonl``
it was copied from: the file, a selector (field = value; ``__`` reads a nested field), and
the field or a function of the record giving the text. The check compares the numbers of
the two texts (thousands commas, Unicode minus and ``×`` read as numbers are), in order:
the README cell's numbers must start the record's (a cell may leave the interval out).
When the README's tables change, adjust :data:`HEADLINE` and nothing else.

The plots of the site are drawn from the same files (``docs/_ext/figures.py``); the last
tests check that each plot has its data and draws.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import figures  # noqa: E402

README = ROOT / "README.md"
VECTOR_X_PGX = (
    "vector env, batch 4096 (2 threads), × Pgx in interleaved rounds (medians): Python / in-kernel actions"
)
GAME_COLUMNS = {"The Game": "thegame", "Exhaust": "exhaust", "Koikoi": "koikoi", "Exit Now": "exitnow"}
# the record of each game's column in the baseline and search rows (Exit Now: the humans' side)
BASELINE_RECORDS = {
    "thegame": {"game": "thegame"},
    "exhaust": {"game": "exhaust"},
    "koikoi": {"game": "koikoi"},
    "exitnow": {"game": "exitnow", "cells__measure": "escape rate"},
}
SEARCH_RECORDS = {
    "thegame": {"game": "thegame"},
    "exhaust": {"game": "exhaust"},
    "koikoi": {"game": "koikoi"},
    "exitnow": {
        "game": "exitnow",
        "command": [
            "python benchmarks/search.py exitnow-humans --games 500 --seed 0",
            "NUMBA_NUM_THREADS=1 python benchmarks/search.py exitnow-humans --timing-only",
        ],
    },
}


def _first(text: str) -> str:
    """The first number of a figure's text (the estimate, without its interval)."""
    return re.findall(r"[+\-−]?\d[\d,]*(?:\.\d+)?", text)[0]


def _pair(mine: str, theirs: str) -> Callable[[dict[str, Any]], str]:
    """A README cell "``mine`` (bot ``theirs``)": the two estimates of a record's cells."""
    return lambda r: f"{_first(r['cells'][mine])} {_first(r['cells'][theirs])}"


# (README table's first header, row label start, column header)
#   -> (figure file, selector, field or function of the record)
Source = tuple[str, dict[str, Any], "str | Callable[[dict[str, Any]], str]"]
HEADLINE: dict[tuple[str, str, str], Source] = {}
for column, game in GAME_COLUMNS.items():
    bench = {"table": "bench", "game": game}
    for label, row in {
        "vector env × Pgx": VECTOR_X_PGX,
        "AEC `env()` steps/s": "AEC env() steps/s (× tictactoe_v3 wrapped)",
        "random-bot games/s": "random-bot games/s (one core)",
        "cold / warm start to the first AEC step": "cold / warm start to the first AEC step (s)",
    }.items():
        HEADLINE["figure", label, column] = ("benchmarks.jsonl", {**bench, "row": row}, "value")
    HEADLINE["figure", "trained `baseline` against its first target", column] = (
        "baselines.jsonl",
        {"table": "baselines", **BASELINE_RECORDS[game]},
        _pair("baseline", "first target"),
    )
    HEADLINE["figure", "`search` bot against the strongest scripted bot", column] = (
        "search.jsonl",
        {"table": "search", **SEARCH_RECORDS[game]},
        _pair("search", "strongest scripted bot"),
    )


def _rate(steps_per_s: float) -> str:
    """A rate as the README writes it: millions with two decimals, or thousands with one."""
    return f"{steps_per_s / 1e6:.2f} M" if steps_per_s >= 50_000 else f"{steps_per_s / 1e3:.1f} k"


PEER_ROWS = {
    "ours, vector env": "ours",
    "Pgx `leduc_holdem`": "pgx",
    "OpenSpiel `leduc_poker`": "open_spiel",
    "RLCard `leduc-holdem`": "rlcard",
}
for row, impl in PEER_ROWS.items():
    peer = {"bench": "leduc_peers", "impl": impl}
    if impl == "ours":
        HEADLINE["implementation", row, "steps/s"] = (
            "peers.jsonl",
            peer,
            lambda r: f"{_rate(r['steps_per_s'])} {_rate(r['kernel_actions_steps_per_s'])}",
        )
        continue
    HEADLINE["implementation", row, "steps/s"] = ("peers.jsonl", peer, lambda r: _rate(r["steps_per_s"]))
    HEADLINE["implementation", row, "ours × peer (sampler / in-kernel bots)"] = (
        "peers.jsonl",
        peer,
        lambda r: "{:.1f} {:.1f}".format(*r["ours_over_peer"].values()),
    )

# README cells that disagree with their JSON line as the two stand: the README's owner
# updates the cell (or the figure file gains the run it quotes), then the entry goes.
STALE: dict[tuple[str, str, str], str] = {}


# --- reading the README ------------------------------------------------------------------------
def plain(cell: str) -> str:
    """A Markdown cell without emphasis and code marks."""
    return re.sub(r"\*\*|`", "", cell).strip()


def markdown_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """``(header, rows)`` of each pipe table of a Markdown text (cells as written)."""
    tables = []
    block: list[str] = []
    for line in [*text.split("\n"), ""]:
        if line.lstrip().startswith("|"):
            block.append(line.strip())
            continue
        if len(block) >= 2 and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", block[1].replace(" ", "")):
            cells = [[c.strip() for c in r.strip("|").split(" | ")] for r in block]
            tables.append((cells[0], cells[2:]))
        block = []
    return tables


def readme_cell(text: str, first_header: str, row: str, column: str) -> str:
    """The cell of the README table whose first header is ``first_header``, in the row whose
    label starts with ``row`` (markup dropped) and the column ``column``.

    Raises:
        LookupError: no such table, row or column (the message says which).
    """
    for header, rows in markdown_tables(text):
        if plain(header[0]) != first_header or column not in [plain(h) for h in header]:
            continue
        col = [plain(h) for h in header].index(column)
        for r in rows:
            if plain(r[0]).startswith(plain(row)):
                return r[col]
    raise LookupError(f"README: no table {first_header!r} with row {row!r} and column {column!r}")


def numbers(text: str) -> list[float]:
    """The numbers of a figure's text, in order (``"×2.66 / ×3.10"`` -> [2.66, 3.1])."""
    return [
        float(n.replace(",", "").replace("−", "-")) for n in re.findall(r"[+\-−]?\d[\d,]*(?:\.\d+)?", text)
    ]


def json_text(source: Source) -> str:
    file, selector, field = source
    record = figures.lookup(file, **selector)
    if callable(field):
        return field(record)
    value = figures._field(record, field)
    if value is None:
        raise LookupError(f"{file} {selector}: no field {field!r}")
    return str(value)


# --- the tests ------------------------------------------------------------------------------
def _params():
    for key in HEADLINE:
        marks = [pytest.mark.xfail(reason=STALE[key], strict=True)] if key in STALE else []
        yield pytest.param(key, id=" · ".join(key[1:]), marks=marks)


@pytest.mark.parametrize("key", list(_params()))
def test_readme_headline_cell_matches_its_json_line(key):
    text = README.read_text(encoding="utf-8")
    cell = readme_cell(text, *key)
    source = HEADLINE[key]
    want = json_text(source)
    got, expected = numbers(plain(cell)), numbers(want)
    assert got and got == expected[: len(got)], (
        f"README {key[1]!r} / {key[2]!r} reads {plain(cell)!r}, but {source[0]} {source[1]} says {want!r}"
    )


def test_the_readers_find_tables_cells_and_numbers():
    text = "| figure | A | B |\n|---|---|---|\n| **speed** of x | 1,234 (×2.5) | −3.0 [−4, −2] |\n"
    assert readme_cell(text, "figure", "speed", "B") == "−3.0 [−4, −2]"
    assert numbers(plain(readme_cell(text, "figure", "speed of", "A"))) == [1234.0, 2.5]
    with pytest.raises(LookupError):
        readme_cell(text, "figure", "nothing", "A")
    assert figures.first_number("1.27 M (1.9 MiB)") == 1.27e6
    assert figures.first_number("2,389,506 (×0.89)") == 2389506.0
    with pytest.raises(LookupError):
        figures.lookup("benchmarks.jsonl", table="no such table")


@pytest.mark.parametrize("name", figures.PLOTS)
def test_each_plot_has_its_data_and_draws(name, tmp_path):
    pytest.importorskip("matplotlib")
    data = figures.plot_data(name)
    assert data.series and all(len(s.x) == len(s.y) > 0 for s in data.series)
    assert data.sources and data.commands
    out = figures.draw(data, tmp_path / f"{name}.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_speed_vs_batch_has_the_four_games_and_pgx():
    labels = [s.label for s in figures.speed_vs_batch().series]
    for game in figures.SWEEP_GAMES:
        assert any(label.startswith(game) for label in labels), game


def test_an_unknown_plot_is_a_clear_error():
    with pytest.raises(ValueError, match="allowed: speed-vs-batch"):
        figures.plot_data("speed")
    with pytest.raises(ValueError, match="allowed: 'thegame', 'koikoi'"):
        figures.learning_curves("exhaust")
