"""Numba options for every rules kernel, kept in one place.

All kernels of the project are compiled with :func:`kernel`, i.e. ``numba.njit`` with
``cache=True`` (compiled machine code is written next to the sources, or into numba's
user cache when that folder is read-only, so a warm start skips compilation),
``nogil=True`` (a kernel releases the GIL, so threads can run batches side by side) and
``boundscheck=False``.

Set the environment variable ``TABLETOP_NO_CACHE=1`` to disable the on-disk cache
(useful when profiling compilation).

Cache invalidation: numba stamps a cached kernel with its own source file only, so a
kernel in ``loops.py`` that calls (and inlines) a bot in ``bots.py`` would keep running
the old bot after ``bots.py`` changes. :func:`_install_project_cache_stamp` makes the
stamp of every kernel of this project a hash over the source files (paths, sizes and
modification times) of its own package and ``tabletop_core`` (for the kernels of
``tabletop_core``, whose batch loops inline every game's hooks: of every game package),
so any edit invalidates the caches that may depend on it. Kernels of other projects keep
numba's behaviour.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache

import numba
from numba.core import types
from numba.core.registry import CPUDispatcher

__all__ = ["kernel", "NUMBA_OPTIONS"]

NUMBA_OPTIONS: dict = {
    "cache": os.environ.get("TABLETOP_NO_CACHE", "0") != "1",
    "nogil": True,
    "boundscheck": False,
    "fastmath": False,
    "error_model": "numpy",
}


_PACKAGES = ("tabletop_core", "thegame_env", "exhaust_env", "koikoi_env", "exitnow_envs")
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _project_package(path: str) -> str | None:
    rel = os.path.relpath(os.path.abspath(path), _ROOT)
    top = rel.split(os.sep, 1)[0]
    return top if top in _PACKAGES else None


@cache
def project_source_stamp(package: str = "tabletop_core") -> bytes:
    """Hash of (path, size, mtime) of every ``.py`` file of ``tabletop_core`` and
    ``package`` (a game's kernel can only depend on those two), or of every project
    package for ``tabletop_core`` itself (its batch loops inline the games' hooks)."""
    h = hashlib.sha256()
    # the batch loops of tabletop_core (tabletop_core.loops) compile every game's hooks in
    packages = _PACKAGES if package == "tabletop_core" else ("tabletop_core", package)
    for pkg in packages:
        top = os.path.join(_ROOT, pkg)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(".py"):
                    st = os.stat(os.path.join(dirpath, name))
                    h.update(
                        f"{os.path.relpath(dirpath, _ROOT)}/{name}:{st.st_size}:{st.st_mtime_ns};".encode()
                    )
    return h.digest()


def _install_project_cache_stamp() -> None:
    """Put project-stamped variants of numba's file-backed cache locators first."""
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover
        return
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    mixin = getattr(caching, "_SourceFileBackedLocatorMixin", None)
    if impl is None or mixin is None or not hasattr(impl, "_locator_classes"):
        return  # another numba layout: keep numba's own invalidation
    if getattr(impl, "_tabletop_installed", False):
        return
    wrapped = []
    for base in list(impl._locator_classes):
        if not issubclass(base, mixin):
            wrapped.append(base)
            continue

        class ProjectLocator(base):
            def get_source_stamp(self):
                return project_source_stamp(_project_package(self._py_file) or "tabletop_core")

            @classmethod
            def from_function(cls, py_func, py_file):
                if _project_package(py_file) is None:
                    return None
                return super().from_function(py_func, py_file)

        ProjectLocator.__name__ = f"Project{base.__name__}"
        wrapped += [ProjectLocator, base]
    impl._locator_classes = wrapped
    impl._tabletop_installed = True


_install_project_cache_stamp()


class _KernelDispatcher(CPUDispatcher):
    """A dispatcher that compiles one machine-code version per argument *type*, not per
    integer constant: called from compiled code as ``randint_r(e, 6)``, numba's own
    dispatcher types the ``6`` as ``Literal[int](6)`` and compiles a version for each
    constant a call site passes (Exit Now's first step compiled ``randint_r`` seven
    times), and one per integer width a caller happens to hold (a seat as ``int8`` from a
    State field, as ``int64`` from a loop). Signed integer arguments are compiled as
    ``int64``; unsigned ones keep their width (bit sets: ``~x`` and shifts depend on
    it); boolean literals stay literal, so a flag that selects a code path still
    compiles the other path away. A kernel made with
    ``@kernel(constant_ints=True)`` keeps numba's version per integer constant, where a
    constant folds work away (Koikoi's bots pass ``-1`` for "no card": 12 % faster)."""

    keep_int_literals = False

    def get_call_template(self, args, kws):
        keep = self.keep_int_literals
        args = tuple(_plain(a, keep) for a in args)
        kws = {k: _plain(v, keep) for k, v in kws.items()}
        return super().get_call_template(args, kws)


class _ConstantIntsDispatcher(_KernelDispatcher):
    keep_int_literals = True


def _plain(t, keep_int_literals: bool):
    if isinstance(t, types.IntegerLiteral):
        if keep_int_literals:
            return t
        t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.signed and t.bitwidth < 64:
        return types.int64  # every narrower signed integer fits: one version, not one per width
    return t


def _njit(fn, options: dict):
    constant_ints = options.pop("constant_ints", False)
    disp = numba.njit(**options)(fn)
    if type(disp) is CPUDispatcher:  # (numba.config.DISABLE_JIT returns the function)
        disp.__class__ = _ConstantIntsDispatcher if constant_ints else _KernelDispatcher
    return disp


def kernel(fn=None, **overrides):
    """Compile ``fn`` as a rules kernel (``numba.njit`` with :data:`NUMBA_OPTIONS`, one
    version per argument type: see :class:`_KernelDispatcher`).

    Usable bare (``@kernel``) or with per-kernel overrides (``@kernel(inline="always")``).
    """
    options = {**NUMBA_OPTIONS, **overrides}
    if fn is None:
        return lambda f: _njit(f, dict(options))
    return _njit(fn, dict(options))
