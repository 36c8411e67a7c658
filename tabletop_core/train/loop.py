"""The run around the trainer: budget, evaluation, league snapshots, logs and outputs."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from typing import Any

import numpy as np
import torch

from tabletop_core.tools.jsonutil import json_default
from tabletop_core.train.evaluate import bot_levels, evaluate_policy, rate_entrants
from tabletop_core.train.trainer import Agent, ConfigError, TrainConfig, Trainer

__all__ = ["run"]


class _Log:
    """``log.jsonl``: one JSON object per line (``kind``: config, levels, update, eval, final)."""

    def __init__(self, path: str, append: bool):
        self.f = open(path, "a" if append else "w")  # noqa: SIM115 (closed by close())

    def write(self, kind: str, **rec: Any) -> None:
        self.f.write(json.dumps({"kind": kind, **rec}, default=json_default) + "\n")
        self.f.flush()

    def close(self) -> None:
        self.f.close()


def _bar(enabled: bool, total: float | None, unit: str):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(
        total=total,
        unit=unit,
        dynamic_ncols=True,
        file=sys.stderr,
        smoothing=0.1,
        bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}{postfix}]",
    )


def run(cfg: TrainConfig) -> dict:
    """Train as ``cfg`` says and write the run folder; returns the final summary.

    Raises:
        ValueError (ConfigError): a bad option, before anything runs.
    """
    os.makedirs(cfg.out, exist_ok=True)
    ck_path = os.path.join(cfg.out, "checkpoint.pt")
    if cfg.resume and not os.path.exists(ck_path):
        raise ConfigError(f"--resume: no checkpoint at {ck_path}")
    trainer = Trainer(cfg)
    if cfg.resume:
        trainer.load_checkpoint(torch.load(ck_path, weights_only=False))
    game = trainer.game
    log = _Log(os.path.join(cfg.out, "log.jsonl"), append=cfg.resume)
    log.write(
        "config",
        config=dataclasses.asdict(cfg),
        threads=trainer.threads,
        bf16=trainer.bf16,
        num_envs=trainer.num_envs,
        groups=[(type(g).__name__, g.hi - g.lo) for g in trainer.groups],
        mix=trainer.mix,
        flops_per_sample=trainer.flops_per_sample,
    )

    if cfg.imitate is not None and not cfg.resume:  # behaviour cloning warm start (in the budget)
        from tabletop_core.train.imitate import behaviour_cloning

        def saved(k: int) -> None:  # each round's actor, to compare them after
            trainer.save_policy(os.path.join(cfg.out, f"imitated-{k}.npz"))

        bc = behaviour_cloning(
            trainer.agent,
            game,
            cfg.options,
            cfg.imitate,
            cfg.imitate_samples,
            cfg.imitate_epochs,
            cfg.seed,
            bf16=trainer.bf16,
            log=log.write,
            rounds=cfg.imitate_rounds,
            seat_groups=trainer.seat_groups,
            clone_first=cfg.init_policy is None,
            on_round=saved if cfg.imitate_rounds else None,
        )
        trainer.train_seconds += bc["seconds"]
        trainer.save_policy(os.path.join(cfg.out, "imitated.npz"))  # the cloned actor, before PPO

    # the scripted bots' levels on the evaluation deals (once; the curve's reference lines)
    eval_bots = cfg.eval_bots.split(",") if cfg.eval_bots else list(game.bot_names)
    seats = trainer.seat_groups[0]
    levels = bot_levels(
        game, cfg.options, cfg.eval_games, cfg.eval_seed, cfg.eval_opponents, eval_bots, seats
    )
    log.write(
        "levels",
        games=cfg.eval_games,
        seed=cfg.eval_seed,
        levels={b: {k: v for k, v in d.items() if k != "returns"} for b, d in levels.items()},
    )

    budget_s = cfg.minutes * 60.0 if cfg.minutes is not None else None
    budget_steps = cfg.steps
    evals: list[dict] = []

    def evaluate(final: bool = False) -> dict:
        games = cfg.final_games if final else cfg.eval_games
        res, returns = evaluate_policy(
            game, trainer.policy(), cfg.options, games, cfg.eval_seed, cfg.eval_opponents, seats
        )
        rec = {"step": trainer.global_step, "seconds": trainer.train_seconds, "games": games, **res}
        evals.append(rec)
        log.write("eval", final=final, **rec)
        return rec

    def frac_done() -> float:
        fr = []
        if budget_s is not None:
            fr.append(trainer.train_seconds / budget_s)
        if budget_steps is not None:
            fr.append(trainer.global_step / budget_steps)
        return max(fr)

    bar = _bar(
        cfg.progress,
        float(budget_steps) if budget_steps and budget_s is None else budget_s,
        "step" if budget_steps and budget_s is None else "s",
    )
    last_eval = evaluate()
    next_eval = trainer.train_seconds + cfg.eval_every
    next_ck = trainer.train_seconds + cfg.checkpoint_every
    try:
        while frac_done() < 1.0:
            t0 = time.perf_counter()
            lr = cfg.lr * max(0.0, 1.0 - frac_done()) if cfg.anneal_lr else cfg.lr
            trainer.collect()
            stats = trainer.update(lr)
            dt = time.perf_counter() - t0
            trainer.train_seconds += dt
            trainer.snapshot_if_due()
            recent = float(np.mean(trainer.finished[-1000:])) if trainer.finished else float("nan")
            sps = trainer.num_envs * cfg.rollout / dt
            log.write(
                "update",
                update=trainer.update_idx,
                step=trainer.global_step,
                seconds=trainer.train_seconds,
                lr=lr,
                sps=sps,
                mean_return=recent,
                episodes=len(trainer.finished),
                **stats,
                time_split=dict(trainer.seconds),
                league={"pool": list(trainer.league.pool), "drawn": dict(trainer.league.drawn)},
            )
            if bar is not None:
                bar.n = round(
                    trainer.global_step if bar.unit == "step" else min(trainer.train_seconds, budget_s), 1
                )
                bar.set_postfix_str(
                    f"step {trainer.global_step:,} · {sps:,.0f} steps/s · return {recent:.1f} · "
                    f"eval {last_eval['mean']:.1f}",
                    refresh=True,
                )
            if trainer.train_seconds >= next_eval:
                last_eval = evaluate()
                next_eval = trainer.train_seconds + cfg.eval_every
            if trainer.train_seconds >= next_ck:
                torch.save(trainer.checkpoint(), ck_path)
                trainer.save_policy(os.path.join(cfg.out, "policy.npz"))
                next_ck = trainer.train_seconds + cfg.checkpoint_every
    except KeyboardInterrupt:
        print("interrupted: saving the checkpoint and policy", file=sys.stderr)
    finally:
        if bar is not None:
            bar.close()
    torch.save(trainer.checkpoint(), ck_path)
    trainer.save_policy(os.path.join(cfg.out, "policy.npz"))
    final = evaluate(final=True)

    # openskill: the last snapshots, the final policy and the bots on the same deals
    entrants: dict[str, np.ndarray] = {}
    snaps = sorted(trainer.league.snapshots.items())[-int(cfg.rate_snapshots) :] if cfg.rate_snapshots else []
    for _sid, (upd, sd) in snaps:
        m = Agent(trainer.obs_dim, trainer.num_actions, cfg.hidden)
        m.load_state_dict(sd)
        from tabletop_core.agents.policy import MLPPolicy

        _, entrants[f"snapshot@{upd}"] = evaluate_policy(
            game,
            MLPPolicy(m.policy_weights()),
            cfg.options,
            cfg.eval_games,
            cfg.eval_seed,
            cfg.eval_opponents,
            seats,
        )
    _, entrants["final"] = evaluate_policy(
        game, trainer.policy(), cfg.options, cfg.eval_games, cfg.eval_seed, cfg.eval_opponents, seats
    )
    for b, d in levels.items():
        entrants[b] = d["returns"]
    ratings = rate_entrants(entrants)
    total = sum(trainer.seconds.values())
    summary = {
        "game": game.name,
        "options": trainer.opts,
        "steps": trainer.global_step,
        "updates": trainer.update_idx,
        "train_seconds": trainer.train_seconds,
        "steps_per_s": trainer.global_step / max(trainer.train_seconds, 1e-9),
        "time_split": {k: v / total for k, v in trainer.seconds.items()} if total else {},
        "final_eval": final,
        "levels": {b: {k: v for k, v in d.items() if k != "returns"} for b, d in levels.items()},
        "ratings": ratings,
        "threads": trainer.threads,
        "bf16": trainer.bf16,
    }
    log.write("final", **summary)
    log.close()
    with open(os.path.join(cfg.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, default=json_default)
    try:
        from tabletop_core.train.plot import plot_curve

        plot_curve(os.path.join(cfg.out, "log.jsonl"), os.path.join(cfg.out, "curve.png"))
    except ImportError:
        print("matplotlib is missing: no curve.png (pip install 'tabletop-rl[train]')", file=sys.stderr)
    return summary


def train(cfg: TrainConfig) -> dict:
    """Run ``tabletop train`` with ``cfg`` (:func:`run`); returns the run's summary."""
    return run(cfg)
