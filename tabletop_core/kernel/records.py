"""Calling a rules kernel on one env of a State from Python."""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_core.kernel.rng import seed_word

__all__ = ["at", "blank_state"]


def at(kernel: Any, s: np.ndarray, i: int, *args: Any) -> Any:
    """Run the record kernel ``kernel`` (a rules ``*_r(e, ...)`` kernel) on env ``i`` of
    the State ``s`` in place: ``kernel(s[i], *args)``; what the kernel writes lands in
    ``s``.

    The one way Python code (tests, renderers, the adapters) calls a rules kernel on one
    env of a State, in place of one-line ``(s, i, ...)`` twins of each kernel. No compiled
    trampoline is needed: ``s[i]`` of a structured array is a ``numpy.void`` *view* of
    row ``i`` (not a copy), and numba receives a record as a pointer to its bytes.
    Kernels that fill a buffer take the whole ``(B, n)`` buffer and a row index, so one
    env's ``(n,)`` buffer ``out`` goes as ``out[None, :], 0``.

    Args:
        kernel: a compiled record kernel (``@kernel``) taking the record first.
        s: a State, a structured array of shape ``(B,)``.
        i: the env index, ``-B <= i < B``.
        *args: the kernel's further arguments.

    Returns:
        Whatever the kernel returns.

    Raises:
        IndexError: ``i`` is out of range.
        numba.core.errors.TypingError: the arguments do not fit the kernel.
    """
    return kernel(s[i], *args)


def blank_state(batch: int, dtype: np.dtype) -> np.ndarray:
    """A zeroed State of ``batch`` envs of the record ``dtype`` whose generator words
    (field ``rng``) hold ``seed_word(0)``: the start every game's ``new_state`` writes its
    options and starting values into, before a deal.

    Args:
        batch: the number of envs ``B`` (>= 1; taken through ``int``).
        dtype: the game's State record dtype (with a ``uint64`` field ``rng``).

    Returns:
        A ``(B,)`` structured array of ``dtype``.

    Raises:
        ValueError: if ``batch`` < 1.
    """
    b = int(batch)
    if b < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    s = np.zeros(b, dtype)
    s["rng"] = seed_word(0)
    return s
