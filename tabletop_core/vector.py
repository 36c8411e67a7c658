"""Deprecated alias of :mod:`tabletop_core.envs.vector`, kept for one release."""

import importlib
import sys
import warnings

warnings.warn(
    "tabletop_core.vector moved to tabletop_core.envs.vector; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = importlib.import_module("tabletop_core.envs.vector")
