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
Always 2 torch threads, no MaskablePPO. The weight-gradient variants only change the
fused bfloat16 path (a CPU with AVX512-BF16 or AMX); elsewhere they run the base code.
"""

from __future__ import annotations

import dataclasses
import json
import sys

import torch

import tabletop_core.train.bench as bench
import tabletop_core.train.model as model

VARIANTS = ("base", "relu", "xTg", "gTc")
_BF16 = torch.bfloat16


def weight_grad(variant: str, g: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    if variant == "xTg":
        return (x.t() @ g).t()
    if variant == "gTc":
        return g.t().contiguous() @ x
    return g.t() @ x


def patch_weight_grads(variant: str) -> None:
    """Replace the fused path's two backward passes with ones that differ only in the
    weight-gradient product's layout."""

    def linear_act_backward(ctx, grad_y):
        xb, wb, y = ctx.saved_tensors
        if ctx.act == "tanh":
            g = torch.ops.aten.tanh_backward(grad_y.to(_BF16), y)
        else:
            g = torch.ops.aten.threshold_backward(grad_y.to(_BF16), y, 0)
        grad_x = g @ wb if ctx.needs_input_grad[0] else None
        return grad_x, weight_grad(variant, g, xb).float(), g.sum(0).float(), None

    def legal_head_backward(ctx, grad_logits, grad_value):
        zb, wb, index = ctx.saved_tensors
        gb, zeros = ctx.scratch
        grad_bias = torch.empty(gb.shape[1])
        model.scatter_head_grad(
            grad_logits.contiguous().numpy(),
            index.numpy(),
            grad_value.contiguous().numpy(),
            gb.view(torch.int16).numpy(),
            grad_bias.numpy(),
            zeros,
        )
        grad_z = gb @ wb if ctx.needs_input_grad[0] else None
        return grad_z, weight_grad(variant, gb, zb).float(), grad_bias, None, None

    model._LinearAct.backward = staticmethod(linear_act_backward)
    model._LegalHead.backward = staticmethod(legal_head_backward)


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in VARIANTS:
        raise SystemExit(f"usage: train_variant.py {{{','.join(VARIANTS)}}} [SECONDS] [MINIBATCH]")
    variant = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 25.0
    minibatch = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] != "-" else None
    if variant == "relu":
        config = bench.TrainConfig
        bench.TrainConfig = lambda **kw: dataclasses.replace(config(**kw), activation="relu")
    elif variant in ("xTg", "gTc"):
        patch_weight_grads(variant)
    for rec in bench.run_train_bench("thegame", seconds=seconds, sb3=False, threads=2, minibatch=minibatch):
        print(json.dumps({"variant": variant, **rec}), flush=True)


if __name__ == "__main__":
    main()
