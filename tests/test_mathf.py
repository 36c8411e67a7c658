"""The vectorisable float32 elementary functions (``tabletop_core.kernel.mathf``) against
float64 numpy: the loss's exponential and the policy network's tanh."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.mathf import exp_nonpositive, tanh_into


def test_exp_nonpositive_is_float32_exp():
    @kernel
    def exps(x, out):
        for i in range(x.shape[0]):
            out[i] = exp_nonpositive(x[i])

    x = np.concatenate(
        [-np.geomspace(1e-9, 86.9, 20_000), np.linspace(-86.9, 0, 20_000), [0.0, -87.0, -90.0, -1e9]]
    ).astype(np.float32)
    got = np.empty_like(x)
    exps(x, got)
    ref = np.exp(x.astype(np.float64))
    live = x > -87.0
    assert np.all(np.abs(got[live] - ref[live]) <= 2e-7 * ref[live])
    assert np.all(got[~live] == 0.0)  # a padded logit (NEG) weighs exactly nothing


def _tanh(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    tanh_into(x, out)
    return out


def test_tanh_is_float32_tanh_over_every_magnitude():
    """Within 3e-7 of tanh, absolute and relative, from 1e-40 to 1e6 and across the
    switch to ``x`` at 4e-4 and the clamp at 7.9; odd; saturating at +-1 within 3e-7."""
    mags = np.concatenate([np.geomspace(1e-40, 1e6, 50_000), np.linspace(0, 20, 50_001), [4e-4, 7.9053111]])
    x = np.concatenate([mags, -mags]).astype(np.float32)
    got = _tanh(x)
    ref = np.tanh(x.astype(np.float64))
    err = np.abs(got - ref)
    assert err.max() <= 3e-7
    assert np.all(err <= 3e-7 * np.abs(ref) + 1e-45)
    n = mags.size
    assert np.array_equal(got[:n], -got[n:])
    assert np.all(np.abs(got) <= 1.0)


def test_tanh_of_special_values():
    got = _tanh(np.array([np.inf, -np.inf, np.nan, 0.0, -0.0], np.float32))
    assert abs(got[0] - 1.0) <= 3e-7 and abs(got[1] + 1.0) <= 3e-7
    assert np.isnan(got[2])
    assert got[3] == 0.0 and got[4] == 0.0 and np.signbit(got[4])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), min_size=1, max_size=300))
def test_tanh_matches_numpy_on_any_float32(values):
    x = np.array(values, np.float32)
    assert np.allclose(_tanh(x), np.tanh(x.astype(np.float64)), rtol=3e-7, atol=3e-7)
