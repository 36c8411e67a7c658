"""``tabletop train``: a masked-PPO trainer built with the vector envs (needs torch:
``pip install 'tabletop-rl[train]'``). See :mod:`tabletop_core.train.trainer`.

``TrainConfig`` and ``ConfigError`` import without torch; ``Trainer`` and ``train``
import it on first use.
"""

from __future__ import annotations

from .config import ConfigError, TrainConfig

__all__ = ["TrainConfig", "Trainer", "ConfigError", "train"]


def __getattr__(name: str):
    if name in ("Trainer", "train"):
        from . import trainer

        return getattr(trainer, name)
    raise AttributeError(name)
