"""Named layouts of flat arrays: consecutive regions given by name and size.

A kernel that keeps several arrays in one scratch buffer (a bot's search state, a record
of fields) indexes it with module-level integer offsets, which numba folds as constants.
:func:`regions` computes those offsets from the regions' sizes, in order, so that no
offset is written by hand and resizing one region moves the ones after it::

    W = regions(("prefix", 101), ("hand", MAX_HAND), ("stack", 12 * 9))
    PREFIX, HAND, STACK = W.offsets()   # 0, 101, 109
    scratch = np.empty(W.size, np.int64)  # 217

The same helper names the fields of a fixed-size entry (``regions(("pile", 1), ...)``).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Regions", "regions"]


class Regions(NamedTuple):
    """Offsets of consecutive regions of a flat array.

    Attributes:
        offset: region name -> index of its first entry (int), in declaration order.
        length: region name -> number of entries (int).
        size: total number of entries (the sum of the lengths).
    """

    offset: dict[str, int]
    length: dict[str, int]
    size: int

    def offsets(self) -> tuple[int, ...]:
        """The offsets in declaration order (to unpack into module-level constants)."""
        return tuple(self.offset.values())


def regions(*fields: tuple[str, int]) -> Regions:
    """Lay out ``fields`` (``(name, length)`` pairs) one after another from index 0.

    Raises:
        ValueError: a name appears twice, or a length is not a non-negative int.
    """
    offset: dict[str, int] = {}
    length: dict[str, int] = {}
    pos = 0
    for name, n in fields:
        if name in offset:
            raise ValueError(f"duplicate region name {name!r}")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"region {name!r}: length must be a non-negative int, got {n!r}")
        offset[name] = pos
        length[name] = n
        pos += n
    return Regions(offset, length, pos)
