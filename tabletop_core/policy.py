"""A trained policy as numpy weights, for bot matches (``--bots policy:FILE.npz``).

The format (written by ``examples/rl_sb3_maskable_ppo.py --export-npz``, read by
``examples/ray_rollouts.py`` too): ``W0, b0, W1, b1, ...`` of a tanh MLP whose last layer
gives the action logits, and an optional ``scale`` vector multiplied into the
observation first. The policy acts greedily over the legal actions.
"""

from __future__ import annotations

import os
import zipfile

import numpy as np

__all__ = ["MLPPolicy"]


class MLPPolicy:
    """A tanh MLP policy: ``logits = W_L(... tanh(W_0 (obs * scale) + b_0) ...) + b_L``.

    Args:
        weights: ``{"W0": (D, H0), "b0": (H0,), ..., "scale": (D,)}`` float arrays.

    Raises:
        ValueError: missing or inconsistent layers.
    """

    def __init__(self, weights: dict[str, np.ndarray]):
        n = len([k for k in weights if k.startswith("W")])
        if n == 0 or any(f"W{k}" not in weights or f"b{k}" not in weights for k in range(n)):
            raise ValueError("policy weights need W0, b0, W1, b1, ... (a tanh MLP)")
        self.layers = [
            (np.asarray(weights[f"W{k}"], np.float32), np.asarray(weights[f"b{k}"], np.float32))
            for k in range(n)
        ]
        for k in range(1, n):
            if self.layers[k][0].shape[0] != self.layers[k - 1][0].shape[1]:
                raise ValueError(f"policy layer W{k} does not fit the output of W{k - 1}")
        self.obs_dim = self.layers[0][0].shape[0]
        self.num_actions = self.layers[-1][0].shape[1]
        self.scale = np.asarray(weights["scale"], np.float32) if "scale" in weights else None

    @classmethod
    def load(cls, path: str) -> MLPPolicy:
        """Load an ``.npz`` of weights.

        Raises:
            ValueError: the file is missing or not such a policy.
        """
        if not os.path.exists(path):
            raise ValueError(f"policy file {path!r} does not exist")
        try:
            loaded = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"policy file {path!r} is not a readable .npz of weights ({exc})") from None
        if not isinstance(loaded, np.lib.npyio.NpzFile):
            raise ValueError(f"policy file {path!r} holds one array, not an .npz of weights W0, b0, ...")
        try:
            with loaded as f:
                weights = {k: f[k] for k in f.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"policy file {path!r} is damaged ({exc})") from None
        bad = [k for k, v in weights.items() if v.dtype.kind in "fc" and not np.isfinite(v).all()]
        if bad:
            raise ValueError(f"policy file {path!r} has non-finite values in {', '.join(sorted(bad))}")
        return cls(weights)

    def check(self, obs_dim: int, num_actions: int, what: str) -> None:
        """Raise ValueError if the policy was made for other observation/action sizes."""
        if (self.obs_dim, self.num_actions) != (obs_dim, num_actions):
            raise ValueError(
                f"the policy maps {self.obs_dim} observations to {self.num_actions} actions; "
                f"{what} has {obs_dim} and {num_actions} (another game or other options?)"
            )

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Greedy legal actions for observations (B, D) and masks (B, A): (B,) int64."""
        x = obs * self.scale if self.scale is not None else obs
        for k, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if k < len(self.layers) - 1:
                x = np.tanh(x)
        return np.where(mask != 0, x, -np.inf).argmax(axis=1).astype(np.int64)
