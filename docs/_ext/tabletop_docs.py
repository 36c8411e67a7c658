"""Sphinx extension of the tabletop-rl site: the pages that are generated, never written.

On ``config-inited`` (before Sphinx lists the sources) it writes:

- ``docs/games/<game>.md``, one page per game, from the game's single sources: the
  ``GameDef`` (``<package>.GAME``), its ``spec.Options`` declarations, the ``spec`` module
  docstring and ``action_name`` (actions), the observation layout and the ``observe``
  module docstring's piece table (observation), the ``env`` module docstring (rules
  summary, rewards), the figure files and ``docs/env_versions.toml`` (version history);
- ``docs/_generated/cli_reference.md``: the CLI reference (each game's options once, then
  each command's own flags and an example), read from the parser;
- ``docs/api/modules.md``: the autosummary list of every public module of the core and
  the game packages;
- ``docs/_generated/extra/replay_thegame.html``: one replay written by ``tabletop
  replay`` (copied into the HTML output by ``html_extra_path``).

It also adds two directives over the JSON lines of ``docs/figures/*.jsonl`` (read through
``figures.py``), each saying which command made each figure: ``figure-table`` renders a
table, and ``tabletop-plot NAME`` draws a plot with matplotlib (``speed-vs-batch``,
``time-to-quality``, ``learning-curves``). In a MyST page::

    ```{tabletop-plot} speed-vs-batch
    ```

and a comment ``<!-- plot: speed-vs-batch -->`` in a page is read as that block.

It hides the API reference's internals (:data:`INTERNAL_MODULES`, :data:`API_INTERNALS`)
and shows a docstring that is not valid reST as written (logged with ``-v``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from typing import Any

import figures
from docutils import nodes
from docutils.parsers.rst import Directive, directives
from sphinx.util import logging

logger = logging.getLogger(__name__)

DOCS = Path(__file__).resolve().parent.parent
ROOT = DOCS.parent
FIGURES = DOCS / "figures"

GAME_PACKAGES = ("thegame_env", "exhaust_env", "koikoi_env", "exitnow_envs")

# The core's public packages (the layered layout). The old flat module names kept as
# deprecated aliases are left out of the reference on purpose.
CORE_PACKAGES = (
    "tabletop_core.kernel",
    "tabletop_core.contract",
    "tabletop_core.agents",
    "tabletop_core.envs",
    "tabletop_core.tools",
    "tabletop_core.train",
    "tabletop_core.cli",
)
DEPRECATED_ALIASES = {
    "tabletop_core.replay",
    "tabletop_core.single_agent",
    "tabletop_core.policy",
    "tabletop_core.vector",
    "tabletop_core.aec",
}
# Modules of the core that are the machinery of one feature (the trainer's hot loop, the
# CLI's helpers): the reference leaves them out; their docstrings are for the maintainers.
# (The trainer's modules that docs/training.md explains stay in.)
INTERNAL_MODULES = {
    "tabletop_core.tools.jsonutil",
    "tabletop_core.tools.progress",
    "tabletop_core.train.bench",
    "tabletop_core.train.head",
    "tabletop_core.train.loss",
    "tabletop_core.train.muon",
    "tabletop_core.train.sample",
}
# The names a public module exports (``__all__``, for its sibling modules) that are not for
# users: the API reference leaves them out (``:exclude-members:`` of the module's page,
# through the autosummary template ``_templates/autosummary/module.rst``).
API_INTERNALS = {
    "tabletop_core.cli.app": ["add_game_subparsers", "seed_arg", "SEED_RANGE"],
    "tabletop_core.cli.train": [
        "add_bench_flag",
        "bench_train_handler",
        "cmd_bench_train",
        "config_from_args",
        "setup_train",
        "train_handler",
    ],
    "tabletop_core.contract.game": ["observe_env", "bot_count_message"],
    "tabletop_core.contract.hooks": ["overload_inline"],
    "tabletop_core.contract.loops": ["STEP", "STEP_AUTORESET", "RESET", "OBSERVE", "OBSERVE_SEAT", "FRESH"],
    "tabletop_core.contract.search": ["bot_choice", "bot_choice_move", "bot_id_array", "search_action_from"],
    "tabletop_core.envs.vector": [
        "ThreadChooser",
        "first_unmasked",
        "available_cores",
        "MIN_ENVS_PER_THREAD",
    ],
    "tabletop_core.kernel.bits": ["prefetch", "prefetch_row", "stream_row", "unowned"],
    "tabletop_core.kernel.jit": ["column_blocks", "package_of", "shards", "stamp_package"],
    "tabletop_core.tools.bench": ["row_fill_loop"],
    "tabletop_core.tools.play": ["columns", "bot_list_for_others"],
    "tabletop_core.tools.testing": ["at"],
    "tabletop_core.train.config": ["bf16_supported", "cpu_bf16_unit"],
    "tabletop_core.train.model": ["fused_available", "piece_values_at"],
}

# the module of a game package that defines GAME and holds the game's page (its docstring)
GAME_MODULE_NAMES = ("game", "env")


# --- helpers ----------------------------------------------------------------------------------
def game_module(pkg_name: str) -> Any:
    """The module of a game package that defines ``GAME`` (its docstring is the game's page)."""
    for leaf in GAME_MODULE_NAMES:
        try:
            return importlib.import_module(f"{pkg_name}.{leaf}")
        except ModuleNotFoundError:
            continue
    raise ModuleNotFoundError(f"{pkg_name}: none of {GAME_MODULE_NAMES} defines GAME")


def module_docstring(mod: Any) -> str:
    """The docstring of a module as written in its file (a package may extend __doc__)."""
    path = getattr(mod, "__file__", None)
    if path and path.endswith(".py"):
        return ast.get_docstring(ast.parse(Path(path).read_text(encoding="utf-8"))) or ""
    return inspect.getdoc(mod) or ""


def md_cell(value: Any) -> str:
    """A value as the text of a Markdown table cell."""
    if isinstance(value, bool):
        text = str(value)
    elif isinstance(value, int):
        text = f"{value:,}" if abs(value) >= 10000 else str(value)
    elif isinstance(value, float):
        text = f"{value:g}"
    elif isinstance(value, (list, tuple)):
        text = "[" + ", ".join(md_cell(v) for v in value) + "]"
    elif value is None:
        text = "—"
    else:
        text = str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def md_table(header: list[str], rows: list[list[Any]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def rst_is_clean(text: str) -> bool:
    """Whether docutils parses ``text`` as reST without a complaint (Sphinx roles read as
    plain literals for the check)."""
    from docutils.core import publish_doctree

    plain = re.sub(r":[\w:.-]+:`", "`", text)
    # Sphinx's own directives (versionchanged, rubric, ...) need its environment: read as
    # comments for the check (a comment takes its indented block along)
    plain = re.sub(r"(?m)^(\s*)\.\. ([\w:-]+)::", r"\1.. directive \2", plain)
    try:
        doctree = publish_doctree(plain, settings_overrides={"report_level": 5, "halt_level": 5})
    except Exception:  # noqa: BLE001 - a parse this check cannot do is left to Sphinx to report
        return True
    sphinx_only = (
        "Unknown directive type",
        "Unknown interpreted text role",
        "No directive entry",
        "No role entry",
    )
    return not any(
        m["level"] >= 2 and not any(s in m.astext() for s in sphinx_only)
        for m in doctree.findall(nodes.system_message)
    )


OUR_PACKAGES = ("tabletop_core", *GAME_PACKAGES, "tests")


def inherited_from(name: str, obj: Any) -> str | None:
    """``module.Class.method`` of the third-party base class whose docstring a method of ours
    without one inherits, or None."""
    if getattr(obj, "__doc__", "") is not None or "." not in name:
        return None
    owner_name, attr = name.rsplit(".", 1)
    mod_name, _, cls_name = owner_name.rpartition(".")
    try:
        owner = getattr(importlib.import_module(mod_name), cls_name)
    except (ImportError, AttributeError, ValueError):
        return None
    for base in getattr(owner, "__mro__", ())[1:]:
        doc = getattr(base.__dict__.get(attr), "__doc__", None)
        if doc:
            if base.__module__.split(".")[0] in OUR_PACKAGES:
                return None
            return f"{base.__module__}.{base.__qualname__}.{attr}"
    return None


def literal_if_not_rst(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """``autodoc-process-docstring`` (after napoleon): a docstring that is not valid reST
    (a layout written for ``help()``: a table cell broken over lines, an indented block
    under a line of text) is shown as written, in a literal block, and reported as a
    warning, which fails the ``-W`` build: such a docstring is fixed at the source."""
    base = inherited_from(name, obj)
    if base:
        # a method without a docstring of its own shows its third-party base's (Gymnasium,
        # torch) written for another site: point there instead
        lines[:] = [f"The ``{base}`` method (its documentation: Gymnasium or PyTorch).", ""]
        return
    if lines and not rst_is_clean("\n".join(lines)):
        logger.warning(f"docstring of {name} is not valid reST: shown as written; fix it at the source")
        lines[:] = ["::", ""] + ["   " + line for line in lines] + [""]


def rst_block(text: str) -> str:
    """A docstring inside a MyST page: as reST where it is valid reST, else as it is written
    (a docstring laid out for ``help()``, e.g. indented blocks under a heading line)."""
    if rst_is_clean(text):
        return "```{eval-rst}\n" + text.rstrip() + "\n```\n"
    return literal_block(text)


def literal_block(text: str) -> str:
    return "```text\n" + text.rstrip() + "\n```\n"


def read_jsonl(name: str) -> list[dict]:
    """The records of ``docs/figures/NAME`` (:func:`figures.load`)."""
    return figures.load(name)


def write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` unless the file already holds it (Sphinx then rebuilds only what changed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


# --- figure tables ----------------------------------------------------------------------------
def figure_rows(lines: list[dict], table: str) -> tuple[list[str], list[list[Any]], list[str]]:
    """Header, rows and the commands (in order, once each) of one table of a figure file.

    Two shapes of line: ``{"table", "cells": {column: value}, "command"}`` (one line a row),
    or ``{"table", "row", "column", "value", "command"}`` (one line a cell, pivoted; an
    optional ``"target"`` becomes the last column).
    """
    mine = [d for d in lines if d.get("table") == table]
    if not mine:
        raise ValueError(f"no line of table {table!r}")
    commands: list[str] = []
    for d in mine:
        for c in [d["command"]] if isinstance(d.get("command"), str) else d.get("command", []):
            if c not in commands:
                commands.append(c)
    if "cells" in mine[0]:
        header = list(mine[0]["cells"])
        for d in mine[1:]:
            header += [k for k in d["cells"] if k not in header]
        rows = [[d["cells"].get(k) for k in header] for d in mine]
        return header, rows, commands
    columns: list[str] = []
    row_keys: list[str] = []
    cells: dict[tuple[str, str], Any] = {}
    targets: dict[str, str] = {}
    for d in mine:
        if d["column"] not in columns:
            columns.append(d["column"])
        if d["row"] not in row_keys:
            row_keys.append(d["row"])
        cells[d["row"], d["column"]] = d["value"]
        if d.get("target"):
            targets[d["row"]] = d["target"]
    header = ["figure", *columns] + (["target"] if targets else [])
    rows = [
        [r, *[cells.get((r, c), "") for c in columns]] + ([targets.get(r, "")] if targets else [])
        for r in row_keys
    ]
    return header, rows, commands


def figure_table_md(file: str, table: str, caption: str = "") -> str:
    """A figure table as Markdown (for the generated pages)."""
    lines = read_jsonl(file)
    header, rows, commands = figure_rows(lines, table)
    notes = [d["note"] for d in lines if d.get("table") == table and d.get("note")]
    out = (f"{caption}\n\n" if caption else "") + "".join(f"{n}\n\n" for n in notes)
    out += md_table(header, rows)
    out += f"\nSource: `docs/figures/{file}` (table `{table}`), made by:\n\n"
    out += "```bash\n" + "\n".join(commands) + "\n```\n"
    return out


class FigureTable(Directive):
    """``figure-table FILE`` with ``:table: ID``: a table of ``docs/figures/FILE`` and the
    commands that made its figures."""

    required_arguments = 1
    option_spec = {"table": directives.unchanged_required, "caption": directives.unchanged}
    has_content = False

    def run(self) -> list[nodes.Node]:
        file, table = self.arguments[0], self.options["table"]
        env = self.state.document.settings.env
        env.note_dependency(str(FIGURES / file))
        try:
            header, rows, commands = figure_rows(read_jsonl(file), table)
        except (OSError, ValueError, KeyError) as exc:
            return [
                self.state.document.reporter.warning(f"figure-table {file} {table}: {exc}", line=self.lineno)
            ]
        tbl = nodes.table(classes=["figure-table"])
        if self.options.get("caption"):
            tbl += nodes.title(text=self.options["caption"])
        tgroup = nodes.tgroup(cols=len(header))
        tbl += tgroup
        for _ in header:
            tgroup += nodes.colspec(colwidth=1)

        def row_node(values: list[Any]) -> nodes.row:
            row = nodes.row()
            for v in values:
                entry = nodes.entry()
                entry += nodes.paragraph(text=md_cell(v).replace("\\|", "|"))
                row += entry
            return row

        thead = nodes.thead()
        thead += row_node(header)
        tbody = nodes.tbody()
        for r in rows:
            tbody += row_node(r)
        tgroup += thead
        tgroup += tbody
        para = nodes.paragraph()
        para += nodes.Text("Source: ")
        para += nodes.literal(text=f"docs/figures/{file}")
        para += nodes.Text(f" (table {table}), made by:")
        cmd = nodes.literal_block(text="\n".join(commands), language="bash")
        return [tbl, para, cmd]


# --- plots drawn from the figure files -------------------------------------------------------
class TabletopPlot(Directive):
    """``tabletop-plot NAME`` (``speed-vs-batch``, ``time-to-quality``, ``learning-curves``;
    option ``:game:`` for the learning curves, default ``thegame``): draws the plot with
    matplotlib from ``docs/figures/*.jsonl`` (and the curve CSVs) into
    ``docs/_generated/plots/`` and shows it as a figure whose caption names the files and
    the commands that made them. MyST: a fenced block ```` ```{tabletop-plot} speed-vs-batch ````."""

    required_arguments = 1
    option_spec = {"game": directives.unchanged}
    has_content = False

    def run(self) -> list[nodes.Node]:
        name, game = self.arguments[0], self.options.get("game", "thegame")
        env = self.state.document.settings.env
        stem = name if name != "learning-curves" or game == "thegame" else f"{name}-{game}"
        try:
            data = figures.plot_data(name, game)
            figures.draw(data, DOCS / "_generated" / "plots" / f"{stem}.png")
        except (OSError, ValueError, LookupError, KeyError, ImportError) as exc:
            return [self.state.document.reporter.warning(f"tabletop-plot {name}: {exc}", line=self.lineno)]
        for source in data.sources:
            env.note_dependency(str(ROOT / source.split(" ")[0]))
        fig = nodes.figure(classes=["tabletop-plot"])
        fig += nodes.image(uri=f"/_generated/plots/{stem}.png", alt=data.title)
        caption = nodes.caption()
        caption += nodes.Text(f"{data.note + ' ' if data.note else ''}Source: ")
        for k, source in enumerate(data.sources):
            if k:
                caption += nodes.Text(", ")
            caption += nodes.literal(text=source)
        caption += nodes.Text("; made by the commands below.")
        fig += caption
        return [fig, nodes.literal_block(text="\n".join(data.commands), language="bash")]


PLOT_COMMENT = re.compile(r"<!--\s*plot:\s*([\w-]+)(?:\s+game=(\w+))?\s*-->")


def plots_from_comments(app: Any, docname: str, source: list[str]) -> None:
    """``source-read``: a comment ``<!-- plot: NAME -->`` (or ``<!-- plot: learning-curves
    game=koikoi -->``) in a Markdown page becomes the ``tabletop-plot`` directive."""
    if PLOT_COMMENT.search(source[0]) and app.env.doc2path(docname).suffix == ".md":
        source[0] = PLOT_COMMENT.sub(
            lambda m: (
                f"```{{tabletop-plot}} {m.group(1)}\n"
                + (f":game: {m.group(2)}\n" if m.group(2) else "")
                + "```"
            ),
            source[0],
        )


# --- one page per game ----------------------------------------------------------------------
PIECE_LINE = re.compile(r"^    (\w+)\s+(\([^)]*\))\s*(.*)$")
HIGH_TOKEN = re.compile(r"^(flag|1-hot|card|max_rounds|MAX_YAKU|15/64|[\d./]+(?:,\s*\d+)?)(?:\s+|$)(.*)$")


def piece_meanings(doc: str) -> dict[str, str]:
    """``{piece: meaning}`` from the table of an ``observe`` module docstring (the lines
    ``name (shape) high meaning`` of its literal block; deeper-indented lines continue
    the meaning)."""
    out: dict[str, str] = {}
    last = None
    in_table = False
    for line in doc.splitlines():
        if re.match(r"^\s+piece\s+shape\s+high\s+meaning", line):
            in_table = True
            continue
        if not in_table:
            continue
        if not line.strip():
            if out:
                break
            continue
        m = PIECE_LINE.match(line)
        if m:
            name, _shape, rest = m.groups()
            h = HIGH_TOKEN.match(rest)
            out[name] = (h.group(2) if h else rest).strip()
            last = name
        elif last is not None and line.startswith("     "):
            out[last] += " " + line.strip()
    return out


def action_ranges(spec: Any, game: Any) -> list[list[Any]]:
    """Rows ``[ids, constant, count, first action's name, last action's name]``, one per
    range of the ``Action ids`` block of the spec docstring (a line starting with a
    constant of the spec module opens a range; the range runs to the next one)."""
    doc = module_docstring(spec)
    block = doc.split("Action ids", 1)[1] if "Action ids" in doc else ""
    starts: dict[int, str] = {}
    started = False
    for line in block.splitlines()[1:]:
        if not line.strip():
            if started:
                break
            continue
        if not line.startswith("    "):
            continue
        started = True
        m = re.match(r"^\s+([A-Z][A-Z0-9_]*)\b", line)
        if m and isinstance(getattr(spec, m.group(1), None), int):
            starts.setdefault(int(getattr(spec, m.group(1))), m.group(1))
    if not starts:
        logger.warning(f"{spec.__name__}: no 'Action ids' block naming spec constants in its docstring")
        return []
    options = game.make_options()
    state = game.new_state(1, options)
    keys = sorted(starts)
    rows = []
    for k, start in enumerate(keys):
        end = (keys[k + 1] if k + 1 < len(keys) else game.num_actions) - 1
        ids = f"{start}" if start == end else f"{start}–{end}"
        first = game.action_name(start, state)
        last = game.action_name(end, state) if end != start else ""
        rows.append([ids, f"`{starts[start]}`", end - start + 1, first, last])
    return rows


def fmt_high(high: Any) -> str:
    import numpy as np

    if isinstance(high, np.ndarray):
        values = sorted({float(v) for v in high.ravel()})
        return "per entry: " + ", ".join(f"{v:g}" for v in values[:4]) + (" …" if len(values) > 4 else "")
    return f"{float(high):g}"


def env_versions(name: str) -> list[dict[str, Any]]:
    """The versions of game ``name`` in ``docs/env_versions.toml``, oldest first (each with
    ``version`` and a one-line ``change``).

    Raises:
        KeyError: the game has no table in the file.
    """
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the backport
        import tomli as tomllib

    data = tomllib.loads((DOCS / "env_versions.toml").read_text(encoding="utf-8"))
    return data[name]["versions"]


def game_page(pkg_name: str) -> tuple[str, str]:
    """``(game name, Markdown page)`` of one game package."""
    pkg = importlib.import_module(pkg_name)
    game = pkg.GAME
    spec = importlib.import_module(f"{pkg_name}.spec")
    observe = importlib.import_module(f"{pkg_name}.observe")
    # the game's own page: the docstring of the module that defines GAME (game.py)
    env_mod = game_module(pkg_name)
    env_doc = module_docstring(env_mod)
    title = env_doc.split("\n", 1)[0].split(" — ")[0].strip()
    options = game.make_options()
    layout = game.observation_layout(options)
    agents = game.agents(options)
    name = game.name
    env_id = getattr(pkg, "ENV_ID", None) or f"tabletop/{name}-v{game.version}"

    md = [f"# {title}\n"]
    md.append(f"*This page is generated from `{pkg_name}` when the site is built.*\n")
    md.append(f"![{title}](../picture_{name}.png)\n")
    md.append(f"{game.description[:1].upper()}{game.description[1:]}.\n")
    bots = ", ".join(f"`{b}`" for b in game.bot_choices) + ", `baseline` (trained)"
    facts = [
        ["Import", f"`from {pkg_name} import env`"],
        ["Environment id", f"`{env_id}` (`{game.env_id}`)"],
        ["Actions", "Discrete, masked (`action_mask`, int8)"],
        ["Parallel API", "no (AEC; the vector env steps a batch of games)"],
        ["Manual control", f"yes: `tabletop play {name}`"],
        ["Agents", ", ".join(f"`{a}`" for a in agents) + " (default options)"],
        ["Number of agents", str(len(agents))],
        ["Action shape", "`(1,)`"],
        ["Action values", f"`Discrete({game.num_actions})`"],
        ["Observation shape", f"`({layout.dim},)` (default options)"],
        ["Observation values", "`[0, 1]`, float32"],
        ["Reward range of a step", f"{game.reward_range[0]:g} to {game.reward_range[1]:g}"],
        ["Longest episode (agent steps)", f"{game.max_episode_steps:,}"],
        ["Cooperative (one shared reward)", "yes" if game.cooperative else "no"],
        ["Bots", bots],
        ["Picture size (`svg`, `rgb_array`)", f"{game.svg_size[0]}×{game.svg_size[1]}"],
        ["Rules", f"[docs/rules/{name}.md](../rules/{name}.md)"],
    ]
    md.append(md_table(["", ""], facts))

    sig_env = inspect.signature(pkg.env)
    sig_vec = inspect.signature(pkg.vector_env)
    md.append("## Usage\n")
    md.append(
        "```python\n"
        f"from {pkg_name} import env as make_env\n\n"
        "env = make_env()\n"
        "env.reset(seed=42)\n"
        "for agent in env.agent_iter():\n"
        "    observation, reward, termination, truncation, info = env.last()\n"
        "    if termination or truncation:\n"
        "        action = None\n"
        "    else:\n"
        '        mask = observation["action_mask"]\n'
        "        action = env.action_space(agent).sample(mask)  # a policy goes here\n"
        "    env.step(action)\n"
        "env.close()\n"
        "```\n"
    )
    md.append("## Making it\n")
    kwargs = ", ".join(f"{i.name}={i.default!r}" for i in game.option_infos if i.cli)
    md.append(
        "```python\n"
        f"import {pkg_name}\n\n"
        f"env = {pkg_name}.env({kwargs})  # PettingZoo AEC, with the standard checks\n"
        f"raw = {pkg_name}.raw_env()  # the unwrapped env\n"
        f"venv = {pkg_name}.vector_env(4096, seed=0)  # self-play vector env, batch first\n"
        "```\n"
    )
    md.append(
        f"Signatures: `{pkg_name}.env{sig_env}` and `{pkg_name}.vector_env{sig_vec}` "
        f"(API: {{py:mod}}`{pkg_name}`). The same options are command-line flags of every "
        f"`tabletop COMMAND {name}` ([CLI reference](../cli.md)).\n"
    )

    md.append("## Options\n")
    md.append(f"Declared once, as the fields of `{pkg_name}.spec.Options`:\n")
    rows = []
    for info in game.option_infos:
        flag = f"`{info.flag}`" if info.cli else "(Python only)"
        if info.cli and info.aliases:
            flag += " (" + ", ".join(f"`{a}`" for a in info.aliases) + ")"
        rows.append(
            [f"`{info.name}`", flag, f"`{info.default!r}`", info.allowed if info.cli else "—", info.help]
        )
    md.append(md_table(["option", "flag", "default", "allowed", "meaning"], rows))

    md.append("## Actions\n")
    md.append(
        f"`Discrete({game.num_actions})`; the mask (`action_mask`) says which are legal. "
        f"The layout, from {{py:mod}}`{pkg_name}.spec`:\n"
    )
    md.append(rst_block(module_docstring(spec)))
    ranges = action_ranges(spec, game)
    if ranges:
        md.append("Action ranges, with the names `action_name` gives the first and last id of each:\n")
        md.append(md_table(["ids", "starts at", "count", "first", "last"], ranges))

    md.append("## Observation\n")
    md.append(
        f"`Box(0, 1, ({layout.dim},), float32)` with the default options, from the acting (or "
        "observing) seat's view; the AEC env returns it as `obs['observation']` beside "
        "`obs['action_mask']`. Each piece holds `value / high` (`high` is the largest value "
        f"in game units); `{pkg_name}.decode_observation(obs)` returns the pieces in game "
        f"units. The layout is `GAME.observation_layout(options)`; the meanings come from "
        f"{{py:mod}}`{pkg_name}.observe`.\n"
    )
    meanings = piece_meanings(module_docstring(observe))
    rows = []
    for piece in layout.pieces:
        off, size = layout.offset[piece.name], layout.size[piece.name]
        index = f"{off}" if size == 1 else f"{off}–{off + size - 1}"
        meaning = meanings.get(piece.name)
        if meaning is None:
            logger.warning(f"{pkg_name}.observe: piece {piece.name!r} is not in the docstring's piece table")
            meaning = ""
        rows.append([f"`{piece.name}`", str(piece.shape), index, fmt_high(piece.high), piece.kind, meaning])
    md.append(md_table(["piece", "shape", "index", "high (scale = 1/high)", "kind", "meaning"], rows))

    md.append("## Rewards and termination\n")
    md.append(
        "How the rules pay rewards: the game's own page below and "
        f"[the rules](../rules/{name}.md). "
        f"A step's reward lies in [{game.reward_range[0]:g}, {game.reward_range[1]:g}]. An "
        "episode ends by termination when the rules end the game; no episode is longer "
        f"than {game.max_episode_steps:,} agent steps. The vector env returns one reward "
        "column per seat, `rewards (B, num_seats)`, and resets an ended env in the same "
        "step ([Vector env](../vector-env.md)).\n"
    )

    md.append("## Bots and baseline\n")
    search = (
        ", and `search` (determinized rollouts over the scripted bots, [Search](../search-bot.md))"
        if game.has_search
        else ""
    )
    md.append(
        f"Scripted bots (kernels, {{py:mod}}`{pkg_name}.bots`): "
        + ", ".join(f"`{b}`" for b in game.bot_names)
        + f"{search}. The trained policy `baseline` ships with the package "
        f"(`{pkg_name}.baseline_policy()`; [Baselines](../baselines.md)). Bot match:\n"
    )
    md.append(figure_table_md("matches.jsonl", name))
    if any(d.get("table") == f"{name}_solo" for d in read_jsonl("matches.jsonl")):
        md.append(figure_table_md("matches.jsonl", f"{name}_solo"))
    md.append(figure_table_md("baselines.jsonl", f"baseline_{name}", "The trained baseline:"))

    md.append("## The environment's own page\n")
    md.append(f"The docstring of {{py:mod}}`{env_mod.__name__}` (also `help({pkg_name})`):\n")
    md.append(rst_block(env_doc))

    md.append("## Version history\n")
    md.append(
        f"The environment's version goes up whenever what an agent sees changes: its "
        f"observations, actions, rewards or rules (`docs/env_versions.toml`, pinned by "
        f"`tests/test_env_versions.py`). Current: `{env_id}`.\n"
    )
    for entry in env_versions(name):
        md.append(f"- **v{entry['version']}**: {entry['change']}")
    md.append("")
    return name, "\n".join(md)


# --- API module list --------------------------------------------------------------------------
def public_modules(pkg_name: str, skip_submodules: bool = False) -> list[str]:
    """The package and its public submodules, recursively (names starting with ``_`` and
    the deprecated aliases left out)."""
    try:
        pkg = importlib.import_module(pkg_name)
    except ImportError as exc:
        logger.warning(f"API reference: cannot import {pkg_name}: {exc}")
        return []
    out = [pkg_name]
    if skip_submodules or not hasattr(pkg, "__path__"):
        return out
    for info in pkgutil.iter_modules(pkg.__path__, pkg_name + "."):
        leaf = info.name.rsplit(".", 1)[1]
        if leaf.startswith("_") or info.name in DEPRECATED_ALIASES | INTERNAL_MODULES or leaf == "__main__":
            continue
        out += public_modules(info.name) if info.ispkg else [info.name]
    return out


def api_modules_page() -> tuple[str, list[str]]:
    """The API module list page and the modules it lists."""
    md = ["# Modules\n"]
    md.append("Every public module, generated from its docstrings.\n")
    listed: list[str] = []
    groups = [("Game packages", [(p, True) for p in GAME_PACKAGES])]
    groups.append(("Game submodules", [(p, False) for p in GAME_PACKAGES]))
    groups.append(("Core (`tabletop_core`)", [(p, False) for p in CORE_PACKAGES]))
    for title, pkgs in groups:
        names: list[str] = []
        for p, flat in pkgs:
            names += public_modules(p, skip_submodules=flat)[1 if title == "Game submodules" else 0 :]
        listed += names
        md.append(f"## {title}\n")
        md.append(
            "```{eval-rst}\n.. autosummary::\n   :toctree: generated\n\n"
            + "\n".join(f"   {n}" for n in names)
            + "\n```\n"
        )
    return "\n".join(md), listed


# --- the CLI reference -------------------------------------------------------------------------
# One example a command, run as written (a short one where the real use is long).
CLI_EXAMPLES = {
    "list": "tabletop list",
    "match": "tabletop match thegame --players 3 --bots strong,strong,strong --games 10000 --seed 0",
    "bench": "tabletop bench thegame --quick",
    "play": "tabletop play thegame --players 3 --seat 1 --bots strong,greedy",
    "render": "tabletop render koikoi --view player_0 --steps 20 --out table.svg",
    "replay": "tabletop replay koikoi --bots strong --seed 3 --out game.html",
    "soak": "tabletop soak thegame --games 100000",
    "train": "tabletop train thegame --players 2 --minutes 5 --seed 0 --out runs/thegame2p",
}


def _subparsers(parser: Any) -> dict[str, Any]:
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _subparser_help(parser: Any) -> dict[str, str]:
    """``{name: help}`` of a parser's sub-commands."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest: a.help or "" for a in action._choices_actions}
    return {}


def _flag_rows(parser: Any, actions: list[Any]) -> list[list[str]]:
    """``[flags, default, help]`` rows of argparse actions (``%(default)s`` expanded)."""
    formatter = parser._get_formatter()
    rows = []
    for a in actions:
        flags = ", ".join(f"`{s}`" for s in a.option_strings) or f"`{a.dest}`"
        if isinstance(a.metavar, tuple):
            flags += " " + " ".join(f"`{m}`" for m in a.metavar)
        elif a.metavar or a.choices or a.nargs != 0:
            flags += " " + (
                f"`{a.metavar}`"
                if a.metavar
                else f"`{{{','.join(map(str, a.choices))}}}`"
                if a.choices
                else f"`{a.dest.upper()}`"
            )
        default = "" if a.default in (None, False) or a.nargs == 0 else f"`{a.default}`"
        rows.append([flags, default, formatter._expand_help(a) if a.help else ""])
    return rows


def _own_actions(game_parser: Any, game: Any) -> list[Any]:
    """The actions of ``tabletop COMMAND GAME`` that are the command's own (not ``-h``, not a
    game option)."""
    option_flags = {i.flag for i in game.option_infos if i.cli}
    for i in game.option_infos:
        option_flags.update(i.aliases or ())
    return [
        a
        for a in game_parser._actions
        if a.dest != "help" and not (set(a.option_strings) & option_flags) and a.dest not in ("game",)
    ]


def cli_reference_md() -> str:
    """The CLI reference: the commands, each game's options once, then each command's own
    flags with an example, all read from :func:`tabletop_core.cli.build_parser`."""
    from tabletop_core.cli import build_parser
    from tabletop_core.contract.catalog import load_game

    parser = build_parser()
    commands = _subparsers(parser)
    helps = _subparser_help(parser)
    md = ["## Commands\n"]
    md.append(
        md_table(
            ["command", "what it does", "example"],
            [[f"[`{c}`](#tabletop-{c})", helps.get(c, ""), f"`{CLI_EXAMPLES.get(c, '')}`"] for c in commands],
        )
    )
    game_names = sorted({g for p in commands.values() for g in _subparsers(p)})
    md.append("## Game options\n")
    md.append(
        "Every command but `list` takes a game and that game's options, the same flags in every "
        "command (declared once, in the game's `spec.Options`; [the game pages](environments.md) "
        "list them with their meaning). `tabletop COMMAND GAME --help` prints them too.\n"
    )
    for name in game_names:
        game = load_game(name)
        md.append(f"### {name}\n")
        rows = [
            [
                f"`{i.flag}`" + "".join(f", `{a}`" for a in i.aliases or ()),
                f"`{i.default!r}`",
                i.allowed,
                i.help,
            ]
            for i in game.option_infos
            if i.cli
        ]
        md.append(md_table(["flag", "default", "allowed", "meaning"], rows))
    md.append("## Command flags\n")
    md.append("The flags of each command itself, the same for every game.\n")
    for command, cparser in commands.items():
        md.append(f"### `tabletop {command}`\n")
        md.append(f"{(cparser.description or helps.get(command, '')).rstrip('.')}.\n")
        games = _subparsers(cparser)
        if games:
            # the flags are the command's; their help names the bots of the game shown
            first = "thegame" if "thegame" in games else next(iter(games))
            gp = games[first]
            own = _own_actions(gp, load_game(first))
            differs = [
                g
                for g in games
                if [a.dest for a in _own_actions(games[g], load_game(g))] != [a.dest for a in own]
            ]
            md.append(f"Usage: `tabletop {command} GAME [game options] [flags]`\n")
            if differs:
                md.append(f"(The flags of {', '.join(differs)} differ: `tabletop {command} GAME --help`.)\n")
            if any(a.dest == "bots" for a in own):
                md.append(f"Shown for `{first}`; each game's bots are on its page and in `tabletop list`.\n")
            md.append(md_table(["flag", "default", "meaning"], _flag_rows(gp, own)))
        else:
            own = [a for a in cparser._actions if a.dest != "help"]
            md.append(f"Usage: `tabletop {command} [flags]`\n")
            if own:
                md.append(md_table(["flag", "default", "meaning"], _flag_rows(cparser, own)))
        md.append(
            "Example:\n\n```bash\n" + CLI_EXAMPLES.get(command, f"tabletop {command} --help") + "\n```\n"
        )
    return "\n".join(md)


# --- the replay ---------------------------------------------------------------------------------
def write_replay(out_dir: Path) -> None:
    path = out_dir / "replay_thegame.html"
    if path.exists():
        return
    out_dir.mkdir(parents=True, exist_ok=True)
    from tabletop_core.cli import main

    status = main(
        ["replay", "thegame", "--players", "2", "--bots", "strong", "--seed", "1", "--out", str(path)]
    )
    if status != 0 or not path.exists():
        logger.warning(f"tabletop replay failed ({status}); the replay page has no replay")


# --- Sphinx hooks ---------------------------------------------------------------------------
def generate(app: Any, config: Any = None) -> None:
    for pkg in GAME_PACKAGES:
        name, text = game_page(pkg)
        write_if_changed(DOCS / "games" / f"{name}.md", text)
    page, listed = api_modules_page()
    write_if_changed(DOCS / "api" / "modules.md", page)
    # a module taken out of the reference leaves its page of an earlier build behind
    for stale in (DOCS / "api" / "generated").glob("*.rst"):
        if stale.stem not in listed:
            stale.unlink()
    write_if_changed(DOCS / "_generated" / "cli_reference.md", cli_reference_md())
    write_replay(DOCS / "_generated" / "extra")


def setup(app: Any) -> dict:
    app.add_directive("figure-table", FigureTable)
    app.add_directive("tabletop-plot", TabletopPlot)
    app.connect("source-read", plots_from_comments)
    app.setup_extension("sphinx.ext.napoleon")  # napoleon's hook runs first (priority 500)
    app.connect("autodoc-process-docstring", literal_if_not_rst, priority=600)
    # on config-inited: the generated pages must exist before Sphinx lists the sources
    # (autosummary reads the module list from that listing on a clean checkout)
    app.connect("config-inited", generate, priority=400)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
