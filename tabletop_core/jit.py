"""Numba options for every rules kernel, kept in one place.

All kernels of the project are compiled with :func:`kernel`, i.e. ``numba.njit`` with
``cache=True`` (compiled machine code is written next to the sources, or into numba's
user cache when that folder is read-only, so a warm start skips compilation),
``nogil=True`` (a kernel releases the GIL, so threads can run batches side by side) and
``boundscheck=False``.

Set the environment variable ``TABLETOP_NO_CACHE=1`` to disable the on-disk cache
(useful when profiling compilation).
"""

from __future__ import annotations

import os

import numba

__all__ = ["kernel", "NUMBA_OPTIONS"]

NUMBA_OPTIONS: dict = {
    "cache": os.environ.get("TABLETOP_NO_CACHE", "0") != "1",
    "nogil": True,
    "boundscheck": False,
    "fastmath": False,
    "error_model": "numpy",
}


def kernel(fn=None, **overrides):
    """Compile ``fn`` as a rules kernel (``numba.njit`` with :data:`NUMBA_OPTIONS`).

    Usable bare (``@kernel``) or with per-kernel overrides (``@kernel(inline="always")``).
    """
    options = {**NUMBA_OPTIONS, **overrides}
    if fn is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(fn)
