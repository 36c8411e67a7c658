"""``tabletop train``: a masked-PPO trainer built with the vector envs (needs torch:
``pip install 'tabletop-rl[train]'``). See :mod:`tabletop_core.train.trainer`.

``TrainConfig`` and ``ConfigError`` import without torch; ``Trainer`` and ``train``
import it on first use.
"""

from __future__ import annotations

# Imported before torch on purpose: the vector env module sets GOMP_SPINCOUNT=2000 (unless
# OMP_WAIT_POLICY or GOMP_SPINCOUNT is set), so the idle OpenMP threads of numba and of
# torch (both GNU OpenMP here) spin briefly and then sleep instead of holding the cores.
from tabletop_core.envs import vector  # noqa: F401
from tabletop_core.train.config import ConfigError, TrainConfig

__all__ = ["TrainConfig", "Trainer", "ConfigError", "train"]


def __getattr__(name: str):
    if name == "Trainer":
        from tabletop_core.train.trainer import Trainer

        return Trainer
    if name == "train":
        from tabletop_core.train.loop import train

        return train
    raise AttributeError(name)
