"""Property-based corruption of saved states (issue 17), run in a child process.

``python integrity_fuzz.py GAME EXAMPLES`` corrupts fields of saved vector-env states
with hypothesis (one to three entries of any field, the State's own fields and the
observation notes alike, set to boundary or arbitrary values of the field's dtype) and
checks that ``set_state`` either

* raises ``ValueError`` and leaves the env exactly as it was (state, generators,
  observations, masks), or
* accepts a State that is a valid, playable game: a few random and bot steps run and the
  game's ``validate_state`` holds after each of them.

``tests/test_integrity_states.py`` runs this file in a subprocess, so that a crash deep
in compiled code (a segfault, an abort) fails the test instead of killing pytest.
"""

from __future__ import annotations

import importlib
import sys

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop_core.contract.catalog import load_game

OPTIONS = {
    "thegame": {"num_players": 3, "on_fire": True},
    "exhaust": {"num_players": 3, "mode": "long"},
    "koikoi": {"num_players": 3},
    "exitnow": {"num_humans": 3},
}
NUM_ENVS = 4


def base_states(game_name: str) -> tuple[object, list[dict]]:
    """A vector env and saved states met along random play (several depths)."""
    module = importlib.import_module(load_game(game_name).package)
    venv = module.vector_env(num_envs=NUM_ENVS, num_threads=1, **OPTIONS[game_name])
    venv.reset(seed=11)
    saved = []
    for t in range(60):
        if t % 12 == 0:
            saved.append(venv.get_state())
        venv.step(venv.sample_actions())
    return venv, saved


def snapshot(venv) -> tuple:
    return (
        venv.state.copy(),
        venv._sample_rng.copy(),
        venv._bot_rng.copy(),
        venv._obs.copy(),
        venv._mask.copy(),
        venv._cur.copy(),
    )


def same(a: tuple, b: tuple) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b))


def value_strategy(dtype: np.dtype):
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else None
    if info is None:
        return st.floats(allow_nan=False)
    lo, hi = int(info.min), int(info.max)
    edges = sorted(
        {
            v
            for v in (lo, hi, -2, -1, 0, 1, 2, 3, 5, 7, 13, 17, 21, 60, 64, 88, 98, 99, 100, 120, 127)
            if lo <= v <= hi
        }
    )
    return st.one_of(st.sampled_from(edges), st.integers(lo, hi))


def main(game_name: str, examples: int) -> None:
    game = load_game(game_name)
    venv, saved = base_states(game_name)
    dtype = venv.state.dtype
    fields = [n for n in dtype.names if not n.startswith("cfg_")]
    bots = [game.bot_names[k % len(game.bot_names)] for k in range(venv.num_players)]
    stats = {"rejected": 0, "accepted": 0}

    @st.composite
    def corruption(draw):
        base = draw(st.integers(0, len(saved) - 1))
        env = draw(st.integers(0, NUM_ENVS - 1))
        edits = []
        for _ in range(draw(st.integers(1, 3))):
            name = draw(st.sampled_from(fields))
            size = int(np.prod(dtype[name].shape)) if dtype[name].shape else 1
            k = draw(st.integers(0, size - 1))
            base_dtype = dtype[name].base
            v = draw(value_strategy(base_dtype))
            edits.append((name, k, v))
        return base, env, edits

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(corruption())
    def check(case):
        base, env, edits = case
        good = saved[(base + 1) % len(saved)]
        venv.set_state(good)
        before = snapshot(venv)
        bad = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in saved[base].items()}
        st_ = bad["state"]
        for name, k, v in edits:
            field = st_[name][env]
            if field.ndim == 0:
                st_[name][env] = v
            else:
                field.reshape(-1)[k] = v
        try:
            venv.set_state(bad)
        except ValueError as exc:
            assert "env" in str(exc) or "saved" in str(exc), exc
            assert same(before, snapshot(venv)), f"set_state wrote before raising: {exc}"
            stats["rejected"] += 1
            return
        stats["accepted"] += 1
        # accepted: it must be a valid game that plays on
        game.validate_state(venv.state)
        for t in range(12):
            if t % 2:
                venv.step(venv.sample_actions())
            else:
                venv.step_bots(bots)
            game.validate_state(venv.state)

    check()
    print(
        f"{game_name}: {examples} corruptions, {stats['rejected']} rejected, {stats['accepted']} accepted and played on"
    )


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
