"""The hook stubs of the batch loops and their per-game resolution: what a game hands the
core's compiled code (:mod:`tabletop_core.contract.loops`, :mod:`tabletop_core.contract.search`).

Each hook is a stub here, resolved per game by ``numba.extending.overload`` on the
game's record type (:func:`register`), so a loop compiles once per game and is cached like
any kernel. The table of hooks and what each does is in :mod:`tabletop_core.contract.loops`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numba
import numpy as np
from numba import from_dtype
from numba.core import types
from numba.extending import overload

from tabletop_core.kernel.jit import NUMBA_OPTIONS, kernel

__all__ = ["register", "overload_inline", "HOOKS", "OPTIONAL_HOOKS", "NO_NOTES"]


# --- the hooks: stubs, each resolved per game by register() ----------------------------------
def deal(e):
    """Start a new episode in the record ``e`` (hook)."""
    raise NotImplementedError("a hook: called from compiled loops only")


def step(e, action, acc, row):
    """Apply a legal action and add every seat's reward of the step to ``acc[row]`` (hook)."""
    raise NotImplementedError("a hook: called from compiled loops only")


def legal_mask(e, masks, row):
    """The acting seat's action mask into ``masks[row]`` (hook)."""
    raise NotImplementedError("a hook: called from compiled loops only")


def observe(e, seat, out, row):
    """``seat``'s observation into ``out[row]``, in full (hook)."""
    raise NotImplementedError("a hook: called from compiled loops only")


def observe_patch(e, n, seat, out, row, note):
    """``seat``'s observation into a buffer the loops keep writing to (hook)."""
    raise NotImplementedError("a hook: called from compiled loops only")


def observe_fresh(e, n, seat, out, row):
    """``seat``'s observation into the obs buffer after a reset or a restore (hook)."""
    raise NotImplementedError("a hook: called from compiled loops only")


def bot_action(e, bot, masks, row, rng, r):
    """Bot ``bot``'s action, ``masks[row]`` holding the acting seat's mask (hook)."""
    raise NotImplementedError("a hook: called from compiled loops only")


def bot_move(e, bot, masks, row, rng, r):
    """Bot ``bot``'s action, ``masks[row]`` scratch (hook)."""
    raise NotImplementedError("a hook: called from compiled loops only")


def is_legal(e, action):
    """Whether ``action`` is legal for the acting seat (hook)."""
    raise NotImplementedError("a hook: called from compiled loops only")


def prefetch(s, notes, obs, masks, i):
    """Cache hints for the envs after ``i`` (hook, optional)."""
    raise NotImplementedError("a hook: called from compiled loops only")


def resample_hidden(e, seat, w):
    """Deal what ``seat`` cannot see in ``e`` again, consistently with its view, drawing
    from the generator word ``w``; return the next word (hook, optional: a game without
    it has no ``search`` bot)."""
    raise NotImplementedError("a hook: called from compiled loops only")


def rollout_phase(e):
    """The part of the episode ``e`` is in, as an int: a search rollout ends where it
    changes (hook, optional: default 0, the whole episode)."""
    raise NotImplementedError("a hook: called from compiled loops only")


def num_actions(e):
    """The size of the action space (hook)."""
    raise NotImplementedError("a hook: called from compiled loops only")


@kernel(inline="always")
def _keep_hidden(e, seat, w):
    """The ``resample_hidden`` of a game that has none: nothing is dealt again."""
    return w


@kernel(inline="always")
def _one_phase(e):
    """The ``rollout_phase`` of a game that has none: the episode is one phase."""
    return 0


NO_NOTES = np.dtype([("unused", np.uint8)])
"""The notes dtype of a game whose observations keep no notes."""

HOOKS: dict[str, Callable] = {
    f.__name__: f
    for f in (
        deal,
        step,
        legal_mask,
        observe,
        observe_patch,
        observe_fresh,
        bot_action,
        bot_move,
        is_legal,
        prefetch,
        resample_hidden,
        rollout_phase,
        num_actions,
    )
}
OPTIONAL_HOOKS = {
    "bot_move",
    "observe_patch",
    "observe_fresh",
    "prefetch",
    "resample_hidden",
    "rollout_phase",
}

_BOT_ACTION_FAST = """\
    if bot == random_bot:
        return fast({fast})
    return fn(e, bot, masks, row, rng, r)"""

_BOT_MOVE = """\
    {random}legal_mask(e, masks, row)
    return bot_action(e, bot, masks, row, rng, r)"""
_OPTIONS = {k: v for k, v in NUMBA_OPTIONS.items() if k != "cache"}


def register(state_dtype: np.dtype, num_actions: int, namespace: Mapping[str, Any]) -> None:
    """Resolve the hook stubs for the game whose State has dtype ``state_dtype``.

    Args:
        state_dtype: the game's State record dtype.
        num_actions: the size of its action space.
        namespace: the hook kernels by name (:class:`~tabletop_core.contract.game.Hooks`
            as a mapping): every name of :data:`HOOKS` but ``num_actions``;
            those of :data:`OPTIONAL_HOOKS` may be left out or None (``observe_patch`` and
            ``observe_fresh`` then fall back to ``observe``, ``prefetch`` to no hint,
            ``resample_hidden`` to none, which refuses the search bot,
            ``rollout_phase`` to one phase per episode, and ``bot_move`` to
            :func:`_bot_hooks`' glue). Besides the hooks it may hold ``random_bot`` (the
            ``random`` bot's id) with ``random_move(e, rng, r)`` and/or
            ``random_on_mask(masks, row, rng, r)``, the game's own draws of that bot.

    Raises:
        ValueError: a required hook missing from ``namespace``.
    """
    hooks = {
        name: namespace[name] for name in HOOKS if namespace.get(name) is not None and name != "num_actions"
    }
    missing = sorted(set(HOOKS) - OPTIONAL_HOOKS - {"num_actions"} - set(hooks))
    if missing:
        raise ValueError(f"missing hooks {missing}")
    record = from_dtype(state_dtype)
    full = hooks["observe"]
    calls = {name: None for name in hooks}  # None: the hook's own arguments
    if "observe_patch" not in hooks:  # the full observation, no notes
        hooks["observe_patch"], calls["observe_patch"] = full, "e, seat, out, row"
    if "observe_fresh" not in hooks:
        hooks["observe_fresh"], calls["observe_fresh"] = full, "e, seat, out, row"
    if "prefetch" not in hooks:  # no hint
        hooks["prefetch"], calls["prefetch"] = None, ""
    if "resample_hidden" not in hooks:  # no determinization: the search bot is refused
        hooks["resample_hidden"], calls["resample_hidden"] = _keep_hidden, None
    if "rollout_phase" not in hooks:  # rollouts to the end of the episode
        hooks["rollout_phase"], calls["rollout_phase"] = _one_phase, None
    hooks["num_actions"], calls["num_actions"] = int(num_actions), ""
    bodies = _bot_hooks(hooks, namespace)
    for name, fn in hooks.items():
        body, extra = bodies.get(name, (None, {}))
        _bind(
            HOOKS[name], fn, record, on_array=name == "prefetch", call=calls.get(name), body=body, extra=extra
        )


def _bot_hooks(hooks: dict, namespace: Mapping[str, Any]) -> dict[str, tuple[str, dict]]:
    """The bot glue every game shares, written once: ``bot_action`` takes the game's own
    draw of the ``random`` bot where it has one (``random_on_mask`` on the mask row, else
    ``random_move`` on the record), and a missing ``bot_move`` is ``random_move`` for the
    ``random`` bot, else the legal mask into the scratch row and ``bot_action``.

    Returns:
        ``{hook name: (implementation body, names it reads)}`` for :func:`_bind`.
    """
    move, on_mask = namespace.get("random_move"), namespace.get("random_on_mask")
    random_bot = int(namespace.get("random_bot", -1))
    bodies: dict[str, tuple[str, dict]] = {}
    if random_bot >= 0 and (on_mask is not None or move is not None):
        fast, args = (on_mask, "masks, row, rng, r") if on_mask is not None else (move, "e, rng, r")
        bodies["bot_action"] = (_BOT_ACTION_FAST.format(fast=args), {"fast": fast, "random_bot": random_bot})
    if "bot_move" not in hooks:
        hooks["bot_move"] = None
        first = (
            "if bot == random_bot:\n        return move(e, rng, r)\n    "
            if random_bot >= 0 and move is not None
            else ""
        )
        scope = {"move": move, "random_bot": random_bot, "legal_mask": legal_mask, "bot_action": bot_action}
        bodies["bot_move"] = (_BOT_MOVE.format(random=first), scope)
    return bodies


def _bind(
    stub, fn, record, on_array: bool, call: str | None, body: str | None = None, extra: dict | None = None
) -> None:
    """Overload ``stub`` for arguments of the game's record type (or, with ``on_array``, a
    State array of it as the first argument) with ``fn(<call>)`` (``call``: the argument
    names passed on, None for all of the stub's, "" for ``fn`` itself as the value: a
    constant, or None for nothing), or with the statements ``body`` over the names of
    ``extra`` and ``fn``."""
    # numba wants the typing function and the implementation to have the stub's argument
    # names: both are made from one template over them
    names = ", ".join(stub.__code__.co_varnames[: stub.__code__.co_argcount])
    first = names.split(",")[0]
    if body is None:
        body = "    return " + ("fn" if call == "" else f"fn({names if call is None else call})")
    src = (
        f"def typer({names}):\n"
        f"    kind = getattr({first}, 'dtype', None) if on_array else {first}\n"
        f"    return impl if kind == record else None\n"
        f"def impl({names}):\n"
        f"{body}\n"
    )
    scope: dict = {**(extra or {}), "fn": fn, "record": record, "on_array": on_array}
    exec(src, scope)  # noqa: S102 - a fixed template over the stub's own argument names
    overload_inline(stub, scope["typer"])


def _typing_only_jit(**options):
    """numba's jit decorator, for an overload implementation that is only ever inlined:
    its dispatcher types it but never compiles it to machine code."""

    def wrap(pyfunc):
        disp = numba.jit(**options)(pyfunc)
        disp._can_compile = False
        return disp

    return wrap


def overload_inline(stub, typer) -> None:
    """``numba.extending.overload(stub, inline="always")(typer)``, less one wasted
    compilation: numba compiles an always-inlined overload's implementation to machine code
    once on its own (to "make sure it can be compiled") and throws the result away, which
    for a hook whose kernel inlines a whole step is a large part of a cold start. The
    implementation is typed and inlined as before (numba's inline pass only
    needs its typing), so the loops compile to the same code. Falls back to ``overload``
    where numba's template layout differs."""
    try:
        from numba.core.extending import _overload_default_jit_options
        from numba.core.typing.templates import infer, infer_global, make_overload_template

        options = {**_overload_default_jit_options, **_OPTIONS}
        base = make_overload_template(stub, typer, options, True, "always")
        if not hasattr(base, "_get_jit_decorator"):
            raise ImportError("another numba layout")
    except (ImportError, TypeError):  # another numba layout
        overload(stub, jit_options=_OPTIONS, inline="always")(typer)
        return
    template = type(base)(base.__name__, (base,), {"_get_jit_decorator": lambda self: _typing_only_jit})
    infer(template)
    infer_global(stub, types.Function(template))
