"""Batch kernels: the loops the vector env, the AEC env (batch of one) and the arena run.

Each loop is a thin adapter over the rules kernels; all the rules live in ``rules.py``.
Rewards are the episode's +1 / -1 per seat on the step that ends it, 0 otherwise.

Observation buffers: :func:`batch_reset` and :func:`batch_observe` write ``obs`` in full;
:func:`batch_step`, :func:`batch_step_bots` and :func:`batch_step_learner` patch each
env's row (:func:`observe.refresh_observation`): only what changed since the previous
write is rewritten, so between calls ``obs`` must keep what the kernels wrote there (the
vector env hands its buffers out as read-only views). A row that another
call wrote (another buffer, a restored State) is recognised and written in full.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.bits import prefetch
from tabletop_core.jit import kernel

from .bots import BOT_IDS, bot_action
from .observe import _C_GHOST, _C_OTHERS, _C_OWN, _SQ, O_SEAT, OBS_DIM, observe, refresh_observation
from .rules import apply_action, deal, is_legal, legal_mask, random_legal, seat_reward
from .spec import MAP, MAX_GHOSTS, MAX_HUMANS, NUM_ACTIONS
from .state import STATE_DTYPE

_RANDOM = BOT_IDS["random"]
_ITEM = STATE_DTYPE.itemsize
# a step reads the record's first line and the fields from wbits up to ob_sq (excluded)
_HOT0 = STATE_DTYPE.fields["wbits"][1]
_HOT1 = STATE_DTYPE.fields["ob_sq"][1]
_OBS_TAIL = O_SEAT * 4  # bytes of the planes: the scalar pieces follow


@kernel
def bot_move(s, i, bot_ids, bot_rng, mask):
    """The action of the bot of env ``i``'s acting seat (``mask`` (A,) int8 is scratch);
    the random bot draws without a mask (:func:`rules.random_legal`, the same draw as
    :func:`bots.random_bot` on the mask), the others get the mask."""
    bot = bot_ids[s[i].current]
    if bot == _RANDOM:
        return random_legal(s, i, bot_rng, i)
    legal_mask(s, i, mask)
    return bot_action(bot, s, i, mask, bot_rng, i)


@kernel
def first_illegal(s, actions):
    """Index of the first env whose action is illegal, or -1 if all are legal."""
    for i in range(s.shape[0]):
        if not is_legal(s, i, actions[i]):
            return i
    return -1


@kernel
def _refresh(s, i, obs, masks, current, full=False):
    current[i] = s[i].current
    legal_mask(s, i, masks[i])
    refresh_observation(s, i, s[i].current, obs[i], full)


@kernel
def batch_reset(s, obs, masks, current):
    """Deal every env with its own generator; write obs (B, D), masks (B, A), current (B,)."""
    for i in range(s.shape[0]):
        deal(s, i)
        _refresh(s, i, obs, masks, current, True)


@kernel
def _step_one(s, i, action, obs, masks, rewards, terminated, current, final_obs, autoreset):
    e = s[i]
    seat = e.current
    apply_action(s, i, action)
    n = e.cfg_humans + 1
    for k in range(rewards.shape[1]):
        rewards[i, k] = seat_reward(s, i, k) if k < n else 0.0
    done = e.status != 0
    terminated[i] = done
    if done:
        observe(s, i, seat, final_obs[i])
        if autoreset:
            deal(s, i)
    _refresh(s, i, obs, masks, current)


@kernel
def _prefetch(s, obs, masks, i):
    """Ask the CPU for the memory the step of the next envs will touch (State fields of env
    i + 2; observation scalars, piece squares and mask of env i + 1): a hint that hides
    memory latency at large batches, with no effect on results."""
    if i + 2 < s.shape[0]:
        base = (i + 2) * _ITEM
        prefetch(s, base)
        for off in range(_HOT0, _HOT1, 64):
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
            if e.ob_hpos[h, 0] >= 0:
                q = e.ob_hpos[h, 0] * MAP + e.ob_hpos[h, 1]
                prefetch(obs, ob + (_C_OWN + q) * 4)
                prefetch(obs, ob + (_C_OTHERS + q) * 4)
        for g in range(MAX_GHOSTS):
            if e.ob_gpos[g, 0] >= 0:
                prefetch(obs, ob + (_C_GHOST + g * _SQ + e.ob_gpos[g, 0] * MAP + e.ob_gpos[g, 1]) * 4)


@kernel
def batch_step(s, actions, obs, masks, rewards, terminated, current, final_obs, autoreset):
    """Step every env with ``actions`` (B,) (all legal: check with :func:`first_illegal`).

    Writes rewards (B, P) float32, terminated (B,) bool and the final observation of ended
    episodes (from the seat that moved last). With ``autoreset`` an ended env is dealt
    again at once (same-step autoreset) and obs/masks/current describe the new episode.
    ``obs`` rows are patched (see the module docstring), ``final_obs`` rows written in full.
    """
    for i in range(s.shape[0]):
        _prefetch(s, obs, masks, i)
        _step_one(s, i, actions[i], obs, masks, rewards, terminated, current, final_obs, autoreset)


@kernel
def batch_step_bots(s, bot_ids, bot_rng, actions, obs, masks, rewards, terminated, current, final_obs):
    """Like :func:`batch_step` (autoreset on) with each env's action chosen in the kernel by
    the bot of its current seat (``bot_ids`` (P,) ints, ``bot_rng`` (B,) uint64); the
    chosen actions are written to ``actions`` (B,)."""
    for i in range(s.shape[0]):
        _prefetch(s, obs, masks, i)
        a = bot_action(bot_ids[s[i].current], s, i, masks[i], bot_rng, i)
        actions[i] = a
        _step_one(s, i, a, obs, masks, rewards, terminated, current, final_obs, True)


@kernel
def play_games(s, bot_ids, bot_rng, returns, steps):
    """Play one full episode in each env of ``s`` (generators already seeded) with the bots
    ``bot_ids`` (P,); write each seat's episode return ``returns`` (G, P) float64 and the
    number of agent steps ``steps`` (G,). The final positions stay in ``s``."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for i in range(s.shape[0]):
        deal(s, i)
        n = 0
        while s[i].status == 0:
            a = bot_move(s, i, bot_ids, bot_rng, mask)
            apply_action(s, i, a)
            n += 1
        p = s[i].cfg_humans + 1
        for k in range(returns.shape[1]):
            returns[i, k] = seat_reward(s, i, k) if k < p else 0.0
        steps[i] = n


@kernel
def batch_observe(s, obs, masks, current):
    """Write every env's acting-seat observation (in full), mask and seat without changing
    the game (only the State's note of what was written to ``obs``)."""
    for i in range(s.shape[0]):
        _refresh(s, i, obs, masks, current, True)


# --- single-agent views (tabletop_core.single_agent): the learner plays one seat --------------
@kernel
def _bots_until_learner(s, i, learner, bot_ids, bot_rng, mask, acc):
    """Bots play the other seats of env ``i`` until ``learner`` is to act or the episode
    ends; their steps' rewards are added to ``acc`` (P,)."""
    n = s[i].cfg_humans + 1
    while learner >= 0 and s[i].status == 0 and s[i].current != learner:
        a = bot_move(s, i, bot_ids, bot_rng, mask)
        apply_action(s, i, a)
        for k in range(n):
            acc[k] += seat_reward(s, i, k)


@kernel
def _deal_for_learner(s, i, learner, bot_ids, bot_rng, mask, acc):
    """Deal env ``i`` and let bots play up to the learner's first decision (dealing again
    if an episode ends before the learner ever acts)."""
    deal(s, i)
    _bots_until_learner(s, i, learner, bot_ids, bot_rng, mask, acc)
    while s[i].status != 0:
        acc[:] = 0.0
        deal(s, i)
        _bots_until_learner(s, i, learner, bot_ids, bot_rng, mask, acc)


@kernel
def batch_reset_learner(s, learner, bot_ids, bot_rng, obs, masks, current, carry):
    """Single-agent reset: deal every env, bots play up to the learner's first decision;
    their rewards go to ``carry`` (B, P), paid with the learner's first step."""
    for i in range(s.shape[0]):
        carry[i, :] = 0.0
        _deal_for_learner(s, i, learner, bot_ids, bot_rng, masks[i], carry[i])
        _refresh(s, i, obs, masks, current, True)


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
    seats until the learner is to act again (``learner`` < 0: the learner plays every seat).

    ``rewards`` (B, P) gets every seat's reward since the learner's previous action, plus
    ``carry``. ``final_obs`` is an ended episode's last observation from the learner's
    seat. With ``autoreset`` an ended env is dealt again at once and bots play up to the
    learner's first decision (their rewards go to ``carry``); without it an ended env
    stays ended.
    """
    for i in range(s.shape[0]):
        rewards[i, :] = carry[i]
        carry[i, :] = 0.0
        mover = s[i].current
        apply_action(s, i, actions[i])
        n = s[i].cfg_humans + 1
        for k in range(n):
            rewards[i, k] += seat_reward(s, i, k)
        _bots_until_learner(s, i, learner, bot_ids, bot_rng, masks[i], rewards[i])
        done = s[i].status != 0
        terminated[i] = done
        if done:
            observe(s, i, learner if learner >= 0 else mover, final_obs[i])
            if autoreset:
                _deal_for_learner(s, i, learner, bot_ids, bot_rng, masks[i], carry[i])
        _refresh(s, i, obs, masks, current)
