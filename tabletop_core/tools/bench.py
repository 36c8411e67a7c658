"""Throughput benchmarks of a game, side by side with its peers, in ONE run.

Each measurement is one dict (printed as one JSON line by ``tabletop bench --json``):

(a) ``aec``: AEC env steps/s with PettingZoo's random masked loop (``env.last()``,
    ``action_space(agent).sample(mask)``, ``env.step``), wrapped (``env()``) and raw;
(b) ``vector``: vector env steps/s (env steps, summed over the batch) at batch 1, 64,
    1024, 4096, with actions chosen in Python from the masks (the compiled sampler, then
    ``step``) and inside the kernel (``step_bots("random")``), with the default
    ``num_threads`` (``threads``; one per 256 envs, at most the cores) and, at the largest
    batch, with one thread too; ``cores_used`` is process CPU time over wall time;
(c) ``bots``: full bot games/s on one core for each bot;
(d) ``peer``: the same AEC loop on PettingZoo's ``tictactoe_v3`` and ``connect_four_v3``
    and, with the ``bench`` extra installed, Pgx ``connect_four`` on CPU at each vector
    batch of at least :data:`PEER_MIN_BATCH` (1024 and 4096; the jitted step with
    actions from a jitted masked sampler, as a Python loop; XLA uses several cores too:
    its ``cores_used`` is reported), each with the ratios of ours at that batch for the
    default threads and, at the largest, for one thread (best windows), then
    ``peer_best``: each side at its fastest batch (Pgx also at 4 and 8 times the
    largest, :data:`PEER_BEST_SCALES`), and ours over Pgx's; and the medians
    of the ratios in
    interleaved windows of ours and Pgx's (``median_window_ratio_*``, the steadier figure
    on a shared machine), and in the same rounds the ceiling that writing the observation
    sets: a loop that only writes rows of its width in full, over Pgx
    (``median_window_ratio_row_fill``, :func:`row_fill_loop`);
(e) ``state``: bytes of state per env;
(f) ``start``: cold (empty numba cache) and warm (cached) start to the first AEC step,
    each in a fresh interpreter;
(g) ``threads``: the vector env's default threads against one thread in the same run, at
    batch 4096 with Python actions, on a quiet machine, beside another busy process, and
    interleaved with a torch MLP forward pass (:func:`thread_cases`; ``tabletop bench
    GAME --threads`` runs only these and the next);
(h) ``copy``: ``copy=True`` against ``copy=False`` at batch 4096 (:func:`copy_case`).

Machine noise: each figure is the best of three windows, and the ratios of one run
(ours / peer, measured back to back) are the figures to compare; absolute numbers move
with the machine's load.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numba
import numpy as np
from numba import prange

from tabletop_core.contract.game import GameDef
from tabletop_core.contract.options import as_options
from tabletop_core.envs.vector import SelfPlayVectorEnv
from tabletop_core.kernel.jit import kernel, shards
from tabletop_core.tools.arena import run_match

__all__ = ["run_benchmarks", "aec_steps_per_second", "batch_sweep", "row_fill_loop"]


def _timed(fn: Callable[[], int], seconds: float, windows: int = 3) -> float:
    """Call ``fn`` (returns work units done) for ``seconds`` split into ``windows``
    windows; return the best window's units/s (as ``timeit`` takes the best run: the
    other windows measure the machine's other load, not the code)."""
    best = 0.0
    for _ in range(windows):
        n = 0
        t0 = time.perf_counter()
        while True:
            n += fn()
            dt = time.perf_counter() - t0
            if dt >= seconds / windows:
                break
        best = max(best, n / dt)
    return best


def aec_steps_per_second(make_env: Callable[[], Any], seconds: float = 2.0, seed: int = 0) -> float:
    """Steps/s of PettingZoo's random masked loop on a fresh env from ``make_env``."""
    env = make_env()
    env.reset(seed=seed)
    for space in (env.action_space(a) for a in env.possible_agents):
        space.seed(seed)

    def episode() -> int:
        env.reset()
        n = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                mask = obs["action_mask"] if isinstance(obs, dict) else None
                action = env.action_space(agent).sample(mask)
            env.step(action)
            n += 1
        return n

    episode()  # warm-up (compilation)
    return _timed(episode, seconds)


def _cores_used(fn: Callable[[], float]) -> tuple[float, float]:
    """``fn()`` (a rate) and the CPU cores it kept busy on average (process CPU time over
    wall time, every thread counted)."""
    c0, w0 = time.process_time(), time.perf_counter()
    rate = fn()
    return rate, (time.process_time() - c0) / (time.perf_counter() - w0)


def _vector_loops(
    game: GameDef, batch: int, options: dict, num_threads: int | None = None
) -> tuple[Any, Callable[[], int], Callable[[], int]]:
    """A reset ``copy=False`` vector env and its two timed loops, each one step returning
    the env steps made: actions from the compiled sampler through ``step``, and the
    random bot inside the kernel (``step_bots``)."""
    venv = SelfPlayVectorEnv(game, batch, seed=0, copy=False, num_threads=num_threads, **options)
    venv.reset(seed=0)

    def python_side() -> int:
        venv.step(venv.sample_actions())
        return batch

    def in_kernel() -> int:
        venv.step_bots("random")
        return batch

    return venv, python_side, in_kernel


def _vector_rates(
    game: GameDef, batch: int, seconds: float, options: dict, num_threads: int | None = None
) -> dict:
    venv, python_side, in_kernel = _vector_loops(game, batch, options, num_threads)
    python_side()  # compile
    in_kernel()
    py, py_cores = _cores_used(lambda: _timed(python_side, seconds))
    kn, kn_cores = _cores_used(lambda: _timed(in_kernel, seconds))
    return {
        "threads": venv.num_threads,
        "python_actions": py,
        "kernel_actions": kn,
        "cores_used": round(max(py_cores, kn_cores), 2),
    }


def bot_games_per_second(game: GameDef, bot: str, games: int, options: dict) -> float:
    res = run_match(game, game.lineup_for(bot, options), games, seed=12345, chunk=games, **options)
    return res.games_per_second


def _pettingzoo_peer(name: str) -> tuple[Callable, Callable] | None:
    try:
        if name == "tictactoe_v3":
            from pettingzoo.classic import tictactoe_v3 as mod
        else:
            from pettingzoo.classic import connect_four_v3 as mod
    except Exception:
        return None
    return mod.env, mod.raw_env


def _pgx_connect_four(batch: int, seconds: float) -> tuple[float, float, Callable[[], int]] | None:
    """Pgx ``connect_four`` steps/s at ``batch`` on CPU, the cores XLA kept busy, and its
    step (a callable returning the env steps it made, for :func:`_paired_ratios`); None
    without Pgx."""
    try:
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset
    except Exception:
        return None
    env = pgx.make("connect_four")
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(lambda s, a, k: auto_reset(env.step, env.init)(s, a, k)))

    @jax.jit
    def act(key, mask):
        logits = jnp.where(mask, 0.0, -jnp.inf)
        return jax.random.categorical(key, logits, axis=-1)

    key = jax.random.PRNGKey(0)
    key, sub = jax.random.split(key)
    state = init(jax.random.split(sub, batch))
    # compile
    key, k1, k2 = jax.random.split(key, 3)
    state = step(state, act(k1, state.legal_action_mask), jax.random.split(k2, batch))
    state.observation.block_until_ready()
    box = {"state": state, "key": key}

    def one() -> int:
        key, k1, k2 = jax.random.split(box["key"], 3)
        s = step(box["state"], act(k1, box["state"].legal_action_mask), jax.random.split(k2, batch))
        s.observation.block_until_ready()
        box["state"], box["key"] = s, key
        return batch

    rate, cores = _cores_used(lambda: _timed(one, seconds))
    return rate, cores, one


@kernel(parallel=True)
def _fill_rows(bounds, rows):
    """Write every row of ``rows`` ((B, D) float32) in full, rows ``bounds[k]:bounds[k +
    1]`` on thread ``k``: zeros, and 1.0 at every 512th float, so nothing is computed."""
    d = rows.shape[1]
    for k in prange(bounds.shape[0] - 1):
        for i in range(bounds[k], bounds[k + 1]):
            for t in range(d):
                rows[i, t] = 0.0
            for t in range(0, d, 512):
                rows[i, t] = 1.0


def row_fill_loop(batch: int, dim: int, threads: int) -> Callable[[], int]:
    """A loop that only writes observation rows: each call writes ``batch`` rows of
    ``dim`` float32 in full (a ``(batch, dim)`` array of its own) on ``threads`` of numba's
    threads, sharded as the vector env's batch loops, and returns ``batch``. Its rate is
    the ceiling of a vector env whose step writes each row of that width in full, whatever
    the rules cost: the memory's, on this machine, now (a step that patches its rows, as
    Exit Now's ``copy=False`` step does, writes less). The loop carries its array as
    ``.rows``.

    Raises:
        ValueError: ``batch`` or ``dim`` below 1.
    """
    if batch < 1 or dim < 1:
        raise ValueError(f"row_fill_loop needs batch and dim of at least 1, got {batch} and {dim}")
    threads = max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS))
    rows = np.zeros((batch, dim), np.float32)
    bounds = shards(batch, threads)

    def fill() -> int:
        before = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            _fill_rows(bounds, rows)
        finally:
            numba.set_num_threads(before)
        return batch

    fill.rows = rows  # type: ignore[attr-defined]
    return fill


PAIRED_LOOPS = ("python", "kernel", "rows", "peer")
"""The loops of each round of :func:`_paired_ratios`, in the first round's order."""

PAIRED_ROUNDS = 8
"""Rounds of :func:`_paired_ratios` (each: one window of every loop; a multiple of the
number of loops, so that each loop comes after each other one as often)."""


def _interleaved_rounds(
    loops: dict[str, Callable[[], int]], window: float, rounds: int
) -> list[dict[str, float]]:
    """Each of ``loops`` (steps returning the units they did) timed once for ``window``
    seconds to compile and settle, then ``rounds`` rounds of one window of each, the
    loops' order turned by one each round (a loop can slow the one after it). Returns
    each round's units/s by loop name: load that comes and goes falls on every loop of a
    round, so per-round ratios or medians over the rounds are the steady figures."""
    for fn in loops.values():
        _timed(fn, window, windows=1)
    names = list(loops)
    out = []
    for i in range(rounds):
        order = names[i % len(names) :] + names[: i % len(names)]
        out.append({k: _timed(loops[k], window, windows=1) for k in order})
    return out


def _paired_ratios(
    game: GameDef, batch: int, seconds: float, options: dict, peer: Callable[[], int]
) -> dict[str, float]:
    """Our vector env (default threads, Python and in-kernel actions) against ``peer`` (a
    step returning the env steps it made) in interleaved windows: :data:`PAIRED_ROUNDS`
    rounds of one window of each loop, ``seconds`` in all, the loops' order turned by one
    each round (a loop can slow the one after it: XLA's threads spin for a while after
    Pgx's step). Returns the medians over the rounds of ours / peer in each round
    (``median_window_ratio_python_actions``, ``median_window_ratio_kernel_actions``):
    load that comes and goes on a shared machine falls on both sides of a round, where
    the best windows of separate runs may each have met a different load. The rounds also
    time :func:`row_fill_loop` at the env's observation width, on one thread or the env's
    threads, whichever was faster in a settling window (``median_window_ratio_row_fill``:
    the most a step writing those rows in full could reach, over the peer)."""
    venv, python_side, in_kernel = _vector_loops(game, batch, options)
    window = seconds / (len(PAIRED_LOOPS) * PAIRED_ROUNDS)
    fills = [row_fill_loop(batch, venv.single_observation_space.shape[0], k) for k in {1, venv.num_threads}]
    # the faster of one thread and the env's (the env's own choice between them is timed too)
    fill = max(fills, key=lambda f: _timed(f, window, windows=1)) if len(fills) > 1 else fills[0]
    loops = dict(zip(PAIRED_LOOPS, (python_side, in_kernel, fill, peer)))
    rounds = _interleaved_rounds(loops, window, PAIRED_ROUNDS)
    out = {
        f"median_window_ratio_{side}_actions": float(np.median([r[side] / r["peer"] for r in rounds]))
        for side in ("python", "kernel")
    }
    out["median_window_ratio_row_fill"] = float(np.median([r["rows"] / r["peer"] for r in rounds]))
    return out


def _start_times(game: GameDef, package: str) -> dict:
    code = (
        f"import time; t=time.perf_counter(); import {package} as g; e=g.env(); e.reset(seed=0); "
        "import numpy as np; a=int(np.flatnonzero(e.observe(e.agent_selection)['action_mask'])[0]); "
        "e.step(a); print(time.perf_counter()-t)"
    )
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ("cold", "warm"):
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
            wall = time.perf_counter() - t0
            if proc.returncode != 0:
                out[label] = {"error": proc.stderr.strip().splitlines()[-1:]}
                continue
            out[label] = {"first_step_s": float(proc.stdout.strip()), "process_s": wall}
    return out


def run_benchmarks(
    game: GameDef,
    package: str,
    options: dict | None = None,
    seconds: float = 2.0,
    batches: tuple[int, ...] = (1, 64, 1024, 4096),
    peers: bool = True,
    bot_games: int = 20000,
    threads: bool = True,
) -> Iterator[dict]:
    """Yield the benchmark records of ``game`` (see the module docstring) one by one.

    ``package`` is the game's import name (for the start-time subprocesses); ``options``
    the game options (default: the game's defaults).
    """
    options = dict(options or {})
    opts = as_options(game.make_options, options)
    mod = __import__(package)
    base = {"game": game.name, "options": {k: v for k, v in vars(opts).items()}}

    def rec(kind: str, **fields) -> dict:
        return {"bench": kind, **base, **fields}

    yield from _aec_records(rec, mod, options, seconds, peers)
    yield from _vector_records(rec, game, options, seconds, batches, peers)
    # (g) default threads vs one thread at batch 4096: quiet, busy process, torch
    if threads:  # a short run (--seconds below 1) gets short cases, for a smoke test
        short = seconds < 1.0
        yield from thread_cases(
            game, options, 4096, 2.0 * seconds, warmup=10 if short else 40, min_steps=20 if short else 300
        )
        yield copy_case(game, options, 4096, 2.0 * seconds)
    # (c) bot games
    for bot in game.bot_names:
        yield rec("bots", bot=bot, games_per_s=bot_games_per_second(game, bot, bot_games, options))
    # (e) state size
    yield rec("state", bytes_per_env=int(game.new_state(1, opts).dtype.itemsize))
    # (f) start times
    yield rec("start", **_start_times(game, package))


def bench_record_count(game: GameDef, batches: tuple[int, ...], peers: bool, threads: bool = True) -> int:
    """About how many records :func:`run_benchmarks` yields for these arguments (for its
    progress: the peers' records depend on what is installed)."""
    big = max(batches)
    peer_batches = len({b for b in batches if b >= PEER_MIN_BATCH} or {big})
    return (
        1  # AEC
        + (2 if peers else 0)  # PettingZoo classic: tic-tac-toe, Connect Four
        + len(batches)
        + 1  # one thread at the largest batch
        + ((peer_batches + 1) if peers else 0)
        + (4 if threads else 0)  # three thread cases and copy=True
        + len(game.bot_names)
        + 2  # state size, start times
    )


def _aec_records(rec, mod, options: dict, seconds: float, peers: bool) -> Iterator[dict]:
    """(a) the AEC env, wrapped and raw; (d) then the PettingZoo peers, compared with it."""
    wrapped = aec_steps_per_second(lambda: mod.env(**options), seconds)
    raw = aec_steps_per_second(lambda: mod.raw_env(**options), seconds)
    yield rec("aec", wrapped_steps_per_s=wrapped, raw_steps_per_s=raw)
    # (d) PettingZoo peers, right after ours
    peer_rates: dict[str, dict] = {}
    if peers:
        for name in ("tictactoe_v3", "connect_four_v3"):
            mk = _pettingzoo_peer(name)
            if mk is None:
                yield rec(
                    "peer",
                    peer=name,
                    error='pettingzoo[classic] not installed (pip install -e ".[bench]" in the source tree)',
                )
                continue
            w = aec_steps_per_second(mk[0], seconds)
            r = aec_steps_per_second(mk[1], seconds)
            peer_rates[name] = {"wrapped": w, "raw": r}
            yield rec(
                "peer",
                peer=name,
                wrapped_steps_per_s=w,
                raw_steps_per_s=r,
                ratio_wrapped=wrapped / w,
                ratio_raw=raw / r,
            )


PEER_MIN_BATCH = 1024
"""The smallest batch at which ``tabletop bench`` compares the vector env with Pgx: below
it each of Pgx's jitted calls costs about as much to dispatch as its envs' steps, and
the ratio would say more about XLA's dispatch than about either step."""


def _vector_records(
    rec, game: GameDef, options: dict, seconds: float, batches, peers: bool
) -> Iterator[dict]:
    """(b) the vector env: default threads at every batch, and one thread at the largest;
    then Pgx's Connect Four at every batch of at least :data:`PEER_MIN_BATCH` (the largest
    if none is), each compared with ours at the same batch: a step's cost per env moves
    with the batch on both sides (ours once the rows outgrow the cache, Pgx's while its
    dispatch is amortised), so one batch alone does not give the picture."""

    def vector_rec(b: int, rates: dict) -> dict:
        return rec(
            "vector",
            batch=b,
            threads=rates["threads"],
            python_actions_steps_per_s=rates["python_actions"],
            kernel_actions_steps_per_s=rates["kernel_actions"],
            cores_used=rates["cores_used"],
        )

    vec: dict[int, dict] = {}
    for b in batches:
        vec[b] = _vector_rates(game, b, seconds, options)
        yield vector_rec(b, vec[b])
    big = max(batches)
    one = None
    if vec[big]["threads"] > 1:
        one = _vector_rates(game, big, seconds, options, num_threads=1)
        yield vector_rec(big, one)
    if not peers:
        return
    pgx_rates: dict[int, float] = {}
    for b in sorted({b for b in batches if b >= PEER_MIN_BATCH} or {big}):
        pgx = _pgx_connect_four(b, seconds)
        if pgx is None:
            yield rec(
                "peer",
                peer="pgx connect_four",
                error='pgx/jax not installed (pip install -e ".[bench]" in the source tree)',
            )
            return
        pgx_rates[b] = pgx[0]
        yield _pgx_record(rec, game, options, seconds, b, vec[b], one if b == big else None, pgx)
    for b in PEER_BEST_SCALES:  # Pgx gains with the batch past ours: give it room
        pgx = _pgx_connect_four(b * big, seconds)
        if pgx is not None:
            pgx_rates[b * big] = pgx[0]
    yield _best_batches_record(rec, vec, pgx_rates)


PEER_BEST_SCALES = (4, 8)
"""``peer_best`` also times Pgx at these multiples of the largest batch: its rate keeps
rising with the batch well past the batch where ours peaks, so its best is looked for
beyond the batches compared."""


def _best_batches_record(rec, vec: dict[int, dict], pgx_rates: dict[int, float]) -> dict:
    """The "peer_best" record: each side at the batch where it ran fastest (ours over
    every batch, per kind of actions; Pgx over the batches it ran at, ``peer_rates``),
    and ours over Pgx's: which is faster for a user free to pick the batch (best
    windows)."""
    pb = max(pgx_rates, key=pgx_rates.__getitem__)
    out = {
        "peer": "pgx connect_four",
        "peer_batch": pb,
        "peer_steps_per_s": pgx_rates[pb],
        "peer_rates": {b: pgx_rates[b] for b in sorted(pgx_rates)},
    }
    for side in ("python", "kernel"):
        b = max(vec, key=lambda k: vec[k][f"{side}_actions"])
        out[f"{side}_actions_batch"] = b
        out[f"{side}_actions_steps_per_s"] = vec[b][f"{side}_actions"]
        out[f"ratio_{side}_actions"] = vec[b][f"{side}_actions"] / pgx_rates[pb]
    return rec("peer_best", **out)


def _pgx_record(rec, game: GameDef, options: dict, seconds: float, b: int, ours: dict, one, pgx) -> dict:
    """The "peer" record of Pgx's Connect Four at batch ``b``: its rate, ours over it
    (``ours``: :func:`_vector_rates` at ``b``; ``one``: the same on one thread, or None),
    and the interleaved rounds' medians (:func:`_paired_ratios`)."""
    pgx_rate, pgx_cores, pgx_step = pgx
    return rec(
        "peer",
        peer="pgx connect_four",
        batch=b,
        steps_per_s=pgx_rate,
        cores_used=round(pgx_cores, 2),
        threads=ours["threads"],
        ratio_python_actions=ours["python_actions"] / pgx_rate,
        ratio_kernel_actions=ours["kernel_actions"] / pgx_rate,
        **_paired_ratios(game, b, 2.0 * seconds, options, pgx_step),
        **(
            {
                "ratio_python_actions_one_thread": one["python_actions"] / pgx_rate,
                "ratio_kernel_actions_one_thread": one["kernel_actions"] / pgx_rate,
            }
            if one is not None
            else {}
        ),
    )


def _check_sweep(batches, windows: int, seconds: float, num_threads: int | None) -> None:
    """:func:`batch_sweep`'s Raises."""
    if (
        not batches
        or min(batches) < 1
        or windows < 1
        or not seconds > 0
        or (num_threads is not None and num_threads < 1)
    ):
        raise ValueError(
            f"batch_sweep needs batches >= 1 (got {batches!r}), windows >= 1 (got {windows}), "
            f"seconds > 0 (got {seconds}) and num_threads >= 1 or None (got {num_threads})"
        )


def batch_sweep(
    game: GameDef,
    options: dict | None = None,
    batches: tuple[int, ...] = (256, 1024, 4096, 8192),
    windows: int = 5,
    seconds: float = 0.5,
    num_threads: int | None = 2,
    peer: bool = True,
) -> dict:
    """The vector env's in-kernel random-bot steps/s at each batch of ``batches``
    (``copy=False``, ``num_threads`` threads, or one per env at a smaller batch; None:
    the env's default choice), and Pgx ``connect_four``'s at the same
    batches where it is installed (``peer``): ``windows`` windows of ``seconds`` per loop,
    one a round (:func:`_interleaved_rounds`), medians over the windows. Says where a step's
    rows outgrow the cache on this machine (``docs/vector-env.md``, "Choosing the
    batch").

    Returns:
        The sweep as a dict
        ``{"bench": "batch_sweep", "game", "options", "threads", "obs_floats", "windows",
        "steps_per_s": {batch: ours}, "peer_steps_per_s": {batch: Pgx's} (absent without
        Pgx), "obs_mib": {batch: the observation buffer's MiB}}``.

    Raises:
        ValueError: if ``batches`` is empty or holds a batch below 1, or ``windows``,
            ``seconds`` or ``num_threads`` is not positive.
    """
    _check_sweep(batches, windows, seconds, num_threads)
    options = dict(options or {})
    loops: dict[str, Callable[[], int]] = {}
    dim = 0
    for b in batches:
        venv, _, in_kernel = _vector_loops(
            game, b, options, None if num_threads is None else min(num_threads, b)
        )
        dim = venv.single_observation_space.shape[0]
        loops[f"ours {b}"] = in_kernel
        if peer:
            pgx = _pgx_connect_four(b, seconds)
            if pgx is not None:
                loops[f"pgx {b}"] = pgx[2]
    done = _interleaved_rounds(loops, seconds, windows)
    rates = {k: [r[k] for r in done] for k in loops}
    out = {
        "bench": "batch_sweep",
        "game": game.name,
        "options": dict(vars(as_options(game.make_options, options))),
        "threads": num_threads,
        "obs_floats": int(dim),
        "windows": windows,
        "steps_per_s": {b: float(np.median(rates[f"ours {b}"])) for b in batches},
        "obs_mib": {b: round(b * dim * 4 / 2**20, 1) for b in batches},
    }
    if any(k.startswith("pgx") for k in loops):
        out["peer_steps_per_s"] = {b: float(np.median(rates[f"pgx {b}"])) for b in batches}
    return out


THREAD_CASES = ("quiet", "busy", "torch")


def _busy_process() -> subprocess.Popen:
    """Another process that keeps one core busy (a pure Python loop)."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def _torch_mlp(dim_in: int, dim_out: int) -> Callable[[np.ndarray], Any] | None:
    """A 2-layer MLP forward pass (``dim_in``-256-256-``dim_out``, torch's default threads),
    as a trainer runs on the batch between env steps; None without torch."""
    try:
        import torch
    except ImportError:
        return None
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(dim_in, 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, dim_out),
    )

    def forward(obs: np.ndarray):
        # the vector env hands out read-only views; the net only reads them
        with torch.no_grad(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
            return net(torch.from_numpy(obs))

    return forward


def thread_cases(
    game: GameDef,
    options: dict | None = None,
    num_envs: int = 4096,
    seconds: float = 4.0,
    cases: tuple[str, ...] = THREAD_CASES,
    threads: int | None = None,
    warmup: int = 40,
    min_steps: int = 300,
) -> Iterator[dict]:
    """The vector env's default threads against one thread, in the same run, for each case.

    Cases: ``quiet`` (nothing else runs here: the machine's own load is what it is),
    ``busy`` (another process keeps a core busy meanwhile), ``torch`` (a 2-layer MLP
    forward pass on the batch between env steps, as a trainer interleaves them). After
    ``warmup`` steps each in the case's conditions (the default env's first measures of
    1 and ``threads`` threads fall there: a long run amortizes them), both envs
    (``num_threads=threads``, default None, and ``num_threads=1``) step in alternating
    windows of 10 steps with actions chosen in Python (the compiled sampler, then
    ``step``) for ``seconds`` and at least ``min_steps`` steps each (with torch, a
    forward pass at batch 4096 takes longer than many steps); only the env's time
    (sampling and stepping) is counted.

    Yields one record per case: ``default_steps_per_s``, ``one_thread_steps_per_s``,
    ``ratio`` (default / one thread, over the whole run), ``median_window_ratio`` (the
    median over back-to-back pairs of windows: robust to a burst of the machine's other
    load landing in one env's window), ``threads`` (the default env's ``num_threads``),
    ``threads_in_use`` at the end, numba's threading layer and the OpenMP wait policy.
    """
    options = dict(options or {})
    for case in cases:
        if case not in THREAD_CASES:
            raise ValueError(f"unknown case {case!r}; cases are {', '.join(THREAD_CASES)}")
        envs = {
            "default": SelfPlayVectorEnv(game, num_envs, seed=0, copy=False, num_threads=threads, **options),
            "one": SelfPlayVectorEnv(game, num_envs, seed=0, copy=False, num_threads=1, **options),
        }
        forward = None
        if case == "torch":
            forward = _torch_mlp(envs["one"].layout.dim, game.num_actions)
            if forward is None:
                yield {"bench": "threads", "case": case, "game": game.name, "error": "torch not installed"}
                continue
        busy = _busy_process() if case == "busy" else None
        try:
            spent, steps, pairs = _alternate_windows(envs, forward, seconds, warmup, min_steps)
        finally:
            if busy is not None:
                busy.kill()
                busy.wait()
        yield _thread_record(game, case, options, num_envs, envs, spent, steps, pairs)


def _thread_record(game: GameDef, case: str, options: dict, num_envs: int, envs, spent, steps, pairs) -> dict:
    """One :func:`thread_cases` record from the windows' times."""
    rate = {k: steps[k] * num_envs / spent[k] for k in envs}
    return {
        "bench": "threads",
        "case": case,
        "game": game.name,
        "options": options,
        "batch": num_envs,
        "default_steps_per_s": rate["default"],
        "one_thread_steps_per_s": rate["one"],
        "ratio": rate["default"] / rate["one"],
        "median_window_ratio": float(np.median([one / dflt for dflt, one in pairs])),
        "threads": envs["default"].num_threads,
        "threads_in_use": envs["default"].threads_in_use,
        "steps_by_threads": envs["default"].steps_by_threads,
        "layer": numba.threading_layer() if envs["default"].num_threads > 1 else "none",
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""),
    }


def _alternate_windows(envs: dict, forward, seconds: float, warmup: int, min_steps: int) -> tuple:
    """Warm each env of ``envs`` up with ``warmup`` steps, then step them in alternating
    windows of 10 steps (``forward`` on the observations before each step, untimed) for
    ``seconds`` and at least ``min_steps`` steps each. Returns ``(seconds spent per env,
    steps per env, [(default, one thread) seconds of back-to-back windows])``."""
    spent = {k: 0.0 for k in envs}
    steps = {k: 0 for k in envs}
    pairs = []
    obs = {}
    for k, v in envs.items():  # warm up in the case's conditions: compilation,
        obs[k] = v.reset()[0]  # thread start, the default env's first choices
        for _ in range(warmup):
            if forward is not None:
                forward(obs[k])
            obs[k] = v.step(v.sample_actions())[0]
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end or steps["one"] < min_steps:
        window = {}
        for k, v in envs.items():
            window[k] = 0.0
            for _ in range(10):
                if forward is not None:
                    forward(obs[k])
                t0 = time.perf_counter()
                obs[k] = v.step(v.sample_actions())[0]
                window[k] += time.perf_counter() - t0
            spent[k] += window[k]
            steps[k] += 10
        pairs.append((window["default"], window["one"]))
    return spent, steps, pairs


def copy_case(game: GameDef, options: dict | None = None, num_envs: int = 4096, seconds: float = 4.0) -> dict:
    """``copy=True`` (the default) against ``copy=False``, default threads, same run.

    Both envs step in alternating windows of 10 steps with Python actions (the compiled
    sampler, then ``step``) for ``seconds``; the caller keeps each step's outputs until
    the next step, as a training loop does. Returns the ``copy`` record:
    ``copy_steps_per_s``, ``no_copy_steps_per_s``, ``ratio`` and ``median_window_ratio``.
    """
    options = dict(options or {})
    envs = {c: SelfPlayVectorEnv(game, num_envs, seed=0, copy=c, **options) for c in (True, False)}
    out = {}
    for c, v in envs.items():
        v.reset()
        for _ in range(40):
            out[c] = v.step(v.sample_actions())
    spent = {c: 0.0 for c in envs}
    steps = {c: 0 for c in envs}
    pairs = []
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        window = {}
        for c, v in envs.items():
            t0 = time.perf_counter()
            for _ in range(10):
                out[c] = v.step(v.sample_actions())
            window[c] = time.perf_counter() - t0
            spent[c] += window[c]
            steps[c] += 10
        pairs.append((window[True], window[False]))
    rate = {c: steps[c] * num_envs / spent[c] for c in envs}
    return {
        "bench": "copy",
        "game": game.name,
        "options": options,
        "batch": num_envs,
        "copy_steps_per_s": rate[True],
        "no_copy_steps_per_s": rate[False],
        "ratio": rate[True] / rate[False],
        "median_window_ratio": float(np.median([nc / cp for cp, nc in pairs])),
        "threads": envs[True].num_threads,
    }
