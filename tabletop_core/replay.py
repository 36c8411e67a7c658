"""Deprecated alias of :mod:`tabletop_core.tools.replay`, kept for one release."""

import importlib
import sys
import warnings

warnings.warn(
    "tabletop_core.replay moved to tabletop_core.tools.replay; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = importlib.import_module("tabletop_core.tools.replay")
