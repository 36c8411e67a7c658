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
``tabletop_core``, whose batch loops inline every game's hooks: of every game package
listed under the :data:`GAMES_GROUP` entry points or registered at run time), so any edit
invalidates the caches that may depend on it. Kernels of other projects keep numba's
behaviour.

Callees compiled once, for linking (:func:`_compile_for_linking`): numba makes machine
code for every kernel another kernel calls, then links that kernel's optimised module
into the caller's module and optimises and generates it again there, at every level of
the call tree. A kernel that only other kernels call is compiled here to unoptimised IR
without machine code, and the kernel called from Python (a batch loop, a bot match)
optimises its whole call tree once, which shortens cold starts (CHANGELOG.md has the
figures). A kernel compiled this way and later called from Python is compiled again, to
machine code. ``TABLETOP_LINK_ONLY=0`` turns this off.
"""

from __future__ import annotations

import hashlib
import os
import signal
import threading
from contextlib import contextmanager
from functools import cache
from importlib.metadata import entry_points
from importlib.util import find_spec

import numba
import numpy as np
from numba.core import errors, sigutils, types
from numba.core import event as ev
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher

__all__ = ["GAMES_GROUP", "NUMBA_OPTIONS", "column_blocks", "kernel", "package_of", "shards", "stamp_package"]

NUMBA_OPTIONS: dict = {
    "cache": os.environ.get("TABLETOP_NO_CACHE", "0") != "1",
    "nogil": True,
    "boundscheck": False,
    "fastmath": False,
    "error_model": "numpy",
}


GAMES_GROUP = "tabletop_rl.games"
"""The entry-point group under which a distribution lists its games (``name = "module:attr"``
naming a :class:`~tabletop_core.contract.game.GameDef`); read by the catalog and here."""

_CORE = "tabletop_core"
_EXTRA: set[str] = set()  # packages of games registered at run time


def package_of(target: str) -> str:
    """The package of an entry point ``"pkg.module:attr"`` (``"pkg"``)."""
    module = target.split(":", 1)[0]
    return module.rpartition(".")[0] or module


def stamp_package(package: str) -> None:
    """Count ``package`` (a game registered at run time) among the packages whose sources
    stamp the core's cached kernels."""
    if package not in _EXTRA:
        _EXTRA.add(package)
        _package_dirs.cache_clear()
        project_source_stamp.cache_clear()


@cache
def _package_dirs() -> dict[str, str]:
    """``{package: folder}`` of ``tabletop_core`` and of every listed game package."""

    names = {_CORE, *_EXTRA, *(package_of(ep.value) for ep in entry_points(group=GAMES_GROUP))}
    out = {}
    for name in sorted(names):
        try:
            spec = find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.submodule_search_locations:
            out[name] = os.path.abspath(list(spec.submodule_search_locations)[0])
    return out


def _project_package(path: str) -> str | None:
    """The listed package whose folder holds the source file ``path``, or None."""
    path = os.path.abspath(path)
    best = None
    for name, folder in _package_dirs().items():
        if path.startswith(folder + os.sep) and (best is None or len(folder) > len(_package_dirs()[best])):
            best = name
    return best


@cache
def project_source_stamp(package: str = _CORE) -> bytes:
    """Hash of (path, size, mtime) of every ``.py`` file of ``tabletop_core`` and
    ``package`` (a game's kernel can only depend on those two), or of every listed
    package for ``tabletop_core`` itself (its batch loops inline the games' hooks)."""
    h = hashlib.sha256()
    dirs = _package_dirs()
    packages = sorted(dirs) if package == _CORE else [_CORE, package]
    for pkg in packages:
        top = dirs.get(pkg)
        if top is None:
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(".py"):
                    st = os.stat(os.path.join(dirpath, name))
                    h.update(
                        f"{pkg}/{os.path.relpath(dirpath, top)}/{name}:{st.st_size}:{st.st_mtime_ns};".encode()
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
                return project_source_stamp(_project_package(self._py_file) or _CORE)

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


class LinkOnly:
    """The key a kernel compiled for linking only is registered under (in place of a
    machine-code entry point, which it does not have): calling it is a clear error."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args, **kwargs):  # pragma: no cover - never installed for Python calls
        raise RuntimeError(f"{self.name} was compiled for linking into other kernels only")


def _finalize_for_linking(library) -> None:
    """``CPUCodeLibrary.finalize`` for a library compiled for linking only: link the
    callees' IR in and stop. No module optimisation, no machine code: the kernel that
    calls it optimises the whole call tree once, in its own module."""
    library._raise_if_finalized()
    seen = set()
    for callee in library._linking_libraries:
        if callee not in seen:
            seen.add(callee)
            library._reload_init.update(callee._reload_init)
            library._final_module.link_in(callee._get_module_for_linking(), preserve=True)
    library._finalized = True


def _install_link_only_finalize() -> bool:
    """Make numba's CPU code libraries honour :func:`_finalize_for_linking` for libraries
    marked ``_tabletop_link_only``; False where numba's layout differs (then kernels are
    compiled as numba does)."""
    try:
        from numba.core import codegen, compiler, dispatcher
    except ImportError:  # pragma: no cover
        return False
    lib = getattr(codegen, "CPUCodeLibrary", None)
    fc = getattr(dispatcher, "_FunctionCompiler", None)
    layout = (
        lib is not None
        and fc is not None
        and all(hasattr(lib, n) for n in ("finalize", "_get_module_for_linking", "_raise_if_finalized"))
        and all(hasattr(fc, n) for n in ("_customize_flags", "_get_implementation"))
        and hasattr(compiler.Flags, "no_compile")
        and hasattr(compiler, "compile_extra")
    )
    if not layout:  # pragma: no cover - another numba
        return False
    if getattr(lib, "_tabletop_installed", False):
        return True
    numba_finalize = lib.finalize

    def finalize(self):
        if getattr(self, "_tabletop_link_only", False):
            return _finalize_for_linking(self)
        return numba_finalize(self)

    lib.finalize = finalize
    lib._tabletop_installed = True
    return True


_LINK_ONLY = os.environ.get("TABLETOP_LINK_ONLY", "1") != "0" and _install_link_only_finalize()


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
    constant folds work away (Koikoi's bots pass ``-1`` for "no card")."""

    keep_int_literals = False
    _linking = False  # compiling for a caller's typing (see compile)

    def get_call_template(self, args, kws):
        keep = self.keep_int_literals
        args = tuple(_plain(a, keep) for a in args)
        kws = {k: _plain(v, keep) for k, v in kws.items()}
        linking, self._linking = self._linking, True
        try:
            return super().get_call_template(args, kws)
        finally:
            self._linking = linking

    def compile(self, sig):
        """Compile for ``sig``. Asked by another kernel's typing, a kernel missing from the
        cache is compiled for linking only (:func:`_compile_for_linking`); called from
        Python, such a version is compiled again, to machine code. Ctrl-C during the
        compilation takes effect when it ends (:func:`_sigint_held`)."""
        with _sigint_held(), global_compiler_lock:
            args, _ = sigutils.normalize_signature(sig)
            existing = self.overloads.get(tuple(args))
            linkable = existing is not None and isinstance(existing.entry_point, LinkOnly)
            if self._linking and _LINK_ONLY and hasattr(self, "_compiling_counter"):
                if existing is not None:
                    return existing.entry_point
                return _compile_for_linking(self, sig)
            if linkable:
                del self.overloads[tuple(args)]
            return super().compile(sig)


_held_depth = 0


@contextmanager
def _sigint_held():
    """Hold Ctrl-C (SIGINT) until the compilation inside is over, then raise
    ``KeyboardInterrupt``. numba does not survive an interrupt in the middle of a
    compilation: it swallows it (the program runs on) or turns it into a ``RuntimeError``
    while writing its cache. Only the outermost compilation of the main thread holds the
    signal, and only where Python's own handler is in place (a program's own handler, such
    as the trainer's, is left alone)."""
    global _held_depth
    main = threading.current_thread() is threading.main_thread()
    if not main or (_held_depth == 0 and signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    if _held_depth:
        _held_depth += 1
        try:
            yield
        finally:
            _held_depth -= 1
        return
    pending: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: pending.append(signum))
    _held_depth = 1
    try:
        yield
    finally:
        _held_depth = 0
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if pending:
        raise KeyboardInterrupt


class _ConstantIntsDispatcher(_KernelDispatcher):
    keep_int_literals = True


def _compile_for_linking(disp: _KernelDispatcher, sig):
    """Compile ``disp`` for ``sig`` as a callee only, where numba would make machine code.

    numba compiles every kernel a kernel calls to machine code of its own, then links its
    optimised module into each caller's module and optimises and generates code for it
    again there: a rule six calls deep is optimised seven times, and a cold start spends
    most of its time in LLVM on such copies. A kernel compiled here (from the cache if
    it is there) is typed and lowered as usual, its IR left unoptimised and without a
    Python entry point; the kernel called from Python optimises the whole call tree once.
    Such versions are never written to the cache (the caller's cache entry holds their
    code)."""
    from numba.core import compiler

    with disp._compiling_counter:
        args, return_type = sigutils.normalize_signature(sig)
        cres = disp._cache.load_overload(sig, disp.targetctx)
        if cres is not None:
            disp._cache_hits[sig] += 1
            disp.targetctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
            disp.add_overload(cres)
            return cres.entry_point
        disp._cache_misses[sig] += 1
        flags = compiler.Flags()
        disp.targetdescr.options.parse_as_flags(flags, disp.targetoptions)
        flags = disp._compiler._customize_flags(flags)
        flags.no_compile = True
        flags.no_cpython_wrapper = True
        flags.no_cfunc_wrapper = True
        details = {"dispatcher": disp, "args": args, "return_type": return_type}
        with ev.trigger_event("numba:compile", data=details):
            try:
                cres = compiler.compile_extra(
                    disp.targetdescr.typing_context,
                    disp.targetdescr.target_context,
                    disp._compiler._get_implementation(args, {}),
                    args=args,
                    return_type=return_type,
                    flags=flags,
                    locals=disp._compiler.locals,
                    pipeline_class=disp._compiler.pipeline_class,
                )
            except errors.ForceLiteralArg as e:
                raise e.bind_fold_arguments(
                    lambda a, k: disp._compiler.fold_argument_types(a, k)[1]
                ) from None
        cres.library._tabletop_link_only = True
        key = LinkOnly(cres.fndesc.qualname)
        cres = cres._replace(entry_point=key)
        disp.targetctx.insert_user_function(key, cres.fndesc, [cres.library])
        disp.overloads[tuple(args)] = cres
        return key


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


def shards(n: int, parts: int, align: int = 1) -> np.ndarray:
    """``bounds`` (parts + 1,) int64 splitting ``range(n)`` into ``parts`` near-equal,
    rising shards whose inner bounds are multiples of ``align``: what a ``parallel=True``
    kernel's ``prange`` over ``bounds[k]:bounds[k + 1]`` hands each thread (the vector
    env's batch loops, the trainer's kernels). ``parts`` is at least 1; shards may be empty
    when ``n`` is small."""
    parts = max(1, int(parts))
    bounds = (np.arange(parts + 1, dtype=np.int64) * (int(n) // align)) // parts * align
    bounds[-1] = n
    return bounds


def column_blocks(width: int, rows: int, parts: int) -> tuple[np.ndarray, np.ndarray]:
    """``(bounds, blocks)`` for a kernel that splits ``width`` output columns over
    ``parts`` threads, each summing into its own ``(rows, W)`` float32 block (``blocks``
    (parts, rows, W), ``W`` the widest shard; bounds on multiples of 16 floats, a cache
    line): threads adding into one shared array, each in its own columns, ran slower than
    one thread."""
    bounds = shards(width, parts, align=16)
    return bounds, np.empty((len(bounds) - 1, rows, max(1, int(np.diff(bounds).max()))), np.float32)
