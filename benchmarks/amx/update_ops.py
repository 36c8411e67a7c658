"""The update's operations one at a time, on the network's shapes: one JSON line per
(rows, layer, operation), median milliseconds over 30 calls and GFLOP/s for the products.

    python benchmarks/amx/update_ops.py [THREADS]     # default 2

Runs in bfloat16 where oneDNN's fused bf16 linear works (AVX512-BF16 or AMX), else in
float32. Each weight-gradient layout ("dW ...") is also checked against float64
(``relerr``). What it answers: on a CPU with AMX, which products and elementwise passes of
an update minibatch run far from the matmul peak (``docs/training.md``, "On a CPU with
AMX").
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import torch

from tabletop_core.tools.scripts import run_script

LINEAR = torch.ops.mkldnn._linear_pointwise
LAYERS = ((214, 256), (256, 256), (256, 395))  # The Game, 2 players: obs, trunk, heads


def pick_dtype() -> torch.dtype:
    """bfloat16 where oneDNN runs its fused bf16 linear here, else float32."""
    try:
        one = torch.ones(2, 4, dtype=torch.bfloat16)
        LINEAR(one, torch.ones(3, 4, dtype=torch.bfloat16), None, "tanh", [], "")
        return torch.bfloat16
    except RuntimeError:
        return torch.float32


def median_ms(fn, reps: int = 30) -> float:
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def layer_ops(n: int, k: int, m: int, dt: torch.dtype) -> list[dict]:
    """The rows for one layer ``(n, k) -> (n, m)``."""
    x, g = torch.randn(n, k, dtype=dt), torch.randn(n, m, dtype=dt)
    w, b = torch.randn(m, k, dtype=dt) * 0.05, torch.randn(m, dtype=dt)
    flops = 2 * n * k * m
    ref = g.double().t() @ x.double()
    weight_grads = {
        "dW g.T @ x (the trainer's)": lambda: g.t() @ x,
        "dW g.T.contiguous() @ x": lambda: g.t().contiguous() @ x,
        "dW (x.T @ g).T": lambda: (x.t() @ g).t(),
        "dW oneDNN linear on transposed copies": lambda: LINEAR(
            g.t().contiguous(), x.t().contiguous(), None, "none", [], ""
        ),
    }
    products = {
        "forward, no epilogue": lambda: LINEAR(x, w, b, "none", [], ""),
        "forward, tanh epilogue": lambda: LINEAR(x, w, b, "tanh", [], ""),
        "forward, relu epilogue": lambda: LINEAR(x, w, b, "relu", [], ""),
        "x @ w.T": lambda: x @ w.t(),
        "dX g @ w": lambda: g @ w,
    }
    elementwise = {
        "tanh_backward": lambda: torch.ops.aten.tanh_backward(g, g),
        "relu backward": lambda: torch.ops.aten.threshold_backward(g, g, 0),
        "tanh": lambda: torch.tanh(g),
        "column sums (bias grad)": lambda: g.sum(0),
    }
    rows = []
    for name, fn in weight_grads.items():
        err = float((fn().double() - ref).norm() / ref.norm())
        ms = median_ms(fn)
        rows.append({"op": name, "ms": round(ms, 4), "gflops": round(flops / ms / 1e6, 1), "relerr": err})
    for name, fn in products.items():
        ms = median_ms(fn)
        rows.append({"op": name, "ms": round(ms, 4), "gflops": round(flops / ms / 1e6, 1)})
    for name, fn in elementwise.items():
        rows.append({"op": name, "ms": round(median_ms(fn), 4)})
    return [{"rows": n, "k": k, "m": m, **r} for r in rows]


def main() -> None:
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    torch.set_num_threads(threads)
    dt = pick_dtype()
    for n in (1024, 4096):
        for k, m in LAYERS:
            for row in layer_ops(n, k, m, dt):
                print(
                    json.dumps({"bench": "update_ops", "dtype": str(dt), "threads": threads, **row}),
                    flush=True,
                )


if __name__ == "__main__":
    run_script(main)
