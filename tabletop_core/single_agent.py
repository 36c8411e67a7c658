"""Deprecated alias of :mod:`tabletop_core.envs.single_agent`, kept for one release."""

import importlib
import sys
import warnings

warnings.warn(
    "tabletop_core.single_agent moved to tabletop_core.envs.single_agent; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = importlib.import_module("tabletop_core.envs.single_agent")
