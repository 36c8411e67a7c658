"""Sphinx extension of the tabletop-rl site: the pages that are generated, never written.

On ``config-inited`` (before Sphinx lists the sources) it writes:

- ``docs/games/<game>.md``, one page per game, from the game's single sources: the
  ``GameDef`` (``<package>.GAME``), its ``spec.Options`` declarations, the ``spec`` module
  docstring and ``action_name`` (actions), the observation layout and the ``observe``
  module docstring's piece table (observation), the ``env`` module docstring (rules
  summary, rewards), the figure files and ``CHANGELOG.md``;
- ``docs/api/modules.md``: the autosummary list of every public module of the core and
  the game packages;
- ``docs/_generated/extra/replay_thegame.html``: one replay written by ``tabletop
  replay`` (copied into the HTML output by ``html_extra_path``).

It also adds the ``figure-table`` directive, which renders a table from the JSON lines of
``docs/figures/*.jsonl`` and says which command made each figure.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
import re
from pathlib import Path
from typing import Any

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
# the module of a game package that defines GAME and holds the game's page (its docstring)
GAME_MODULE_NAMES = ("game", "env")

# the words that name a game in CHANGELOG.md entries
GAME_WORDS = {
    "thegame": ("The Game",),
    "exhaust": ("Exhaust",),
    "koikoi": ("Koikoi",),
    "exitnow": ("Exit Now",),
}


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
    # Sphinx's own directives need its environment: checked as docutils containers
    plain = re.sub(r"(?m)^(\s*)\.\. [\w:-]+::", r"\1.. container::", plain)
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


def literal_if_not_rst(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """``autodoc-process-docstring`` (after napoleon): a docstring that is not valid reST
    (a layout written for ``help()``: a table cell broken over lines, an indented block
    under a line of text) is shown as written, in a literal block, instead of failing the
    ``-W`` build. Each one is logged (``-v``) so that it can be fixed at the source."""
    if lines and not rst_is_clean("\n".join(lines)):
        logger.info(f"docstring of {name} is not valid reST: shown as written")
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
    path = FIGURES / name
    lines = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: {exc}") from exc
    return lines


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


def reward_paragraphs(doc: str) -> list[str]:
    """The paragraphs of an env docstring that say how rewards are paid or how the episode
    ends."""
    paras = [p.strip() for p in re.split(r"\n\s*\n", doc) if p.strip()]
    keep = re.compile(r"\b(Rewards?|reward=|terminat|truncat)", re.IGNORECASE)
    return [p for p in paras if keep.search(p) and not p.lstrip().startswith(("Observation", "Actions"))]


def changelog_entries(words: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(section, entry)`` for each top-level bullet of CHANGELOG.md naming the game."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    out = []
    release, sub = "", ""
    entry: list[str] = []

    def flush() -> None:
        if entry:
            body = "\n".join(entry)
            if any(w in body for w in words):
                out.append((f"{release} · {sub}" if sub else release, body))
        entry.clear()

    for line in text.splitlines():
        if line.startswith("## Benchmark history"):
            flush()
            break  # measurements, not changes of the game
        if line.startswith("## "):
            flush()
            release, sub = line[3:].strip(), ""
        elif line.startswith("### "):
            flush()
            sub = line[4:].strip()
        elif line.startswith("- "):
            flush()
            entry.append(line)
        elif line.startswith("  ") and entry:
            entry.append(line)
        else:
            flush()
    flush()
    return out


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
    bots = ", ".join(f"`{b}`" for b in game.bot_names) + ", and the trained `baseline`"
    facts = [
        ["package", f"`{pkg_name}`"],
        ["PettingZoo id", f"`{env_id}` (`{game.env_id}`)"],
        ["agents (default options)", ", ".join(f"`{a}`" for a in agents)],
        ["actions", f"`Discrete({game.num_actions})`, masked (`action_mask`, int8)"],
        ["observation (default options)", f"`Box(0, 1, ({layout.dim},), float32)`"],
        ["reward range of a step", f"{game.reward_range[0]:g} to {game.reward_range[1]:g}"],
        ["longest episode (agent steps)", f"{game.max_episode_steps:,}"],
        ["cooperative (one shared reward)", "yes" if game.cooperative else "no"],
        ["bots", bots],
        ["picture size (`svg`, `rgb_array`)", f"{game.svg_size[0]}×{game.svg_size[1]}"],
        ["rules", f"[docs/rules/{name}.md](../rules/{name}.md)"],
    ]
    md.append(md_table(["", ""], facts))

    sig_env = inspect.signature(pkg.env)
    sig_vec = inspect.signature(pkg.vector_env)
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
    for p in reward_paragraphs(env_doc):
        md.append(rst_block(p))
    md.append(
        f"A step's reward lies in [{game.reward_range[0]:g}, {game.reward_range[1]:g}]. An "
        "episode ends by termination when the rules end the game; no episode is longer "
        f"than {game.max_episode_steps:,} agent steps. The vector env returns one reward "
        "column per seat, `rewards (B, num_seats)`, and resets an ended env in the same "
        "step ([Vector env](../vector-env.md)).\n"
    )

    md.append("## Bots and baseline\n")
    md.append(
        f"Scripted bots (kernels, {{py:mod}}`{pkg_name}.bots`): "
        + ", ".join(f"`{b}`" for b in game.bot_names)
        + f". The trained policy `baseline` ships with the package "
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
        f"Environment version `v{game.version}` (`{game.env_id}`). The entries of "
        f"`CHANGELOG.md` that name {title.split(' (')[0]}:\n"
    )
    entries = changelog_entries(GAME_WORDS.get(name, (title,)))
    section = None
    for sec, body in entries:
        if sec != section:
            md.append(f"\n**{sec}**\n")
            section = sec
        md.append(body + "\n")
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
        if leaf.startswith("_") or info.name in DEPRECATED_ALIASES or leaf == "__main__":
            continue
        out += public_modules(info.name) if info.ispkg else [info.name]
    return out


def api_modules_page() -> str:
    md = ["# Modules\n"]
    md.append("Every public module, generated from its docstrings.\n")
    groups = [("Game packages", [(p, True) for p in GAME_PACKAGES])]
    groups.append(("Game submodules", [(p, False) for p in GAME_PACKAGES]))
    groups.append(("Core (`tabletop_core`)", [(p, False) for p in CORE_PACKAGES]))
    for title, pkgs in groups:
        names: list[str] = []
        for p, flat in pkgs:
            names += public_modules(p, skip_submodules=flat)[1 if title == "Game submodules" else 0 :]
        md.append(f"## {title}\n")
        md.append(
            "```{eval-rst}\n.. autosummary::\n   :toctree: generated\n\n"
            + "\n".join(f"   {n}" for n in names)
            + "\n```\n"
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
    write_if_changed(DOCS / "api" / "modules.md", api_modules_page())
    write_replay(DOCS / "_generated" / "extra")


def setup(app: Any) -> dict:
    app.add_directive("figure-table", FigureTable)
    app.setup_extension("sphinx.ext.napoleon")  # napoleon's hook runs first (priority 500)
    app.connect("autodoc-process-docstring", literal_if_not_rst, priority=600)
    # on config-inited: the generated pages must exist before Sphinx lists the sources
    # (autosummary reads the module list from that listing on a clean checkout)
    app.connect("config-inited", generate, priority=400)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
