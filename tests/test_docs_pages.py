"""The generated pages of the site, without a Sphinx build: the CLI reference, the plot
comments, the version history and the API reference's internals (``docs/_ext``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import tabletop_docs  # noqa: E402

from tabletop_core.cli import build_parser  # noqa: E402
from tabletop_core.contract.catalog import game_names, load_game  # noqa: E402


def test_the_cli_reference_lists_each_game_option_once_and_each_command_with_an_example():
    md = tabletop_docs.cli_reference_md()
    commands = tabletop_docs._subparsers(build_parser())
    for command in commands:
        section = md.split(f"### `tabletop {command}`", 1)[1].split("\n### ", 1)[0]
        assert "Example:" in section and f"tabletop {command}" in section.split("Example:", 1)[1], command
    for name in game_names():
        for info in load_game(name).option_infos:
            if info.cli:
                # once in the game's table, never in a command's table
                assert md.count(f"| `{info.flag}`") == len(
                    [n for n in game_names() if any(i.flag == info.flag for i in load_game(n).option_infos)]
                ), info.flag


def test_a_plot_comment_becomes_the_directive():
    class Env:
        def doc2path(self, docname):
            return Path(f"{docname}.md")

    class App:
        env = Env()

    source = ["text\n\n<!-- plot: speed-vs-batch -->\n\n<!--  plot: learning-curves game=koikoi -->\n"]
    tabletop_docs.plots_from_comments(App(), "page", source)
    assert "```{tabletop-plot} speed-vs-batch\n```" in source[0]
    assert "```{tabletop-plot} learning-curves\n:game: koikoi\n```" in source[0]


@pytest.mark.parametrize("name", ["thegame", "exhaust", "koikoi", "exitnow"])
def test_each_game_has_a_version_history_ending_at_its_version(name):
    versions = tabletop_docs.env_versions(name)
    assert versions[-1]["version"] == load_game(name).version
    assert all(v["change"] and "\n" not in v["change"] for v in versions)


def test_the_internals_left_out_of_the_reference_exist():
    import importlib

    for module, names in tabletop_docs.API_INTERNALS.items():
        try:
            mod = importlib.import_module(module)
        except ImportError:  # the trainer's modules without torch
            continue
        for n in names:
            assert hasattr(mod, n), f"{module}.{n}: not there any more; drop it from API_INTERNALS"
    for module in tabletop_docs.INTERNAL_MODULES:
        assert (ROOT / (module.replace(".", "/") + ".py")).exists(), module


def test_a_docstring_that_is_not_rest_is_told_apart():
    assert tabletop_docs.rst_is_clean("A line.\n\n.. versionchanged:: 0.26\n\n   Text.\n")
    assert not tabletop_docs.rst_is_clean("Bots:\n    random  uniform\n            more text\nend")
