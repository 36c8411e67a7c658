"""The ``search`` bot: Perfect Information Monte Carlo (PIMC) with rollouts, written once for
every game over its hooks (:mod:`tabletop_core.contract.hooks`). The user's guide, with the
measured tables, is ``docs/search-bot.md``.

A *determinization* is the acting seat's position with everything it cannot see dealt
again by the game's ``resample_hidden`` hook, consistently with what it saw
(``docs/rules/<game>.md``, "Hidden information and resampling"); the record's own
generator is drawn afresh too, so the future dice and draws differ between
determinizations. A *rollout* plays one action in a determinization, then lets the
*rollout bot* (a scripted bot) play every seat to the end of the episode, or to the end of
the phase the decision is in where the game declares phases (the ``rollout_phase`` hook:
Koikoi's round). Its value is the acting seat's return over it.

At each decision with more than one legal action (one is played at once):

1. The rollout bot's own choice is the default move (the *blueprint*, as in SPARTA).
2. Selection, on half the budget: successive halving of the other legal actions. Each
   round plays every remaining action and the blueprint in the same fresh
   determinizations with the same rollout generator (common random numbers), and keeps
   the better half.
3. Verification, on the other half: the last challenger and the blueprint in fresh
   determinizations. The challenger is played only if its mean paired gain exceeds ``z``
   standard errors; otherwise the blueprint.

The bot is a bot id like the scripted ones (:func:`search_id`), so every batch loop plays
it in compiled code: matches, ``step_bots``, terminal play, replays and the trainer's
opponents. The loops compile it in only when given uint64 bot ids (:func:`bot_id_array`).
Its settings travel in the id's bits:

=============  ======================  ===============================================
bits           field                   meaning
=============  ======================  ===============================================
0-7            rollout bot             the scripted bot playing every seat in the
                                       rollouts (a game's bot id)
8-31           budget                  rollouts per decision (1 .. 2**24 - 1)
32             flag                    set for the search bot (``bot >= SEARCH``)
33-40          z                       ten times the standard errors a challenger's
                                       gain must exceed (0 .. 255)
41-48          top                     with a policy: only the ``top`` legal actions it
                                       ranks highest are searched (0: all of them)
49             own                     with a policy: it plays the acting seat's own
                                       later moves in the rollouts
=============  ======================  ===============================================

``top`` and ``own`` need a trained policy beside the id (:func:`search_values_guided`,
``search:...:blueprint=B:top=K:own=policy``); the compiled bot loops, which hold none,
play the id without them.

It is deterministic for a given bot generator: the decision draws one word from its
stream and every determinization and rollout follows from that word. It never peeks: the
games draw a determinization from the unseen set alone, so positions the seat cannot tell
apart get the same decision.
"""

from __future__ import annotations

import warnings

import numpy as np
from numba.core import types
from numba.core.errors import NumbaIRAssumptionWarning
from numba.extending import overload
from numba.np.numpy_support import as_dtype

from tabletop_core.contract.hooks import (
    bot_action,
    bot_move,
    legal_mask,
    num_actions,
    observe,
    overload_inline,
    resample_hidden,
    rollout_phase,
    step,
)
from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.mlp import legal_logits, net_action, net_scratch
from tabletop_core.kernel.rng import next_word

# numba's pedantic scope check flags a stack array of a game's inlined random bot (Exit Now's
# bot_move) once it sits in the scripted branch of bot_choice_move; the code it compiles is
# right (tests/test_search.py plays every game), so the note is not shown to users
warnings.filterwarnings("ignore", message=r"variable '.*' is not in scope", category=NumbaIRAssumptionWarning)

__all__ = [
    "SEARCH",
    "DEFAULT_BUDGET",
    "MAX_BUDGET",
    "MAX_SEATS",
    "search_id",
    "search_params",
    "guide_bits",
    "guide_params",
    "GUIDE_SETTINGS",
    "GUIDED_KEYS",
    "parse_search",
    "search_name",
    "search_action",
    "search_action_from",
    "search_values_from",
    "search_values_guided",
    "batch_search_actions",
    "batch_search_values",
    "bot_choice",
    "bot_choice_move",
    "bot_id_array",
]

SEARCH = 1 << 32
"""Bot ids at or above this are the search bot (the table in the module docstring)."""
DEFAULT_Z = 1.0
"""How many standard errors a challenger's gain must exceed when ``search`` is named
without ``z=``."""
GUIDE_SETTINGS = ("top", "own")
"""The settings by which a policy steers the search (:func:`search_values_guided`)."""
GUIDED_KEYS = ("blueprint", *GUIDE_SETTINGS)
"""The settings that ask a trained policy beside the search."""
DEFAULT_BUDGET = 256
"""Rollouts per decision for a game that declares none (``Bots.rollouts`` 0)."""
MAX_BUDGET = (1 << 24) - 1
"""The largest rollout budget an id can carry."""
MAX_SEATS = 16
"""Seats a game may have for the search's reward accumulator (every game here has at most 6)."""


def search_id(budget: int, rollout_bot: int, z: float = 0.0, top: int = 0, own: bool = False) -> int:
    """The bot id of the search bot with ``budget`` rollouts per decision whose rollouts are
    played by the scripted bot ``rollout_bot`` (a game's bot id, ``0 <= rollout_bot < 256``)
    and which leaves the rollout bot's own choice only for a gain of more than ``z``
    standard errors (``0 <= z <= 25.5``, kept to a tenth). With a policy beside it
    (:func:`search_values_guided`): only the ``top`` actions the policy ranks highest are
    searched (``0 <= top < 256``, 0 for all), and the policy plays the acting seat's own
    later moves in the rollouts where ``own``.

    Raises:
        ValueError: a budget outside ``1..MAX_BUDGET``, a rollout bot outside ``0..255``,
            a ``z`` outside ``0..25.5`` or a ``top`` outside ``0..255``.
    """
    if not 0.0 <= float(z) <= 25.5:
        raise ValueError(f"search: z must be in 0..25.5, got {z}")
    if not 1 <= int(budget) <= MAX_BUDGET:
        raise ValueError(f"search: rollouts must be in 1..{MAX_BUDGET}, got {budget}")
    if not 0 <= int(rollout_bot) < 256:
        raise ValueError(f"search: the rollout bot id must be in 0..255, got {rollout_bot}")
    return (
        SEARCH | guide_bits(top, own) | (round(float(z) * 10) << 33) | (int(budget) << 8) | int(rollout_bot)
    )


def guide_bits(top: int = 0, own: bool = False) -> int:
    """The bits of a search id that say how it uses a policy beside it (:func:`search_id`).

    Raises:
        ValueError: a ``top`` outside ``0..255``.
    """
    if not 0 <= int(top) < 256:
        raise ValueError(f"search: top must be in 0..255 (0: every legal action), got {top}")
    return (int(top) << 41) | (int(bool(own)) << 49)


def search_params(bot: int) -> tuple[int, int, float]:
    """``(budget, rollout bot id, z)`` of a search bot id (:func:`search_id`'s inverse)."""
    return (int(bot) >> 8) & MAX_BUDGET, int(bot) & 0xFF, ((int(bot) >> 33) & 0xFF) / 10


def guide_params(bot: int) -> tuple[int, bool]:
    """``(top, own)`` of a search bot id: how it uses a policy beside it (:func:`search_id`)."""
    return (int(bot) >> 41) & 0xFF, bool((int(bot) >> 49) & 1)


def parse_search(spec: str, game: str, bots: tuple[str, ...], defaults: tuple[int, str, float]) -> int:
    """The kernel id of the search bot named by ``spec``: ``search``, then optional
    ``:rollouts=N``, ``:bot=NAME`` and ``:z=X`` (the module docstring), e.g.
    ``search:rollouts=512:bot=greedy``.

    Args:
        spec: the name as typed.
        game: the game's name, for the messages.
        bots: the game's scripted bots by id, ``""`` for one that cannot play every seat.
        defaults: ``(rollouts, rollout bot, z)`` for the settings not named.

    Raises:
        ValueError: an unknown setting, a budget or ``z`` that is not a number in range,
            or a rollout bot that is not one of ``bots``.
    """
    budget, bot, z = defaults
    for pair in spec.split(":")[1:]:
        key, eq, value = pair.partition("=")
        if key == "bot" and eq:
            bot = value
        elif key in ("rollouts", "z") and eq:
            kind, what = (int, "an int") if key == "rollouts" else (float, "a number")
            try:
                number = kind(value)
            except ValueError:
                raise ValueError(f"{game}: {spec!r}: {key} must be {what}, got {value!r}") from None
            budget, z = (number, z) if key == "rollouts" else (budget, number)
        elif key in GUIDED_KEYS:
            needs = "" if key == "blueprint" else "; name one with blueprint=baseline or blueprint=FILE.npz"
            raise ValueError(
                f"{game}: {spec!r}: {key}= asks a trained policy{needs}. A policy plays where a seat may "
                "hold one (tabletop match / play / replay, vector_env(...).step_bots), not in the "
                "compiled bot loops (the trainer's --opponents, GameDef.bot_ids)"
            )
        else:
            raise ValueError(
                f"{game}: {spec!r}: unknown search setting {pair!r}; allowed: rollouts=N (rollouts per "
                "decision), bot=NAME (the rollout bot), z=X (standard errors a gain must exceed), "
                "blueprint=baseline or blueprint=FILE.npz (the default move from a trained policy; match, play, "
                "replay), and with it top=K (search only the policy's K best actions) and own=policy (the "
                "policy plays the seat's own moves in the rollouts)"
            )
    if not bot or bot not in bots:
        allowed = ", ".join(b for b in bots if b)
        raise ValueError(f"{game}: {spec!r}: the rollout bot plays every seat; choose one of {allowed}")
    try:
        return search_id(budget, bots.index(bot), z)
    except ValueError as exc:
        raise ValueError(f"{game}: {spec!r}: {str(exc).removeprefix('search: ')}") from None


def search_name(bot: int, bots: tuple[str, ...], defaults: tuple[int, str, float]) -> str:
    """The name of a search bot id, with the settings that differ from ``defaults``
    (:func:`parse_search`'s inverse)."""
    budget, rollout_bot, z = search_params(bot)
    name = "search"
    if budget != defaults[0]:
        name += f":rollouts={budget}"
    if bots[rollout_bot] != defaults[1]:
        name += f":bot={bots[rollout_bot]}"
    if z != round(defaults[2], 1):
        name += f":z={z:g}"
    return name


def new_records(e, n):
    """``np.empty(n)`` of the record ``e``'s own dtype, in compiled code: the search's
    scratch copies of a position."""
    raise NotImplementedError("compiled code only")


@overload(new_records, inline="always")
def _new_records(e, n):
    if not isinstance(e, types.Record):
        return None
    dtype = as_dtype(e)

    def impl(e, n):
        return np.empty(n, dtype)

    return impl


@kernel
def _evaluate(e, seat, cand, n, dets, x, rollout_bot, pos, acc, masks, roll_rng, out, guide):
    """Play each of the actions ``cand[:n]`` in ``dets`` fresh determinizations of ``e``
    for ``seat``, then the rollout bot to the end of the episode: ``out[d, j]`` gets the
    return of ``seat`` after action ``j`` in determinization ``d``. Every action of a
    determinization shares its deal and its rollout generator (common random numbers).
    A rollout also ends where the game's ``rollout_phase`` changes (Koikoi: at the end of
    the round). ``guide``: None, or a policy that plays ``seat``'s own later moves
    (:func:`_rollout_move`). Draws from the word ``x`` and returns the next one."""
    phase = rollout_phase(e)
    for d in range(dets):
        pos[0] = e
        x, hid = next_word(x)
        x, roll = next_word(x)
        resample_hidden(pos[0], seat, hid)
        for j in range(n):
            pos[1] = pos[0]
            work = pos[1]
            acc[0, :] = 0.0
            step(work, cand[j], acc, 0)
            roll_rng[0] = roll
            while work.status == 0 and rollout_phase(work) == phase:
                a = _rollout_move(work, seat, rollout_bot, masks, roll_rng, guide)
                step(work, a, acc, 0)
            out[d, j] = acc[0, seat]
    return x


@kernel
def search_action(e, bot, rng, r):
    """The search bot's action for the acting seat of the record ``e`` (the module
    docstring), drawing one word from stream ``r`` of the bot generators ``rng`` ((B,)
    uint64, advanced). ``e`` is left as it was.

    Returns:
        int64: a legal action (the game's action numbers).
    """
    return search_action_from(e, bot, rng, r, -1)


@kernel(inline="always")
def _candidates(masks, blueprint):
    """The acting seat's legal actions (mask row 0), the challengers first and ``blueprint``
    (never eliminated) last."""
    cand = np.flatnonzero(masks[0])
    n = cand.shape[0]
    k = 0
    for j in range(n):
        if cand[j] != blueprint:
            cand[k] = cand[j]
            k += 1
    cand[n - 1] = blueprint
    return cand


@kernel(inline="always")
def _select(e, seat, cand, budget, x, rollout_bot, pos, acc, masks, roll_rng, q, guide):
    """Selection: successive halving of the challengers ``cand[:-1]`` on half the budget,
    leaving the best one in ``cand[0]`` and the blueprint in ``cand[1]``; returns the
    generator word after the draws. ``q[a]`` gets action ``a``'s mean return in the last
    round it was played in."""
    n = cand.shape[0]
    blueprint = cand[n - 1]
    rounds = 0
    while (1 << rounds) < n - 1:
        rounds += 1
    half = budget // 2
    while n > 2:
        dets = max(1, half // (rounds * n))
        out = np.empty((dets, n), np.float64)
        x = _evaluate(e, seat, cand, n, dets, x, rollout_bot, pos, acc, masks, roll_rng, out, guide)
        means = np.zeros(n - 1, np.float64)
        for j in range(n - 1):
            means[j] = out[:, j].mean()
            q[cand[j]] = means[j]
        q[blueprint] = out[:, n - 1].mean()
        order = np.argsort(-means, kind="mergesort")
        keep = (n - 1 + 1) // 2
        best = cand[order[:keep]].copy()
        cand[:keep] = best
        cand[keep] = blueprint
        n = keep + 1
    return x


@kernel(inline="always")
def _verify(e, seat, cand, budget, z, x, rollout_bot, pos, acc, masks, roll_rng, q, guide):
    """Verification: the last challenger ``cand[0]`` against the blueprint ``cand[1]`` on
    fresh deals; the challenger only when it gains more than ``z`` standard errors.
    Returns ``(the action, the standard error of the gain)``; ``q`` gets the two actions'
    mean returns on these deals."""
    dets = max(2, (budget - budget // 2) // 2)
    out = np.empty((dets, 2), np.float64)
    _evaluate(e, seat, cand, 2, dets, x, rollout_bot, pos, acc, masks, roll_rng, out, guide)
    diff = out[:, 0] - out[:, 1]
    gain = diff.mean()
    se = np.sqrt(diff.var() / (dets - 1)) if dets > 1 else 0.0
    q[cand[0]] = out[:, 0].mean()
    q[cand[1]] = out[:, 1].mean()
    if gain > 0.0 and gain > z * se:
        return np.int64(cand[0]), se
    return np.int64(cand[1]), se


@kernel
def search_action_from(e, bot, rng, r, blueprint):
    """:func:`search_action` with the default move given: ``blueprint`` (a legal action of
    the acting seat, for example a trained policy's choice) in place of the rollout bot's
    own choice, which is then not asked; -1 (or an action that is not legal) asks it. The
    rollouts are the rollout bot's all the same, and the draws are those of
    :func:`search_action`.

    Returns:
        int64: a legal action (the game's action numbers).
    """
    q = np.empty(num_actions(e), np.float64)
    return search_values_from(e, bot, rng, r, blueprint, q)[0]


@kernel
def search_values_from(e, bot, rng, r, blueprint, q):
    """:func:`search_action_from`, with what the search learned of each legal action: the
    same action from the same draws, and ``q`` ((A,) float64) gets each legal action's
    mean return for the acting seat over the determinizations of the last round it was
    played in (the units of the game's rewards; the other entries are NaN), for a
    policy to learn the search's values rather than its one move (expert iteration,
    :mod:`tabletop_core.train.teacher`).

    Returns:
        ``(int64 action, float64 noise)``: ``noise`` is the standard error of the final
        paired gain (the verification's); 0 where one action is legal.
    """
    return _search(e, bot, rng, r, blueprint, q, None)


@kernel
def search_values_guided(e, bot, rng, r, blueprint, q, net):
    """:func:`search_values_from` guided by the trained policy ``net`` (the network tuple
    of :mod:`tabletop_core.kernel.mlp`) as the search id ``bot`` asks
    (:func:`search_id`'s ``top`` and ``own``): only the ``top`` legal actions the policy
    ranks highest (and ``blueprint``) are searched, where ``top`` > 0; the policy plays the
    acting seat's own later moves in the rollouts, where ``own``. The other seats' moves
    are the rollout bot's, as in :func:`search_values_from`, and so are all of them where
    ``top`` is 0 and ``own`` false.

    Returns:
        ``(int64 action, float64 noise)``, as :func:`search_values_from`.
    """
    return _search(e, bot, rng, r, blueprint, q, _guide(e, bot, net))


def _guide(e, bot, net):
    """None for no policy (``net`` None), else ``(net, own, obs, mask, scratch, top)``: the
    policy, the search id's settings and the scratch its forward pass needs."""
    raise NotImplementedError("compiled code only")


def _guide_typer(e, bot, net):
    if isinstance(net, types.NoneType):

        def none(e, bot, net):
            return None

        return none

    def guide(e, bot, net):
        obs = np.zeros((1, net[0].shape[0]), np.float32)
        m = np.zeros((1, num_actions(e)), np.int8)
        return (net, ((bot >> 49) & 1) == 1, obs, m, net_scratch(obs, net), (bot >> 41) & 0xFF)

    return guide


@kernel  # compiled on its own: numba's IR inliner drops the early return's write to q here
def _search(e, bot, rng, r, blueprint, q, guide):
    """The search of :func:`search_values_from`, ``guide`` None or a policy's
    (:func:`search_values_guided`)."""
    q[:] = np.nan
    seat = e.current
    budget = (bot >> 8) & MAX_BUDGET
    rollout_bot = bot & 0xFF
    z = ((bot >> 33) & 0xFF) / 10.0
    masks = np.zeros((2, num_actions(e)), np.int8)
    legal_mask(e, masks, 0)
    w, x = next_word(rng[r])
    rng[r] = w
    roll_rng = np.empty(1, np.uint64)
    x, first = next_word(x)
    roll_rng[0] = first
    if blueprint < 0 or blueprint >= masks.shape[1] or masks[0, blueprint] == 0:
        blueprint = bot_action(e, rollout_bot, masks, 0, roll_rng, 0)
    _prune(e, seat, masks, blueprint, guide)
    cand = _candidates(masks, blueprint)
    if cand.shape[0] == 1:
        q[cand[0]] = 0.0
        return np.int64(cand[0]), 0.0
    acc = np.zeros((1, MAX_SEATS), np.float32)
    pos = new_records(e, 2)
    x = _select(e, seat, cand, budget, x, rollout_bot, pos, acc, masks, roll_rng, q, guide)
    return _verify(e, seat, cand, budget, z, x, rollout_bot, pos, acc, masks, roll_rng, q, guide)


def _rollout_move(work, seat, rollout_bot, masks, roll_rng, guide):
    """The move of the acting seat of ``work`` in a rollout: the policy's (greedy) where
    ``guide`` asks it to play ``seat``'s own moves and ``seat`` is to act, the rollout
    bot's otherwise (``masks[1]`` scratch)."""
    raise NotImplementedError("compiled code only")


def _rollout_move_typer(work, seat, rollout_bot, masks, roll_rng, guide):
    if isinstance(guide, types.NoneType):

        def scripted(work, seat, rollout_bot, masks, roll_rng, guide):
            return bot_move(work, rollout_bot, masks, 1, roll_rng, 0)

        return scripted

    def guided(work, seat, rollout_bot, masks, roll_rng, guide):
        net, own, obs, m, buf = guide[0], guide[1], guide[2], guide[3], guide[4]
        if own and work.current == seat:
            observe(work, seat, obs, 0)
            legal_mask(work, m, 0)
            return net_action(obs, m, net, buf)
        return bot_move(work, rollout_bot, masks, 1, roll_rng, 0)

    return guided


def _prune(e, seat, masks, blueprint, guide):
    """Keep in ``masks[0]`` only the ``top`` legal actions ``guide``'s policy ranks highest,
    and ``blueprint``, where ``guide`` is a policy's with ``top`` > 0; otherwise nothing."""
    raise NotImplementedError("compiled code only")


def _prune_typer(e, seat, masks, blueprint, guide):
    if isinstance(guide, types.NoneType):

        def unguided(e, seat, masks, blueprint, guide):
            return None

        return unguided

    def guided(e, seat, masks, blueprint, guide):
        net, obs, m, buf, top = guide[0], guide[2], guide[3], guide[4], guide[5]
        if top <= 0:
            return None
        observe(e, seat, obs, 0)
        m[0, :] = masks[0, :]
        logits = np.empty(masks.shape[1], np.float32)
        legal_logits(obs, m, net, buf, logits)
        order = np.argsort(-logits, kind="mergesort")
        masks[0, :] = 0
        for k in range(min(top, order.shape[0])):
            if m[0, order[k]] != 0:
                masks[0, order[k]] = 1
        masks[0, blueprint] = 1
        return None

    return guided


overload_inline(_guide, _guide_typer)
overload_inline(_rollout_move, _rollout_move_typer)
overload_inline(_prune, _prune_typer)


@kernel
def batch_search_actions(s, rows, bot, bot_rng, blueprints, actions, net):
    """The search bot ``bot`` (a search id, :func:`search_id`) for the acting seat of each
    env ``rows[k]`` of the batch ``s``, with the default move ``blueprints[k]``
    (:func:`search_action_from`): ``actions[k]`` (K,) int64 gets its action, drawing from
    the env's bot generator ``bot_rng[rows[k]]`` ((B,) uint64, advanced); -1 in an ended
    episode (no draw). No env changes."""
    for k in range(rows.shape[0]):
        i = rows[k]
        if s[i].status != 0:
            actions[k] = -1
            continue
        q = np.empty(num_actions(s[i]), np.float64)
        actions[k] = search_values_guided(s[i], np.int64(bot), bot_rng, i, blueprints[k], q, net)[0]


@kernel
def batch_search_values(s, rows, bot, bot_rng, blueprints, actions, q, noise, net):
    """:func:`batch_search_actions` with :func:`search_values_from`'s values: ``q[k]``
    ((K, A) float64, NaN where not legal) and ``noise[k]`` ((K,) float64) for the env
    ``rows[k]``; the actions and the draws are :func:`batch_search_actions`'. An ended
    episode gets -1, NaN values and no draw."""
    for k in range(rows.shape[0]):
        i = rows[k]
        if s[i].status != 0:
            actions[k] = -1
            q[k, :] = np.nan
            noise[k] = np.nan
            continue
        a, se = search_values_guided(s[i], np.int64(bot), bot_rng, i, blueprints[k], q[k], net)
        actions[k] = a
        noise[k] = se


def bot_choice(e, bot, masks, row, rng, r):
    """The action of bot ``bot`` (a scripted bot or the search bot) for the acting seat,
    ``masks[row]`` holding its mask: what the batch loops call in place of the
    ``bot_action`` hook. Compiled in two forms, chosen by the type of the bot ids the
    loop was given (:func:`bot_id_array`): int64 ids play the scripted bots only, so the
    loops of a match without search never compile it; uint64 ids may hold the search bot."""
    raise NotImplementedError("compiled code only")


def bot_choice_move(e, bot, masks, row, rng, r):
    """The same with ``masks[row]`` as scratch (the ``bot_move`` hook's contract)."""
    raise NotImplementedError("compiled code only")


def _choice_typer(scratch_mask: bool):
    hook = bot_move if scratch_mask else bot_action

    def typer(e, bot, masks, row, rng, r):
        if not isinstance(bot, types.Integer):
            return None
        if bot.signed:

            def scripted(e, bot, masks, row, rng, r):
                return hook(e, bot, masks, row, rng, r)

            return scripted

        def with_search(e, bot, masks, row, rng, r):
            b = np.int64(bot)
            if b >= SEARCH:
                a = search_action(e, b, rng, r)
            else:
                a = hook(e, b, masks, row, rng, r)
            return a

        return with_search

    return typer


overload_inline(bot_choice, _choice_typer(False))
overload_inline(bot_choice_move, _choice_typer(True))


def bot_id_array(ids) -> np.ndarray:
    """Kernel bot ids as the batch loops take them: uint64 when one of them is the search
    bot (the loops then compile the search in), int64 otherwise (:func:`bot_choice`)."""
    arr = np.asarray(ids, np.int64)
    return arr.astype(np.uint64) if (arr >= SEARCH).any() else arr
