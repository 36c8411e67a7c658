"""Vectorized self-play env: ``B`` envs of one game stepped in one compiled call.

Follows Gymnasium's ``VectorEnv`` conventions, batch-first, with a per-seat reward::

    obs, info = venv.reset(seed=0)          # obs (B, D) float32
    obs, rewards, terminated, truncated, info = venv.step(actions)   # actions (B,) ints
    # rewards (B, P) float32, one column per seat; terminated/truncated (B,) bool
    # info["action_mask"] (B, A) int8 and info["current_player"] (B,) int64

Observations are from the acting seat's point of view (self-play: one policy acts for the
current seat of every env). Autoreset: ``SAME_STEP`` (``metadata["autoreset_mode"]``):
when an episode ends, ``terminated[i]`` is True, ``rewards[i]`` are that last step's
rewards, and ``obs[i]``/``action_mask[i]``/``current_player[i]`` already belong to the
next episode; the ended episode's last observation is in ``info["final_obs"][i]``
(valid where ``info["_final_obs"][i]``).

Seeding: ``reset(seed=s)`` gives env ``i`` the seed ``s + i``; it then plays exactly the
episode an AEC env reset with seed ``s + i`` plays under the same actions, and so do the
following (autoreset) episodes, which continue each env's own generator.

Threads (as EnvPool's thread pool, inside compiled code): a large batch is cut into
contiguous shards of envs (``num_shards``: up to 8 per thread, at least 128 envs each),
and a step runs the game's batch kernel on the shards at once (the game's
``batch_step_threads`` / ``batch_step_bots_threads``, a ``prange`` over the shards on
numba's threading layer, handed out one shard at a time to whichever thread is free:
``numba.set_parallel_chunksize(1)``). Every env keeps its own generator and buffer rows,
so the results are identical, bit for bit, whatever the number of threads.

Thread defaults, chosen so that the default is never much slower than one thread
(``tabletop bench GAME --threads`` prints the cases):

* ``num_threads=None`` (default) weighs ``n`` threads (one per 256 envs, at most the
  cores) against one thread as the env steps and keeps the faster
  (:class:`ThreadChooser`: every step timed, a short probe of the other choice now and
  then). The rule is asymmetric because the risks are: ``n`` threads gain at most ``n``
  times, but lose far more when another process holds a core.
* ``GOMP_SPINCOUNT`` is set low when this module is imported (unless the user set it or
  ``OMP_WAIT_POLICY``), so that GNU OpenMP's idle threads spin just long enough to bridge
  the Python between two steps and then sleep, instead of holding a core that another
  process or torch's threads need. torch ships its own GNU OpenMP under the same soname,
  which numba's OpenMP layer then shares: import the game packages before torch, or export
  ``GOMP_SPINCOUNT`` yourself.
* More shards than threads, handed out dynamically: a thread that is descheduled then
  delays the step by one small shard, not half the batch.

numba picks its threading layer (OpenMP where the system has it, else its own work
queue). With GNU OpenMP, do not ``fork`` a process that stepped a threaded env
(multiprocessing: use the ``spawn`` or ``forkserver`` start method), or use
``num_threads=1``.

``copy=True`` (default) hands out arrays the caller owns: a step writes its observations
straight into a recycled array, every row in full (the loops' ``FRESH`` mode: a game that
patches its rows does not patch this one, whose owner may have written to it before
dropping it; a game with large rows streams them to memory), and copies the masks,
rewards, flags and acting seats it produced into recycled arrays (an array is reused only
once nobody else references it, see :class:`Recycler`: a fresh multi-megabyte array pays a
page fault on every page it is written to, which costs more than the copy);
``info["final_obs"]`` copies only the rows of the envs that ended. Pass
``copy=False`` when each step's outputs are consumed or copied before the next step
(into a rollout buffer, a torch tensor): it hands out read-only views of the env's own
buffers, which the next step overwrites.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from typing import Any

import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from tabletop_core.agents.seats import is_policy, policy_actions, seat_policy
from tabletop_core.contract import loops
from tabletop_core.contract.game import GameDef, bot_count_message
from tabletop_core.contract.options import as_options
from tabletop_core.kernel.jit import kernel, shards
from tabletop_core.kernel.rng import (
    bot_seed_word,
    check_seed,
    sample_legal_batch,
    sample_legal_batch_threads,
    seed_word,
    stream_word,
)

# GNU OpenMP reads these once, when numba's OpenMP layer loads (the first threaded step):
# after a parallel step, its idle threads spin GOMP_SPINCOUNT times before they sleep.
# Its default spins long enough to hold a core after every step that another process or
# torch's threads need (module docstring). A user's own setting wins.
GOMP_SPINCOUNT = "2000"  # long enough to cover the Python between two steps of a tight loop
if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
    os.environ["GOMP_SPINCOUNT"] = GOMP_SPINCOUNT

__all__ = ["SelfPlayVectorEnv", "ThreadChooser", "first_unmasked", "available_cores", "MIN_ENVS_PER_THREAD"]

MIN_ENVS_PER_THREAD = 256
"""Envs per thread the default ``num_threads`` needs: below it, waking another thread
costs about what it saves."""
SHARDS_PER_THREAD = int(os.environ.get("TABLETOP_SHARDS_PER_THREAD", "8"))
"""Shards per thread (a free thread takes the next one), at most one per
:data:`MIN_ENVS_PER_SHARD` envs; ``TABLETOP_SHARDS_PER_THREAD`` overrides it."""
MIN_ENVS_PER_SHARD = 128


class ThreadChooser:
    """Keeps the faster of one thread and ``n`` threads, timing both as the env steps.

    The thread count the default vector env uses (``num_threads=None``): every step is
    timed; the choice in use keeps a moving average of its step time, and a probe of
    :attr:`PROBE_STEPS` steps with the other choice measures that one now and then (the
    mean of the probe's steps); after a probe the faster one is kept (``n`` threads only
    when :attr:`HYSTERESIS` times faster), and between probes the env leaves ``n``
    threads at once when their average falls behind one thread's last measure, and one
    thread when it became :attr:`BAILOUT` times slower than ``n``'s. The
    next probe comes after ``PROBE_STEPS * (ratio - 1) / OVERHEAD`` steps (``ratio``: the
    other choice's time over the one in use), at least :attr:`MIN_INTERVAL` and at most
    :attr:`MAX_INTERVAL`: probing a choice that is 10x slower costs about ``OVERHEAD``
    (2 %) of the time, one that is as fast costs nothing. After a probe that switched,
    the choice left is probed again :attr:`CONFIRM_AFTER` steps later: a switch on steps
    that met a passing burst (the first episodes' endings writing into fresh memory, a
    spike of other load) is undone at once rather than after up to :attr:`MAX_INTERVAL`
    steps. While ``n`` threads are in use, ``ratio`` is taken at most ``n`` (one thread
    cannot be more than ``n`` times slower: a probe that says so met a burst of other
    load, and is checked again soon). The first
    :attr:`WARMUP` calls of each choice are not timed (compilation, thread start).

    Args:
        n: the thread count to weigh against one thread (>= 2).
    """

    PROBE_STEPS = 4
    MIN_INTERVAL = 8
    MAX_INTERVAL = 20_000
    OVERHEAD = 0.02
    # Asymmetric, as the risks are: n threads gain at most n times, but lose far more when
    # the cores are shared (a thread waits for a descheduled one). So n threads must prove
    # themselves HYSTERESIS x faster to be taken, and are left as soon as they are slower.
    HYSTERESIS = 1.25  # after a probe, take n threads when they are this much faster
    BAILOUT = 4.0  # between probes, leave one thread when it became this much slower
    CONFIRM_AFTER = 16  # steps after a switch to the next probe of the choice left
    WARMUP = 2

    def __init__(self, n: int):
        if n < 2:
            raise ValueError(f"ThreadChooser weighs n >= 2 threads against one, got n={n}")
        self.n = int(n)
        self.use = self.n
        self.cost = {1: 0.0, self.n: 0.0}  # seconds a step (0: not measured yet)
        self._seen = {1: 0, self.n: 0}
        self._probe_left = 0
        self._probe: list[float] = []
        self._until_probe = self.WARMUP + 1

    @property
    def steps(self) -> dict[int, int]:
        """Steps recorded with each choice ``{1: ..., n: ...}``."""
        return dict(self._seen)

    def _other(self, k: int) -> int:
        return 1 if k == self.n else self.n

    def pick(self) -> int:
        """The thread count for the next step (1 or ``n``)."""
        return self._other(self.use) if self._probe_left > 0 else self.use

    def record(self, k: int, seconds: float) -> None:
        """Account a step that ran with ``k`` threads (the last :meth:`pick`) in ``seconds``."""
        self._seen[k] += 1
        if self._probe_left > 0:
            self._probe_left -= 1
            if self._seen[k] > self.WARMUP:
                self._probe.append(seconds)
            if self._probe_left == 0:
                if self._probe:  # the mean: a slow step (a preempted thread) counts
                    self.cost[k] = float(np.mean(self._probe))
                self._probe = []
                self._decide()
            return
        if self._seen[k] > self.WARMUP:
            c = self.cost[k]
            self.cost[k] = seconds if c == 0.0 else c + 0.2 * (seconds - c)
            other = self.cost[self._other(k)]
            limit = 1.0 if k == self.n else self.BAILOUT
            if other > 0.0 and self.cost[k] > limit * other:
                self.use = self._other(k)  # the other was faster when last measured:
                self.cost[self.use] = 0.0  # measure it afresh, and probe this one soon
                self._until_probe = min(self._until_probe, 2 * self.MIN_INTERVAL)
                return
        self._until_probe -= 1
        if self._until_probe <= 0:
            self._probe_left = self.PROBE_STEPS + (self.WARMUP if self._seen[self._other(k)] == 0 else 0)

    def _decide(self) -> None:
        use, other = self.cost[self.use], self.cost[self._other(self.use)]
        gain = self.HYSTERESIS if self.use == 1 else 1.0
        if use > 0.0 and other > 0.0 and other * gain < use:
            self.use = self._other(self.use)
            # the choice left is probed again soon: the steps that made the switch may
            # have met a passing burst (the first episodes' endings writing into fresh
            # memory, another process's spike) that a later measure would not see
            self._until_probe = self.CONFIRM_AFTER
            return
        ratio = other / use if use > 0.0 and other > 0.0 else 1.0
        if self.use == self.n:
            ratio = min(ratio, float(self.n))
        wait = self.PROBE_STEPS * max(ratio - 1.0, 0.0) / self.OVERHEAD
        self._until_probe = int(min(max(wait, self.MIN_INTERVAL), self.MAX_INTERVAL))


def available_cores() -> int:
    """CPU cores this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


@kernel
def first_unmasked(masks, actions):
    """Index of the first env whose action is out of range or not in its action mask.

    Args:
        masks: (B, A) int8 action masks (nonzero = legal), as the batch kernels wrote them.
        actions: (B,) int64 actions.

    Returns:
        The first offending env index, or -1 when every action is legal. One read per
        env: the masks the kernels wrote after the last reset/step are the legal actions,
        so legality costs nothing more than a lookup (the rules are not run again).
    """
    n = masks.shape[1]
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= n or masks[i, a] == 0:
            return i
    return -1


@kernel
def copy_flagged_rows(src, flags, dst):
    """``dst[i] = src[i]`` for every ``i`` where ``flags[i]`` ((B,) bool): no gathered
    temporary, and rows not flagged are not touched."""
    for i in range(src.shape[0]):
        if flags[i]:
            for j in range(src.shape[1]):
                dst[i, j] = src[i, j]


class Recycler:
    """Fresh output arrays of one shape and dtype for ``copy=True``, reusing one that
    nobody but this pool references any more.

    A new multi-megabyte array comes from ``mmap`` and pays a page fault on every page
    it is written to, which costs far more than the copy into memory already mapped. So
    the pool keeps the last few arrays it
    handed out and hands one out again once its reference count says the caller dropped
    it (a loop that rebinds ``obs`` each step frees the array of two steps ago). An
    array the caller still holds, or a view of it (which holds its base), is never
    reused: what the caller keeps is never changed.
    """

    def __init__(self, shape: tuple[int, ...], dtype, keep: int = 4):
        self.shape, self.dtype, self.keep = shape, dtype, keep
        self.pool: list[np.ndarray] = []

    def take(self) -> np.ndarray:
        for a in self.pool:
            # references: the pool's list, the loop variable, getrefcount's argument
            if sys.getrefcount(a) <= 3:
                return a
        if len(self.pool) >= self.keep:
            return np.zeros(self.shape, self.dtype)
        # written now, page by page: a pooled array may be written only in part each time
        # (final_obs), and would otherwise fault in new pages for many steps
        a = np.empty(self.shape, self.dtype)
        a.fill(0)
        self.pool.append(a)
        return a


def _read_only(x: np.ndarray) -> np.ndarray:
    """A view of ``x`` that cannot be written through (``x`` itself stays writable)."""
    v = x.view()
    v.flags.writeable = False
    return v


def _thread_count(game: GameDef, num_envs: int, num_threads: int | None) -> int:
    """The threads a vector env of ``num_envs`` steps with: ``num_threads`` checked, or for
    ``None`` up to one per :data:`MIN_ENVS_PER_THREAD` envs within the cores and numba's
    threads (1 for a game without threaded batch kernels).

    Raises:
        ValueError: ``num_threads`` not an integer in ``1..num_envs``, or above 1 for a
            game without threaded batch kernels.
    """
    threaded = game.batch_step_threads is not None and game.batch_step_bots_threads is not None
    if num_threads is None:
        cap = min(available_cores(), numba.config.NUMBA_NUM_THREADS) if threaded else 1
        return max(1, min(cap, num_envs // MIN_ENVS_PER_THREAD))
    if (
        isinstance(num_threads, bool)
        or not isinstance(num_threads, (int, np.integer))
        or not 1 <= num_threads <= num_envs
    ):
        raise ValueError(
            f"num_threads must be an integer in 1..num_envs={num_envs} or None, got {num_threads!r}"
        )
    if num_threads > 1 and not threaded:
        raise ValueError(f"{game.name} has no threaded batch kernels: num_threads must be 1 or None")
    return int(num_threads)


class SelfPlayVectorEnv(VectorEnv):
    """``num_envs`` copies of a game, stepped together in compiled code.

    Args:
        game: the game's :class:`~tabletop_core.contract.game.GameDef`.
        num_envs: batch size ``B`` (>= 1).
        seed: seed for the first reset (``reset(seed=...)`` overrides it).
        copy: return arrays the caller owns from ``reset``/``step`` (default; the step's
            outputs are copied, ``final_obs`` only for the envs that ended; see the
            module docstring). ``False`` returns read-only views of the env's internal
            buffers, which the next call overwrites (faster: use it when each step's
            outputs are consumed or copied before the next step). Read-only because the env relies on them: the step
            checks actions against the mask buffer, and a game may patch the
            observation buffer in place (Exit Now); writing to one raises NumPy's
            ``ValueError: assignment destination is read-only``. Copy what you keep.
        num_threads: threads that step the batch (contiguous shards of envs, see the
            module docstring); ``None`` (default): up to one per
            :data:`MIN_ENVS_PER_THREAD` envs, at most :func:`available_cores` and
            numba's ``NUMBA_NUM_THREADS``, used only while they are faster than one
            thread (:class:`ThreadChooser`; :attr:`threads_in_use`). An int fixes the
            count. Results do not depend on it.
        **options: the game's options (validated; ValueError on a bad one), or ``options=`` the
            game's options object itself (built once by the caller).

    Raises:
        ValueError: ``num_envs`` or ``num_threads`` not a positive integer, ``num_threads``
            above ``num_envs``, or a bad game option.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        game: GameDef,
        num_envs: int,
        seed: int | None = None,
        copy: bool = True,
        num_threads: int | None = None,
        **options: Any,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        adaptive = num_threads is None
        self.num_threads = _thread_count(game, int(num_envs), num_threads)
        self.game = game
        self.options = as_options(game.make_options, options.pop("options", None), **options)
        self.num_envs = int(num_envs)
        self.copy = bool(copy)
        if seed is not None:
            check_seed(seed, num_envs)
        self._seed = seed
        self.agents = list(game.agents(self.options))
        self.num_players = len(self.agents)
        self.layout = game.observation_layout(self.options)
        self._make_spaces()
        self.metadata = dict(self.metadata)
        self.render_mode = None
        self._make_buffers()
        self._has_reset = False
        self._bot_plans: dict = {}  # step_bots' bots -> (bot ids, policies)
        self._plan_shards(adaptive)

    def _make_spaces(self) -> None:
        """The single and batched observation and action spaces."""
        b, d, a = self.num_envs, self.layout.dim, self.game.num_actions
        self.single_observation_space = spaces.Box(0.0, 1.0, (d,), np.float32)
        self.single_action_space = spaces.Discrete(a)
        self.observation_space = spaces.Box(0.0, 1.0, (b, d), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(b, a))

    def _make_buffers(self) -> None:
        """The State records, the buffers the batch kernels write, their read-only views
        (``copy=False``) and the pools of fresh output arrays (``copy=True``)."""
        game = self.game
        b, d, a, p = self.num_envs, self.layout.dim, game.num_actions, self.num_players
        self.state = game.new_state(b, self.options)
        self._notes = game.new_notes(b)  # what the kernels wrote to _obs / _final (not game state)
        self._obs = np.zeros((b, d), np.float32)
        self._mask = np.zeros((b, a), np.int8)
        self._rewards = np.zeros((b, p), np.float32)
        self._term = np.zeros(b, np.bool_)
        self._trunc = np.zeros(b, np.bool_)
        self._cur = np.zeros(b, np.int64)
        self._final = np.zeros((b, d), np.float32)
        self._actions = np.zeros(b, np.int64)
        # what every step loop writes, in the loops' argument order
        self._step_out_buffers = (self._obs, self._mask, self._rewards, self._term, self._cur, self._final)
        # copy=True: a step writes every observation row in full into a recycled array
        self._step_mode = loops.STEP_AUTORESET + (loops.FRESH if self.copy else 0)
        self._sample_rng = np.zeros(b, np.uint64)
        self._bot_rng = np.zeros(b, np.uint64)
        self._views = {id(x): _read_only(x) for x in self._buffers()}
        # copy=True: the large outputs come from recycled arrays (see Recycler)
        self._pools = {id(x): Recycler(x.shape, x.dtype) for x in (self._obs, self._mask, self._final)}

    def _plan_shards(self, adaptive: bool) -> None:
        """The shards of envs the threads step and, with ``num_threads=None``
        (``adaptive``), the choosers that time one thread against ``num_threads``."""
        # shard k is envs bounds[k]:bounds[k + 1]
        parts = self.num_threads
        if parts > 1:  # more shards than threads, handed out one at a time (see _threaded)
            parts = max(parts, min(SHARDS_PER_THREAD * parts, self.num_envs // MIN_ENVS_PER_SHARD))
        self.num_shards = int(parts)
        self._bounds = shards(self.num_envs, self.num_shards)
        self._numba_threads = min(self.num_threads, numba.config.NUMBA_NUM_THREADS)
        # num_threads=None: time one thread against num_threads and keep the faster
        self._sampled = (0, 0.0)  # threads and seconds of the last sample_actions()
        self._choosers = (
            {"step": ThreadChooser(self.num_threads), "bots": ThreadChooser(self.num_threads)}
            if adaptive and self.num_threads > 1
            else None
        )

    @property
    def threads_in_use(self) -> int:
        """Threads the next step uses: ``num_threads``, or with ``num_threads=None`` the
        faster of 1 and ``num_threads`` as last measured (:class:`ThreadChooser`)."""
        return self._choosers["step"].use if self._choosers else self.num_threads

    @property
    def steps_by_threads(self) -> dict[int, int]:
        """How many steps (``step`` and ``step_bots``) ran with each thread count."""
        if not self._choosers:
            return {}
        out: dict[int, int] = {}
        for c in self._choosers.values():
            for k, n in c.steps.items():
                out[k] = out.get(k, 0) + n
        return out

    def _run(self, which: str, serial, threaded, args: tuple) -> None:
        """Run a batch kernel on 1 thread or on the shards, as the chooser says."""
        chooser = self._choosers[which] if self._choosers else None
        k = chooser.pick() if chooser else self.num_threads
        t0 = time.perf_counter()
        if k == 1:
            serial(*args)
        else:
            self._threaded(threaded, *args)
        if chooser:
            dt = time.perf_counter() - t0
            if which == "step" and self._sampled[0] == k:
                dt += self._sampled[1]
            self._sampled = (0, 0.0)
            chooser.record(k, dt)

    def _threaded(self, kernel, *args: Any) -> None:
        """Run a ``*_threads`` kernel over the shards on as many of numba's threads."""
        before = numba.get_num_threads()
        numba.set_num_threads(self._numba_threads)
        chunk = numba.set_parallel_chunksize(1)  # dynamic: a free thread takes the next shard
        try:
            kernel(self._bounds, *args)
        finally:
            numba.set_parallel_chunksize(chunk)
            numba.set_num_threads(before)

    # --- core API --------------------------------------------------------------------------
    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Start a new episode in every env.

        Args:
            seed: ``int`` s (env i gets s + i), a list of ``B`` ints, or ``None`` (the
                constructor's seed on the first reset, else continue each env's stream).
            options: ignored (game options are given to the constructor).

        Returns:
            ``(obs (B, D) float32, info)`` with ``info["action_mask"]`` and
            ``info["current_player"]``.
        """
        if seed is None and not self._has_reset:
            seed = self._seed if self._seed is not None else int(seed_word(None) >> np.uint64(1))
        if seed is not None:
            seeds = self._seeds(seed)
            self.state["rng"] = [seed_word(s) for s in seeds]
            self._sample_rng[:] = [stream_word(s, "sampler") for s in seeds]
            self._bot_rng[:] = [bot_seed_word(s) for s in seeds]
        self._has_reset = True
        self.game.batch_step(self.state, self._notes, self._actions, *self._step_out_buffers, loops.RESET)
        self._term[:] = False
        return self._out(self._obs), self._info(with_final=False)

    def _seeds(self, seed) -> list[int]:
        """The ``num_envs`` seeds of ``reset(seed=...)``; ValueError for anything but an
        int or a sequence of ``num_envs`` ints (floats, bools and strings are refused)."""

        def is_int(x) -> bool:
            return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))

        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != self.num_envs:
                raise ValueError(f"seed list must have num_envs={self.num_envs} entries, got {len(seed)}")
            bad = [s for s in seed if not is_int(s)]
            if bad:
                raise ValueError(f"seed list entries must be ints, got {bad[0]!r} ({type(bad[0]).__name__})")
            for s in seed:
                check_seed(s)
            return [int(s) for s in seed]
        if not is_int(seed):
            raise ValueError(f"seed must be an int, a list of ints or None, got {seed!r}")
        check_seed(seed, self.num_envs)  # env i is seeded seed + i: 0 <= seed + i < 2**64
        return [int(seed) + i for i in range(self.num_envs)]

    def step(self, actions):
        """Apply one action per env (all must be legal for the env's acting seat).

        Args:
            actions: (B,) integer array-like.

        Returns:
            ``(obs (B, D) float32, rewards (B, P) float32, terminated (B,) bool,
            truncated (B,) bool, info)``; see the module docstring for autoreset.

        Raises:
            ValueError: wrong shape or dtype, an out-of-range or illegal action (naming
                the env, the action and the legal ones); no env is stepped then.
            RuntimeError: step before reset.
        """
        if not self._has_reset:
            raise RuntimeError("reset() needs to be called before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {acts.shape}")
        if not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be integers, got dtype {acts.dtype}")
        n = self.game.num_actions
        out = (acts < 0) | (acts >= n)  # before the int64 cast: 2**64 - 1 must not read as -1
        if out.any():
            i = int(np.argmax(out))
            raise ValueError(
                f"env {i}: action {int(acts[i])} is out of range; allowed actions are 0..{n - 1}. No env was stepped."
            )
        a = self._actions
        a[:] = acts
        bad = first_unmasked(self._mask, a)
        if bad >= 0:
            self._raise_illegal(bad, int(a[bad]))
        bufs = self._step_buffers()
        args = (self.state, self._notes, a, *bufs, self._step_mode)
        self._run("step", self.game.batch_step, self.game.batch_step_threads, args)
        return self._step_out(bufs[0])

    def step_bots(self, bots) -> tuple:
        """Step every env with actions chosen by bots: scripted bots inside the kernel,
        trained policies (the game's ``baseline``, ``policy:FILE.npz``) in numpy.

        Args:
            bots: one bot name per seat (list or comma-separated string), or one name for
                every seat: a scripted bot from ``game.bot_names``, ``baseline`` (the
                game's shipped policy for that seat, ``docs/baselines.md``) or
                ``policy:FILE.npz`` (an :class:`~tabletop_core.agents.policy.MLPPolicy` file).
                With scripted bots only, the whole step runs in compiled code. With a
                policy among them, each policy acts greedily for the envs whose acting
                seat it holds (one batched forward pass per policy), the scripted bots'
                choices for the other envs come from the kernel
                (``GameDef.batch_bot_actions``), and the envs step together.

        Returns:
            The same tuple as :meth:`step`; ``info["actions"]`` holds the chosen actions.

        Raises:
            ValueError: an unknown bot name or a wrong count (naming the bots allowed), or
                a policy that cannot play here (an unreadable file, another game, another
                observation layout; a baseline trained for other options names them). No
                env is stepped then.
            RuntimeError: step before reset.
        """
        if not self._has_reset:
            raise RuntimeError("reset() needs to be called before step_bots()")
        if not (
            isinstance(bots, str)
            or (isinstance(bots, (list, tuple)) and all(isinstance(b, str) for b in bots))
        ):
            raise ValueError(
                f"bots must be a bot name or a list of names (one per seat) from {list(self.game.bot_choices)}, "
                f"got {bots!r}"
            )
        key = bots if isinstance(bots, str) else tuple(bots)
        plan = self._bot_plans.get(key)
        if plan is None:
            plan = self._bot_plans[key] = self._plan_bots(bots)
        ids, policies = plan
        if policies:
            return self._step_policies(ids, policies)
        bufs = self._step_buffers()
        args = (self.state, self._notes, ids, self._bot_rng, self._actions, *bufs, self.copy)
        self._run("bots", self.game.batch_step_bots, self.game.batch_step_bots_threads, args)
        out = self._step_out(bufs[0])
        out[4]["actions"] = self._out(self._actions)
        return out

    def _plan_bots(self, bots) -> tuple[np.ndarray, list]:
        """``(bot ids (P,) int64, [(policy, seats (k,) int64), ...])`` for :meth:`step_bots`:
        every name checked and every policy loaded and checked once. A policy seat gets
        the game's random bot id, whose kernel choice there is never played."""
        names = [b.strip() for b in bots.split(",")] if isinstance(bots, str) else list(bots)
        if len(names) == 1:
            names = names * self.num_players
        if len(names) != self.num_players:
            raise ValueError(bot_count_message(self.game.name, self.num_players, names))
        seats = [k for k, b in enumerate(names) if is_policy(b)]
        if not seats:
            return self.game.bot_ids(names, self.num_players), []
        filler = self.game.bot_names.index("random") if "random" in self.game.bot_names else 0
        scripted = [k for k in range(self.num_players) if k not in seats]
        sub = self.game.bot_ids([names[k] for k in scripted], len(scripted)) if scripted else None
        ids = np.full(self.num_players, filler, np.int64 if sub is None else sub.dtype)
        if scripted:
            ids[scripted] = sub
        options = dataclasses.asdict(self.options)
        by_policy: dict[int, tuple] = {}  # seats played by one policy object act in one batch
        for k in seats:
            pol = seat_policy(self.game, names[k], k, options)
            by_policy.setdefault(id(pol), (pol, []))[1].append(k)
        return ids, [(pol, np.asarray(ks, np.int64)) for pol, ks in by_policy.values()]

    def _step_policies(self, ids: np.ndarray, policies: list) -> tuple:
        """One :meth:`step_bots` step with trained policies among the bots."""
        a = self._actions
        if self.copy:  # the previous step wrote its observations into the caller's array
            self.game.batch_step(self.state, self._notes, a, *self._step_out_buffers, loops.OBSERVE)
        held = [(pol, np.flatnonzero(np.isin(self._cur, ks))) for pol, ks in policies]
        if sum(len(ks) for _, ks in policies) < self.num_players:  # scripted bots in some seats
            # the kernel chooses for every env; a policy's envs keep their bot generator
            # as it was, so each bot draws exactly as in a match (tabletop_core.tools.arena)
            rows = np.concatenate([r for _, r in held])
            kept = self._bot_rng[rows]
            self.game.batch_bot_actions(self.state, ids, self._bot_rng, self._mask, a)
            self._bot_rng[rows] = kept
        for pol, rows in held:
            if rows.size:
                a[rows] = policy_actions(
                    pol, self._obs[rows], self._mask[rows], self.state, rows, self._bot_rng
                )
        bufs = self._step_buffers()
        args = (self.state, self._notes, a, *bufs, self._step_mode)
        self._run("step", self.game.batch_step, self.game.batch_step_threads, args)
        out = self._step_out(bufs[0])
        out[4]["actions"] = self._out(a)
        return out

    def sample_actions(self) -> np.ndarray:
        """One uniformly random legal action per env, sampled in compiled code ((B,) int64)."""
        if not self._has_reset:
            raise RuntimeError("reset() needs to be called before sample_actions()")
        out = np.empty(self.num_envs, np.int64)
        chooser = self._choosers["step"] if self._choosers else None
        k = chooser.pick() if chooser else self.num_threads  # as the next step will run
        t0 = time.perf_counter()
        if k == 1:
            sample_legal_batch(self._sample_rng, self._mask, out)
        else:
            self._threaded(sample_legal_batch_threads, self._sample_rng, self._mask, out)
        self._sampled = (k, time.perf_counter() - t0)  # counted with the next step
        return out

    def action_masks(self) -> np.ndarray:
        """The current action masks, (B, A) int8 (as MaskablePPO-style code expects)."""
        return self._out(self._mask)

    # --- helpers ---------------------------------------------------------------------------
    def _buffers(self) -> tuple[np.ndarray, ...]:
        return (
            self._obs,
            self._mask,
            self._rewards,
            self._term,
            self._trunc,
            self._cur,
            self._final,
            self._actions,
        )

    def _out(self, x: np.ndarray) -> np.ndarray:
        """``x`` as handed out: a read-only view (``copy=False``) or a copy."""
        if not self.copy:
            return self._views[id(x)]
        pool = self._pools.get(id(x))
        if pool is None:
            return x.copy()  # small arrays: malloc serves them from memory already mapped
        out = pool.take()
        np.copyto(out, x)
        return out

    def _final_out(self) -> np.ndarray:
        """``info["final_obs"]``: with ``copy=True`` only the rows of the envs that ended
        this step are copied (the other rows are not valid: ``info["_final_obs"]``)."""
        if not self.copy:
            return self._views[id(self._final)]
        out = self._pools[id(self._final)].take()
        copy_flagged_rows(self._final, self._term, out)
        return out

    def _info(self, with_final: bool) -> dict:
        info = {"action_mask": self._out(self._mask), "current_player": self._out(self._cur)}
        if with_final:
            info["final_obs"] = self._final_out()
            info["_final_obs"] = self._out(self._term)
        return info

    def _step_buffers(self) -> tuple[np.ndarray, ...]:
        """The buffers a step writes, in the loops' order. With ``copy=True`` the
        observations go straight into a recycled array that is then handed out, instead of
        into the env's buffer and copied from there: every row is written once, in full
        (:attr:`_step_mode`, ``step_bots``' ``fresh``): a recycled array may be the one
        handed out two steps ago, and its owner may have written to it. The env's notes
        keep describing its own buffers (the final observations are still patched)."""
        if not self.copy:
            return self._step_out_buffers
        return (self._pools[id(self._obs)].take(), *self._step_out_buffers[1:])

    def _step_out(self, obs: np.ndarray):
        """The step's return value; ``obs`` is the buffer the step wrote its observations
        to (:meth:`_step_buffers`)."""
        return (
            self._out(obs) if obs is self._obs else obs,
            self._out(self._rewards),
            self._out(self._term),
            self._out(self._trunc),
            self._info(with_final=True),
        )

    def _raise_illegal(self, i: int, action: int):
        one = self.state[i : i + 1]
        legal = np.flatnonzero(self._mask[i])
        if not 0 <= action < self.game.num_actions:
            raise ValueError(
                f"env {i}: action {action} is out of range; allowed actions are 0..{self.game.num_actions - 1}"
            )
        names = ", ".join(f"{x} ({self.game.action_name(int(x), one)})" for x in legal[:12])
        more = f", ... ({len(legal)} in all)" if len(legal) > 12 else ""
        raise ValueError(
            f"env {i}: action {action} ({self.game.action_name(action, one)}) is illegal for seat "
            f"{self._cur[i]}; legal actions: {names}{more}. No env was stepped."
        )

    # --- save / restore ------------------------------------------------------------------
    def get_state(self) -> dict:
        """A picklable copy of every env's state and the samplers' generators."""
        return {
            "game": self.game.env_id,
            "state": self.state.copy(),
            "sample_rng": self._sample_rng.copy(),
            "bot_rng": self._bot_rng.copy(),
        }

    def set_state(self, saved: dict) -> None:
        """Restore :meth:`get_state` output (same game, options and ``num_envs``).

        Atomic: the game State (the game's ``validate_state``: every field's range and
        the rules' invariants, env by env) and the samplers' generators are checked in
        full before anything is written, so on any error the env is exactly as before.

        Raises:
            ValueError: if ``saved`` does not fit this env, naming what is wrong (a
                missing key, a generator array of another shape, a State field out of
                range with its env index, ...).
        """
        self.game.load_saved_state(saved, self.state, write=False)
        rngs = []
        for key in ("sample_rng", "bot_rng"):
            if key not in saved:
                raise ValueError(
                    f"saved state lacks {key!r}; set_state expects a dict from {self.game.env_id} get_state()"
                )
            x = np.asarray(saved[key])
            if x.shape != (self.num_envs,) or x.dtype != np.uint64:
                raise ValueError(
                    f"saved {key!r} must be a ({self.num_envs},) uint64 array (one generator word per env), "
                    f"got shape {x.shape} and dtype {x.dtype}"
                )
            rngs.append(x.copy())
        self.state[...] = np.asarray(saved["state"])
        self._sample_rng[:], self._bot_rng[:] = rngs
        self._has_reset = True
        self.game.batch_step(self.state, self._notes, self._actions, *self._step_out_buffers, loops.OBSERVE)

    def close_extras(self, **kwargs: Any) -> None:
        pass
