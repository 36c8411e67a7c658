"""The network's first layer over the observation's nonzero entries (the float32 CPU path).

The games' observations are mostly zeros: flags, one-hot cards, planes. The Game's
2-player row has 606 floats of which about 30-40 are nonzero; Exit Now's planes are
sparser still. A dense first layer multiplies every zero by its weight column, forward (``x @
W.T``) and for the weight gradient (``g.T @ x``): in The Game that layer was about two
fifths of the network's multiply-adds. Here a batch's nonzero entries are listed once, as
compressed sparse rows (:class:`SparseRows`); the forward pass sums their weight rows
(:func:`sparse_linear`) and the weight gradient adds ``x[i, j] * g[i]`` to column ``j`` of
the gradient for those entries alone (:func:`sparse_weight_grad`). The observation needs no
gradient, so nothing else is computed. Both read any list of the batch's rows, in the
order given: the trainer lists a rollout's observations once per update and each
minibatch reads its rows from that list, with no copy of the dense rows and no listing per
minibatch. That listing also takes out what most rows hold alike (the rows' common row,
:class:`SparseRows`), which the layer then adds once a call instead of once a row.

Shapes: ``x`` (M, D) float32 observations; ``rows`` (N,) int64, the rows of ``x`` a call
reads; ``start`` (M,) int64, ``count`` (M,) int64, ``cols`` (nnz + M,) int32 and ``vals``
(nnz + M,) float32: row ``r``'s nonzero columns and values at ``start[r]:start[r] +
count[r]``, in column order (each row has one spare slot after its entries);
``wt`` (D, H) float32, the layer's weight transposed (``W.T``, contiguous); ``bias`` (H,)
float32; ``out`` (N, H) float32; ``g`` (N, H) float32 the output's gradient; ``gw`` (H, D)
float32 the weight's gradient, C- or F-contiguous (F: the trainer's first layer, stored
transposed). The others C-contiguous. ``bounds`` (T + 1,) int64
(:func:`~tabletop_core.kernel.jit.shards`) splits the work into ``T`` shards, one per thread
of numba's threading layer: rows in the listing and the forward pass, output columns in the
gradient, so no two threads write the same float and every call gives the same floats,
whatever the thread count.

The sums run in the order of the nonzero columns, not a matmul's blocked order, so they
differ from a dense layer's in the last bits.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tabletop_core.kernel.jit import kernel, shards

__all__ = [
    "COMMON_MIN_SHARE",
    "SPARSE_DENSITY",
    "SPARSE_OVER_BF16",
    "SparseRows",
    "density",
    "sparse_linear",
    "sparse_weight_grad",
]

SPARSE_DENSITY = 0.25
"""The largest fraction of nonzero observation entries at which the trainer takes the
sparse first layer; a denser observation runs the dense matmul, which is faster there."""


COMMON_MIN_SHARE = 0.1
"""The smallest share of a listing's entries that a common row must save for
``SparseRows(..., common_row=True)`` to take it; below it the rows list their nonzero
entries (the bias and gradient steps a common row adds per call cost about what so few
entries save)."""


SPARSE_OVER_BF16 = 6.0
"""On a CPU whose bfloat16 unit is AVX512-BF16 (no AMX), ``--bf16 auto`` keeps the float32
path when the dense network's FLOPs are at least this many times those of the float32 path
with its sparse first layer, counted on the envs' first observations: there the sparse layer
skips more work than bf16's faster products make up for (``docs/training.md``, "The dtype
``--bf16 auto`` picks")."""


def density(x: np.ndarray) -> float:
    """The fraction of nonzero entries of ``x`` (any shape), 0 for an empty array."""
    return float(np.count_nonzero(x)) / x.size if x.size else 0.0


@kernel(parallel=True)
def _count_rows(bounds, x, count):
    """``count[r]`` = the nonzero entries of row ``r`` of ``x``; rows ``bounds[k]:bounds[k +
    1]`` on thread ``k``."""
    for k in prange(bounds.shape[0] - 1):
        for r in range(bounds[k], bounds[k + 1]):
            c = 0
            for j in range(x.shape[1]):
                c += x[r, j] != 0.0
            count[r] = c


@kernel(parallel=True)
def _list_rows(bounds, x, bits, start, cols, vals):
    """Each row's nonzero columns and values at ``start[r]:``, in column order. ``bits``
    is ``x`` viewed as uint32: a run of 16 floats whose bits are all zero holds only zeros
    and is skipped on one vectorised test, most of a row; within the others, so is each
    pair of zero floats. The floats of the other pairs (and of a row's last ``D % 16``) are
    listed without a branch: each is written and the position moved on by the test, so a
    zero after a row's last entry lands in its spare slot."""
    d = x.shape[1]
    runs = d // 16
    for k in prange(bounds.shape[0] - 1):
        for r in range(bounds[k], bounds[k + 1]):
            p = start[r]
            for q in range(runs):
                acc = np.uint32(0)
                for j in range(16 * q, 16 * q + 16):
                    acc |= bits[r, j]
                if acc != 0:
                    for h in range(16 * q, 16 * q + 16, 2):
                        if (bits[r, h] | bits[r, h + 1]) != 0:
                            for j in range(h, h + 2):
                                v = x[r, j]
                                cols[p] = j
                                vals[p] = v
                                p += v != 0.0
            for j in range(16 * runs, d):
                v = x[r, j]
                cols[p] = j
                vals[p] = v
                p += v != 0.0


@kernel(parallel=True)
def _column_counts(bounds, start, count, cols, vals, counts, firsts, differs):
    """Over rows ``bounds[k]:bounds[k + 1]`` (thread ``k``): ``counts[k, j]`` += the listed
    entries of column ``j``, ``firsts[k, j]`` the first of their values, ``differs[k,
    j]`` set where another is not that one."""
    for k in prange(bounds.shape[0] - 1):
        for r in range(bounds[k], bounds[k + 1]):
            for p in range(start[r], start[r] + count[r]):
                j = cols[p]
                v = vals[p]
                if counts[k, j] == 0:
                    firsts[k, j] = v
                counts[k, j] += 1
                differs[k, j] |= v != firsts[k, j]


@kernel(parallel=True)
def _common_counts(bounds, start, count, cols, is_common, held):
    """``held[r]`` = the common columns among row ``r``'s entries (``is_common`` (D,)
    uint8, 1 for a common column); rows ``bounds[k]:bounds[k + 1]`` on thread ``k``."""
    for k in prange(bounds.shape[0] - 1):
        for r in range(bounds[k], bounds[k + 1]):
            h = 0
            for p in range(start[r], start[r] + count[r]):
                h += is_common[cols[p]]
            held[r] = h


_PAST = np.int64(1) << 40  # past every column: the end of a list in :func:`_difference_rows`


@kernel(parallel=True)
def _difference_rows(
    bounds, start, count, cols, vals, bcols, bvals, new_start, new_count, new_cols, new_vals
):
    """Each row's entries of ``x - b`` (``b`` the common row: ``bvals`` at the sorted
    columns ``bcols``, 0 elsewhere) from its entries of ``x``, in column order, at
    ``new_start[r]:``, then a zero spare slot: the two sorted lists merged, a common
    column the row holds (at its one value) dropped, one it lacks listed at minus its
    value. Rows ``bounds[k]:bounds[k + 1]`` on thread ``k``."""
    nb = bcols.shape[0]
    for k in prange(bounds.shape[0] - 1):
        for r in range(bounds[k], bounds[k + 1]):
            p = start[r]
            end = p + count[r]
            q = 0
            w = new_start[r]
            while p < end or q < nb:
                j = np.int64(cols[p]) if p < end else _PAST
                jb = bcols[q] if q < nb else _PAST
                if jb < j:
                    new_cols[w] = jb
                    new_vals[w] = -bvals[q]
                    w += 1
                    q += 1
                elif jb == j:
                    p += 1
                    q += 1
                else:
                    new_cols[w] = j
                    new_vals[w] = vals[p]
                    w += 1
                    p += 1
            new_count[r] = w - new_start[r]
            new_cols[w] = 0
            new_vals[w] = 0.0


class SparseRows:
    """A batch of observations' nonzero entries as compressed sparse rows, listed once:
    ``start`` (M,) int64, ``count`` (M,) int64, ``cols`` (nnz + M,) int32 and ``vals``
    (nnz + M,) float32 (row ``r``'s entries at ``start[r]:start[r] + count[r]``, in column
    order, then one spare slot), and ``shape``, ``(M, D)``.

    With ``common_row``, the listing subtracts the rows' common row ``b`` from every row
    and lists the nonzero entries of ``x - b``: ``b[j]`` is the one nonzero value of a
    column whose nonzero entries all share it and which more than half the rows hold, and
    0 elsewhere (Exit Now's map planes, an option's one-hot: most rows of a rollout show
    the same walls). A row then lists the common columns it lacks (at ``-b[j]``) instead
    of those it holds. ``common_cols`` (K,) int64 and ``common_vals`` (K,) float32 give
    ``b`` (K is 0 without it, and where the common row would save under
    :data:`COMMON_MIN_SHARE` of the entries). ``b``'s part of the layer is the same for
    every row, so the caller adds it to the bias (``common_vals @ W.T[common_cols]``)
    and to the weight gradient (column ``j``: ``common_vals[j]`` times the output
    gradient's column sums) once a call instead of once a row.

    Args:
        x: (M, D) float32, C-contiguous, the observations.
        threads: the threads the listing runs on (the rows split between them).
        common_row: list the differences from the common row (above).

    Raises:
        ValueError: ``x`` is not a 2-D float32 array.
    """

    def __init__(self, x: np.ndarray, threads: int, common_row: bool = False):
        if x.ndim != 2 or x.dtype != np.float32:
            raise ValueError(f"observations must be (M, D) float32, not {x.shape} {x.dtype}")
        x = np.ascontiguousarray(x)
        self.shape = x.shape
        bounds = shards(x.shape[0], threads)
        self.count = np.empty(x.shape[0], np.int64)
        _count_rows(bounds, x, self.count)
        ends = np.cumsum(self.count + 1)
        self.start = ends - self.count - 1
        slots = int(ends[-1]) if len(ends) else 0
        self.cols, self.vals = np.empty(slots, np.int32), np.empty(slots, np.float32)
        _list_rows(bounds, x, x.view(np.uint32), self.start, self.cols, self.vals)
        self.common_cols = np.zeros(0, np.int64)
        self.common_vals = np.zeros(0, np.float32)
        if common_row and x.shape[0] > 0:
            self._list_differences(bounds)

    @classmethod
    def stacked(cls, parts: list[SparseRows], threads: int, common_row: bool = False) -> SparseRows:
        """The listing of the batches ``parts`` list, one under the other (the trainer's
        rollout: one listing a step, made for the step's inference), with the same
        ``start``, ``count`` and entries as listing the stacked observations anew, without
        reading them again. ``common_row`` as for a new listing.

        Raises:
            ValueError: no parts, parts of different widths, or a part listed with a
                common row.
        """
        if not parts:
            raise ValueError("stacked() needs at least one listing")
        widths = {p.shape[1] for p in parts}
        if len(widths) != 1:
            raise ValueError(f"listings of one width only, got widths {sorted(widths)}")
        if any(len(p.common_cols) for p in parts):
            raise ValueError("a listing with a common row cannot be stacked; list its rows without one")
        out = cls.__new__(cls)
        out.shape = (sum(p.shape[0] for p in parts), widths.pop())
        out.count = np.concatenate([p.count for p in parts])
        out.start = np.cumsum(out.count + 1) - out.count - 1
        # each part's slots are its rows' count + 1 slots in row order: the stacked layout
        out.cols = np.concatenate([p.cols for p in parts])
        out.vals = np.concatenate([p.vals for p in parts])
        out.common_cols = np.zeros(0, np.int64)
        out.common_vals = np.zeros(0, np.float32)
        if common_row and out.shape[0] > 0:
            out._list_differences(shards(out.shape[0], threads))
        return out

    def _list_differences(self, bounds: np.ndarray) -> None:
        """Choose the common row and list each row's differences from it
        (:class:`SparseRows`, ``common_row``)."""
        m, d = self.shape
        counts = np.zeros((len(bounds) - 1, d), np.int64)
        firsts = np.zeros((len(bounds) - 1, d), np.float32)
        differs = np.zeros((len(bounds) - 1, d), np.uint8)
        _column_counts(bounds, self.start, self.count, self.cols, self.vals, counts, firsts, differs)
        held = counts > 0
        value = np.where(held, firsts, -np.inf).max(0)  # a column's value (of the threads that saw it)
        total = counts.sum(0)
        one_value = (differs.max(0) == 0) & np.all(~held | (firsts == value), axis=0)
        common = one_value & (2 * total > m)
        saved = int((2 * total[common] - m).sum())
        if not common.any() or saved < COMMON_MIN_SHARE * int(self.count.sum()):
            return
        bcols = np.flatnonzero(common).astype(np.int64)
        bvals = value[bcols].astype(np.float32)
        held_rows = np.empty(m, np.int64)
        _common_counts(bounds, self.start, self.count, self.cols, common.astype(np.uint8), held_rows)
        new_count = self.count + len(bcols) - 2 * held_rows
        ends = np.cumsum(new_count + 1)
        new_start = ends - new_count - 1
        new_cols, new_vals = np.empty(int(ends[-1]), np.int32), np.empty(int(ends[-1]), np.float32)
        lists = (self.start, self.count, self.cols, self.vals)
        _difference_rows(bounds, *lists, bcols, bvals, new_start, new_count, new_cols, new_vals)
        self.start, self.count, self.cols, self.vals = new_start, new_count, new_cols, new_vals
        self.common_cols, self.common_vals = bcols, bvals

    def nonzeros(self, rows: np.ndarray) -> int:
        """The listed entries of ``rows`` ((N,) int64) together (the nonzero entries, or
        those of the differences from the common row)."""
        return int(self.count[rows].sum())


@kernel(fastmath={"contract"})
def _linear_rows(lo, hi, rows, start, count, cols, vals, wt, bias, out):
    """Output rows ``lo:hi`` of :func:`sparse_linear`: the listed weight rows summed four
    at a time, so each output float is loaded and stored once per four."""
    h = wt.shape[1]
    for i in range(lo, hi):
        r = rows[i]
        q = start[r]
        end = q + count[r]
        for t in range(h):
            out[i, t] = bias[t]
        while q + 4 <= end:
            j0, j1, j2, j3 = cols[q], cols[q + 1], cols[q + 2], cols[q + 3]
            v0, v1, v2, v3 = vals[q], vals[q + 1], vals[q + 2], vals[q + 3]
            for t in range(h):
                out[i, t] += (v0 * wt[j0, t] + v1 * wt[j1, t]) + (v2 * wt[j2, t] + v3 * wt[j3, t])
            q += 4
        for p in range(q, end):
            j = cols[p]
            v = vals[p]
            for t in range(h):
                out[i, t] += v * wt[j, t]


@kernel(parallel=True)
def sparse_linear(bounds, rows, start, count, cols, vals, wt, bias, out):
    """``out[i] = x[rows[i]] @ wt + bias`` over the row's listed nonzero entries (a
    :class:`SparseRows`' arrays); output rows ``bounds[k]:bounds[k + 1]`` on thread ``k``."""
    for k in prange(bounds.shape[0] - 1):
        _linear_rows(bounds[k], bounds[k + 1], rows, start, count, cols, vals, wt, bias, out)


@kernel(fastmath={"contract"})
def _weight_grad_cols(t0, t1, rows, start, count, cols, vals, g, block, gw):
    """Output columns ``t0:t1`` of :func:`sparse_weight_grad`, summed in ``block`` (D, at
    least ``t1 - t0``) float32, this thread's own scratch, then written transposed to rows
    ``t0:t1`` of ``gw``, in the order of ``gw``'s memory (row by row of a weight stored
    transposed, :attr:`~tabletop_core.train.model.Agent.sparse_input`). Threads that added
    into one shared array, each to its own columns, ran slower than one thread alone.
    ``g``'s columns are indexed unsigned, so the compiler knows no index wraps and
    vectorises the inner loop."""
    base = np.uint64(t0)
    w = t1 - t0
    d = block.shape[0]
    for j in range(d):
        for t in range(w):
            block[j, t] = 0.0
    for i in range(g.shape[0]):
        r = rows[i]
        for p in range(start[r], start[r] + count[r]):
            j = cols[p]
            v = vals[p]
            for t in range(w):
                block[j, t] += v * g[i, base + np.uint64(t)]
    if gw.strides[0] <= gw.strides[1]:  # gw stored transposed (the trainer's first layer)
        for j in range(d):
            for t in range(w):
                gw[t0 + t, j] = block[j, t]
    else:
        for t in range(w):
            for j in range(d):
                gw[t0 + t, j] = block[j, t]


@kernel(parallel=True)
def sparse_weight_grad(bounds, rows, start, count, cols, vals, g, blocks, gw):
    """``gw = g.T @ x[rows]``, the weight's gradient ((H, D) float32, a ``torch.nn.Linear``
    weight's shape, stored in either order: C, or F as the trainer's first layer), over
    the listed nonzero entries, the samples in order; output columns
    ``bounds[k]:bounds[k + 1]`` on thread ``k``, summed in ``blocks[k]`` (``blocks`` (T, D,
    W) float32 scratch, ``W`` at least the widest shard)."""
    for k in prange(bounds.shape[0] - 1):
        _weight_grad_cols(bounds[k], bounds[k + 1], rows, start, count, cols, vals, g, blocks[k], gw)
