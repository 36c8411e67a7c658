"""Deprecated alias of :mod:`tabletop_core.agents.policy`, kept for one release."""

import importlib
import sys
import warnings

warnings.warn(
    "tabletop_core.policy moved to tabletop_core.agents.policy; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = importlib.import_module("tabletop_core.agents.policy")
