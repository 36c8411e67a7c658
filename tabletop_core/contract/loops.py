"""The batch loops, written once for every game, over a fixed set of per-game hooks.

The vector env, the AEC env (a batch of one), the single-agent view and the arena run
these loops. A game provides only its hooks (``<game>/hooks.py``), kernels on the env's
record ``e = s[i]`` named as below, and registers them with
``register(STATE_DTYPE, NUM_ACTIONS, globals())``:

=============================================  ===================================================
hook                                           what the game does
=============================================  ===================================================
``deal(e)``                                    start a new episode with the record's own
                                               generator word and options
``step(e, action, acc, row)``                  apply a LEGAL ``action`` for the acting seat and
                                               add every seat's reward of this step to
                                               ``acc[row]`` (``acc`` (B, P) float; seats the game
                                               does not have are left alone)
``legal_mask(e, masks, row)``                  the acting seat's action mask into ``masks[row]``
``observe(e, seat, out, row)``                 ``seat``'s observation into ``out[row]``, in full
``observe_patch(e, n, seat, out, row, note)``  the same, where ``out`` is the obs (``note`` 0) or
                                               final-obs (1) buffer that the loops keep writing to:
                                               a game may rewrite only what changed, keeping what
                                               it wrote in the env's notes record ``n`` (default:
                                               :func:`observe`)
``observe_fresh(e, n, seat, out, row)``        the same into the obs buffer after a reset or a
                                               restored State, notes ``n`` started afresh
                                               (default: :func:`observe`)
``bot_action(e, bot, masks, row, rng, r)``     the action of bot ``bot`` for the acting seat,
                                               ``masks[row]`` holding its mask, drawing from
                                               stream ``r`` of ``rng``
``bot_move(e, bot, masks, row, rng, r)``       the same where ``masks[row]`` is scratch (written
                                               only if the bot reads a mask)
``is_legal(e, action)``                        whether ``action`` (any int) is legal now
``prefetch(s, notes, obs, masks, i)``          optional cache hints for the next envs (default:
                                               none)
``resample_hidden(e, seat, w)``                optional: deal what ``seat`` cannot see again,
                                               consistently with its view, from the word ``w``
                                               (returns the next word); the ``search`` bot's
                                               determinizations (:mod:`~tabletop_core.contract.search`;
                                               without it the game has no search bot)
=============================================  ===================================================

The notes are the adapters' data, not game state: every loop that writes observations
takes ``notes``, a ``(B,)`` array of the game's ``notes_dtype`` (:data:`NO_NOTES` for a
game that keeps none) that the adapter owns beside its buffers.

Each hook is a stub (:mod:`tabletop_core.contract.hooks`), resolved per game by ``numba.extending.overload`` on the
game's record type, so a loop compiles once per game and is cached like any kernel
(:mod:`tabletop_core.kernel.jit` stamps the kernels of ``tabletop_core`` with every game
package, since these loops inline the games' code).

Why the loops look as they do: numba reference-counts every array passed on to a
non-inlined call with atomic operations, and a whole step of a card game costs less than a
handful of those. So each loop first takes views of its buffers that own no reference
(:func:`tabletop_core.kernel.bits.unowned`), the hooks take the record and the whole buffer
with a row index (never a row view), and the hooks' glue, the per-env step and the games'
hook kernels (marked ``inline="always"``) are inlined into the loops.

A game declares its hooks once, in its :class:`~tabletop_core.contract.game.GameDef`
(``docs/adding-a-game.md``); the declaration calls :func:`register`.

Kernel signatures (``s`` the State, arrays batch-first, ``B`` envs, ``P`` seats, ``D``
observation length, ``A`` actions) are listed in :mod:`tabletop_core.contract.game`.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tabletop_core.contract.hooks import (
    HOOKS,
    NO_NOTES,
    deal,
    is_legal,
    legal_mask,
    num_actions,
    observe,
    observe_fresh,
    observe_patch,
    prefetch,
    register,
    step,
)
from tabletop_core.contract.search import bot_choice, bot_choice_move
from tabletop_core.kernel.bits import seat_in, unowned
from tabletop_core.kernel.jit import kernel

LOOPS = (
    "first_illegal",
    "batch_reset",
    "batch_observe",
    "batch_step",
    "batch_step_bots",
    "batch_step_threads",
    "batch_step_bots_threads",
    "play_games",
    "batch_bot_actions",
    "batch_reset_learner",
    "batch_step_learner",
)
"""The names of the batch loops: the same for every game, each a :class:`GameDef` attribute
(:mod:`tabletop_core.contract.game`)."""

__all__ = [
    "register",
    "HOOKS",
    "NO_NOTES",
    "LOOPS",
    *LOOPS,
    "STEP",
    "STEP_AUTORESET",
    "RESET",
    "OBSERVE",
    "OBSERVE_SEAT",
    "FRESH",
]


# --- the loops ---------------------------------------------------------------------------------
@kernel
def first_illegal(s, actions):
    """Index of the first env whose action is illegal, or -1 if all are legal."""
    for i in range(s.shape[0]):
        if not is_legal(s[i], actions[i]):
            return i
    return -1


STEP, STEP_AUTORESET, RESET, OBSERVE, OBSERVE_SEAT = 0, 1, 2, 3, 4
"""What :func:`batch_step` does, its ``mode``: step every env (an ended episode stays
ended, or with ``STEP_AUTORESET`` is dealt again at once), deal every env (``RESET``),
write what every env shows without changing the game (``OBSERVE``, after a restored
State), or write only what each env shows seat ``actions[i]`` (``OBSERVE_SEAT``: an AEC
env's ``observe`` of an agent not acting). One kernel for all five: an AEC env's first
reset and step compile one call tree, not two, and its other agents' observations take
one array call (cheaper than going through a record passed from Python, as
:func:`tabletop_core.kernel.records.at` passes it)."""

FRESH = 8
"""Added to :data:`STEP` or :data:`STEP_AUTORESET` (and ``fresh=True`` of
:func:`batch_step_bots`): ``obs`` is not the buffer the notes describe (the vector env's
``copy=True`` hands out a recycled array, which its owner may have written to), so every
env's row is written in full (the ``observe`` hook) and the obs notes are left as they
are, still describing the adapter's own buffer. The final observations are patched as
usual: ``final_obs`` must still be the adapter's own buffer."""


def batch_reset(s, notes, obs, masks, current) -> None:
    """Start a new episode in every env with its own generator; write obs (B, D) float32,
    masks (B, A) int8 and current (B,) int64: the acting seat's observation and mask.
    (:func:`batch_step` with ``RESET`` and scratch step buffers; the adapters pass their
    own.)"""
    _observe_or_deal(s, notes, obs, masks, current, RESET)


def batch_observe(s, notes, obs, masks, current) -> None:
    """Write every env's acting-seat observation (in full), mask and seat without changing
    the game (after a restored State): :func:`batch_step` with ``OBSERVE``."""
    _observe_or_deal(s, notes, obs, masks, current, OBSERVE)


def _observe_or_deal(s, notes, obs, masks, current, mode: int) -> None:
    n = s.shape[0]
    actions, rewards, terminated = np.zeros(n, np.int64), np.zeros((n, 1), np.float32), np.zeros(n, np.bool_)
    batch_step(s, notes, actions, obs, masks, rewards, terminated, current, obs, mode)


@kernel(inline="always")
def _step_env(e, n, i, action, obs, masks, rewards, terminated, current, final_obs, autoreset, fresh):
    """Env ``i`` (record ``e``) plays its legal ``action``: row ``i`` of every buffer, as
    :func:`batch_step` describes (``fresh``: the obs row written in full, see
    :data:`FRESH`). The buffers come unowned (no reference counting).
    Inlined into both step loops (numba IR): as a call, LLVM would not inline it (too
    large) and the loops would run markedly slower."""
    seat = e.current
    for k in range(rewards.shape[1]):
        rewards[i, k] = 0.0
    step(e, action, rewards, i)
    done = e.status != 0
    terminated[i] = done
    if done:
        observe_patch(e, n, seat, final_obs, i, 1)
        if autoreset:
            deal(e)
    current[i] = e.current
    legal_mask(e, masks, i)
    if fresh:
        observe(e, e.current, obs, i)
    else:
        observe_patch(e, n, e.current, obs, i, 0)


@kernel(inline="always")
def _step_views(s, actions, obs, masks, rewards, terminated, current, final_obs):
    """The step loops' buffers as unowned views (:func:`tabletop_core.kernel.bits.unowned`: no
    reference counting inside the loops)."""
    return (
        unowned(s),
        unowned(actions),
        unowned(obs),
        unowned(masks),
        unowned(rewards),
        unowned(terminated),
        unowned(current),
        unowned(final_obs),
    )


@kernel
def batch_step(s, notes, actions, obs, masks, rewards, terminated, current, final_obs, mode):
    """Step every env with ``actions`` (B,) (all legal: check with :func:`first_illegal`),
    or deal or observe every env, as ``mode`` says (:data:`STEP`, :data:`STEP_AUTORESET`,
    :data:`RESET`, :data:`OBSERVE`, :data:`OBSERVE_SEAT`).

    A step writes rewards (B, P) float32, terminated (B,) bool and the final observation of
    ended episodes (from the seat that moved last). With ``STEP_AUTORESET`` an ended env
    starts its next episode at once (same-step autoreset) and obs/masks/current describe
    it. ``RESET`` deals every env with its own generator and ``OBSERVE`` changes no game;
    both write only obs (in full), masks and current. ``OBSERVE_SEAT`` writes only row
    ``i`` of obs, in full: env ``i`` as seat ``actions[i]`` (a valid seat) sees it, acting
    or not; it changes no game and no patch note. ``STEP + FRESH`` and
    ``STEP_AUTORESET + FRESH`` step with every obs row written in full into a buffer the
    notes do not describe (:data:`FRESH`). (The adapters pass the constants; with
    :data:`FRESH` taken off, a mode above ``OBSERVE_SEAT`` reads as ``OBSERVE_SEAT``, one
    between ``RESET`` and it as ``OBSERVE``, one below ``STEP_AUTORESET`` as ``STEP``.)
    """
    s, actions, obs, masks, rewards, terminated, current, final_obs = _step_views(
        s, actions, obs, masks, rewards, terminated, current, final_obs
    )
    notes = unowned(notes)
    fresh = mode >= FRESH
    if fresh:
        mode -= FRESH
    if mode >= OBSERVE_SEAT:
        for i in range(s.shape[0]):
            observe(s[i], actions[i], obs, i)
        return
    if mode >= RESET:  # RESET or OBSERVE: no actions to apply
        for i in range(s.shape[0]):
            e = s[i]
            if mode == RESET:
                deal(e)
            current[i] = e.current
            legal_mask(e, masks, i)
            observe_fresh(e, notes[i], e.current, obs, i)
        return
    autoreset = mode == STEP_AUTORESET
    for i in range(s.shape[0]):
        prefetch(s, notes, obs, masks, i)
        _step_env(
            s[i],
            notes[i],
            i,
            actions[i],
            obs,
            masks,
            rewards,
            terminated,
            current,
            final_obs,
            autoreset,
            fresh,
        )


@kernel
def batch_step_bots(
    s, notes, bot_ids, bot_rng, actions, obs, masks, rewards, terminated, current, final_obs, fresh
):
    """Like :func:`batch_step` (autoreset on) with each env's action chosen in the kernel by
    the bot of its acting seat (``bot_ids`` (P,) int64, or uint64 with a search bot, ``bot_rng`` (B,) uint64); the
    chosen actions are written to ``actions`` (B,). The bots read row ``i`` of ``masks``,
    the acting seat's mask written by the previous call. ``fresh`` (bool): every obs row
    written in full, as ``STEP_AUTORESET + FRESH`` does (:data:`FRESH`)."""
    s, actions, obs, masks, rewards, terminated, current, final_obs = _step_views(
        s, actions, obs, masks, rewards, terminated, current, final_obs
    )
    bot_ids, bot_rng, notes = unowned(bot_ids), unowned(bot_rng), unowned(notes)
    for i in range(s.shape[0]):
        prefetch(s, notes, obs, masks, i)
        e = s[i]
        a = bot_choice(e, bot_ids[e.current], masks, i, bot_rng, i)
        actions[i] = a
        _step_env(e, notes[i], i, a, obs, masks, rewards, terminated, current, final_obs, True, fresh)


# --- threads: the two step loops over shards of the batch at once (tabletop_core.envs.vector) ---
@kernel(inline="always")
def _shard(lo, hi, s, notes, actions, obs, masks, rewards, terminated, current, final_obs):
    """Rows ``lo:hi`` of the step loops' per-env buffers."""
    return (
        s[lo:hi],
        notes[lo:hi],
        actions[lo:hi],
        obs[lo:hi],
        masks[lo:hi],
        rewards[lo:hi],
        terminated[lo:hi],
        current[lo:hi],
        final_obs[lo:hi],
    )


@kernel(parallel=True)
def batch_step_threads(bounds, s, notes, actions, obs, masks, rewards, terminated, current, final_obs, mode):
    """:func:`batch_step` on the shards of envs ``bounds[k]:bounds[k + 1]`` (``bounds``
    (T + 1,) int64, rising from 0 to B) at once, one shard per thread of numba's threading
    layer. Every env owns its rows and generator: the same results as one call."""
    for k in prange(bounds.shape[0] - 1):
        lo = bounds[k]
        hi = bounds[k + 1]
        b = _shard(lo, hi, s, notes, actions, obs, masks, rewards, terminated, current, final_obs)
        batch_step(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], mode)


@kernel(parallel=True)
def batch_step_bots_threads(
    bounds, s, notes, bot_ids, bot_rng, actions, obs, masks, rewards, terminated, current, final_obs, fresh
):
    """:func:`batch_step_bots` on the shards of envs ``bounds[k]:bounds[k + 1]`` at once,
    one shard per thread (see :func:`batch_step_threads`)."""
    for k in prange(bounds.shape[0] - 1):
        lo = bounds[k]
        hi = bounds[k + 1]
        b = _shard(lo, hi, s, notes, actions, obs, masks, rewards, terminated, current, final_obs)
        batch_step_bots(b[0], b[1], bot_ids, bot_rng[lo:hi], b[2], b[3], b[4], b[5], b[6], b[7], b[8], fresh)


@kernel
def batch_bot_actions(s, bot_ids, bot_rng, masks, actions):
    """What each env's bot would play now, without playing it: ``actions[i]`` (B,) int64
    gets the action of the bot ``bot_ids[current seat]`` ((P,) int64 or uint64) in env ``i``, from
    row ``i`` of ``masks`` ((B, A) int8, the acting seat's mask as the step loops leave
    it); -1 in an ended episode. No game changes; each env's bot generator ``bot_rng``
    (B,) uint64 advances as in a step. (The expert's labels of DAgger,
    ``tabletop train --imitate-rounds``.)"""
    s, bot_ids, bot_rng, masks, actions = (
        unowned(s),
        unowned(bot_ids),
        unowned(bot_rng),
        unowned(masks),
        unowned(actions),
    )
    for i in range(s.shape[0]):
        e = s[i]
        if e.status != 0:
            actions[i] = -1
            continue
        actions[i] = bot_choice(e, bot_ids[e.current], masks, i, bot_rng, i)


@kernel
def play_games(s, bot_ids, bot_rng, returns, steps):
    """Play one full episode in each env of ``s`` (generators already seeded) with the bots
    ``bot_ids`` (P,); write each seat's episode return ``returns`` (G, P) float64 and the
    number of agent steps ``steps`` (G,). The final positions stay in ``s``. The mask is
    only written for bots that read it."""
    if s.shape[0] == 0:
        return
    s, bot_ids, bot_rng, returns, steps = (
        unowned(s),
        unowned(bot_ids),
        unowned(bot_rng),
        unowned(returns),
        unowned(steps),
    )
    scratch = np.zeros((1, num_actions(s[0])), np.int8)
    mask = unowned(scratch)  # the bots' mask; ``scratch`` owns it (used below, so kept alive)
    for i in range(s.shape[0]):
        e = s[i]
        deal(e)
        for k in range(returns.shape[1]):
            returns[i, k] = 0.0
        n = 0
        while e.status == 0:
            a = bot_choice_move(e, bot_ids[e.current], mask, 0, bot_rng, i)
            step(e, a, returns, i)
            n += 1
        steps[i] = n
    scratch[0, 0] = 0


# --- single-agent views (tabletop_core.envs.single_agent): the learner plays some seats ----------
@kernel
def _bots_until_learner(e, i, learners, bot_ids, bot_rng, masks, acc):
    """Bots play the other seats of env ``i`` (record ``e``) until a seat of ``learners``
    (a seat bit set, -1: every seat) is to act or the episode ends; their rewards are added
    to row ``i`` of ``acc`` (B, P). Row ``i`` of ``masks`` is scratch for the bots."""
    while e.status == 0 and not seat_in(learners, e.current):
        a = bot_choice_move(e, bot_ids[e.current], masks, i, bot_rng, i)
        step(e, a, acc, i)


@kernel
def _deal_for_learner(e, i, learners, bot_ids, bot_rng, masks, acc):
    """Deal env ``i`` and let bots play up to the learner's first decision (dealing again
    if an episode ends before the learner ever acts); row ``i`` of ``acc`` (B, P) gets the
    bots' rewards of the episode that is kept."""
    deal(e)
    _bots_until_learner(e, i, learners, bot_ids, bot_rng, masks, acc)
    while e.status != 0:
        for k in range(acc.shape[1]):
            acc[i, k] = 0.0
        deal(e)
        _bots_until_learner(e, i, learners, bot_ids, bot_rng, masks, acc)


@kernel
def batch_reset_learner(s, notes, learners, bot_ids, bot_rng, obs, masks, current, carry):
    """Single-agent reset: deal every env, bots play up to the learner's first decision;
    their rewards go to ``carry`` (B, P), paid with the learner's first step."""
    s, obs, masks, current, carry = unowned(s), unowned(obs), unowned(masks), unowned(current), unowned(carry)
    bot_ids, bot_rng = unowned(bot_ids), unowned(bot_rng)
    for i in range(s.shape[0]):
        e = s[i]
        for k in range(carry.shape[1]):
            carry[i, k] = 0.0
        _deal_for_learner(e, i, learners, bot_ids, bot_rng, masks, carry)
        current[i] = e.current
        legal_mask(e, masks, i)
        observe_fresh(e, notes[i], e.current, obs, i)


@kernel
def batch_step_learner(
    s,
    notes,
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
    seats until the learner is to act again (``learners``: its seats as a bit set, bit k
    for seat k; -1: every seat).

    ``rewards`` (B, P) gets every seat's reward since the learner's previous action, plus
    ``carry``. ``final_obs`` is an ended episode's last observation from the seat that
    made the learner's last move. With ``autoreset`` an ended env is dealt again at once
    and bots play up to the learner's first decision (their rewards go to ``carry``, paid
    with the next step); without it, an ended env stays ended.
    """
    s, actions, obs, masks, rewards, terminated, current, final_obs = _step_views(
        s, actions, obs, masks, rewards, terminated, current, final_obs
    )
    bot_ids, bot_rng, carry, notes = unowned(bot_ids), unowned(bot_rng), unowned(carry), unowned(notes)
    for i in range(s.shape[0]):
        e = s[i]
        for k in range(rewards.shape[1]):
            rewards[i, k] = carry[i, k]
            carry[i, k] = 0.0
        mover = e.current
        step(e, actions[i], rewards, i)
        _bots_until_learner(e, i, learners, bot_ids, bot_rng, masks, rewards)
        done = e.status != 0
        terminated[i] = done
        if done:
            observe(e, mover, final_obs, i)
            if autoreset:
                _deal_for_learner(e, i, learners, bot_ids, bot_rng, masks, carry)
        current[i] = e.current
        legal_mask(e, masks, i)
        observe_patch(e, notes[i], e.current, obs, i, 0)
