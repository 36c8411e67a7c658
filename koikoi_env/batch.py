"""Batch kernels: the loops the vector env, the AEC env (batch of one) and the arena run.

Each loop is a thin adapter over the rules kernels; all the rules live in ``rules.py``.
The reward of a step is each seat's chip change (``State.delta``), nonzero only when a
round is scored, so an episode's return is final chips - 25.

The per-env work of a step is written out in each loop over the record ``e = s[i]``
(``*_r`` kernels, see ``rules``) rather than in a helper taking the batch arrays: numba
reference-counts array arguments passed on to other calls with atomic operations, which
cost more than a whole step. So in the hot loops the arrays only go straight into leaf
kernels, which index their row (``legal_mask_r(e, masks, i)``), and no row view
(``masks[i]``) is made except for the evaluation bots.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tabletop_core.bits import seat_in
from tabletop_core.jit import kernel

from .bots import RANDOM_BOT, bot_action_r, random_bot_r
from .observe import observe_r
from .rules import apply_action_r, is_legal, legal_mask_r, new_game_r
from .spec import NUM_ACTIONS


@kernel
def first_illegal(s, actions):
    """Index of the first env whose action is illegal, or -1 if all are legal."""
    for i in range(s.shape[0]):
        if not is_legal(s, i, actions[i]):
            return i
    return -1


@kernel
def _write_rewards(e, rewards, i):
    """Row ``i`` of ``rewards`` (B, P): the chip changes of the step (0 for absent seats)."""
    n = e.cfg_players
    for k in range(rewards.shape[1]):
        rewards[i, k] = e.delta[k] if k < n else 0.0


@kernel
def _refresh(e, i, obs, masks, current):
    """Write env ``i``'s acting seat, mask and observation (record ``e`` = ``s[i]``); for
    the loops that are not hot (a call passing arrays on costs reference counting)."""
    current[i] = e.current
    legal_mask_r(e, masks, i)
    observe_r(e, e.current, obs, i)


@kernel
def batch_reset(s, obs, masks, current):
    """Start a game in every env with its own generator; write obs (B, D), masks (B, A),
    current (B,)."""
    for i in range(s.shape[0]):
        e = s[i]
        new_game_r(e)
        current[i] = e.current
        legal_mask_r(e, masks, i)
        observe_r(e, e.current, obs, i)


@kernel
def batch_step(s, actions, obs, masks, rewards, terminated, current, final_obs, autoreset):
    """Step every env with ``actions`` (B,) (all legal: check with :func:`first_illegal`).

    Writes rewards (B, P) float32 (chip changes), terminated (B,) bool and the final
    observation of ended episodes (from the seat that moved last). With ``autoreset`` an
    ended env starts its next game at once (same-step autoreset) and obs/masks/current
    describe the new episode.
    """
    for i in range(s.shape[0]):
        e = s[i]
        seat = e.current
        apply_action_r(e, actions[i])
        _write_rewards(e, rewards, i)
        done = e.status != 0
        terminated[i] = done
        if done:
            observe_r(e, seat, final_obs, i)
            if autoreset:
                new_game_r(e)
        current[i] = e.current
        legal_mask_r(e, masks, i)
        observe_r(e, e.current, obs, i)


@kernel
def batch_step_bots(s, bot_ids, bot_rng, actions, obs, masks, rewards, terminated, current, final_obs):
    """Like :func:`batch_step` (autoreset on) with each env's action chosen in the kernel by
    the bot of its current seat (``bot_ids`` (P,) ints, ``bot_rng`` (B,) uint64); the
    chosen actions are written to ``actions`` (B,)."""
    for i in range(s.shape[0]):
        e = s[i]
        seat = e.current
        bot = bot_ids[seat]
        if bot == RANDOM_BOT:
            a = random_bot_r(e, bot_rng, i)
        else:
            a = bot_action_r(bot, e, masks[i], bot_rng, i)
        actions[i] = a
        apply_action_r(e, a)
        _write_rewards(e, rewards, i)
        done = e.status != 0
        terminated[i] = done
        if done:
            observe_r(e, seat, final_obs, i)
            new_game_r(e)
        current[i] = e.current
        legal_mask_r(e, masks, i)
        observe_r(e, e.current, obs, i)


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
    """Play one full game in each env of ``s`` (generators already seeded) with the bots
    ``bot_ids`` (P,); write each seat's episode return (chip change) ``returns`` (G, P)
    float64 and the number of agent steps ``steps`` (G,). The final positions stay in
    ``s``. The mask is only written for bots that read it (not ``random``)."""
    mask = np.zeros((1, NUM_ACTIONS), np.int8)
    for i in range(s.shape[0]):
        e = s[i]
        new_game_r(e)
        n = 0
        for k in range(returns.shape[1]):
            returns[i, k] = 0.0
        while e.status == 0:
            bot = bot_ids[e.current]
            if bot == RANDOM_BOT:
                a = random_bot_r(e, bot_rng, i)
            else:
                legal_mask_r(e, mask, 0)
                a = bot_action_r(bot, e, mask[0], bot_rng, i)
            apply_action_r(e, a)
            for k in range(min(returns.shape[1], e.cfg_players)):
                returns[i, k] += e.delta[k]
            n += 1
        steps[i] = n


@kernel
def batch_observe(s, obs, masks, current):
    """Write every env's acting-seat observation, mask and seat without changing state."""
    for i in range(s.shape[0]):
        e = s[i]
        current[i] = e.current
        legal_mask_r(e, masks, i)
        observe_r(e, e.current, obs, i)


@kernel
def _bots_until_learner(e, i, learners, bot_ids, bot_rng, masks, acc):
    """Bots play the other seats of env ``i`` (record ``e``) until a seat of ``learners`` (a seat bit set, -1: every seat) is to act
    or the game ends; their chip changes are added to row ``i`` of ``acc`` (B, P). Row
    ``i`` of ``masks`` is scratch space for the evaluation bots."""
    while e.status == 0 and not seat_in(learners, e.current):
        bot = bot_ids[e.current]
        if bot == RANDOM_BOT:
            a = random_bot_r(e, bot_rng, i)
        else:
            legal_mask_r(e, masks, i)
            a = bot_action_r(bot, e, masks[i], bot_rng, i)
        apply_action_r(e, a)
        for k in range(e.cfg_players):
            acc[i, k] += e.delta[k]


@kernel
def _new_game_for_learner(e, i, learners, bot_ids, bot_rng, masks, acc):
    """Start a game in env ``i``; bots play up to the learner's first turn (a game that
    ends before the learner ever acts is started again)."""
    new_game_r(e)
    _bots_until_learner(e, i, learners, bot_ids, bot_rng, masks, acc)
    while e.status != 0:
        acc[i, :] = 0.0
        new_game_r(e)
        _bots_until_learner(e, i, learners, bot_ids, bot_rng, masks, acc)


@kernel
def batch_reset_learner(s, learners, bot_ids, bot_rng, obs, masks, current, carry):
    """Single-agent reset (see ``tabletop_core.single_agent``): bots play up to the
    learner's first turn; their chip changes go to ``carry`` (B, P)."""
    for i in range(s.shape[0]):
        e = s[i]
        carry[i, :] = 0.0
        _new_game_for_learner(e, i, learners, bot_ids, bot_rng, masks, carry)
        _refresh(e, i, obs, masks, current)


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
    """Single-agent step: the learner's LEGAL ``actions`` (B,), then bots play until the
    learner is to act again. ``rewards`` (B, P) are the chip changes since the learner's
    previous action (plus ``carry``); see ``thegame_env.batch.batch_step_learner``."""
    for i in range(s.shape[0]):
        e = s[i]
        rewards[i, :] = carry[i]
        carry[i, :] = 0.0
        mover = e.current
        apply_action_r(e, actions[i])
        for k in range(e.cfg_players):
            rewards[i, k] += e.delta[k]
        _bots_until_learner(e, i, learners, bot_ids, bot_rng, masks, rewards)
        done = e.status != 0
        terminated[i] = done
        if done:
            observe_r(e, mover, final_obs, i)
            if autoreset:
                _new_game_for_learner(e, i, learners, bot_ids, bot_rng, masks, carry)
        _refresh(e, i, obs, masks, current)
