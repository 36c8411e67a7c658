"""Deprecated alias of :mod:`tabletop_core.envs.aec`, kept for one release."""

import importlib
import sys
import warnings

warnings.warn(
    "tabletop_core.aec moved to tabletop_core.envs.aec; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = importlib.import_module("tabletop_core.envs.aec")
