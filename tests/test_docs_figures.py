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
BASELINE_ROWS = {
    "The Game, 2 p": {"game": "thegame"},
    "Koikoi, 4 p": {"game": "koikoi"},
    "Exhaust, 4 p": {"game": "exhaust"},
    "Exit Now, baseline humans": {"game": "exitnow", "cells__measure": "escape rate"},
    "Exit Now, baseline ghost": {"game": "exitnow", "cells__measure": "ghost win rate"},
}
SEARCH_ROWS = {
    "The Game, 2 p": {"game": "thegame"},
    "Koikoi, 4 p": {"game": "koikoi"},
    "Exhaust, 4 p": {"game": "exhaust"},
    "Exit Now, `human_0`": {
        "game": "exitnow",
        "command": [
            "python benchmarks/search.py exitnow-humans --games 500 --seed 0",
            "NUMBA_NUM_THREADS=1 python benchmarks/search.py exitnow-humans --timing-only",
        ],
    },
    "Exit Now, ghost player": {
        "game": "exitnow",
        "command": [
            "python benchmarks/search.py exitnow-ghost --games 500 --seed 0",
            "NUMBA_NUM_THREADS=1 python benchmarks/search.py exitnow-ghost --timing-only",
        ],
    },
}


def _ms(record: dict[str, Any]) -> str:
    t = record["timing"]["ms_per_decision"]
    return f"{t['mean_ms']:.1f} / {t['p95_ms']:.1f}"


# (README table's first header, row label start, column header)
#   -> (figure file, selector, field or function of the record)
Source = tuple[str, dict[str, Any], "str | Callable[[dict[str, Any]], str]"]
HEADLINE: dict[tuple[str, str, str], Source] = {}
for column, game in GAME_COLUMNS.items():
    bench = {"table": "bench", "game": game}
    HEADLINE["figure", "vector env × Pgx", column] = (
        "benchmarks.jsonl",
        {**bench, "row": VECTOR_X_PGX},
        "value",
    )
    HEADLINE["figure", "AEC `env()` steps/s", column] = (
        "benchmarks.jsonl",
        {**bench, "row": "AEC env() steps/s (× tictactoe_v3 wrapped)"},
        "value",
    )
    HEADLINE["figure", "random-bot games/s", column] = (
        "benchmarks.jsonl",
        {**bench, "row": "random-bot games/s (one core)"},
        "value",
    )
    HEADLINE["figure", "cold start to the first AEC step", column] = (
        "benchmarks.jsonl",
        {**bench, "row": "cold / warm start to the first AEC step (s)"},
        "value",
    )
for row, selector in BASELINE_ROWS.items():
    for column, key in {
        "baseline": "cells.baseline",
        "first target": "cells.first target",
        "baseline − target, same deals": "cells.baseline − first target, same deals",
    }.items():
        HEADLINE["game", row, column] = ("baselines.jsonl", {"table": "baselines", **selector}, key)
for row, selector in SEARCH_ROWS.items():
    for column, key in {
        "search": "cells.search",
        "strongest scripted bot": "cells.strongest scripted bot",
        "search − bot, same deals": "cells.search − bot, same deals",
        "ms per decision (mean / p95)": _ms,
    }.items():
        HEADLINE["game", row, column] = ("search.jsonl", {"table": "search", **selector}, key)

# README cells that disagree with their JSON line as the two stand: the README's owner
# updates the cell (or the figure file gains the run it quotes), then the entry goes.
STALE = {
    ("figure", "AEC `env()` steps/s", "The Game"): "README quotes a run that is not in benchmarks.jsonl",
    ("figure", "random-bot games/s", "The Game"): "README quotes a run that is not in benchmarks.jsonl",
}


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
