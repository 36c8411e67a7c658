"""House rules of the code base: the rules are used, not restated, by bots and adapters,
the bots' generator salt lives in ``tabletop_core/kernel/rng.py`` only, no function of the
core or a game package is over 100 lines, no source file carries a date, and the core
never tests a game's name (its imports are checked by ``lint-imports``). Static checks over the source (AST), so
docstrings and comments may still speak of the numbers."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tabletop_core.kernel.rng import BOT_SEED_SALT

ROOT = Path(__file__).resolve().parent.parent
GAME_PACKAGES = ("thegame_env", "exhaust_env", "koikoi_env", "exitnow_envs")
MAX_FUNCTION_LINES = 100


def _tree(rel: str) -> ast.AST:
    return ast.parse((ROOT / rel).read_text(encoding="utf-8"))


def _int_constants(tree: ast.AST) -> list[ast.Constant]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool)
    ]


def _is_int(node: ast.AST, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def test_thegame_bots_use_the_backwards_step():
    """The backwards trick is ``spec.BACKWARDS_STEP``: no ``top - 10`` / ``card + 10``."""
    hits = [
        n.lineno
        for n in ast.walk(_tree("thegame_env/bots.py"))
        if isinstance(n, ast.BinOp)
        and isinstance(n.op, (ast.Add, ast.Sub))
        and (_is_int(n.left, 10) or _is_int(n.right, 10))
    ]
    assert hits == [], f"thegame_env/bots.py restates the backwards step (± 10) at lines {hits}"


def test_thegame_env_takes_score_and_win_from_the_rules():
    """Score and win come from the rules kernels: no literal 98 (cards) or 9 (win bound)."""
    hits = [n.lineno for n in _int_constants(_tree("thegame_env/game.py")) if n.value in (98, 9)]
    assert hits == [], f"thegame_env/game.py restates 98 / 9 at lines {hits}"


def test_koikoi_bots_use_the_rules_multiplier():
    """The koi-koi multiplier is the rules' helper, not ``max(1, min(4, ...))``."""

    def is_call(n, name):
        return isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name

    hits = [
        n.lineno
        for n in ast.walk(_tree("koikoi_env/bots.py"))
        if is_call(n, "max")
        and len(n.args) == 2
        and _is_int(n.args[0], 1)
        and is_call(n.args[1], "min")
        and _is_int(n.args[1].args[0], 4)
    ]
    assert hits == [], f"koikoi_env/bots.py restates the multiplier at lines {hits}"


def test_exitnow_bots_use_the_rules_passability():
    """Human passability is the rules' helper, not ``k in (WALL, WATER, EXIT)``."""
    hits = []
    for n in ast.walk(_tree("exitnow_envs/bots.py")):
        if isinstance(n, ast.Tuple):
            names = {e.id for e in n.elts if isinstance(e, ast.Name)}
            if {"WALL", "WATER"} <= names:
                hits.append(n.lineno)
    assert hits == [], f"exitnow_envs/bots.py restates which squares humans pass at lines {hits}"


def _python_files():
    for top in (*GAME_PACKAGES, "tabletop_core", "tests", "examples", "benchmarks"):
        yield from sorted((ROOT / top).rglob("*.py"))


def test_bot_seed_salt_lives_in_rng_only():
    rng = ROOT / "tabletop_core" / "kernel" / "rng.py"
    hits = [
        f"{p.relative_to(ROOT)}:{n.lineno}"
        for p in _python_files()
        if p != rng
        for n in _int_constants(ast.parse(p.read_text(encoding="utf-8")))
        if n.value == BOT_SEED_SALT
    ]
    assert hits == [], f"the bot seed salt is copied outside tabletop_core/kernel/rng.py: {hits}"


def _long_functions() -> dict[str, int]:
    out = {}
    for pkg in (*GAME_PACKAGES, "tabletop_core"):
        for p in sorted((ROOT / pkg).rglob("*.py")):
            for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = n.end_lineno - n.lineno + 1
                    if lines > MAX_FUNCTION_LINES:
                        out[f"{p.relative_to(ROOT).as_posix()}:{n.name}"] = lines
    return out


def test_no_function_over_100_lines():
    long = _long_functions()
    assert long == {}, f"functions over {MAX_FUNCTION_LINES} lines (split them into named steps): {long}"


def _loop_names() -> set[str]:
    from tabletop_core.contract import loops

    return set(loops.LOOPS)


def test_no_game_package_holds_a_batch_loop():
    """The batch loops live once, in ``tabletop_core/contract/loops.py``: a game package defines
    none of them and runs no ``prange``; its ``hooks.py`` registers its hooks."""
    hits = []
    loop_names = _loop_names()
    assert {"batch_step", "play_games", "batch_step_learner"} <= loop_names
    for pkg in GAME_PACKAGES:
        assert (ROOT / pkg / "hooks.py").is_file(), f"{pkg} has no hooks.py"
        for p in sorted((ROOT / pkg).rglob("*.py")):
            for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
                if isinstance(n, ast.FunctionDef) and n.name in loop_names:
                    hits.append(f"{p.relative_to(ROOT)}:{n.lineno} {n.name}")
                if isinstance(n, ast.Name) and n.id == "prange":
                    hits.append(f"{p.relative_to(ROOT)}:{n.lineno} prange")
    assert hits == [], f"batch loops outside tabletop_core/contract/loops.py: {hits}"


def test_every_game_declares_the_same_hooks():
    """Each game's declaration names every required hook of ``tabletop_core.contract.loops``
    (the loops compile for its State)."""
    from tabletop_core.contract import hooks
    from tabletop_core.contract.catalog import game_names, load_game
    from tabletop_core.contract.game import Hooks

    required = set(hooks.HOOKS) - hooks.OPTIONAL_HOOKS - {"num_actions"}
    assert {"deal", "step", "legal_mask", "observe", "bot_action", "is_legal"} <= required
    for name in game_names():
        game = load_game(name)
        assert isinstance(game.hooks, Hooks), f"{name} declares no Hooks"
        missing = sorted(h for h in required if game.hooks.as_dict().get(h) is None)
        assert missing == [], f"{name} lacks the hooks {missing}"


def test_no_date_in_the_code():
    """Measurements and their dates go to CHANGELOG.md and the benchmarks page, not the code."""
    date = re.compile(r"\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b")
    hits = [
        f"{p.relative_to(ROOT)}:{k}"
        for top in (*GAME_PACKAGES, "tabletop_core")
        for p in sorted((ROOT / top).rglob("*.py"))
        for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if date.search(line)
    ]
    assert hits == [], f"dates in the code: {hits}"


def test_the_core_never_tests_a_game_name():
    """Game-specific behaviour is a declared field of the game, never ``if game.name == ...``."""
    hits = []
    for p in sorted((ROOT / "tabletop_core").rglob("*.py")):
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(n, ast.Compare):
                sides = [n.left, *n.comparators]
                named = any(
                    isinstance(x, ast.Attribute)
                    and x.attr == "name"
                    and (
                        (isinstance(x.value, ast.Name) and x.value.id in ("game", "g", "game_def"))
                        or (isinstance(x.value, ast.Attribute) and x.value.attr in ("game", "game_def"))
                    )
                    for x in sides
                )
                literal = any(isinstance(x, ast.Constant) and isinstance(x.value, str) for x in sides)
                if named and literal:
                    hits.append(f"{p.relative_to(ROOT)}:{n.lineno}")
    assert hits == [], f"the core tests a game's name at {hits}"


def test_the_core_top_level_holds_only_its_init():
    """The core's modules live in its floors (sub-packages); its top level keeps only the
    package itself."""
    top = sorted(p.name for p in (ROOT / "tabletop_core").glob("*.py"))
    assert top == ["__init__.py"], top
    floors = {p.name for p in (ROOT / "tabletop_core").iterdir() if (p / "__init__.py").is_file()}
    assert {"kernel", "contract", "agents", "envs", "tools", "train", "cli"} <= floors


# --- the game contract stays light ---------------------------------------------------------------
DECLARATIONS = (*(f"{pkg}/game.py" for pkg in GAME_PACKAGES), "tests/contract_game/game.py")
MAX_GAMEDEF_FIELDS = 25
MAX_DECLARATION_KEYWORDS = 18


def test_no_lambda_in_a_game_declaration():
    """A declaration names the game's functions; a lambda that forwards arguments means the
    function should take the signature the core calls (or the core should derive it)."""
    hits = [
        f"{rel}:{n.lineno}" for rel in DECLARATIONS for n in ast.walk(_tree(rel)) if isinstance(n, ast.Lambda)
    ]
    assert hits == [], f"lambdas in game declarations: {hits}"


def test_gamedef_has_at_most_25_fields():
    """A game declares only what only it knows; the rest is derived (properties)."""
    import dataclasses

    from tabletop_core.contract.game import GameDef

    names = [f.name for f in dataclasses.fields(GameDef)]
    assert len(names) <= MAX_GAMEDEF_FIELDS, f"GameDef has {len(names)} fields: {names}"


def _gamedef_calls(rel: str) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(_tree(rel))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "GameDef"
    ]


def test_each_declaration_passes_at_most_18_keywords():
    counts = {}
    for rel in DECLARATIONS:
        calls = _gamedef_calls(rel)
        assert len(calls) == 1, f"{rel} declares {len(calls)} GameDefs"
        counts[rel] = len(calls[0].keywords)
    long = {rel: n for rel, n in counts.items() if n > MAX_DECLARATION_KEYWORDS}
    assert long == {}, f"declarations over {MAX_DECLARATION_KEYWORDS} keywords: {long}"


def _builds_an_env_id(node: ast.JoinedStr) -> bool:
    """An f-string that spells a game's id: ``tabletop/{...}`` or ``{...}-v{...}`` / ``_v{...}``."""
    parts = node.values
    for k, part in enumerate(parts[:-1]):
        if isinstance(part, ast.Constant) and isinstance(parts[k + 1], ast.FormattedValue):
            text = str(part.value)
            if text.endswith(("tabletop/", "-v", "_v")) and (k > 0 or text.startswith("tabletop/")):
                return True
    return False


def test_the_env_id_is_built_in_one_place():
    """``tabletop/<name>-v<version>`` and ``<name>_v<version>`` are spelled once, in
    ``tabletop_core/contract/game.py`` (``GameDef.ENV_ID``, ``GameDef.env_id``); no game
    package assigns its own ``ENV_ID``."""
    home = ROOT / "tabletop_core" / "contract" / "game.py"
    hits, assigned = [], []
    for top in (*GAME_PACKAGES, "tabletop_core", "tests/contract_game"):
        for p in sorted((ROOT / top).rglob("*.py")):
            tree = ast.parse(p.read_text(encoding="utf-8"))
            for n in ast.walk(tree):
                if isinstance(n, ast.JoinedStr) and _builds_an_env_id(n) and p != home:
                    hits.append(f"{p.relative_to(ROOT)}:{n.lineno}")
                if isinstance(n, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "ENV_ID" for t in n.targets
                ):
                    assigned.append(f"{p.relative_to(ROOT)}:{n.lineno}")
    assert hits == [], f"env ids spelled outside tabletop_core/contract/game.py: {hits}"
    assert assigned == [], f"ENV_ID assigned by hand (export_game sets it): {assigned}"
