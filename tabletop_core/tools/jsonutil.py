"""JSON output of figures that hold NumPy values (benchmarks, match results, training logs)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["json_default"]


def json_default(x: Any) -> Any:
    """``json.dumps(..., default=json_default)``: NumPy integers, floats and bools as Python
    numbers, arrays as lists, anything else as its ``str``."""
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)
