"""Every code snippet of the documentation runs: the README's and ``docs/**/*.md``'s.

Each fenced ```` ```python ```` block runs on its own, in a fresh Python process, from an
empty temporary directory, with ``PYTHONPATH`` set to the repository (so the checkout is
what is imported), under a timeout. A ```` ```bash ```` or ```` ```console ```` block's
``tabletop ...`` and ``python ...`` lines run too, each as one command, from a temporary
directory. Both are ``slow`` (each process starts numba; a cold cache compiles).

Lines that train, benchmark, wait for a player, seat the search bot, run an RL framework
example, read a file a run makes, or hold a placeholder (``GAME``) are left out on their
own (:data:`NOT_RUN`).
Any other block that cannot run as a test takes a marker comment on the line just before
its fence, with the reason::

    <!-- skip-test: trains for 20 minutes -->
    ```bash
    tabletop train thegame --minutes 20
    ```

The generated pages (``docs/games``, ``docs/api``, ``docs/_generated``) are not read.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ("docs/_build", "docs/_generated", "docs/games", "docs/api/generated")
TIMEOUT_S = 300
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w-]*)\s*$")
SKIP = re.compile(r"<!--\s*skip-test\s*:?\s*(?P<reason>.*?)\s*-->")
# the shell lines a bash block may run: our CLI and Python scripts
RUNNABLE = re.compile(r"^(tabletop|python|python3)\s")
# shell lines that set up, not run: an install, a venv, a directory
SETUP = re.compile(r"^(pip|python3? -m (pip|venv)|\.|source|cd|mkdir|export|deactivate)\b")
# commands that are not cheap or not self-contained, left out without a marker (the reason)
NOT_RUN = [
    (re.compile(r"^tabletop (train|bench|play)\b"), "trains, benchmarks for minutes, or waits for a player"),
    (re.compile(r"--bots \S*search"), "the search bot: about 20 ms a decision, minutes a match"),
    (
        re.compile(r"^python3? (examples/|-m pytest|-m sphinx|-m build)"),
        "an RL framework example or a tool run",
    ),
    (re.compile(r"\bruns/|\.npz\b"), "reads a file a run makes"),
    (re.compile(r"\b[A-Z]{3,}\b"), "a placeholder (GAME, COMMAND) in the line"),
]


@dataclass
class Snippet:
    """One fenced block: where it is, its language, its text, and a skip reason or None."""

    path: str
    line: int
    lang: str
    code: str
    skip: str | None

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"


def doc_files() -> list[Path]:
    """README.md and every Markdown page of docs/ a person wrote."""
    pages = sorted(
        p for p in (ROOT / "docs").rglob("*.md") if not str(p.relative_to(ROOT)).startswith(GENERATED)
    )
    return [ROOT / "README.md", *pages]


def snippets(path: Path) -> list[Snippet]:
    """The fenced blocks of a Markdown file (nested fences skipped with their parent)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence = m.group("fence")
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            j += 1
        before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        skip = SKIP.search(before)
        indent = len(m.group("indent"))
        code = "\n".join(line[indent:] for line in lines[i + 1 : j])
        rel = str(path.relative_to(ROOT))
        out.append(
            Snippet(rel, i + 1, m.group("lang"), code, (skip.group("reason") or "marked") if skip else None)
        )
        i = j + 1
    return out


def all_snippets(langs: tuple[str, ...]) -> list[Snippet]:
    return [s for p in doc_files() for s in snippets(p) if s.lang in langs]


def shell_commands(code: str) -> list[str]:
    """The ``tabletop``/``python`` command lines of a shell block (prompts and comments
    dropped, continuation lines joined)."""
    joined = re.sub(r"\s*\\\n\s*", " ", code)
    out = []
    for line in joined.split("\n"):
        line = line.strip()
        line = line[2:] if line.startswith("$ ") else line
        line = line.split(" #", 1)[0].strip()
        if RUNNABLE.match(line) and not SETUP.match(line):
            out.append(line)
    return out


def not_run(command: str) -> str | None:
    """Why a shell line is left out of the test, or None to run it."""
    return next((why for pattern, why in NOT_RUN if pattern.search(command)), None)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("MPLBACKEND", "Agg")
    return env


def _run(args: list[str], cwd: Path, what: str) -> None:
    try:
        done = subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(
            f"{what}: no end within {TIMEOUT_S} s (mark it <!-- skip-test: why --> if it is meant to run long)"
        )
    assert done.returncode == 0, (
        f"{what} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )


PYTHON = [pytest.param(s, id=s.id) for s in all_snippets(("python",))]
SHELL = [s for s in all_snippets(("bash", "console", "shell", "sh")) if shell_commands(s.code)]


@pytest.mark.slow
@pytest.mark.parametrize("snippet", PYTHON)
def test_python_snippet_runs(snippet: Snippet, tmp_path: Path):
    if snippet.skip:
        pytest.skip(snippet.skip)
    script = tmp_path / "snippet.py"
    script.write_text(snippet.code + "\n", encoding="utf-8")
    _run([sys.executable, str(script)], tmp_path, f"the python block at {snippet.id}")


@pytest.mark.slow
@pytest.mark.parametrize("snippet", SHELL, ids=[s.id for s in SHELL])
def test_shell_snippet_runs(snippet: Snippet, tmp_path: Path):
    if snippet.skip:
        pytest.skip(snippet.skip)
    commands = [c for c in shell_commands(snippet.code) if not not_run(c)]
    if not commands:
        pytest.skip("; ".join(sorted({not_run(c) or "" for c in shell_commands(snippet.code)})))
    for command in commands:
        args = shlex.split(command)
        if args[0] == "tabletop":
            args = [sys.executable, "-m", "tabletop_core.cli", *args[1:]]
        elif args[0] in ("python", "python3"):
            args = [sys.executable, *args[1:]]
            # a repository script (benchmarks/..., examples/...) is found from the root
            if len(args) > 1 and not args[1].startswith("-") and (ROOT / args[1]).exists():
                args[1] = str(ROOT / args[1])
        _run(args, tmp_path, f"`{command}` of the shell block at {snippet.id}")


def test_the_snippet_reader_sees_blocks_and_markers(tmp_path: Path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n```python\nprint(1)\n```\n\n<!-- skip-test: needs a run directory -->\n"
        "```bash\n$ tabletop match thegame \\\n    --games 5  # short\npip install x\n```\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = snippets(page)
    assert [(s.lang, s.line, s.skip) for s in found] == [
        ("python", 3, None),
        ("bash", 8, "needs a run directory"),
    ]
    assert shell_commands(found[1].code) == ["tabletop match thegame --games 5"]
    assert not_run("tabletop match thegame --games 5") is None
    assert not_run("tabletop train thegame --minutes 20")
    assert not_run("tabletop COMMAND GAME --help")
    assert not_run("tabletop match thegame --bots search,search --games 100")
    assert not_run("tabletop match thegame --bots policy:runs/a/policy.npz")
