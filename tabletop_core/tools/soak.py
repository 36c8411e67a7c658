"""Soak: play many random and bot games in the vector env, checking invariants every step.

``tabletop soak GAME --games N`` and ``benchmarks/soak.py GAME --games N`` run
:func:`soak`: half of the games with uniformly random legal actions
(:meth:`~tabletop_core.envs.vector.SelfPlayVectorEnv.sample_actions`), half with the game's
bots (seat k plays ``bot_names[k % len]``), in a vector env with same-step autoreset.
At every step it checks:

* a legal action exists in every env (autoreset: every env is always playing);
* the observations lie inside their space (finite, within ``single_observation_space``'s
  bounds); the final observations of ended episodes too;
* the rewards lie within the game's ``reward_range``;
* the State passes the game's ``validate_state`` (every field's range, cards conserved,
  sizes and indices consistent, the phase consistent with the acting seat): every
  ``validate_every`` steps (default every step);

and at the end of every episode the game's return identity (its declared
``return_identity``).
The result is one JSON-able dict: games, steps, seconds, games/s, steps/s and the
violations (counted; the first few described).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_core.contract.catalog import load_game
from tabletop_core.envs.vector import SelfPlayVectorEnv
from tabletop_core.tools.progress import ProgressBar, compile_notice

__all__ = ["soak"]


class _Violations:
    def __init__(self, keep: int = 5):
        self.count = 0
        self.by_kind: dict[str, int] = {}
        self.examples: list[str] = []
        self.keep = keep

    def add(self, kind: str, n: int, example: str) -> None:
        if n <= 0:
            return
        self.count += n
        self.by_kind[kind] = self.by_kind.get(kind, 0) + n
        if len(self.examples) < self.keep:
            self.examples.append(f"{kind}: {example}")


def soak(
    game_name: str,
    games: int,
    num_envs: int = 1024,
    seed: int = 0,
    validate_every: int = 1,
    progress: bool = False,
    num_threads: int | None = None,
    **options: Any,
) -> dict:
    """Play ``games`` episodes (half random, half bots) and check invariants every step.

    Args:
        game_name: a registered game (``"thegame"``, ...).
        games: episodes to finish (>= 1); the first half random, the rest with bots.
        num_envs: vector env batch size.
        seed: reset seed (env i gets seed + i).
        validate_every: run the game's ``validate_state`` every this many steps (>= 1).
        progress: show progress with the time left on stderr: a ``rich`` progress bar on
            a terminal, else a status line every 15 s (for logs of long runs); say when the
            kernels compile.
        num_threads: the vector env's ``num_threads`` (None: its default).
        **options: the game's options.

    Returns:
        The report as a dict
        ``{"bench": "soak", "game", "games", "random_games", "bot_games", "steps",
        "seconds", "games_per_s", "steps_per_s", "violations", "violation_kinds",
        "examples", "num_envs", "validate_every", "options"}``.

    Raises:
        ValueError: unknown game, bad option, ``games`` < 1 or ``validate_every`` < 1.
    """
    _check_counts(games, validate_every)
    game = load_game(game_name)
    num_envs = int(max(1, min(num_envs, games)))
    venv = SelfPlayVectorEnv(game, num_envs, seed=seed, copy=False, num_threads=num_threads, **options)
    p = venv.num_players
    bots = [game.bot_names[k % len(game.bot_names)] for k in range(p)]
    run = _Run(
        game=game,
        opts=venv.options,
        outside=_outside_checker(venv.single_observation_space),
        games=games,
        half=games // 2 if games > 1 else games,
        viol=_Violations(),
        ret=np.zeros((num_envs, p), np.float64),
        length=np.zeros(num_envs, np.int64),
    )
    bar = ProgressBar(games, f"soak {game.name}", enabled=progress, unit="games", plain_every=15.0)
    t0 = time.perf_counter()
    try:
        with compile_notice(game.name, progress):  # the first reset and step compile (or load)
            venv.reset(seed=seed)
            t0 = time.perf_counter()
            _soak_step(run, venv, bots, bar, validate_every)
        while run.done < games:
            _soak_step(run, venv, bots, bar, validate_every)
    finally:
        bar.close(run.done, _progress_info(bar, run))
    return _result(run, bots, time.perf_counter() - t0, num_envs, validate_every, options)


def _soak_step(run: _Run, venv, bots: list, bar: ProgressBar, validate_every: int) -> None:
    """One step of ``venv`` (random actions for the first half of the games, then
    ``bots``), checked."""
    game = run.game
    random_phase = run.done_random < run.half
    if random_phase:
        obs, rew, term, trunc, info = venv.step(venv.sample_actions())
    else:
        obs, rew, term, trunc, info = venv.step_bots(bots)
    run.steps += 1
    _check_step(run, obs, rew, info["action_mask"])
    if term.any():
        _end_episodes(run, np.flatnonzero(term), info["final_obs"], random_phase)
        bar.update(run.done, _progress_info(bar, run))
    if game.validate_state is not None and run.steps % validate_every == 0:
        try:
            game.validate_state(venv.state)
        except ValueError as exc:
            run.viol.add("validate_state", 1, f"step {run.steps}: {exc}")


def _check_counts(games: int, validate_every: int) -> None:
    """Raise ValueError unless ``games`` and ``validate_every`` are positive integers."""
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if (
        isinstance(validate_every, bool)
        or not isinstance(validate_every, (int, np.integer))
        or validate_every < 1
    ):
        raise ValueError(f"validate_every must be a positive integer, got {validate_every!r}")


def _outside_checker(space):
    """``outside(x)``: (G,) True where a row of ``x`` is not finite or outside ``space``'s bounds."""
    olo = space.low
    ohi = space.high
    scalar_bounds = bool((olo == olo.flat[0]).all() and (ohi == ohi.flat[0]).all())

    def outside(x: np.ndarray) -> np.ndarray:
        if x.size == 0:
            return np.zeros(x.shape[0], bool)
        mn, mx = x.min(), x.max()  # NaN propagates: one pass each, the common case
        if scalar_bounds and np.isfinite(mn) and np.isfinite(mx) and mn >= olo.flat[0] and mx <= ohi.flat[0]:
            return np.zeros(x.shape[0], bool)
        return ~(np.isfinite(x) & (x >= olo) & (x <= ohi)).all(axis=1)

    return outside


@dataclass
class _Run:
    """What a soak carries from step to step: the game, the checks, the running returns
    and lengths of the envs' episodes, and the counts so far."""

    game: Any
    opts: Any
    outside: Any
    games: int
    half: int
    viol: _Violations
    ret: np.ndarray
    length: np.ndarray
    done_random: int = 0
    done_bots: int = 0
    steps: int = 0

    @property
    def done(self) -> int:
        return self.done_random + self.done_bots


def _check_step(run: _Run, obs: np.ndarray, rew: np.ndarray, mask: np.ndarray) -> None:
    """The checks of every step: a legal action everywhere, observations and rewards in range."""
    steps, viol = run.steps, run.viol
    num_envs = len(mask)
    no_legal = int(num_envs - mask.view(np.bool_).any(axis=1).sum())
    viol.add("no legal action", no_legal, f"step {steps}: {no_legal} envs with an all-zero mask")
    bad_obs = run.outside(obs)
    viol.add(
        "observation outside its space",
        int(bad_obs.sum()),
        f"step {steps}, env {int(np.argmax(bad_obs))}",
    )
    lo, hi = run.game.reward_range
    bad_rew = ((rew < lo) | (rew > hi) | ~np.isfinite(rew)).any(axis=1)
    viol.add(
        "reward outside reward_range", int(bad_rew.sum()), f"step {steps}, env {int(np.argmax(bad_rew))}"
    )
    run.ret += rew
    run.length += 1


def _end_episodes(run: _Run, ended: np.ndarray, final_obs: np.ndarray, random_phase: bool) -> None:
    """The checks at the end of the ``ended`` envs' episodes (final observation, return
    identity, length); count them in their phase and start their next returns at zero."""
    steps, viol, game = run.steps, run.viol, run.game
    bad_fin = run.outside(final_obs[ended])
    viol.add("final observation outside its space", int(bad_fin.sum()), f"step {steps}")
    if game.return_identity is not None:
        ok = game.return_identity(run.ret[ended], run.length[ended], run.opts)
        if not ok.all():
            k = ended[int(np.argmin(ok))]
            viol.add(
                "return identity",
                int((~ok).sum()),
                f"step {steps}, env {int(k)}: returns {run.ret[k].tolist()}",
            )
    bad_len = run.length[ended] > game.max_episode_steps
    viol.add("episode longer than max_episode_steps", int(bad_len.sum()), f"step {steps}")
    n_end = len(ended)
    run.ret[ended] = 0.0
    run.length[ended] = 0
    if random_phase:
        run.done_random += min(n_end, run.half - run.done_random)
    else:
        run.done_bots += min(n_end, run.games - run.done)


def _progress_info(bar: ProgressBar, run: _Run) -> str:
    rate = run.done / max(time.perf_counter() - bar.t0, 1e-9)
    return f"{rate:,.0f} games/s, {run.viol.count} violations"


def _result(run: _Run, bots: list, seconds: float, num_envs: int, validate_every: int, options: dict) -> dict:
    """The soak's JSON-able result (see :func:`soak`)."""
    done, steps, viol = run.done, run.steps, run.viol
    return {
        "bench": "soak",
        "game": run.game.name,
        "games": int(done),
        "random_games": int(run.done_random),
        "bot_games": int(run.done_bots),
        "bots": bots,
        "steps": int(steps * num_envs),
        "seconds": round(seconds, 3),
        "games_per_s": round(done / seconds, 1) if seconds > 0 else None,
        "steps_per_s": round(steps * num_envs / seconds, 1) if seconds > 0 else None,
        "violations": viol.count,
        "violation_kinds": viol.by_kind,
        "examples": viol.examples,
        "num_envs": num_envs,
        "validate_every": int(validate_every),
        "options": {
            k: (v if isinstance(v, (int, float, str, bool)) or v is None else str(v))
            for k, v in options.items()
        },
    }


# --- command line (``tabletop soak``, ``benchmarks/soak.py``) --------------------------------
def setup_soak_parser(sp, game) -> None:
    """The ``tabletop soak GAME`` arguments (the game's options are added by the CLI's
    per-game sub-parser, :func:`tabletop_core.cli.add_game_subparsers`)."""
    sp.add_argument("--games", type=int, default=10000, help="episodes to play (half random, half bots)")
    sp.add_argument("--num-envs", type=int, default=4096, help="vector env batch size")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--validate-every", type=int, default=1, help="run validate_state every this many steps")
    sp.add_argument("--threads", type=int, default=None, help="vector env num_threads (default: its own)")
    sp.add_argument(
        "--progress",
        action="store_true",
        help="kept for old scripts: progress always shows on stderr (a bar on a terminal, else a line every 15 s)",
    )


def cmd_soak(args) -> int:
    """Run :func:`soak` for parsed ``tabletop soak`` arguments (``args.options``: the game
    options given); print one JSON line. Exit status 1 when a violation was found."""
    options = dict(args.options)
    result = soak(
        args.game,
        args.games,
        num_envs=args.num_envs,
        seed=args.seed,
        validate_every=args.validate_every,
        progress=True,
        num_threads=args.threads,
        **options,
    )
    print(json.dumps(result), flush=True)
    return 0 if result["violations"] == 0 else 1
