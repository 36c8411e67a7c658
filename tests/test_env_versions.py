"""Versioned environments: a change a user's code can see needs a new env version.

PettingZoo bumps an environment's version (``-v1``, ``-v2``, ...) whenever its
observations, actions, rewards or rules change. ``docs/env_versions.toml`` lists, per
game, each version with a one-line change (the game pages' "Version history") and, for
the current version, three pinned digests taken with the default options:

- ``observation``: the observation layout (each piece's name, offset, shape and high);
- ``num_actions``: the size of the action space;
- ``trajectory``: the fixed-seed AEC and vector trajectories of
  ``tests/test_trajectory_hashes.py`` (actions, rewards, terminations, acting seats).

A change to any of them without a version bump fails here and says what to do. After a
bump, ``python tests/test_env_versions.py`` prints the new digests to paste.
"""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path

import numpy as np
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

from tests.test_trajectory_hashes import aec_trajectory_hash, vector_trajectory_hash

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = ROOT / "docs" / "env_versions.toml"
# the game tables of docs/env_versions.toml, each naming its package
GAMES = ("thegame", "exhaust", "koikoi", "exitnow", "leduc")


def load_versions() -> dict:
    """``docs/env_versions.toml`` as a dict (``{game: {"package", "versions": [...]}}``)."""
    return tomllib.loads(VERSIONS.read_text(encoding="utf-8"))


def observation_digest(game) -> str:
    """16 hex digits over the default options' layout: name, offset, shape, high."""
    layout = game.observation_layout(game.make_options())
    text = ";".join(
        f"{p.name}@{layout.offset[p.name]}:{','.join(map(str, p.shape))}:{np.asarray(p.high, np.float64).tolist()!r}"
        for p in layout.pieces
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def trajectory_digest(package) -> str:
    """16 hex digits over the default options' AEC and vector trajectory hashes."""
    text = aec_trajectory_hash(package, {}) + vector_trajectory_hash(package, {})
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def current_digests(package) -> dict:
    game = package.GAME
    return {
        "observation": observation_digest(game),
        "num_actions": int(game.num_actions),
        "trajectory": trajectory_digest(package),
    }


def _bump_message(pkg: str, what: str) -> str:
    return (
        f"{pkg}: {what} changed: bump the version in {pkg}/game.py and add a line to "
        f"docs/env_versions.toml (then `python tests/test_env_versions.py` prints the digests)"
    )


def test_every_game_lists_its_versions_from_one():
    data = load_versions()
    assert set(GAMES) <= set(data), f"docs/env_versions.toml lacks {set(GAMES) - set(data)}"
    for name in GAMES:
        versions = data[name]["versions"]
        assert [v["version"] for v in versions] == list(range(1, len(versions) + 1)), name
        for v in versions:
            change = v["change"]
            assert change.strip() and "\n" not in change, f"{name} v{v['version']}: one line"


@pytest.mark.parametrize("name", GAMES)
def test_the_current_version_pins_what_users_see(name):
    entry = load_versions()[name]
    pkg = entry["package"]
    package = importlib.import_module(pkg)
    latest = entry["versions"][-1]
    assert package.GAME.version == latest["version"], (
        f"{pkg}/game.py says version {package.GAME.version}, docs/env_versions.toml's last line "
        f"is v{latest['version']}: add a line to docs/env_versions.toml for each version"
    )
    now = current_digests(package)
    for key in ("observation", "num_actions", "trajectory"):
        what = {"observation": "the observation layout", "num_actions": "the action count"}.get(
            key, "the rules' trajectory (actions, rewards, terminations)"
        )
        assert latest.get(key) == now[key], _bump_message(pkg, what) + f" [{latest.get(key)} -> {now[key]}]"


if __name__ == "__main__":  # print the current version's digests of every game
    for name in GAMES:
        package = importlib.import_module(load_versions()[name]["package"])
        d = current_digests(package)
        print(f"[{name}] v{package.GAME.version}")
        print(
            f'observation = "{d["observation"]}"\nnum_actions = {d["num_actions"]}\ntrajectory = "{d["trajectory"]}"'
        )
