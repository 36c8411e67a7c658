"""A trained policy as numpy weights, for bot matches (``--bots policy:FILE.npz``).

The format (written by ``examples/rl_sb3_maskable_ppo.py --export-npz``, read by
``examples/ray_rollouts.py`` too): ``W0, b0, W1, b1, ...`` of an MLP whose last layer
gives the action logits, an optional ``scale`` vector multiplied into the observation
first, an optional ``activation`` string, the hidden layers' nonlinearity: ``tanh``
(the default, for a file without one) or ``relu`` (see :data:`ACTIVATIONS`), and optional
action pieces: ``action_inputs`` ((k, 2) int: offset and size of each in the observation)
and ``action_gain`` ((k,) float), adding ``action_gain[j] * obs[offset_j + a]`` to the
logit of each action ``a < size_j`` (:class:`tabletop_core.train.model.Agent`). The policy
acts greedily over the legal actions.

A file written by ``tabletop train`` also records what it was made for, as a JSON string
``meta``: ``{"game", "options", "layout", "seats"}`` (``layout``: the observation layout's
:meth:`~tabletop_core.contract.encoders.ObservationLayout.digest`). :meth:`MLPPolicy.check_game`
refuses the policy for another game or another observation layout, so a later change
to an observation cannot silently break a trained policy.
"""

from __future__ import annotations

import dataclasses
import json
import os
import zipfile
from collections.abc import Sequence
from typing import Any, BinaryIO

import numpy as np

from tabletop_core.agents.forward import PackedMLP
from tabletop_core.contract.encoders import ObservationLayout, check_action_inputs
from tabletop_core.contract.options import as_options

__all__ = ["ACTIVATIONS", "MLPPolicy"]

ACTIVATIONS = ("tanh", "relu")
"""The hidden layers' nonlinearities a policy file may name (``activation``; ``tanh`` when
it names none)."""


class MLPPolicy:
    """An MLP policy: ``logits = W_L(... f(W_0 (obs * scale) + b_0) ...) + b_L``, ``f`` the
    activation (``tanh`` or ``relu``), plus the action pieces' term where the file has one
    (module docstring).

    Args:
        weights: ``{"W0": (D, H0), "b0": (H0,), ..., "scale": (D,)}`` float arrays, and
            optionally ``"activation"``: a string (or 0-d string array) in :data:`ACTIVATIONS`;
            ``"action_inputs"`` (k, 2) int and ``"action_gain"`` (k,) float, together.

    Raises:
        ValueError: missing or inconsistent layers, an activation not in
            :data:`ACTIVATIONS`, or action pieces that do not fit the observation, the
            actions or their gains.
    """

    def __init__(self, weights: dict[str, np.ndarray]):
        n = len([k for k in weights if k.startswith("W")])
        if n == 0 or any(f"W{k}" not in weights or f"b{k}" not in weights for k in range(n)):
            raise ValueError("policy weights need W0, b0, W1, b1, ... (an MLP)")
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
        act = np.asarray(weights.get("activation", "tanh"))
        self.activation = str(act.item()) if act.size == 1 else repr(act.tolist())
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"policy activation {self.activation!r} is not one of {', '.join(ACTIVATIONS)}")
        self.action_inputs, self.action_gain = _action_pieces(weights, self.obs_dim, self.num_actions)
        self.meta: dict[str, Any] | None = None
        if "meta" in weights:
            meta = weights["meta"]
            try:
                self.meta = json.loads(str(np.asarray(meta).item())) if not isinstance(meta, dict) else meta
            except (ValueError, TypeError) as exc:
                raise ValueError(f"policy 'meta' is not a JSON object ({exc})") from None
            _check_meta(self.meta)

    def save(self, path: str | BinaryIO) -> None:
        """Write the weights (and ``meta``, when set) as an ``.npz``, to a path or an open
        binary file."""
        out: dict[str, np.ndarray] = {}
        for k, (w, b) in enumerate(self.layers):
            out[f"W{k}"], out[f"b{k}"] = w, b
        if self.scale is not None:
            out["scale"] = self.scale
        if self.activation != "tanh":  # a file without one is read as tanh
            out["activation"] = np.array(self.activation)
        if self.action_inputs:
            out["action_inputs"] = np.array(self.action_inputs, np.int64)
            out["action_gain"] = self.action_gain
        if self.meta is not None:
            out["meta"] = np.array(json.dumps(self.meta, sort_keys=True))
        np.savez_compressed(path, **out)

    def check_game(self, game, options: Any, strict_options: bool = False) -> None:
        """Check the recorded ``meta`` against a game and its options (a policy without
        ``meta`` is only checked for its sizes, by :meth:`check`).

        Raises:
            ValueError: the policy was trained for another game, on another observation
                layout (names, shapes or scales changed since), or, with
                ``strict_options``, with other game options; the message names what the
                policy was made for.
        """
        opts = as_options(game.make_options, options)
        layout = game.observation_layout(opts)
        if self.meta is not None:
            made = self.meta.get("game")
            if made != game.name:
                raise ValueError(f"the policy was trained for {made!r}, not {game.name!r}")
            if strict_options:
                trained = self.meta.get("options", {})
                now = _as_dict(opts)
                # an option left to the game (None, e.g. Exhaust's player count from its
                # mode) matches its explicit value: the layout digest below still differs
                # where the two are different games
                if any(
                    v is not None and now.get(k) is not None and now.get(k) != v for k, v in trained.items()
                ):
                    asked = _shown(_as_dict(opts))
                    raise ValueError(
                        f"the policy was trained for {game.name} with {_shown(trained)}; asked for {asked}"
                    )
            if self.meta.get("layout") != layout.digest():
                shown = _shown(self.meta.get("options", {}))
                raise ValueError(
                    f"the policy was trained for {game.name} with {shown} on observation layout "
                    f"{self.meta.get('layout')}; {_shown(_as_dict(opts))} has layout {layout.digest()}: other options, or "
                    "the observation changed since the policy was trained (retrain it)"
                )
        self.check(layout.dim, game.num_actions, f"{game.name} with {_shown(_as_dict(opts))}")

    def with_added_pieces(self, layout, added: Sequence[str]) -> MLPPolicy:
        """This policy for ``layout``, when it was trained on ``layout`` without the
        pieces named in ``added`` (observation pieces added since, the others unchanged
        and in the same order): the first layer reads every old input from its new place
        and gives the added inputs zero weight, so the policy acts exactly as before on
        every observation. ``meta["layout"]``, where recorded, must be the digest of
        ``layout`` without those pieces, and becomes ``layout``'s.

        Args:
            layout: the :class:`~tabletop_core.contract.encoders.ObservationLayout` now.
            added: names of its pieces the policy was trained without.

        Returns:
            A new :class:`MLPPolicy` (this one is not changed).

        Raises:
            ValueError: a name that is no piece of ``layout``, nothing added, a first
                layer whose width is not that of the layout without the pieces, or a
                recorded layout that is not it (another change than these pieces).
        """

        added = list(added)
        unknown = [n for n in added if n not in layout.offset]
        if unknown or not added:
            raise ValueError(
                f"added pieces must be names of the observation's pieces ({', '.join(layout.offset)}), "
                f"got {added!r}"
            )
        old = ObservationLayout([p for p in layout.pieces if p.name not in added])
        if self.meta is not None and self.meta.get("layout") not in (None, old.digest()):
            raise ValueError(
                f"the policy was trained on observation layout {self.meta.get('layout')}, not on this "
                f"observation without {', '.join(added)} ({old.digest()}): the observation changed otherwise"
            )
        if self.obs_dim != old.dim:
            raise ValueError(
                f"the policy reads {self.obs_dim} inputs; the observation without {', '.join(added)} has {old.dim}"
            )
        keep = np.ones(layout.dim, bool)
        for name in added:
            keep[layout.offset[name] : layout.offset[name] + layout.size[name]] = False
        weights: dict[str, Any] = {}
        for k, (w, b) in enumerate(self.layers):
            weights[f"W{k}"], weights[f"b{k}"] = w, b
        w0 = np.zeros((layout.dim, self.layers[0][0].shape[1]), self.layers[0][0].dtype)
        w0[keep] = self.layers[0][0]
        weights["W0"] = w0
        if self.scale is not None:
            scale = np.ones(layout.dim, self.scale.dtype)
            scale[keep] = self.scale
            weights["scale"] = scale
        if self.action_inputs:  # each piece's entries move with the others
            place = np.flatnonzero(keep)
            weights["action_inputs"] = np.array([(place[o], n) for o, n in self.action_inputs], np.int64)
            weights["action_gain"] = self.action_gain
        if self.meta is not None:
            weights["meta"] = {**self.meta, "layout": layout.digest()}
        return MLPPolicy(weights)

    @classmethod
    def load(cls, path: str) -> MLPPolicy:
        """Load an ``.npz`` of weights.

        Raises:
            ValueError: the file is missing or not such a policy.
        """
        if not os.path.exists(path):
            raise ValueError(f"policy file {path!r} does not exist")
        if os.path.isdir(path):
            raise ValueError(f"policy file {path!r} is a folder, not an .npz of weights")
        with open(path, "rb") as f:
            head = f.read(6)
        if head[:4] != b"PK\x03\x04":  # every .npz is a zip archive; a lone .npy starts \x93NUMPY
            what = "one NumPy array (.npy)" if head == b"\x93NUMPY" else "not a NumPy .npz archive"
            raise ValueError(
                f"policy file {path!r} is {what}; a policy is an .npz of weights W0, b0, W1, b1, ... "
                "as written by tabletop train or MLPPolicy.save"
            )
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

    def packed(self) -> PackedMLP:
        """The network in the layout the compiled code reads (kept until the weights
        change): what :meth:`__call__` runs, and what the search asks inside its rollouts
        (:attr:`PackedMLP.args <tabletop_core.agents.forward.PackedMLP.args>`)."""
        key = (
            tuple(id(a) for layer in self.layers for a in layer),
            id(self.scale),
            self.activation,
            tuple(self.action_inputs),
            id(self.action_gain),
        )
        if getattr(self, "_packed_key", None) != key:
            self._packed = PackedMLP(
                self.layers, self.scale, self.activation == "relu", self.action_inputs, self.action_gain
            )
            self._packed_key = key
        return self._packed

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Greedy legal actions for observations (B, D) and masks (B, A): (B,) int64 (the
        first of equal logits; 0 for a row with no legal action). One compiled pass over
        the rows (:func:`~tabletop_core.kernel.mlp.greedy_actions`): a row's action
        does not depend on the other rows of the batch."""
        return self.packed()(obs, mask)


def _action_pieces(weights: dict[str, Any], obs_dim: int, num_actions: int):
    """``(((offset, size), ...), gains (k,) float32)`` from a policy's weights (empty
    without action pieces; :class:`MLPPolicy`'s Raises)."""
    if "action_inputs" not in weights and "action_gain" not in weights:
        return (), np.zeros(0, np.float32)
    try:
        raw = np.asarray(weights["action_inputs"])
        if raw.dtype.kind not in "iu":
            raise ValueError(f"action_inputs holds {raw.dtype} values, not integers")
        inputs = raw.astype(np.int64).reshape(-1, 2)
        gain = np.asarray(weights["action_gain"], np.float32).reshape(-1)
    except (KeyError, ValueError, TypeError) as exc:
        raise ValueError(
            f"policy action pieces need action_inputs (k, 2) and action_gain (k,) ({exc})"
        ) from None
    if len(gain) != len(inputs):
        raise ValueError(f"policy has {len(inputs)} action pieces and {len(gain)} gains")
    return check_action_inputs(inputs, obs_dim, num_actions), gain


def _shown(options: dict[str, Any]) -> str:
    """Game options as a person writes them: ``num_players=4, rounds=8`` (options left to
    the game, None, are left out)."""
    return ", ".join(f"{k}={v}" for k, v in sorted(options.items()) if v is not None) or "the default options"


def _as_dict(options: Any) -> dict[str, Any]:

    return dataclasses.asdict(options) if dataclasses.is_dataclass(options) else dict(options)


def _check_meta(meta: Any) -> None:
    """Raise ValueError unless ``meta`` is ``{"game": str, "options": {str: value},
    "layout": str, "seats": [[int, ...], ...]}`` (each key optional)."""
    if not isinstance(meta, dict):
        raise ValueError("policy 'meta' is not a JSON object")
    kinds = {"game": str, "options": dict, "layout": str, "seats": list}
    for key, kind in kinds.items():
        if key in meta and not isinstance(meta[key], kind):
            raise ValueError(f"policy meta {key!r} must be a {kind.__name__}, got {type(meta[key]).__name__}")
    seats = meta.get("seats", [])
    if not all(isinstance(g, list) and all(isinstance(k, int) and k >= 0 for k in g) for g in seats):
        raise ValueError("policy meta 'seats' must be lists of seat indices, e.g. [[0, 1, 2], [3]]")
