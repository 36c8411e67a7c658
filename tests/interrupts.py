"""A stand-in for a measurement that a Ctrl-C stops: the tests of what a benchmark keeps
when it is interrupted."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def ctrl_c_after(values: Iterable[Any]) -> Callable[..., Any]:
    """A function that returns ``values`` one per call, whatever its arguments, and then
    raises KeyboardInterrupt, as Ctrl-C would in the next call."""
    left = iter(values)

    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return next(left)
        except StopIteration:
            raise KeyboardInterrupt from None

    return call
