"""Batch kernels: the loops the vector env, the AEC env (batch of one) and the arena run.

Each loop is a thin adapter over the rules kernels; all the rules live in ``rules.py``.
Written out per game (not generic) because numba cannot cache kernels that take other
kernels as arguments.

Speed: a kernel that calls other (not inlined) kernels increments and decrements the
reference count of every array it receives (two atomic operations per array and call;
numba removes the pair only in leaf kernels), and such updates per env and step cost
more than the rules of a step. So the loops write rows of
the batch buffers through leaf kernels taking the buffer and a row index (``*_row``)
rather than row views, call the rules on the env's record (:func:`~exhaust_env.rules.act`)
rather than through the State array, and spell the per-env step out instead of calling
a helper that takes the batch arrays. The random bot samples from the legal actions as
two 64-bit words (no mask scan).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tabletop_core.bits import seat_in
from tabletop_core.jit import kernel

from .bots import RANDOM, bot_action, mask_words_row, random_from_words
from .observe import observe_row
from .rules import (
    act,
    add_rewards_row,
    apply_action,
    deal,
    is_legal,
    legal_words,
    lose_round,
    write_mask,
    write_mask_row,
)
from .spec import NUM_ACTIONS


@kernel
def first_illegal(s, actions):
    """Index of the first env whose action is illegal, or -1 if all are legal."""
    for i in range(s.shape[0]):
        if not is_legal(s, i, actions[i]):
            return i
    return -1


@kernel
def batch_reset(s, obs, masks, current):
    """Deal every env with its own generator; write obs (B, D), masks (B, A), current (B,)."""
    for i in range(s.shape[0]):
        deal(s, i)
        # the refresh (mask, observation, seat) is written out in each loop: a helper
        # taking the batch arrays would cost numba two atomic reference-count updates
        # per array per env
        seat = s[i].current
        current[i] = seat
        w0, w1 = legal_words(s, i)
        write_mask_row(w0, w1, masks, i)
        observe_row(s, i, seat, obs, i)


@kernel
def batch_step(s, actions, obs, masks, rewards, terminated, current, final_obs, autoreset):
    """Step every env with ``actions`` (B,) (all legal: check with :func:`first_illegal`).

    Writes rewards (B, P) float32, terminated (B,) bool and the final observation of ended
    episodes (from the seat that moved last). With ``autoreset`` an ended env is dealt
    again at once (same-step autoreset) and obs/masks/current describe the new episode.
    """
    for i in range(s.shape[0]):
        e = s[i]
        seat = e.current
        # the step is written out here and in batch_step_bots (same lines after the
        # action is chosen): a per-env helper taking the batch arrays would cost numba two
        # atomic reference-count updates per array, and one loop shared by both kernels
        # would compile the bots into batch_step (the AEC env's cold start).
        # apply_action(s, i, a), spelled out for the same reason (its count of ``s``):
        stuck = act(e, actions[i])
        if stuck >= 0:
            lose_round(s, i, stuck)
        for k in range(rewards.shape[1]):
            rewards[i, k] = 0.0
        add_rewards_row(s, i, rewards, i)  # a leaf: no reference counting of the arrays
        done = e.status != 0
        terminated[i] = done
        if done:
            observe_row(s, i, seat, final_obs, i)
            if autoreset:
                deal(s, i)
        seat = e.current
        current[i] = seat
        w0, w1 = legal_words(s, i)
        write_mask_row(w0, w1, masks, i)
        observe_row(s, i, seat, obs, i)


@kernel
def batch_step_bots(s, bot_ids, bot_rng, actions, obs, masks, rewards, terminated, current, final_obs):
    """Like :func:`batch_step` (autoreset on) with each env's action chosen in the kernel by
    the bot of its current seat (``bot_ids`` (P,) ints, ``bot_rng`` (B,) uint64) from its
    mask; the chosen actions are written to ``actions`` (B,)."""
    for i in range(s.shape[0]):
        e = s[i]
        seat = e.current
        bot = bot_ids[seat]
        if bot == RANDOM:
            w0, w1 = mask_words_row(masks, i)
            a = random_from_words(w0, w1, bot_rng, i)
        else:
            a = bot_action(bot, s, i, masks[i], bot_rng, i)
        actions[i] = a
        # from here on the lines of batch_step (see there why they are not shared)
        stuck = act(e, a)
        if stuck >= 0:
            lose_round(s, i, stuck)
        for k in range(rewards.shape[1]):
            rewards[i, k] = 0.0
        add_rewards_row(s, i, rewards, i)
        done = e.status != 0
        terminated[i] = done
        if done:
            observe_row(s, i, seat, final_obs, i)
            deal(s, i)
        seat = e.current
        current[i] = seat
        w0, w1 = legal_words(s, i)
        write_mask_row(w0, w1, masks, i)
        observe_row(s, i, seat, obs, i)


# --- threads: the two step loops over shards of the batch at once (tabletop_core.vector) ---
@kernel(parallel=True)
def batch_step_threads(bounds, s, actions, obs, masks, rewards, terminated, current, final_obs, autoreset):
    """:func:`batch_step` on the shards of envs ``bounds[k]:bounds[k + 1]`` (``bounds``
    (T + 1,) int64, rising from 0 to B) at once, one shard per thread of numba's threading
    layer. Every env owns its rows and generator: the same results as one call."""
    for k in prange(bounds.shape[0] - 1):
        lo = bounds[k]
        hi = bounds[k + 1]
        batch_step(
            s[lo:hi],
            actions[lo:hi],
            obs[lo:hi],
            masks[lo:hi],
            rewards[lo:hi],
            terminated[lo:hi],
            current[lo:hi],
            final_obs[lo:hi],
            autoreset,
        )


@kernel(parallel=True)
def batch_step_bots_threads(
    bounds, s, bot_ids, bot_rng, actions, obs, masks, rewards, terminated, current, final_obs
):
    """:func:`batch_step_bots` on the shards of envs ``bounds[k]:bounds[k + 1]`` at once,
    one shard per thread (see :func:`batch_step_threads`)."""
    for k in prange(bounds.shape[0] - 1):
        lo = bounds[k]
        hi = bounds[k + 1]
        batch_step_bots(
            s[lo:hi],
            bot_ids,
            bot_rng[lo:hi],
            actions[lo:hi],
            obs[lo:hi],
            masks[lo:hi],
            rewards[lo:hi],
            terminated[lo:hi],
            current[lo:hi],
            final_obs[lo:hi],
        )


@kernel
def play_games(s, bot_ids, bot_rng, returns, steps):
    """Play one full episode in each env of ``s`` (generators already seeded) with the bots
    ``bot_ids`` (P,); write each seat's episode return ``returns`` (G, P) float64 and the
    number of agent steps ``steps`` (G,). The final positions stay in ``s``."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for i in range(s.shape[0]):
        deal(s, i)
        n = 0
        for k in range(returns.shape[1]):
            returns[i, k] = 0.0
        while s[i].status == 0:
            w0, w1 = legal_words(s, i)
            bot = bot_ids[s[i].current]
            if bot == RANDOM:  # straight from the words (no mask written)
                a = random_from_words(w0, w1, bot_rng, i)
            else:
                write_mask(w0, w1, mask)
                a = bot_action(bot, s, i, mask, bot_rng, i)
            stuck = act(s[i], a)  # apply_action(s, i, a), as in batch_step
            if stuck >= 0:
                lose_round(s, i, stuck)
            add_rewards_row(s, i, returns, i)
            n += 1
        steps[i] = n


@kernel
def _bots_until_learner(s, i, learners, bot_ids, bot_rng, mask, acc, row):
    """Bots play the other seats of env ``i`` until a seat of ``learners`` (a seat bit set, -1: every seat) is to act or the episode
    ends; their rewards (per seat) are added to ``acc[row]`` (``mask``: (73,) scratch)."""
    while s[i].status == 0 and not seat_in(learners, s[i].current):
        w0, w1 = legal_words(s, i)
        bot = bot_ids[s[i].current]
        if bot == RANDOM:
            a = random_from_words(w0, w1, bot_rng, i)
        else:
            write_mask(w0, w1, mask)
            a = bot_action(bot, s, i, mask, bot_rng, i)
        apply_action(s, i, a)
        add_rewards_row(s, i, acc, row)


@kernel
def _deal_for_learner(s, i, learners, bot_ids, bot_rng, mask, acc, row):
    """Deal env ``i`` and let bots play up to the learner's first turn (dealing again if
    an episode ends before the learner ever acts); their rewards go to ``acc[row]``."""
    deal(s, i)
    _bots_until_learner(s, i, learners, bot_ids, bot_rng, mask, acc, row)
    while s[i].status != 0:
        acc[row, :] = 0.0
        deal(s, i)
        _bots_until_learner(s, i, learners, bot_ids, bot_rng, mask, acc, row)


@kernel
def batch_reset_learner(s, learners, bot_ids, bot_rng, obs, masks, current, carry):
    """Single-agent reset: deal every env, bots play up to the learner's first turn; their
    rewards go to ``carry`` (B, P), paid with the learner's first step."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for i in range(s.shape[0]):
        carry[i, :] = 0.0
        _deal_for_learner(s, i, learners, bot_ids, bot_rng, mask, carry, i)
        seat = s[i].current
        current[i] = seat
        w0, w1 = legal_words(s, i)
        write_mask_row(w0, w1, masks, i)
        observe_row(s, i, seat, obs, i)


@kernel
def batch_step_learner(
    s,
    actions,
    learners,
    bot_ids,
    bot_rng,
    obs,
    masks,
    rewards,
    terminated,
    current,
    final_obs,
    carry,
    autoreset,
):
    """Single-agent step: the learner's LEGAL ``actions`` (B,), then bots play the other
    seats until the learner is to act again (``learners``: its seats as a bit set, bit k for seat k).

    ``rewards`` (B, P) gets every seat's reward since the learner's previous action, plus
    ``carry``. ``final_obs`` is an ended episode's last observation from the learner's
    seat. With ``autoreset`` an ended env is dealt again at once and bots play up to the
    learner's first turn (their rewards go to ``carry``, paid with the next step);
    without it, an ended env stays ended.
    """
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for i in range(s.shape[0]):
        rewards[i, :] = carry[i]
        carry[i, :] = 0.0
        mover = s[i].current
        apply_action(s, i, actions[i])
        add_rewards_row(s, i, rewards, i)
        _bots_until_learner(s, i, learners, bot_ids, bot_rng, mask, rewards, i)
        done = s[i].status != 0
        terminated[i] = done
        if done:
            observe_row(s, i, mover, final_obs, i)
            if autoreset:
                _deal_for_learner(s, i, learners, bot_ids, bot_rng, mask, carry, i)
        seat = s[i].current
        current[i] = seat
        w0, w1 = legal_words(s, i)
        write_mask_row(w0, w1, masks, i)
        observe_row(s, i, seat, obs, i)


@kernel
def batch_observe(s, obs, masks, current):
    """Write every env's acting-seat observation, mask and seat without changing state."""
    for i in range(s.shape[0]):
        seat = s[i].current
        current[i] = seat
        w0, w1 = legal_words(s, i)
        write_mask_row(w0, w1, masks, i)
        observe_row(s, i, seat, obs, i)
