"""torch.profiler's table (self CPU time, top 30 operations) over one rollout's update of
``tabletop train thegame --players 2`` at a minibatch, after two warm-up rollouts.

    python benchmarks/amx/profile_update.py MINIBATCH      # e.g. 1024

Two torch threads. The compiled loss and Adam passes are numba calls, not torch
operations: their time is in the update's wall time but not in the table.
"""

from __future__ import annotations

import sys

import torch
from torch.profiler import ProfilerActivity, profile

from tabletop_core.tools.scripts import run_script
from tabletop_core.train.config import TrainConfig
from tabletop_core.train.trainer import Trainer


def main() -> None:
    mb = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    cfg = TrainConfig(game="thegame", steps=10**12, progress=False, threads=2, minibatch=mb)
    trainer = Trainer(cfg)
    torch.set_num_threads(2)
    for _ in range(2):
        trainer.collect()
        trainer.update(cfg.lr)
    trainer.collect()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        trainer.update(cfg.lr)
    print(f"=== minibatch {mb}: the update of one rollout ({cfg.epochs} epochs)")
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=30, max_name_column_width=50))


if __name__ == "__main__":
    run_script(main)
