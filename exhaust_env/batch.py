"""Batch kernels: the loops the vector env, the AEC env (batch of one) and the arena run.

Each loop is a thin adapter over the rules kernels; all the rules live in ``rules.py``.
Written out per game (not generic) because numba cannot cache kernels that take other
kernels as arguments.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.jit import kernel

from .bots import bot_action
from .observe import observe
from .rules import apply_action, deal, is_legal, legal_mask, write_rewards
from .spec import NUM_ACTIONS


@kernel
def first_illegal(s, actions):
    """Index of the first env whose action is illegal, or -1 if all are legal."""
    for i in range(s.shape[0]):
        if not is_legal(s, i, actions[i]):
            return i
    return -1


@kernel
def _refresh(s, i, obs, masks, current):
    current[i] = s[i].current
    legal_mask(s, i, masks[i])
    observe(s, i, s[i].current, obs[i])


@kernel
def batch_reset(s, obs, masks, current):
    """Deal every env with its own generator; write obs (B, D), masks (B, A), current (B,)."""
    for i in range(s.shape[0]):
        deal(s, i)
        _refresh(s, i, obs, masks, current)


@kernel
def _step_one(s, i, action, obs, masks, rewards, terminated, current, final_obs, autoreset):
    e = s[i]
    seat = e.current
    apply_action(s, i, action)
    write_rewards(s, i, rewards[i])
    done = e.status != 0
    terminated[i] = done
    if done:
        observe(s, i, seat, final_obs[i])
        if autoreset:
            deal(s, i)
    _refresh(s, i, obs, masks, current)


@kernel
def batch_step(s, actions, obs, masks, rewards, terminated, current, final_obs, autoreset):
    """Step every env with ``actions`` (B,) (all legal: check with :func:`first_illegal`).

    Writes rewards (B, P) float32, terminated (B,) bool and the final observation of ended
    episodes (from the seat that moved last). With ``autoreset`` an ended env is dealt
    again at once (same-step autoreset) and obs/masks/current describe the new episode.
    """
    for i in range(s.shape[0]):
        _step_one(s, i, actions[i], obs, masks, rewards, terminated, current, final_obs, autoreset)


@kernel
def batch_step_bots(s, bot_ids, bot_rng, actions, obs, masks, rewards, terminated, current, final_obs):
    """Like :func:`batch_step` (autoreset on) with each env's action chosen in the kernel by
    the bot of its current seat (``bot_ids`` (P,) ints, ``bot_rng`` (B,) uint64); the
    chosen actions are written to ``actions`` (B,)."""
    for i in range(s.shape[0]):
        a = bot_action(bot_ids[s[i].current], s, i, masks[i], bot_rng, i)
        actions[i] = a
        _step_one(s, i, a, obs, masks, rewards, terminated, current, final_obs, True)


@kernel
def play_games(s, bot_ids, bot_rng, returns, steps):
    """Play one full episode in each env of ``s`` (generators already seeded) with the bots
    ``bot_ids`` (P,); write each seat's episode return ``returns`` (G, P) float64 and the
    number of agent steps ``steps`` (G,). The final positions stay in ``s``."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    r = np.zeros(returns.shape[1], np.float32)
    for i in range(s.shape[0]):
        deal(s, i)
        n = 0
        for k in range(returns.shape[1]):
            returns[i, k] = 0.0
        while s[i].status == 0:
            legal_mask(s, i, mask)
            a = bot_action(bot_ids[s[i].current], s, i, mask, bot_rng, i)
            apply_action(s, i, a)
            write_rewards(s, i, r)
            for k in range(returns.shape[1]):
                returns[i, k] += r[k]
            n += 1
        steps[i] = n


@kernel
def _bots_until_learner(s, i, learner, bot_ids, bot_rng, mask, acc):
    """Bots play the other seats of env ``i`` until ``learner`` is to act or the episode
    ends; their rewards (per seat) are added to ``acc`` (P,)."""
    r = np.zeros(acc.shape[0], np.float32)
    while learner >= 0 and s[i].status == 0 and s[i].current != learner:
        legal_mask(s, i, mask)
        a = bot_action(bot_ids[s[i].current], s, i, mask, bot_rng, i)
        apply_action(s, i, a)
        write_rewards(s, i, r)
        for k in range(acc.shape[0]):
            acc[k] += r[k]


@kernel
def _deal_for_learner(s, i, learner, bot_ids, bot_rng, mask, acc):
    """Deal env ``i`` and let bots play up to the learner's first turn (dealing again if
    an episode ends before the learner ever acts)."""
    deal(s, i)
    _bots_until_learner(s, i, learner, bot_ids, bot_rng, mask, acc)
    while s[i].status != 0:
        acc[:] = 0.0
        deal(s, i)
        _bots_until_learner(s, i, learner, bot_ids, bot_rng, mask, acc)


@kernel
def batch_reset_learner(s, learner, bot_ids, bot_rng, obs, masks, current, carry):
    """Single-agent reset: deal every env, bots play up to the learner's first turn; their
    rewards go to ``carry`` (B, P), paid with the learner's first step."""
    for i in range(s.shape[0]):
        carry[i, :] = 0.0
        _deal_for_learner(s, i, learner, bot_ids, bot_rng, masks[i], carry[i])
        _refresh(s, i, obs, masks, current)


@kernel
def batch_step_learner(
    s,
    actions,
    learner,
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
    seats until the learner is to act again (Exhaust is competitive: ``learner`` >= 0).

    ``rewards`` (B, P) gets every seat's reward since the learner's previous action, plus
    ``carry``. ``final_obs`` is an ended episode's last observation from the learner's
    seat. With ``autoreset`` an ended env is dealt again at once and bots play up to the
    learner's first turn (their rewards go to ``carry``, paid with the next step);
    without it, an ended env stays ended.
    """
    r = np.zeros(rewards.shape[1], np.float32)
    for i in range(s.shape[0]):
        rewards[i, :] = carry[i]
        carry[i, :] = 0.0
        mover = s[i].current
        apply_action(s, i, actions[i])
        write_rewards(s, i, r)
        for k in range(rewards.shape[1]):
            rewards[i, k] += r[k]
        _bots_until_learner(s, i, learner, bot_ids, bot_rng, masks[i], rewards[i])
        done = s[i].status != 0
        terminated[i] = done
        if done:
            observe(s, i, learner if learner >= 0 else mover, final_obs[i])
            if autoreset:
                _deal_for_learner(s, i, learner, bot_ids, bot_rng, masks[i], carry[i])
        _refresh(s, i, obs, masks, current)


@kernel
def batch_observe(s, obs, masks, current):
    """Write every env's acting-seat observation, mask and seat without changing state."""
    for i in range(s.shape[0]):
        _refresh(s, i, obs, masks, current)
