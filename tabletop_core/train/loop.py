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

from tabletop_core.agents.policy import MLPPolicy
from tabletop_core.tools.jsonutil import json_default
from tabletop_core.tools.progress import ProgressBar
from tabletop_core.train.evaluate import bot_levels, evaluate_policy, measures_text, rate_entrants
from tabletop_core.train.imitate import behaviour_cloning, fit_actor
from tabletop_core.train.plot import plot_curve
from tabletop_core.train.teacher import collect_round, is_search_teacher, load_rounds, parse_teacher
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


def run(cfg: TrainConfig) -> dict:
    """Train as ``cfg`` says and write the run folder; returns the final summary.

    Raises:
        ValueError (ConfigError): a bad option, before anything runs.
    """
    trainer, log = _start(cfg)
    if is_search_teacher(cfg.imitate):  # expert iteration, resumable round by round (in the budget)
        _teach(cfg, trainer, log)
    elif cfg.imitate is not None and not cfg.resume:  # behaviour cloning warm start (in the budget)
        _imitate(cfg, trainer, log)
    seats = trainer.seat_groups[0]
    levels = _bot_levels(cfg, trainer, seats, log)
    evaluate = _Evaluator(cfg, trainer, seats, log)
    _train_to_budget(cfg, trainer, log, evaluate)
    _save(cfg, trainer)
    final = evaluate(final=True)
    ratings = _rate(cfg, trainer, levels, seats)
    summary = _summary(trainer, final, levels, ratings)
    log.write("final", **summary)
    log.close()
    _write_outputs(cfg, summary)
    return summary


def _checkpoint_path(cfg: TrainConfig) -> str:
    return os.path.join(cfg.out, "checkpoint.pt")


_CHECKPOINT_KEYS = ("game", "options", "config", "model", "optim")


def _read_checkpoint(path: str) -> dict:
    """The checkpoint at ``path`` (:meth:`Trainer.checkpoint`'s dict), read before the
    trainer is built.

    Raises:
        ConfigError: the file is not a checkpoint ``tabletop train`` wrote (truncated,
            another kind of file, or a dict without its entries).
    """
    try:
        ck = torch.load(path, weights_only=False)
    except Exception as exc:  # torch raises OSError, RuntimeError, pickle's errors, ...
        raise ConfigError(
            f"--resume: {path} is not a readable checkpoint ({type(exc).__name__}: {exc}); "
            "start a new run in another --out folder"
        ) from None
    missing = [k for k in _CHECKPOINT_KEYS if not isinstance(ck, dict) or k not in ck]
    if missing:
        raise ConfigError(
            f"--resume: {path} is not a tabletop train checkpoint (missing {', '.join(missing)})"
        )
    return ck


def _teacher_folder(cfg: TrainConfig) -> str:
    return os.path.join(cfg.out, "teacher")


def _start(cfg: TrainConfig) -> tuple[Trainer, _Log]:
    """Make the run folder and the trainer (from the checkpoint on ``--resume``; a search
    teacher's run stopped in its first round resumes from its chunks alone); open the log
    and write the run's configuration to it."""
    os.makedirs(cfg.out, exist_ok=True)
    ck_path = _checkpoint_path(cfg)
    first_round = is_search_teacher(cfg.imitate) and os.path.isdir(_teacher_folder(cfg))
    if cfg.resume and not os.path.exists(ck_path) and not first_round:
        raise ConfigError(f"--resume: no checkpoint at {ck_path}")
    ck = _read_checkpoint(ck_path) if cfg.resume and os.path.exists(ck_path) else None
    # no checkpoint yet (a teacher's first round): the trainer starts as a new run would,
    # from --init-policy where given
    trainer = Trainer(cfg if ck is not None or not cfg.resume else dataclasses.replace(cfg, resume=False))
    if ck is not None:
        trainer.load_checkpoint(ck)
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
    return trainer, log


def _imitate(cfg: TrainConfig, trainer: Trainer, log: _Log) -> None:
    """Behaviour cloning of ``cfg.imitate`` before PPO; its time counts in the budget."""

    def saved(k: int) -> None:  # each round's actor, to compare them after
        trainer.save_policy(os.path.join(cfg.out, f"imitated-{k}.npz"))

    bc = behaviour_cloning(
        trainer.agent,
        trainer.game,
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


def _teacher_opponents(cfg: TrainConfig, trainer: Trainer) -> list[str] | None:
    """The scripted bots of the seats a search teacher's learner does not hold: the first
    ``--opponents`` entry naming a scripted bot or a ``+`` lineup (a lineup fills, in seat
    order, the seats outside the first ``--seats`` group), else ``None``."""
    p = trainer.num_players
    for name, _ in trainer.mix:
        lineup = name.split("+")
        if not all(b in trainer.game.bot_names for b in lineup):
            continue
        if len(lineup) == 1:
            return lineup
        held = set(trainer.seat_groups[0])
        others = iter(lineup)
        return [lineup[0] if k in held else next(others) for k in range(p)]
    return None


def _teach(cfg: TrainConfig, trainer: Trainer, log: _Log) -> None:
    """Expert iteration from the search teacher ``cfg.imitate`` (:mod:`.teacher`):
    ``--imitate-rounds + 1`` rounds, each ``--imitate-samples`` labelled decisions and
    ``--imitate-epochs`` passes over every round's labels at ``--lr``. After each round its actor is
    ``imitated-K.npz`` and the checkpoint records the rounds done, so ``--resume`` goes on
    from the first unfinished round (and its chunks already written)."""
    teacher = parse_teacher(trainer.game, cfg.imitate)
    done = trainer.teacher_rounds
    folder = _teacher_folder(cfg)
    opponents = _teacher_opponents(cfg, trainer)
    for k in range(done, cfg.imitate_rounds + 1):
        t0 = time.perf_counter()
        actor = trainer.policy() if k > 0 or cfg.init_policy is not None else None
        try:
            agreement = collect_round(
                trainer.game,
                cfg.options,
                teacher,
                actor,
                k,
                cfg.imitate_samples,
                cfg.seed,
                trainer.seat_groups,
                folder,
                opponents=opponents,
                progress=cfg.progress,
            )
        except KeyboardInterrupt:
            print(
                f"\nstopped in round {k} of the search teacher; its labels so far are in {folder}: "
                "run the same command with --resume to go on from them",
                file=sys.stderr,
            )
            raise
        xs, ms, acts, targets = load_rounds(
            folder, k + 1, trainer.obs_dim, trainer.game.num_actions, teacher.target
        )
        fit = fit_actor(
            trainer.agent,
            xs,
            ms,
            acts,
            cfg.imitate_epochs,
            cfg.seed + k,
            lr=cfg.lr,
            bf16=trainer.bf16,
            targets=targets,
        )
        del xs, ms, acts, targets
        trainer.train_seconds += time.perf_counter() - t0
        log.write(
            "imitate" if k == 0 else "dagger",
            bot=teacher.name,
            round=k,
            samples=cfg.imitate_samples * (k + 1),
            agreement=agreement,
            seconds=trainer.train_seconds,
            **fit,
        )
        trainer.save_policy(os.path.join(cfg.out, f"imitated-{k}.npz"))
        trainer.teacher_rounds = k + 1
        _replace_whole(_checkpoint_path(cfg), lambda f: torch.save(trainer.checkpoint(), f))
    trainer.save_policy(os.path.join(cfg.out, "imitated.npz"))


def _bot_levels(cfg: TrainConfig, trainer: Trainer, seats, log: _Log) -> dict:
    """The scripted bots' levels on the evaluation deals (once; the curve's reference lines)."""
    game = trainer.game
    eval_bots = cfg.eval_bots.split(",") if cfg.eval_bots else None  # None: those that fit the seats
    levels = bot_levels(
        game, cfg.options, cfg.eval_games, cfg.eval_seed, cfg.eval_opponents, eval_bots, seats
    )
    log.write(
        "levels",
        games=cfg.eval_games,
        seed=cfg.eval_seed,
        levels=_without_returns(levels),
    )
    return levels


def _without_returns(levels: dict) -> dict:
    return {b: {k: v for k, v in d.items() if k != "returns"} for b, d in levels.items()}


class _Evaluator:
    """``evaluate(final=False)``: the current policy on the evaluation deals, logged."""

    def __init__(self, cfg: TrainConfig, trainer: Trainer, seats, log: _Log):
        self.cfg, self.trainer, self.seats, self.log = cfg, trainer, seats, log
        self.evals: list[dict] = []

    def __call__(self, final: bool = False) -> dict:
        cfg, trainer = self.cfg, self.trainer
        games = cfg.final_games if final else cfg.eval_games
        res, returns = evaluate_policy(
            trainer.game, trainer.policy(), cfg.options, games, cfg.eval_seed, cfg.eval_opponents, self.seats
        )
        rec = {"step": trainer.global_step, "seconds": trainer.train_seconds, "games": games, **res}
        self.evals.append(rec)
        self.log.write("eval", final=final, **rec)
        return rec


@dataclasses.dataclass
class _Budget:
    """The run's budget: minutes of training, steps, or both (whichever ends first)."""

    seconds: float | None
    steps: int | None

    @classmethod
    def of(cls, cfg: TrainConfig) -> _Budget:
        return cls(cfg.minutes * 60.0 if cfg.minutes is not None else None, cfg.steps)

    @property
    def in_steps(self) -> bool:
        """The progress bar counts steps (a step budget alone), else seconds."""
        return bool(self.steps) and self.seconds is None

    def frac_done(self, trainer: Trainer) -> float:
        fr = []
        if self.seconds is not None:
            fr.append(trainer.train_seconds / self.seconds)
        if self.steps is not None:
            fr.append(trainer.global_step / self.steps)
        return max(fr)

    def done(self, trainer: Trainer) -> float:
        """What the progress bar shows as done."""
        return round(trainer.global_step if self.in_steps else min(trainer.train_seconds, self.seconds), 1)


PLAIN_PROGRESS_EVERY = 30.0
"""Seconds between the progress lines of a run whose progress goes to a log, not a terminal."""


def _progress_info(trainer: Trainer, sps: float, recent: float, last_eval: dict, left: float | None) -> str:
    """The progress bar's text: steps, speed, the training episodes' mean return, the last
    evaluation's return and the game's first measure, and (``left`` seconds, for the plain
    lines of a log) the time left."""
    measure = measures_text(last_eval.get("stats", {}), limit=1)
    text = (
        f"step {trainer.global_step:,} · {sps:,.0f} steps/s · return {recent:.1f} · "
        f"eval {last_eval['mean']:.1f}" + (f" ({measure})" if measure else "")
    )
    return text if left is None else f"{text} · about {left / 60:.1f} min left"


def _time_left(budget: _Budget, trainer: Trainer) -> float:
    """Seconds of training left at the pace so far (evaluations excluded, as from the budget)."""
    frac = budget.frac_done(trainer)
    return trainer.train_seconds * (1.0 - frac) / frac if frac > 0 else float("nan")


def _train_to_budget(cfg: TrainConfig, trainer: Trainer, log: _Log, evaluate: _Evaluator) -> None:
    """PPO updates until the budget is spent (or Ctrl-C), evaluating and checkpointing on
    their schedules. Progress: a ``rich`` bar with the time left on a terminal, else a line
    every :data:`PLAIN_PROGRESS_EVERY` seconds with the time left."""
    if cfg.steps == 0:  # imitation only: the imitated actor is the run's policy
        return
    budget = _Budget.of(cfg)
    bar = ProgressBar(
        float(budget.steps) if budget.in_steps else budget.seconds,
        f"train {trainer.game.name}",
        enabled=cfg.progress,
        unit="step" if budget.in_steps else "s",
        plain_every=PLAIN_PROGRESS_EVERY,
    )
    last_eval = evaluate()
    next_eval = trainer.train_seconds + cfg.eval_every
    next_ck = trainer.train_seconds + cfg.checkpoint_every
    try:
        while budget.frac_done(trainer) < 1.0:
            lr = cfg.lr * max(0.0, 1.0 - budget.frac_done(trainer)) if cfg.anneal_lr else cfg.lr
            sps, recent = _update(cfg, trainer, log, lr)
            left = None if bar.bar is not None else _time_left(budget, trainer)
            bar.update(budget.done(trainer), _progress_info(trainer, sps, recent, last_eval, left))
            if trainer.train_seconds >= next_eval:
                last_eval = evaluate()
                next_eval = trainer.train_seconds + cfg.eval_every
            if trainer.train_seconds >= next_ck:
                _save(cfg, trainer)
                next_ck = trainer.train_seconds + cfg.checkpoint_every
    except KeyboardInterrupt:
        print("interrupted: saving the checkpoint and policy", file=sys.stderr)
    finally:
        bar.close()


def _update(cfg: TrainConfig, trainer: Trainer, log: _Log, lr: float) -> tuple[float, float]:
    """One rollout and PPO update, timed into the budget and logged; returns the steps/s
    and the mean return of the last 1000 episodes."""
    t0 = time.perf_counter()
    try:
        trainer.collect()
        stats = trainer.update(lr)
    finally:  # a Ctrl-C midway still counts the time its steps took
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
    return sps, recent


def _replace_whole(path: str, write) -> None:
    """Write ``path`` through ``write(file)`` into ``path + ".partial"``, then rename it
    over ``path``: a run stopped mid-write (killed, out of disk, a second Ctrl-C) leaves the
    previous file whole, never a truncated one."""
    partial = path + ".partial"
    with open(partial, "wb") as f:
        write(f)
    os.replace(partial, path)


def _save(cfg: TrainConfig, trainer: Trainer) -> None:
    """The checkpoint and the policy, in the run folder, each replaced whole."""
    _replace_whole(_checkpoint_path(cfg), lambda f: torch.save(trainer.checkpoint(), f))
    _replace_whole(os.path.join(cfg.out, "policy.npz"), trainer.save_policy)


def _rate(cfg: TrainConfig, trainer: Trainer, levels: dict, seats) -> dict:
    """openskill ratings of the last snapshots, the final policy and the bots on the same deals."""
    game = trainer.game
    entrants: dict[str, np.ndarray] = {}
    snaps = sorted(trainer.league.snapshots.items())[-int(cfg.rate_snapshots) :] if cfg.rate_snapshots else []
    for _sid, (upd, sd) in snaps:
        m = Agent(
            trainer.obs_dim, trainer.num_actions, cfg.hidden, cfg.activation, trainer.agent.action_inputs
        )
        m.load_state_dict(sd)
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
    return rate_entrants(entrants)


def _summary(trainer: Trainer, final: dict, levels: dict, ratings: dict) -> dict:
    total = sum(trainer.seconds.values())
    return {
        "game": trainer.game.name,
        "options": trainer.opts,
        "steps": trainer.global_step,
        "updates": trainer.update_idx,
        "train_seconds": trainer.train_seconds,
        "steps_per_s": trainer.global_step / max(trainer.train_seconds, 1e-9),
        "time_split": {k: v / total for k, v in trainer.seconds.items()} if total else {},
        "final_eval": final,
        "levels": _without_returns(levels),
        "ratings": ratings,
        "threads": trainer.threads,
        "bf16": trainer.bf16,
    }


def _write_outputs(cfg: TrainConfig, summary: dict) -> None:
    """``summary.json`` and, with matplotlib, the learning curve ``curve.png``."""
    with open(os.path.join(cfg.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, default=json_default)
    try:
        plot_curve(os.path.join(cfg.out, "log.jsonl"), os.path.join(cfg.out, "curve.png"))
    except ImportError:
        print("matplotlib is missing: no curve.png (pip install 'tabletop-rl[train]')", file=sys.stderr)


def train(cfg: TrainConfig) -> dict:
    """Run ``tabletop train`` with ``cfg`` (:func:`run`); returns the run's summary."""
    return run(cfg)
