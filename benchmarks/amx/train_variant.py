"""``benchmarks/train.py``'s "matmul" and "train" lines with one candidate change patched in,
so a candidate is measured in the same run, on the same machine, as the code it would
replace. One JSON line per record, with a "variant" key.

    python benchmarks/amx/train_variant.py VARIANT [SECONDS] [MINIBATCH]

VARIANT:
    base   the trainer as it is
    relu   ``activation="relu"`` instead of tanh
    xTg    each weight gradient as ``(x.T @ g).T`` instead of ``g.T @ x``
    gTc    each weight gradient as ``g.T.contiguous() @ x``
SECONDS: the timed window (25); MINIBATCH: the PPO minibatch (the trainer's default).
Always 2 torch threads, no MaskablePPO. The weight-gradient variants replace
``tabletop_core.train.model._weight_grad``, which only the fused bfloat16 path calls (a CPU
with AVX512-BF16 or AMX); elsewhere they run the base code.
"""

from __future__ import annotations

import dataclasses
import json
import sys

import tabletop_core.train.bench as bench
import tabletop_core.train.model as model
from tabletop_core.tools.scripts import run_script


def _into(out, value):
    return value if out is None else out.copy_(value)


WEIGHT_GRADS = {
    "xTg": lambda g, x, out=None: _into(out, (x.t() @ g).t()),
    "gTc": lambda g, x, out=None: _into(out, g.t().contiguous() @ x),
}
VARIANTS = ("base", "relu", *WEIGHT_GRADS)


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in VARIANTS:
        raise SystemExit(f"usage: train_variant.py {{{','.join(VARIANTS)}}} [SECONDS] [MINIBATCH]")
    variant = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 25.0
    minibatch = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] != "-" else None
    if variant == "relu":
        config = bench.TrainConfig
        bench.TrainConfig = lambda **kw: dataclasses.replace(config(**kw), activation="relu")
    elif variant in WEIGHT_GRADS:
        model._weight_grad = WEIGHT_GRADS[variant]
    for rec in bench.iter_train_bench("thegame", seconds=seconds, sb3=False, threads=2, minibatch=minibatch):
        print(json.dumps({"variant": variant, **rec}), flush=True)


if __name__ == "__main__":
    run_script(main)
