"""float32 elementary functions that LLVM vectorises, for the network's hot loops.

numba compiles ``np.exp`` and ``np.tanh`` inside a kernel as a scalar library call per
element, which keeps a loop from vectorising; torch's and numpy's own float32 ``tanh`` on a
CPU without AVX-512 run several nanoseconds an element (``CHANGELOG.md``). These are
branch- and call-free polynomials:

* ``exp_nonpositive(x)``: ``exp(x)`` for ``x <= 0`` (the PPO loss's softmax terms);
* ``tanh_f32(x)``: ``tanh(x)`` (the policy network's hidden activation);
* ``tanh_into(x, out)``: ``out[i] = tanh_f32(x[i])`` over flat float32 arrays;
* ``tanh(x)``: the same for a numpy array of any shape (``np.tanh`` for other dtypes).
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.bits import f32_from_bits
from tabletop_core.kernel.jit import kernel

__all__ = ["exp_nonpositive", "tanh", "tanh_f32", "tanh_into"]

_LN2_HI = np.float32(0.693359375)
_LN2_LO = np.float32(-2.12194440e-4)
_ROUND = np.float32(12582912.0)  # 1.5 * 2**23: x + _ROUND - _ROUND rounds x to an integer
_LOWEST = np.float32(-87.0)
_TANH_CLAMP = np.float32(7.90531110763549805)
_TANH_TINY = np.float32(4e-4)


@kernel(inline="always")
def exp_nonpositive(x):
    """``exp(x)`` in float32 for ``x <= 0``, within 1e-7 relative error (Cephes' ``expf``
    polynomial on ``x - n ln 2``, times ``2**n`` built from its exponent bits); 0 below -87,
    where ``exp`` is under 1.7e-38 (a padded logit, ``NEG``, gives exactly 0). Branch- and
    call-free, so a loop of it vectorises."""
    xc = x if x > _LOWEST else _LOWEST
    nf = (xc * np.float32(1.44269504088896341) + _ROUND) - _ROUND
    f = xc - nf * _LN2_HI - nf * _LN2_LO
    p = np.float32(1.9875691500e-4)
    p = p * f + np.float32(1.3981999507e-3)
    p = p * f + np.float32(8.3334519073e-3)
    p = p * f + np.float32(4.1665795894e-2)
    p = p * f + np.float32(1.6666665459e-1)
    p = p * f + np.float32(5.0000001201e-1)
    p = p * f * f + f + np.float32(1.0)
    scale = f32_from_bits(np.uint32((np.int32(nf) + 127) << 23))
    return p * scale if x > _LOWEST else np.float32(0.0)


@kernel(inline="always")
def tanh_f32(x):
    """``tanh(x)`` in float32 within 3e-7 absolute and relative error: Eigen's rational
    approximation (an odd degree-13 polynomial over an even degree-6 one, on ``x`` clamped
    to ``[-7.905, 7.905]``, where it reaches ``1 - 2.4e-7``), and ``x`` itself for
    ``|x| < 4e-4``. NaN stays NaN. One division and no branch, so a loop of it vectorises."""
    xc = x if x < _TANH_CLAMP else _TANH_CLAMP
    xc = xc if xc > -_TANH_CLAMP else -_TANH_CLAMP
    z = xc * xc
    p = z * np.float32(-2.76076847742355e-16) + np.float32(2.00018790482477e-13)
    p = p * z + np.float32(-8.60467152213735e-11)
    p = p * z + np.float32(5.12229709037114e-08)
    p = p * z + np.float32(1.48572235717979e-05)
    p = p * z + np.float32(6.37261928875436e-04)
    p = p * z + np.float32(4.89352455891786e-03)
    q = z * np.float32(1.19825839466702e-06) + np.float32(1.18534705686654e-04)
    q = q * z + np.float32(2.26843463243900e-03)
    q = q * z + np.float32(4.89352518554385e-03)
    r = p * xc / q
    return r if abs(x) >= _TANH_TINY else x


@kernel(fastmath={"contract"})
def tanh_into(x, out):
    """``out[i] = tanh_f32(x[i])`` for flat (1-D, contiguous) float32 arrays of one length,
    ``out`` not overlapping ``x`` (an aliased pair runs a scalar loop, several times
    slower). One thread; multiply-adds fused (``contract``)."""
    for i in range(x.shape[0]):
        out[i] = tanh_f32(x[i])


def tanh(x: np.ndarray) -> np.ndarray:
    """``tanh(x)`` as a new array of ``x``'s shape: :func:`tanh_into` for a C-contiguous
    float32 array (the policy's activations), ``np.tanh`` otherwise. Within 3e-7 of the
    exact value (:func:`tanh_f32`)."""
    if x.dtype != np.float32 or not x.flags.c_contiguous:
        return np.tanh(x)
    out = np.empty_like(x)
    tanh_into(x.reshape(-1), out.reshape(-1))
    return out
