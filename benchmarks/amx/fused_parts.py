"""Where a minibatch of the fused bfloat16 update goes (``tabletop_core.train.fused``): the
wall time of each part, per minibatch, in each of a few updates of ``tabletop train
thegame --players 2`` at a minibatch, after two warm-up rollouts. One JSON line per update
(a drift from update to update shows there).

    python benchmarks/amx/fused_parts.py [MINIBATCH] [UPDATES]     # 1024 3

Parts: ``rows`` (the minibatch's row ids), ``forward`` (the gather and the layers' products
with their activations), ``legal_head`` (the legal logits and values, with the action
pieces' term), ``gain_grads`` (the action pieces' gains' gradient), ``loss`` (the
compiled loss and its gradient), ``scatter`` (the head's output gradient), ``weight_grads``
(the weight-gradient products), ``bias_grads`` (the compiled column sums), ``backward_rest``
(the input-gradient products and the activations' gradients), ``adam`` (the compiled
clipping and Adam step), ``read_once`` (the action pieces' entries, once per update),
``gradients_rest``, ``step_rest`` and ``loop_rest`` (what the gradients, the step and the
update's loop spend outside those parts). Two torch threads;
the ``products_gflops`` figure is the layers' FLOPs over the time of the parts that run
products (forward, weight gradients, the rest of the backward pass).
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict

import torch

from tabletop_core.train import adam, fused, model
from tabletop_core.train import trainer as trainer_mod
from tabletop_core.train.config import TrainConfig
from tabletop_core.train.trainer import Trainer

SECONDS: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)


def timed(name, fn):
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            SECONDS[name] += time.perf_counter() - t0
            CALLS[name] += 1

    return wrapper


def main() -> None:
    mb = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    updates = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    cfg = TrainConfig(game="thegame", steps=10**12, progress=False, threads=2, minibatch=mb)
    tr = Trainer(cfg)
    torch.set_num_threads(2)
    for _ in range(2):
        tr.collect()
        tr.update(cfg.lr)
    fused.minibatch_loss_grad = timed("loss", fused.minibatch_loss_grad)
    fused.scatter_head_grad = timed("scatter", fused.scatter_head_grad)
    fused.column_sums = timed("bias_grads", fused.column_sums)
    fused.legal_head = timed("legal_head", fused.legal_head)
    fused.gain_grads = timed("gain_grads", fused.gain_grads)
    model._weight_grad = timed("weight_grads", model._weight_grad)
    fused.FusedStep._forward = timed("forward", fused.FusedStep._forward)
    fused.FusedStep._backward = timed("backward", fused.FusedStep._backward)
    fused.FusedStep.step = timed("step", fused.FusedStep.step)
    fused.FusedStep.gradients = timed("gradients", fused.FusedStep.gradients)
    Trainer._read_once = timed("read_once", Trainer._read_once)
    adam.AdamArrays.step = timed("adam", adam.AdamArrays.step)
    trainer_mod._Batch.rows = timed("rows", trainer_mod._Batch.rows)
    for u in range(updates):
        SECONDS.clear()
        CALLS.clear()
        tr.collect()
        t0 = time.perf_counter()
        tr.update(cfg.lr)
        print(json.dumps({"update": u, **record(tr, mb, time.perf_counter() - t0)}), flush=True)


def record(tr: Trainer, mb: int, update_s: float) -> dict:
    """One update's line: each part's milliseconds per minibatch (module docstring)."""
    n = CALLS["step"]
    per = {k: SECONDS[k] / n * 1e3 for k in SECONDS}
    parts = {
        "rows": per.get("rows", 0.0),
        "forward": per["forward"],
        "legal_head": per["legal_head"],
        "gain_grads": per.get("gain_grads", 0.0),
        "loss": per["loss"],
        "scatter": per["scatter"],
        "weight_grads": per["weight_grads"],
        "bias_grads": per["bias_grads"],
        "backward_rest": per["backward"] - per["scatter"] - per["weight_grads"] - per["bias_grads"],
        "adam": per["adam"],
        "read_once": per["read_once"],
    }
    parts["gradients_rest"] = per["gradients"] - sum(
        parts[k]
        for k in (
            "rows",
            "forward",
            "legal_head",
            "gain_grads",
            "loss",
            "scatter",
            "weight_grads",
            "bias_grads",
            "backward_rest",
        )
    )
    parts["step_rest"] = per["step"] - per["gradients"] - per["adam"]
    parts["loop_rest"] = update_s / n * 1e3 - per["step"] - per["read_once"]
    d, h, a = tr.obs_dim, tr.cfg.hidden, tr.num_actions
    dims = [d, *h, a + 1]
    fwd = sum(2 * mb * x * y for x, y in zip(dims[:-1], dims[1:]))
    bwd = 2 * fwd - 2 * mb * dims[0] * dims[1]  # no input gradient for the first layer
    prod_ms = parts["forward"] + parts["weight_grads"] + parts["backward_rest"]
    rec = {
        "bench": "fused_parts",
        "minibatch": mb,
        "minibatches": n,
        "dtype": "bfloat16" if tr.bf16 else "float32",
        "ms_per_minibatch": {k: round(v, 4) for k, v in parts.items()},
        "update_ms_per_minibatch": round(update_s / n * 1e3, 4),
        "products_gflops": round((fwd + bwd) / prod_ms / 1e6, 1),
        "update_gflops": round((fwd + bwd) / (update_s / n * 1e3) / 1e6, 1),
    }
    return rec


if __name__ == "__main__":
    main()
