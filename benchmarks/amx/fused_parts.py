"""Where a minibatch of the fused bfloat16 update goes (``tabletop_core.train.fused``): the
wall time of each part, per minibatch, in each of a few updates of ``tabletop train
thegame --players 2`` at a minibatch, after two warm-up rollouts. One JSON line per update
(a drift from update to update shows there).

    python benchmarks/amx/fused_parts.py [MINIBATCH] [UPDATES]     # 1024 3
    python benchmarks/amx/fused_parts.py 1024 8 --plain --matmul-first

``--plain`` leaves the parts untimed (each update's time alone), ``--matmul-first``
measures torch's matmul for a second before the warm-up, as ``benchmarks/train.py``
does, ``--warmup`` sets the warm-up updates, and ``--bench-loop SECONDS`` times each
update of ``benchmarks/train.py``'s own measurement instead: on an AMX VM the update ran at ~380
GFLOP/s here and at ~265 inside ``benchmarks/train.py``'s window (``docs/training.md``,
"On a CPU with AMX"), and these tell the harness's differences apart.

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

import argparse
import json
import time
from collections import defaultdict

import torch

from tabletop_core.tools.scripts import run_script
from tabletop_core.train import adam, fused, model
from tabletop_core.train import trainer as trainer_mod
from tabletop_core.train.bench import iter_train_bench, matmul_gflops
from tabletop_core.train.config import ConfigError, TrainConfig
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
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("minibatch", nargs="?", type=int, default=1024, help="the PPO minibatch (1024)")
    p.add_argument("updates", nargs="?", type=int, default=3, help="timed updates, a line each (3)")
    p.add_argument("--warmup", type=int, default=2, help="updates before the timed ones (2)")
    p.add_argument(
        "--matmul-first",
        action="store_true",
        help="measure torch's matmul on the network's shapes for a second first, as benchmarks/train.py does",
    )
    p.add_argument("--plain", action="store_true", help="no part timers: each update's time alone")
    p.add_argument(
        "--bench-loop",
        type=float,
        metavar="SECONDS",
        help="run benchmarks/train.py's own measurement (iter_train_bench) for SECONDS instead, "
        "with a line per update it makes, then its train record",
    )
    args = p.parse_args()
    if args.updates < 1 or args.warmup < 0:
        p.error(f"UPDATES must be at least 1 and --warmup at least 0, got {args.updates} and {args.warmup}")
    try:
        _run(args)
    except ConfigError as exc:  # a bad minibatch or --bench-loop: named, no traceback
        p.error(str(exc))


def _run(args: argparse.Namespace) -> None:
    """The measurement ``args`` asks for (:func:`main`)."""
    mb = args.minibatch
    if args.bench_loop is not None:
        _bench_loop(mb, args.bench_loop)
        return
    cfg = TrainConfig(game="thegame", steps=10**12, progress=False, threads=2, minibatch=mb)
    tr = Trainer(cfg)
    if not args.plain and not isinstance(tr.cpu_step, fused.FusedStep):
        raise ConfigError(
            "this CPU runs the float32 update (no oneDNN bfloat16 linear): the part timers are the "
            "fused bfloat16 path's; --plain times whole updates"
        )
    if args.matmul_first:
        h, a = cfg.hidden, tr.num_actions
        shapes = [(mb, tr.obs_dim, h[0])] + [(mb, x, y) for x, y in zip(h[:-1], h[1:])] + [(mb, h[-1], a + 1)]
        matmul_gflops(shapes, "bfloat16" if tr.bf16 else "float32", 2)
    torch.set_num_threads(2)
    for _ in range(args.warmup):
        tr.collect()
        tr.update(cfg.lr)
    if not args.plain:
        _wrap_parts()
    for u in range(args.updates):
        SECONDS.clear()
        CALLS.clear()
        tr.collect()
        t0 = time.perf_counter()
        samples = tr.update(cfg.lr)["samples"]
        update_s = time.perf_counter() - t0
        n = cfg.epochs * (samples // mb)
        line = _totals(tr, mb, n, update_s) if args.plain else record(tr, mb, update_s)
        print(
            json.dumps({"update": u, "plain": args.plain, "matmul_first": args.matmul_first, **line}),
            flush=True,
        )


def _bench_loop(mb: int, seconds: float) -> None:
    """``iter_train_bench`` as ``benchmarks/train.py`` runs it (2 threads, no MaskablePPO),
    each of its updates timed from outside (``Trainer.update``, plumbing included)."""
    original = Trainer.update
    lines: list[dict] = []

    def update(self: Trainer, lr: float | None = None) -> dict:
        t0 = time.perf_counter()
        out = original(self, lr)
        n = self.cfg.epochs * (out["samples"] // mb)
        lines.append(
            {"update": len(lines), "bench_loop": True, **_totals(self, mb, n, time.perf_counter() - t0)}
        )
        return out

    Trainer.update = update
    records = list(iter_train_bench("thegame", seconds=seconds, sb3=False, threads=2, minibatch=mb))
    for line in lines:  # the first is iter_train_bench's warm-up
        print(json.dumps(line), flush=True)
    train = records[1]
    print(json.dumps({"bench_loop": True, **{k: train[k] for k in ("steps_per_s", "update_gflops", "mfu")}}))


def _wrap_parts() -> None:
    """Put a timer around each part (module docstring)."""
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


def _flops(tr: Trainer, mb: int) -> float:
    """The layers' FLOPs of one minibatch, forward and backward."""
    dims = [tr.obs_dim, *tr.cfg.hidden, tr.num_actions + 1]
    fwd = sum(2 * mb * x * y for x, y in zip(dims[:-1], dims[1:]))
    return fwd + 2 * fwd - 2 * mb * dims[0] * dims[1]  # no input gradient for the first layer


def _totals(tr: Trainer, mb: int, n: int, update_s: float) -> dict:
    """An update's line without the parts: its time per minibatch and its GFLOP/s."""
    ms = update_s / n * 1e3
    return {
        "bench": "fused_parts",
        "minibatch": mb,
        "minibatches": n,
        "dtype": "bfloat16" if tr.bf16 else "float32",
        "update_ms_per_minibatch": round(ms, 4),
        "update_gflops": round(_flops(tr, mb) / ms / 1e6, 1),
    }


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
    prod_ms = parts["forward"] + parts["weight_grads"] + parts["backward_rest"]
    rec = _totals(tr, mb, n, update_s)
    rec["ms_per_minibatch"] = {k: round(v, 4) for k, v in parts.items()}
    rec["products_gflops"] = round(_flops(tr, mb) / prod_ms / 1e6, 1)
    return rec


if __name__ == "__main__":
    run_script(main)
