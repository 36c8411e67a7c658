"""The progress bar of the long runs (a match, a soak, a training run).

A ``rich`` bar on a terminal; when the bar is disabled, ``rich`` is missing or the stream
is not a terminal, nothing, or a plain line every ``plain_every`` seconds where the run
asks for one (a soak in a log file).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

__all__ = ["ProgressBar", "compile_notice", "format_duration"]

COMPILE_NOTICE_S = 2.0
"""A warm-up longer than this says that the kernels are compiling."""


@contextmanager
def compile_notice(name: str, enabled: bool = True) -> Iterator[None]:
    """Say once on stderr that the kernels of the game ``name`` compile when the warm-up
    inside the ``with`` takes over :data:`COMPILE_NOTICE_S` seconds (a cold numba cache:
    a first run), so a long first wait is not silent."""
    timer = threading.Timer(
        COMPILE_NOTICE_S,
        lambda: print(
            f"compiling the kernels for {name} (first run only; cached after)...", file=sys.stderr, flush=True
        ),
    )
    timer.daemon = True
    if enabled:
        timer.start()
    try:
        yield
    finally:
        timer.cancel()


def format_duration(seconds: float) -> str:
    """A duration as a person reads it: ``"45 s"``, ``"12 min"``, ``"2 h 05 min"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = seconds / 60
    if minutes < 90:
        return f"{minutes:.0f} min"
    return f"{int(minutes // 60)} h {int(minutes % 60):02d} min"


class ProgressBar:
    """``total`` units of work under ``label``; :meth:`update` with the units done so far
    and a short ``info`` text, :meth:`close` at the end (also when the run fails).

    Args:
        total: the units the run will do (games, steps or seconds).
        label: what runs, shown before the bar.
        enabled: ``False``: no bar and no lines.
        unit: the name of a unit in the plain lines.
        stream: where the bar goes (default ``sys.stderr``).
        transient: clear the bar when it closes.
        plain_every: off a terminal (or without ``rich``), a plain line every so many seconds;
            ``None``: nothing.
    """

    def __init__(
        self,
        total: float,
        label: str,
        *,
        enabled: bool = True,
        unit: str = "",
        stream: TextIO | None = None,
        transient: bool = False,
        plain_every: float | None = None,
    ):
        self.total = total
        self.label = label
        self.unit = unit
        self.plain_every = plain_every if enabled else None
        self.t0 = self.last = time.perf_counter()
        self.bar = self._rich_bar(stream or sys.stderr, transient) if enabled else None

    def _rich_bar(self, stream: TextIO, transient: bool):
        if not stream.isatty():
            return None
        try:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
        except ImportError:
            return None
        bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}"),
            TimeRemainingColumn(),
            console=Console(file=stream),
            transient=transient,
        )
        self.task = bar.add_task(self.label, total=self.total, info="")
        bar.start()
        return bar

    def update(self, done: float, info: str = "") -> None:
        """``done`` units of the ``total`` are done; ``info``: what to show beside the bar."""
        if self.bar is not None:
            self.bar.update(self.task, completed=done, info=info)
            return
        now = time.perf_counter()
        if self.plain_every is not None and now - self.last >= self.plain_every:
            self.last = now
            print(self.plain_line(done, now - self.t0, info), file=sys.stderr, flush=True)

    def plain_line(self, done: float, elapsed: float, info: str = "") -> str:
        """The line shown off a terminal: ``"label: 3,200/10,000 games, 1,234 games/s,
        about 6 s left"`` (the time left at the rate so far)."""
        parts = [f"{self.label}: {done:,}/{self.total:,} {self.unit}".rstrip()]
        if info:
            parts.append(info)
        if done > 0 and elapsed > 0:
            rate = done / elapsed
            parts.append(f"{rate:,.1f} {self.unit or 'units'}/s")
            parts.append(f"about {format_duration((self.total - done) / rate)} left")
        return ", ".join(parts)

    def close(self, done: float | None = None, info: str = "") -> None:
        """Stop the bar, showing ``done`` and ``info`` last where given (idempotent)."""
        if self.bar is not None:
            if done is not None:
                self.bar.update(self.task, completed=done, info=info)
            self.bar.stop()
            self.bar = None
