"""The vector env's defaults: copy=True copies only what a step produced and never changes
an array the caller holds; num_threads=None keeps the faster of one thread and several
(ThreadChooser) without changing any result."""

from __future__ import annotations

import weakref

import numpy as np
import pytest

import thegame_env
from tabletop_core.envs.vector import Recycler, SelfPlayVectorEnv, ThreadChooser


def test_copy_true_arrays_are_the_callers_and_match_copy_false():
    fresh = thegame_env.vector_env(64, seed=5, num_players=3)
    views = thegame_env.vector_env(64, seed=5, num_players=3, copy=False)
    obs, info = fresh.reset()
    want, _ = views.reset()
    held = [(obs, obs.copy(), info["action_mask"], info["action_mask"].copy())]
    ended, recycled, seen = 0, 0, []  # seen: weak references to the arrays handed out
    for t in range(120):
        acts = views.sample_actions()
        out = fresh.step(acts)
        recycled += any(w() is out[0] for w in seen)  # an earlier step's array, handed out again
        seen.append(weakref.ref(out[0]))
        ref = views.step(acts)
        for got, exp in zip(out[:4], ref[:4]):
            assert np.array_equal(got, exp), t
            assert got.flags.writeable and got is not exp
        term = ref[2]
        ended += int(term.sum())
        assert np.array_equal(out[4]["final_obs"][term], ref[4]["final_obs"][term]), t
        assert np.array_equal(out[4]["action_mask"], ref[4]["action_mask"]), t
        if t % 10 == 0:  # keep some outputs (and a view of one) for the rest of the run
            held.append(
                (out[0], out[0].copy(), out[4]["action_mask"][3:9], out[4]["action_mask"][3:9].copy())
            )
        del out  # the pool recycles by reference count: no garbage collection needed
    assert ended > 0
    # the dropped arrays were handed out again, until the caller held as many as the pool
    # keeps (Recycler: four; this test holds one in ten)
    assert recycled >= 10, recycled
    for arr, snapshot, mask, mask_snapshot in held:
        assert np.array_equal(arr, snapshot) and np.array_equal(mask, mask_snapshot)


def test_recycler_reuses_only_arrays_nobody_holds():
    pool = Recycler((3, 4), np.float32, keep=2)
    a = pool.take()
    b = pool.take()
    assert a is not b
    c = pool.take()  # both held: a third, not kept in the pool
    assert c is not a and c is not b and len(pool.pool) == 2
    view = a[1]
    del a
    assert pool.take() is not view.base  # a view still holds the array
    del view
    again = pool.take()
    assert again is pool.pool[0]


class _Clock:
    """Fake step times: ``cost[k]`` seconds a step with k threads."""

    def __init__(self, one: float, n: float):
        self.cost = {1: one, 4: n}


def _drive(chooser: ThreadChooser, clock: _Clock, steps: int) -> dict[int, int]:
    used = {1: 0, 4: 0}
    for _ in range(steps):
        k = chooser.pick()
        used[k] += 1
        chooser.record(k, clock.cost[k])
    return used


def test_thread_chooser_keeps_the_faster_and_probes_little():
    chooser = ThreadChooser(4)
    clock = _Clock(one=1.0, n=0.4)  # threads faster (a quiet machine)
    used = _drive(chooser, clock, 2000)
    assert chooser.use == 4 and used[1] < 0.05 * 2000
    clock.cost[4] = 20.0  # a busy process arrives: threads 20x slower than one
    used = _drive(chooser, clock, 20_000)
    assert chooser.use == 1
    # probes of the slow choice cost about OVERHEAD of the time, not more
    extra = used[4] * (clock.cost[4] - clock.cost[1])
    assert extra <= 2.5 * ThreadChooser.OVERHEAD * 20_000 * clock.cost[1] + 10 * clock.cost[4]
    clock.cost[4] = 0.5  # the machine is quiet again: found at a later probe
    _drive(chooser, clock, ThreadChooser.MAX_INTERVAL + 100)
    assert chooser.use == 4
    with pytest.raises(ValueError, match="n >= 2"):
        ThreadChooser(1)


def test_thread_chooser_undoes_a_switch_made_in_a_burst():
    """A burst that slows every step (the first episodes' endings) falls on the one
    step that measured the threads before the first probe: the probe of one thread then
    finds it faster and switches. The threads are measured again soon and taken back,
    not after the thousands of steps that the burst's ratio would have the chooser wait."""
    chooser = ThreadChooser(4)
    clock = _Clock(one=1.0, n=0.4)
    for cost in (5.0, 5.0, 30.0):  # two warm-up steps, then the burst's step
        assert chooser.pick() == 4
        chooser.record(4, cost)
    used = _drive(chooser, clock, 200)
    assert chooser.use == 4
    # the probe of one thread, the steps until the threads' next probe, one confirming probe
    assert used[1] <= 2 * ThreadChooser.MIN_INTERVAL + 3 * ThreadChooser.PROBE_STEPS


def test_adaptive_threads_play_exactly_as_one_thread(monkeypatch):
    """Whatever the chooser picks step by step, the results are one thread's."""
    flip = iter(range(10**6))
    monkeypatch.setattr(ThreadChooser, "pick", lambda self: 1 if next(flip) % 3 else self.n)
    adaptive = SelfPlayVectorEnv(thegame_env.GAME, 600, seed=9, num_threads=None, num_players=2)
    one = SelfPlayVectorEnv(thegame_env.GAME, 600, seed=9, num_threads=1, num_players=2)
    if adaptive.num_threads == 1:
        pytest.skip("one core: the default is one thread")
    assert adaptive.num_shards > adaptive.num_threads  # more shards than threads
    adaptive.reset()
    one.reset()
    for t in range(60):
        if t % 2:
            a, b = adaptive.step_bots("greedy"), one.step_bots("greedy")
        else:
            acts = adaptive.sample_actions()
            assert np.array_equal(acts, one.sample_actions()), t
            a, b = adaptive.step(acts), one.step(acts)
        for x, y in zip(a[:4], b[:4]):
            assert np.array_equal(x, y), t
    assert np.array_equal(adaptive.state, one.state)


@pytest.mark.parametrize("package", ["thegame_env", "exhaust_env", "koikoi_env", "exitnow_envs"])
@pytest.mark.parametrize("bots", [False, True])
def test_copy_true_arrays_never_change_and_scribbles_do_not_leak(package, bots):
    """Every game, ``step`` and ``step_bots``: an array ``copy=True`` handed out is never
    changed by later steps, and what the caller writes into its arrays before dropping
    them (they are recycled) never shows in later observations (a game that patches its
    observation rows must not patch an array its owner wrote to)."""
    import importlib

    mod = importlib.import_module(package)
    mine = mod.vector_env(24, seed=11, copy=True)
    views = mod.vector_env(24, seed=11, copy=False)
    obs, info = mine.reset()
    want, _ = views.reset()
    assert np.array_equal(obs, want)
    held = [(obs, obs.copy())]
    recycled, seen = 0, []  # seen: weak references to the arrays handed out
    for t in range(60):
        if bots:
            out, ref = mine.step_bots("random"), views.step_bots("random")
            assert np.array_equal(out[4]["actions"], ref[4]["actions"]), t
        else:
            acts = views.sample_actions()
            out, ref = mine.step(acts), views.step(acts)
        for got, exp in zip(out[:4], ref[:4]):
            assert np.array_equal(got, exp), t
        term = ref[2]
        assert np.array_equal(out[4]["final_obs"][term], ref[4]["final_obs"][term]), t
        recycled += any(w() is out[0] for w in seen)  # an earlier step's array, handed out again
        seen.append(weakref.ref(out[0]))
        if t % 7 == 0:
            held.append((out[0], out[0].copy()))
        else:  # the caller scribbles on its arrays, then drops them
            out[0][::2] = 0.5
            out[4]["final_obs"][:] = 0.25
        del out  # the pool recycles by reference count: no garbage collection needed
    # the scribbled arrays were handed out again, until the caller held as many as the pool
    # keeps (Recycler: four; this test holds one in seven)
    assert recycled >= 10, recycled
    for arr, snapshot in held:
        assert np.array_equal(arr, snapshot)
