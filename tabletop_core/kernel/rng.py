"""Per-env random generator kept inside the state arrays.

Every env of a batch owns one 64-bit word of generator state (``uint64``), stored in
its State (field ``rng``). The generator is SplitMix64 (Steele, Lea & Flood 2014): one
word of state, a full 2**64 period, passes BigCrush, and is trivially batchable,
clonable (copy the word) and picklable. Kernels take the whole ``rng`` array plus the
env index so they can advance one env's stream in place.

Seeding: :func:`seed_word` maps any Python integer seed (or ``None``: fresh OS
entropy) to the initial word; env ``i`` of a vector env reset with seed ``s`` gets
seed ``s + i``, so it replays exactly the episode of an AEC env seeded with ``s + i``.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tabletop_core.kernel.bits import nonzero_bits, nth_set_bit, popcount, stack_u64
from tabletop_core.kernel.jit import kernel

__all__ = [
    "seed_word",
    "stream_seed",
    "stream_word",
    "stream_words",
    "STREAM_SALTS",
    "bot_seed_word",
    "check_seed",
    "SEED_LIMIT",
    "next_u64",
    "next_word",
    "randint",
    "randint_word",
    "shuffle_word",
    "random01",
    "shuffle_prefix",
    "sample_legal",
    "sample_legal_batch",
    "sample_legal_batch_threads",
]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_MASK64 = (1 << 64) - 1


class SeedError(TypeError, ValueError):
    """A seed that is neither ``None`` nor an integer (a ``ValueError``, as every bad input
    here, and a ``TypeError``, as Gymnasium's own seeding raises)."""


#: Seeds a user gives (``reset(seed=...)``, ``--seed``) lie in ``0 <= seed < SEED_LIMIT``:
#: the generator's state is one uint64 word, so a seed outside that range would only be
#: reduced modulo 2**64 (``-1`` would deal exactly as ``2**64 - 1``).
SEED_LIMIT = 1 << 64


def check_seed(seed, count: int = 1, what: str = "seed") -> None:
    """Refuse a seed a user gave that the generator cannot tell apart from another.

    Args:
        seed: the seed (``None`` passes: a fresh one is drawn).
        count: how many consecutive seeds ``seed, seed + 1, ...`` it stands for (the envs
            of a vector env, the games of a match): the last must be in range too.
        what: the name used in the message (``"--seed"``).

    Raises:
        SeedError: ``seed`` is not an integer, negative, or ``seed + count - 1 >= 2**64``.
    """
    if seed is None:
        return
    if isinstance(seed, (bool, float, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise SeedError(f"{what} must be an int or None, got {type(seed).__name__}: {seed!r}")
    seed = int(seed)
    if seed < 0:
        raise SeedError(f"{what} must be 0 or more (0 <= seed < 2**64), got {seed}")
    if seed + max(int(count), 1) - 1 >= SEED_LIMIT:
        span = "" if count <= 1 else f" (it seeds {count} deals: {what} .. {what} + {count - 1})"
        raise SeedError(f"{what} must be below 2**64 = {SEED_LIMIT}{span}, got {seed}")


def seed_word(seed: int | None) -> np.uint64:
    """Return the initial generator word for ``seed``.

    Args:
        seed: any integer (negative and > 64-bit values are reduced modulo 2**64: the
            seeds a user gives are checked first with :func:`check_seed`, which refuses
            them), or ``None`` for a seed drawn from OS entropy.

    Raises:
        SeedError: (a ``TypeError`` and a ``ValueError``) if ``seed`` is neither ``None``
            nor an integer.
    """
    if seed is None:
        seed = int(np.random.SeedSequence().entropy) & _MASK64
    if isinstance(seed, (bool, float)) or not isinstance(seed, (int, np.integer)):
        raise SeedError(f"seed must be an int or None, got {type(seed).__name__}: {seed!r}")
    # Mix the seed once so that consecutive seeds start far apart in the stream.
    z = (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return np.uint64(z ^ (z >> 31))


#: The side streams of a seed, by name: stream ``name`` of the seed ``s`` starts from
#: ``seed_word(s ^ STREAM_SALTS[name])``, so no two streams of one seed (nor a stream and
#: the deal generator, ``seed_word(s)``) start alike. ``bots``: the scripted and search bots
#: of an env or match game; ``sampler``: a vector env's compiled random-action sampler and
#: the trainer's masked sampler; ``resume``: the deals a resumed training run starts from;
#: ``teacher``: the deals a search teacher labels (one index per round and chunk).
STREAM_SALTS: dict[str, int] = {
    "bots": 0x0B0770B0770B,
    "sampler": 0x5A5A5A5A5A5A,
    "resume": 0x2E5E7D2E5E7D,
    "teacher": 0x7EAC7EAC7EAC,
}

#: The ``bots`` stream's salt (:data:`STREAM_SALTS`).
BOT_SEED_SALT = STREAM_SALTS["bots"]


def stream_seed(seed: int, stream: str, index: int = 0) -> int:
    """The integer seed of side stream ``stream`` of ``seed``, the ``index``-th of that
    stream: ``(seed ^ STREAM_SALTS[stream]) + index``, modulo 2**64. The one place where
    side streams are derived from a seed; every other derivation calls this.

    Raises:
        ValueError: ``stream`` is not a name of :data:`STREAM_SALTS`.
    """
    if stream not in STREAM_SALTS:
        raise ValueError(f"unknown random stream {stream!r}; streams: {', '.join(STREAM_SALTS)}")
    return ((int(seed) ^ STREAM_SALTS[stream]) + int(index)) & _MASK64


def stream_word(seed: int | None, stream: str) -> np.uint64:
    """The initial generator word of side stream ``stream`` of ``seed`` (``None``: from OS
    entropy): ``seed_word(stream_seed(seed, stream))``.

    Raises:
        ValueError: an unknown stream; SeedError: a seed that is neither None nor an int.
    """
    if seed is None:
        return seed_word(None)
    if isinstance(seed, (bool, float)) or not isinstance(seed, (int, np.integer)):
        raise SeedError(f"seed must be an int or None, got {type(seed).__name__}: {seed!r}")
    return seed_word(stream_seed(seed, stream))


def stream_words(seed: int, stream: str, count: int) -> np.ndarray:
    """``(count,)`` uint64: the ``stream`` words of the seeds ``seed .. seed + count - 1``
    (env or game ``i`` of a batch seeded ``seed`` is seeded ``seed + i``)."""
    return np.array([stream_word(int(seed) + i, stream) for i in range(int(count))], np.uint64)


def bot_seed_word(seed: int | None) -> np.uint64:
    """The initial word of the bots' generator of an env seeded ``seed`` (``None``: from
    OS entropy): the ``bots`` stream (:func:`stream_word`), apart from the deal generator.

    Raises:
        TypeError: if ``seed`` is neither ``None`` nor an integer.
    """
    return stream_word(seed, "bots")


@kernel(inline="always")
def next_word(w):
    """One SplitMix64 step on a generator word held in a local (a register).

    Returns ``(next word, 64 random bits)``. The word-based functions (``*_word``) are
    for kernels working on one env's record (``e = s[i]``; then ``e.rng = ...``): they
    draw exactly the numbers the array-based ones draw from ``rng[i]``."""
    w = np.uint64(w) + _GOLDEN
    z = w
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return w, z ^ (z >> _S31)


@kernel(inline="always")
def randint_word(w, n):
    """:func:`randint` on a word: ``(next word, uniform int64 in [0, n))``."""
    w, z = next_word(w)
    return w, np.int64(((z >> _S32) * np.uint64(n)) >> _S32)


@kernel
def shuffle_word(w, arr, n):
    """:func:`shuffle_prefix` on a word: shuffle ``arr[:n]`` in place, return the next word."""
    x = np.uint64(w)  # a new name: a loop-carried int64/uint64 mix would unify to float64
    for k in range(n - 1, 0, -1):
        x, j = randint_word(x, k + 1)
        tmp = arr[k]
        arr[k] = arr[j]
        arr[j] = tmp
    return x


@kernel
def next_u64(rng, i):
    """Advance env ``i``'s word in ``rng`` (uint64 array) and return 64 random bits."""
    w, z = next_word(rng[i])
    rng[i] = w
    return z


@kernel
def randint(rng, i, n):
    """Uniform integer in ``[0, n)`` from env ``i``'s stream (``n`` >= 1, int64 result).

    Uses Lemire's multiply-shift on the high 32 bits (bias < n / 2**32, negligible).
    """
    hi = next_u64(rng, i) >> _S32
    return np.int64((hi * np.uint64(n)) >> _S32)


@kernel
def random01(rng, i):
    """Uniform float64 in ``[0, 1)`` from env ``i``'s stream (53 random bits)."""
    return np.float64(next_u64(rng, i) >> _S11) * (1.0 / 9007199254740992.0)


@kernel
def shuffle_prefix(rng, i, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place with env ``i``'s stream."""
    for k in range(n - 1, 0, -1):
        j = randint(rng, i, k + 1)
        tmp = arr[k]
        arr[k] = arr[j]
        arr[j] = tmp


_KEPT_WORDS = 16  # sample_legal keeps the bit sets of a mask's first 1,024 entries


@kernel
def sample_legal(rng, i, mask):
    """Uniformly sample the index of a nonzero entry of ``mask`` (1-D, C-contiguous int8 /
    uint8 / bool) with stream ``i``: the ``k``-th nonzero entry for ``k = randint(count)``.

    Returns -1 when ``mask`` has no nonzero entry. The count reads 64 entries at a time
    as a bit set (:func:`tabletop_core.kernel.bits.nonzero_bits`, one vector compare),
    counts them with ``popcount`` and keeps the first 16 for the pick; the tail (``len %
    64`` entries) is the top of the 64 entries that end the mask (read one by one only in
    a mask shorter than 64).
    """
    n = mask.shape[0]
    full = n - n % 64
    tail = np.uint64(0)
    if full < n:
        if n >= 64:  # entries full..n-1 are the top n - full bits of the last 64
            tail = nonzero_bits(mask, n - 64, 64) >> np.uint64(64 - (n - full))
        else:
            for a in range(n):
                tail |= np.uint64(mask[a] != 0) << np.uint64(a)
    count = np.int64(popcount(tail))
    words = stack_u64(_KEPT_WORDS)  # the first blocks' bit sets, for the second pass
    for a in range(0, full, 64):
        w = nonzero_bits(mask, a, 64)
        if a < 64 * _KEPT_WORDS:
            words[a >> 6] = w
        count += popcount(w)
    if count == 0:
        return -1
    k = randint(rng, i, count)
    for a in range(0, full, 64):
        w = words[a >> 6] if a < 64 * _KEPT_WORDS else nonzero_bits(mask, a, 64)
        c = np.int64(popcount(w))
        if k < c:
            return a + nth_set_bit(w, k)
        k -= c
    return full + nth_set_bit(tail, k)


@kernel
def sample_legal_batch(rng, masks, out):
    """Sample one legal action per row of ``masks`` (B, A) into ``out`` (B,) int64.

    ``rng`` is a (B,) uint64 array of generator words, one per row (advanced in place).
    Rows without a legal action get -1. This is the compiled sampler that keeps Python
    rollout loops out of NumPy: ``O(B * A)`` in one call.
    """
    for i in range(masks.shape[0]):
        out[i] = sample_legal(rng, i, masks[i])
    return out


@kernel(parallel=True)
def sample_legal_batch_threads(bounds, rng, masks, out):
    """:func:`sample_legal_batch` on the shards of rows ``bounds[k]:bounds[k + 1]``
    (``bounds`` (T + 1,) int64, rising from 0 to B) at once, one shard per thread of
    numba's threading layer. The same draws as one call over the whole batch."""
    for k in prange(bounds.shape[0] - 1):
        lo = bounds[k]
        hi = bounds[k + 1]
        sample_legal_batch(rng[lo:hi], masks[lo:hi], out[lo:hi])
