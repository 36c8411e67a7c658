"""Batch kernels: the loops the vector env, the AEC env (batch of one) and the arena run.

Each loop is a thin adapter over the rules kernels; all the rules live in the ``rules`` package.
Rewards are the episode's +1 / -1 per seat on the step that ends it, 0 otherwise.

Observation buffers: :func:`batch_reset` and :func:`batch_observe` write ``obs`` in full;
:func:`batch_step`, :func:`batch_step_bots` and :func:`batch_step_learner` patch each
env's row (:func:`observe.refresh_observation`), and :func:`batch_step` and
:func:`batch_step_bots` the rows of ``final_obs`` of the envs whose episode ended: only
what changed since the previous write is rewritten, so between calls ``obs`` and
``final_obs`` must keep what the kernels wrote there (the vector env hands its buffers
out as read-only views). A row that another
call wrote (another buffer, a restored State) is recognised and written in full.

Speed (see ``tabletop_core/game.py``): the per-env step is written out in each loop over
the env's record ``e = s[i]`` and the ``*_r`` rules kernels, which take the record, and
the buffers go to the kernels whole with the row index (``write_mask_row(bits, masks,
i)``), never as row views. numba reference-counts arrays passed to a kernel with atomic
operations unless it can prove them unneeded, which it often cannot in the larger
kernels; so the two vector-env loops first take views of their buffers that own no
reference (:func:`tabletop_core.bits.unowned`). The mask goes through an action bit set
on the stack (:func:`rules.legal_bits_r`), written to the row in vector stores; the
random bot draws
from the mask row the previous call wrote (:func:`bots.random_bot_row`). Final
observations are patched too: each env's row of ``final_obs`` keeps the previous
episode's final observation, and the State's second note (``ob_*[1]``) says what it
holds, so an ended episode rewrites only what differs (32 KB a row written in full
would cost more than the step).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tabletop_core.bits import prefetch, seat_in, stack_u64, unowned
from tabletop_core.jit import kernel

from .bots import BOT_IDS, bot_action_r, random_bot_row
from .observe import _C_GHOST, _C_OTHERS, _C_OWN, _SQ, O_SEAT, OBS_DIM, observe_r, refresh_observation_r
from .rules import (
    MASK_WORDS,
    apply_action_r,
    deal_r,
    is_legal_r,
    legal_bits_r,
    legal_mask_r,
    sample_bits,
    seat_reward_r,
    write_mask_row,
)
from .spec import MAP, MAX_GHOSTS, MAX_HUMANS, NUM_ACTIONS
from .state import STATE_DTYPE

_RANDOM = BOT_IDS["random"]
_ITEM = STATE_DTYPE.itemsize
# a step reads the record's first line (options), ``cell`` and ``chip`` around the moving
# piece and the fields from ``wbits`` up to ``ob_sq`` (excluded; ``place`` and ``ob_sq`` are
# read when the map or a chip changes: prefetching them too costs more than it saves)
_CELL0 = STATE_DTYPE.fields["cell"][1]
_PLACE0 = STATE_DTYPE.fields["place"][1]
_HOT0 = STATE_DTYPE.fields["wbits"][1]
_HOT1 = STATE_DTYPE.fields["ob_sq"][1]
_OBS_TAIL = O_SEAT * 4  # bytes of the planes: the scalar pieces follow


@kernel
def _bot_move(e, bits, bot_ids, bot_rng, r, masks, row):
    """The action of the bot of the acting seat of the record ``e`` with stream ``r`` of
    ``bot_rng``, for the loops that are not hot (it passes arrays on). ``bits``
    ((MASK_WORDS,) uint64) and row ``row`` of ``masks`` are scratch: the random bot draws
    from the legal bit set (:func:`rules.sample_bits`, the draw :func:`bots.random_bot`
    makes on the mask), the others get the mask."""
    bot = bot_ids[e.current]
    if bot == _RANDOM:
        return sample_bits(bits, legal_bits_r(e, bits), bot_rng, r)
    legal_mask_r(e, masks, row)
    return bot_action_r(bot, e, masks[row], bot_rng, r)


@kernel
def first_illegal(s, actions):
    """Index of the first env whose action is illegal, or -1 if all are legal."""
    for i in range(s.shape[0]):
        if not is_legal_r(s[i], actions[i]):
            return i
    return -1


@kernel
def _refresh(e, i, obs, masks, current, full):
    """Write env ``i``'s acting seat, mask and observation (record ``e`` = ``s[i]``); for
    the loops that are not hot (a call passing arrays on costs reference counting)."""
    current[i] = e.current
    legal_mask_r(e, masks, i)
    refresh_observation_r(e, e.current, obs, i, full, 0)


@kernel
def _write_rewards(e, rewards, i):
    """Row ``i`` of ``rewards`` (B, P): every seat's reward of the step (0 for absent seats,
    and for every seat while the episode runs)."""
    n = e.cfg_humans + 1 if e.status != 0 else 0
    for k in range(rewards.shape[1]):
        rewards[i, k] = seat_reward_r(e, k) if k < n else 0.0


@kernel
def batch_reset(s, obs, masks, current):
    """Deal every env with its own generator; write obs (B, D), masks (B, A), current (B,)."""
    for i in range(s.shape[0]):
        e = s[i]
        deal_r(e)
        _refresh(e, i, obs, masks, current, True)


@kernel
def _prefetch(s, obs, masks, i):
    """Ask the CPU for the memory the step of the next envs will touch (State fields of env
    i + 2; observation scalars, piece squares and mask of env i + 1): a hint that hides
    memory latency at large batches, with no effect on results."""
    if i + 2 < s.shape[0]:
        base = (i + 2) * _ITEM
        prefetch(s, base)
        for off in range(_CELL0, _PLACE0, 64):
            prefetch(s, base + off)
        for off in range(_HOT0, _HOT1 + 64, 64):
            prefetch(s, base + off)
    if i + 1 < s.shape[0]:
        j = i + 1
        ob = j * obs.strides[0]
        for off in range(_OBS_TAIL, OBS_DIM * 4, 64):
            prefetch(obs, ob + off)
        mb = j * masks.strides[0]
        for off in range(0, NUM_ACTIONS, 64):
            prefetch(masks, mb + off)
        e = s[j]
        for h in range(MAX_HUMANS):
            if e.ob_hpos[0, h, 0] >= 0:
                q = e.ob_hpos[0, h, 0] * MAP + e.ob_hpos[0, h, 1]
                prefetch(obs, ob + (_C_OWN + q) * 4)
                prefetch(obs, ob + (_C_OTHERS + q) * 4)
        for g in range(MAX_GHOSTS):
            if e.ob_gpos[0, g, 0] >= 0:
                prefetch(obs, ob + (_C_GHOST + g * _SQ + e.ob_gpos[0, g, 0] * MAP + e.ob_gpos[0, g, 1]) * 4)


@kernel
def batch_step(s, actions, obs, masks, rewards, terminated, current, final_obs, autoreset):
    """Step every env with ``actions`` (B,) (all legal: check with :func:`first_illegal`).

    Writes rewards (B, P) float32, terminated (B,) bool and the final observation of ended
    episodes (from the seat that moved last). With ``autoreset`` an ended env is dealt
    again at once (same-step autoreset) and obs/masks/current describe the new episode.
    ``obs`` rows are patched (see the module docstring), ``final_obs`` rows written in full.
    """
    obs = unowned(obs)
    masks = unowned(masks)
    rewards = unowned(rewards)
    final_obs = unowned(final_obs)
    bits = stack_u64(MASK_WORDS)
    for i in range(s.shape[0]):
        _prefetch(s, obs, masks, i)
        e = s[i]
        seat = e.current
        apply_action_r(e, actions[i])
        _write_rewards(e, rewards, i)
        done = e.status != 0
        terminated[i] = done
        if done:
            refresh_observation_r(e, seat, final_obs, i, False, 1)
            if autoreset:
                deal_r(e)
        current[i] = e.current
        legal_bits_r(e, bits)
        write_mask_row(bits, masks, i)
        refresh_observation_r(e, e.current, obs, i, False, 0)


@kernel
def batch_step_bots(s, bot_ids, bot_rng, actions, obs, masks, rewards, terminated, current, final_obs):
    """Like :func:`batch_step` (autoreset on) with each env's action chosen in the kernel by
    the bot of its current seat (``bot_ids`` (P,) ints, ``bot_rng`` (B,) uint64); the
    chosen actions are written to ``actions`` (B,). The bots read row ``i`` of ``masks``
    (the mask of the acting seat, written by the previous call)."""
    obs = unowned(obs)
    masks = unowned(masks)
    rewards = unowned(rewards)
    final_obs = unowned(final_obs)
    bot_rng = unowned(bot_rng)
    bits = stack_u64(MASK_WORDS)
    for i in range(s.shape[0]):
        _prefetch(s, obs, masks, i)
        e = s[i]
        seat = e.current
        bot = bot_ids[seat]
        if bot == _RANDOM:
            a = random_bot_row(masks, i, bot_rng, i)
        else:
            a = bot_action_r(bot, e, masks[i], bot_rng, i)
        actions[i] = a
        apply_action_r(e, a)
        _write_rewards(e, rewards, i)
        done = e.status != 0
        terminated[i] = done
        if done:
            refresh_observation_r(e, seat, final_obs, i, False, 1)
            deal_r(e)
        current[i] = e.current
        legal_bits_r(e, bits)
        write_mask_row(bits, masks, i)
        refresh_observation_r(e, e.current, obs, i, False, 0)


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
    number of agent steps ``steps`` (G,). The final positions stay in ``s``. The mask is
    only written for bots that read it (not ``random``)."""
    mask = np.zeros((1, NUM_ACTIONS), np.int8)
    bits = stack_u64(MASK_WORDS)
    for i in range(s.shape[0]):
        e = s[i]
        deal_r(e)
        n = 0
        while e.status == 0:
            bot = bot_ids[e.current]
            if bot == _RANDOM:  # a draw on the legal bit set, as random_bot on the mask
                a = sample_bits(bits, legal_bits_r(e, bits), bot_rng, i)
            else:
                legal_mask_r(e, mask, 0)
                a = bot_action_r(bot, e, mask[0], bot_rng, i)
            apply_action_r(e, a)
            n += 1
        p = e.cfg_humans + 1
        for k in range(returns.shape[1]):
            returns[i, k] = seat_reward_r(e, k) if k < p else 0.0
        steps[i] = n


@kernel
def batch_observe(s, obs, masks, current):
    """Write every env's acting-seat observation (in full), mask and seat without changing
    the game (only the State's notes: what was written to ``obs``, and the note of the
    final-observation buffer is dropped, as this State may come from elsewhere)."""
    for i in range(s.shape[0]):
        e = s[i]
        e.ob_addr[1] = 0
        _refresh(e, i, obs, masks, current, True)


# --- single-agent views (tabletop_core.single_agent): the learner plays one seat --------------
@kernel
def _bots_until_learner(e, i, learners, bot_ids, bot_rng, masks, acc):
    """Bots play the other seats of env ``i`` (record ``e``) until a seat of ``learners`` (a seat bit set, -1: every seat) is to act
    or the episode ends; their steps' rewards are added to row ``i`` of ``acc`` (B, P).
    Row ``i`` of ``masks`` is scratch for the bots that read a mask."""
    n = e.cfg_humans + 1
    bits = stack_u64(MASK_WORDS)
    while e.status == 0 and not seat_in(learners, e.current):
        a = _bot_move(e, bits, bot_ids, bot_rng, i, masks, i)
        apply_action_r(e, a)
        for k in range(n):
            acc[i, k] += seat_reward_r(e, k)


@kernel
def _deal_for_learner(e, i, learners, bot_ids, bot_rng, masks, acc):
    """Deal env ``i`` and let bots play up to the learner's first decision (dealing again
    if an episode ends before the learner ever acts)."""
    deal_r(e)
    _bots_until_learner(e, i, learners, bot_ids, bot_rng, masks, acc)
    while e.status != 0:
        for k in range(acc.shape[1]):
            acc[i, k] = 0.0
        deal_r(e)
        _bots_until_learner(e, i, learners, bot_ids, bot_rng, masks, acc)


@kernel
def batch_reset_learner(s, learners, bot_ids, bot_rng, obs, masks, current, carry):
    """Single-agent reset: deal every env, bots play up to the learner's first decision;
    their rewards go to ``carry`` (B, P), paid with the learner's first step."""
    for i in range(s.shape[0]):
        e = s[i]
        for k in range(carry.shape[1]):
            carry[i, k] = 0.0
        _deal_for_learner(e, i, learners, bot_ids, bot_rng, masks, carry)
        _refresh(e, i, obs, masks, current, True)


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
    seats until the learner is to act again (``learners``: its seats as a bit set, bit k for seat k; -1: every seat).

    ``rewards`` (B, P) gets every seat's reward since the learner's previous action, plus
    ``carry``. ``final_obs`` is an ended episode's last observation from the learner's
    seat. With ``autoreset`` an ended env is dealt again at once and bots play up to the
    learner's first decision (their rewards go to ``carry``); without it an ended env
    stays ended.
    """
    for i in range(s.shape[0]):
        e = s[i]
        for k in range(rewards.shape[1]):
            rewards[i, k] = carry[i, k]
            carry[i, k] = 0.0
        mover = e.current
        apply_action_r(e, actions[i])
        n = e.cfg_humans + 1
        for k in range(n):
            rewards[i, k] += seat_reward_r(e, k)
        _bots_until_learner(e, i, learners, bot_ids, bot_rng, masks, rewards)
        done = e.status != 0
        terminated[i] = done
        if done:
            observe_r(e, mover, final_obs, i)
            if autoreset:
                _deal_for_learner(e, i, learners, bot_ids, bot_rng, masks, carry)
        _refresh(e, i, obs, masks, current, False)
