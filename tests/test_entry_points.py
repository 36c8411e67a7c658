"""Each game's public entry points: real signatures with the declared options, and docs
that reach the game's rules page (``docs/rules/<game>.md``)."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pathlib

import pytest

from tabletop_core.contract.catalog import game_names, load_game

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _declared(package) -> dict:
    """The game's options as declared once, in ``spec.Options``: name -> default."""
    spec = importlib.import_module(package.__name__ + ".spec")
    return {f.name: f.default for f in dataclasses.fields(spec.Options)}


@pytest.mark.parametrize("game", game_names())
def test_signatures_list_the_declared_options_with_their_defaults(game):
    package = importlib.import_module(load_game(game).package)
    declared = _declared(package)
    for fn in (package.raw_env, package.env):
        params = inspect.signature(fn).parameters
        assert list(params) == [*declared, "render_mode"], fn
        assert {n: params[n].default for n in declared} == declared
        assert params["render_mode"].default is None
    params = inspect.signature(package.vector_env).parameters
    assert list(params) == ["num_envs", "seed", "copy", "num_threads", *declared]
    assert {n: params[n].default for n in declared} == declared
    assert params["num_envs"].default is inspect.Parameter.empty


@pytest.mark.parametrize("game", game_names())
def test_entry_points_build_working_envs(game):
    package = importlib.import_module(load_game(game).package)
    env = package.env()
    env.reset(seed=0)
    assert env.agent_selection in env.agents
    venv = package.vector_env(3, seed=0)
    obs, info = venv.reset(seed=0)
    assert obs.shape[0] == 3
    with pytest.raises(TypeError):
        package.vector_env(2, bogus_option=1)


@pytest.mark.parametrize("game", game_names())
def test_the_package_face_is_made_from_the_declaration(game):
    """``export_game``: the same names in every game package, from its ``GameDef``."""
    declared = load_game(game)
    package = importlib.import_module(declared.package)
    assert package.GAME is declared
    assert package.ENV_ID == declared.ENV_ID == "tabletop/" + declared.name + "-v" + str(declared.version)
    assert package.validate_state is declared.validate_state
    assert package.resample_hidden is declared.resample_hidden
    faces = ["GAME", "env", "raw_env", "vector_env", "baseline_policy", "ENV_ID", "validate_state"]
    assert package.__all__[: len(faces)] == faces
    assert all(hasattr(package, name) for name in package.__all__)


@pytest.mark.parametrize("game", game_names())
def test_help_reaches_the_rules_page(game):
    package = importlib.import_module(load_game(game).package)
    page = f"docs/rules/{game}.md"
    assert (ROOT / page).is_file()
    assert page in package.__doc__
    assert page in package.env.__doc__
    assert page in (
        package.raw_env.__module__ and importlib.import_module(package.raw_env.__module__).__doc__
    )


def test_every_rules_citation_points_at_an_existing_page():
    import re

    pattern = re.compile(r"(?<![\w/])(?:docs/)?rules/(\w+)\.md")
    cited = set()
    for path in [*ROOT.glob("*_env*/*.py"), *ROOT.glob("tabletop_core/**/*.py"), ROOT / "README.md"]:
        for m in pattern.finditer(path.read_text(encoding="utf-8")):
            assert m.group(0).startswith("docs/"), f"{path}: {m.group(0)} (cite docs/rules/<game>.md)"
            cited.add(m.group(1))
    assert cited and all((ROOT / "docs" / "rules" / f"{g}.md").is_file() for g in cited)
