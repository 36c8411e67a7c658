"""Training throughput of ``tabletop train``, measured in one run (``tabletop bench --train``,
``benchmarks/train.py``): one JSON line per measurement.

* ``matmul``: torch's matrix-multiply throughput on this machine, now, with the trainer's
  threads and dtype, on the network's own layer shapes at the update's minibatch
  (``(mb, 256) @ (256, 256)`` and the first and last layers), best of a few windows,
  measured before and after the trainer's window and the higher taken (on a shared machine
  a busy second makes one measurement low, and the MFU is taken against the best).
* ``train``: the trainer at its defaults, end to end (rollout + update, evaluation
  excluded) for ``seconds``: env steps/s; the wall time split into env stepping,
  inference, update and plumbing (everything else: copies into the rollout storage,
  advantages, bookkeeping); ``env_plumbing_share``; ``mfu``, the FLOPs executed (counted
  from the layer shapes: one forward per inference sample, three per update sample less
  the first layer's input gradient, which is never computed (``model_flops_per_sample(..., update=True)``;
  ``CHANGELOG.md`` says how older lines counted); on the
  float32 CPU path, whose head computes only the legal logits and the value and whose
  first layer reads only the observation's nonzero entries, the FLOPs of those K + 1
  outputs and of the nonzero entries) per second of inference and update, over the
  ``matmul`` figure; ``mfu_dense``, the same time over the dense network's FLOPs (every
  observation entry and every head output; ``mfu_dense_head`` in older lines): the speed
  as the MFU a dense network would need for it, above 1 where the float32 path skips more
  work than the matmul's rate loses. On the bf16 path the two are equal. ``mfu_paired``:
  the same FLOPs read in paired rounds after the window (:func:`_paired_mfu`: one rollout
  and update, then the matmuls for as long, each round's ratio of the two means, the
  median over the rounds), which a machine whose speed moves within seconds moves less.
* ``sb3``: sb3-contrib ``MaskablePPO`` on the same env (the single-agent view, the learner
  playing every seat of The Game / seat 0 against random bots elsewhere), at its
  documented defaults (minibatch 64, 10 epochs, lr 3e-4, gamma 0.99) except the network
  (``net_arch=[256, 256]``, tanh: SB3 builds separate policy and value MLPs of that shape)
  and the rollout size (``n_envs x n_steps`` = the trainer's ``num_envs x rollout``): one
  rollout and its update, timed; ``speedup_vs_sb3``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from tabletop_core.contract.catalog import load_game
from tabletop_core.envs.single_agent import LearnerVectorEnv
from tabletop_core.tools.progress import ProgressBar
from tabletop_core.train.config import ConfigError, TrainConfig
from tabletop_core.train.trainer import Trainer

__all__ = ["iter_train_bench", "matmul_gflops"]


def _matmuls(shapes: list[tuple[int, int, int]], dtype_name: str, threads: int):
    """Random operands ``(m, k), (k, n)`` for ``shapes`` (warmed up once) and their FLOPs."""
    torch.set_num_threads(threads)
    dtype = torch.bfloat16 if dtype_name == "bfloat16" else torch.float32
    mats = [(torch.randn(m, k, dtype=dtype), torch.randn(k, n, dtype=dtype)) for m, k, n in shapes]
    for a, b in mats:
        a @ b
    return mats, sum(2 * m * k * n for m, k, n in shapes)


def matmul_gflops(
    shapes: list[tuple[int, int, int]], dtype_name: str, threads: int, seconds: float = 1.0
) -> float:
    """Best GFLOP/s of torch matmuls ``(m, k) @ (k, n)`` over ``shapes`` run in turn."""
    mats, flops = _matmuls(shapes, dtype_name, threads)
    best = 0.0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        for _ in range(5):
            for a, b in mats:
                a @ b
        best = max(best, 5 * flops / (time.perf_counter() - t0) / 1e9)
    return best


def _mean_gflops(mats, flops: int, seconds: float) -> float:
    """GFLOP/s of ``mats``' matmuls run in turn for about ``seconds``: the whole window's
    mean, as the trainer's own rate is a window's mean."""
    n, t0 = 0, time.perf_counter()
    while True:
        for a, b in mats:
            a @ b
        n += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n * flops / dt / 1e9


def _sb3_vec_env(vec_env_base: type, venv: LearnerVectorEnv, seed: int):
    """``venv`` (the single-agent view) as a stable-baselines3 ``VecEnv`` (``vec_env_base``,
    imported by the caller: sb3 is optional) with ``action_masks`` for MaskablePPO."""
    num_envs = venv.num_envs

    class Adapter(vec_env_base):
        def __init__(self):
            super().__init__(num_envs, venv.single_observation_space, venv.single_action_space)

        def reset(self):
            return venv.reset(seed=seed)[0]

        def step_async(self, actions):
            self._a = np.asarray(actions, np.int64)

        def step_wait(self):
            obs, r, term, trunc, info = venv.step(self._a)
            infos = [{} for _ in range(num_envs)]
            for i in np.flatnonzero(term):
                infos[i]["terminal_observation"] = info["final_obs"][i]
            return obs, r.astype(np.float32), term | trunc, infos

        def action_masks(self):
            return venv.action_masks()

        def env_method(self, name, *args, indices=None, **kwargs):
            if name == "action_masks":
                return list(venv.action_masks())
            raise AttributeError(name)

        def has_attr(self, name):
            return name == "action_masks"

        def get_attr(self, name, indices=None):
            if name == "render_mode":
                return [None] * num_envs
            raise AttributeError(name)

        def set_attr(self, *a, **k):
            raise AttributeError(a[0])

        def env_is_wrapped(self, wrapper_class, indices=None):
            return [False] * num_envs

        def close(self):
            pass

    return Adapter()


def _sb3_steps_per_s(
    game_name: str, options: dict, num_envs: int, rollout: int, seed: int, threads: int
) -> dict:
    """The "sb3" record (module docstring): one rollout and update of sb3-contrib's
    MaskablePPO on the same env, timed; an "error" record without sb3-contrib."""
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import VecEnv
    except ImportError as exc:
        return {"bench": "sb3", "error": f"sb3-contrib not installed ({exc}): pip install 'tabletop-rl[rl]'"}
    game = load_game(game_name)
    venv = LearnerVectorEnv(
        game, num_envs, seat=None if game.cooperative else 0, opponents="random", **options
    )
    torch.set_num_threads(threads)
    model = MaskablePPO(
        "MlpPolicy",
        _sb3_vec_env(VecEnv, venv, seed),
        n_steps=rollout,
        policy_kwargs={"net_arch": [256, 256], "activation_fn": torch.nn.Tanh},
        seed=seed,
        device="cpu",
        verbose=0,
    )
    t0 = time.perf_counter()
    model.learn(total_timesteps=num_envs * rollout)
    dt = time.perf_counter() - t0
    return {
        "bench": "sb3",
        "what": "sb3-contrib MaskablePPO, documented defaults (batch_size 64, n_epochs 10) except "
        "net_arch [256, 256] tanh and n_envs x n_steps",
        "n_envs": num_envs,
        "n_steps": rollout,
        "batch_size": model.batch_size,
        "n_epochs": model.n_epochs,
        "steps": int(model.num_timesteps),
        "seconds": dt,
        "steps_per_s": model.num_timesteps / dt,
    }


def iter_train_bench(
    game: str = "thegame",
    options: dict[str, Any] | None = None,
    seconds: float = 30.0,
    sb3: bool = True,
    threads: int | None = None,
    minibatch: int | None = None,
    bf16: str = "auto",
    progress: bool = True,
) -> Iterator[dict]:
    """The benchmark's records (see the module docstring), each yielded once it is final,
    so that a caller that prints them as they come keeps what was measured when Ctrl-C
    stops a later part: the "matmul" record once the trainer's window and the matmuls
    after it are done, the "train" record after the paired rounds (a Ctrl-C in those
    yields it with the rounds done, ``paired_rounds`` saying how many, and then raises
    KeyboardInterrupt), the "sb3" and "summary" records last. ``seconds``: the trainer's
    timed window (after one warm-up update); the game's default options when none are given;
    ``threads``: torch threads (the trainer's own choice when None: the cores the load
    average leaves idle, one on a 2-core machine with one busy process); ``minibatch``: the PPO minibatch (the
    trainer's default when None); ``bf16``: the trainer's ``--bf16`` (``auto``, ``on`` or
    ``off``), to compare the bf16 and float32 paths on one machine; ``progress``: a
    progress bar on stderr over the trainer's window and the paired rounds, where stderr
    is a terminal (:class:`~tabletop_core.tools.progress.ProgressBar`).

    Raises (when the first record is asked for, before any measurement):
        ConfigError (a ValueError): ``seconds`` not a finite number above 0 (a window of
            no update would divide by zero), or a bad game, option, thread count or
            minibatch (as ``tabletop train``).
    """
    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise ConfigError(f"seconds must be a finite number above 0, got {seconds!r}")
    options = dict(options or {})
    cfg = TrainConfig(game=game, options=options, steps=10**12, progress=False, threads=threads, bf16=bf16)
    if minibatch is not None:
        cfg.minibatch = minibatch
    trainer = Trainer(cfg)
    threads, dtype = trainer.threads, "bfloat16" if trainer.bf16 else "float32"
    shapes = _layer_shapes(trainer)
    matmul = _matmul_record(shapes, dtype, threads)
    torch.set_num_threads(threads)
    wall, steps = _timed_window(trainer, seconds, progress)
    after = matmul_gflops(shapes, dtype, threads)
    matmul["gflops_after"] = after
    peak = matmul["gflops"] = max(matmul["gflops_before"], after)
    if dtype == "float32":  # the same matmuls: the same best
        matmul["gflops_float32"] = peak
    rec = _train_record(trainer, game, options, wall, steps, peak, matmul["gflops_float32"])
    yield matmul
    rec.update(_paired_mfu(trainer, shapes, dtype, threads, progress))
    yield rec
    if rec["paired_rounds"] < PAIRED_ROUNDS:
        raise KeyboardInterrupt
    if sb3:
        s = _sb3_steps_per_s(game, options, trainer.num_envs, cfg.rollout, 0, threads)
        yield s
        if "steps_per_s" in s:
            yield _summary(game, rec, s)


def _layer_shapes(trainer: Trainer) -> list[tuple[int, int, int]]:
    """The network's products at the update's minibatch: ``(mb, in, out)`` per layer, the
    head's actor and critic as one ``A + 1`` output."""
    h, mb = trainer.cfg.hidden, trainer.cfg.minibatch
    d, a = trainer.obs_dim, trainer.num_actions
    return [(mb, d, h[0])] + [(mb, x, y) for x, y in zip(h[:-1], h[1:])] + [(mb, h[-1], a + 1)]


def _matmul_record(shapes: list[tuple[int, int, int]], dtype: str, threads: int) -> dict:
    """The "matmul" record before the trainer's window: the best rate on ``shapes`` in
    ``dtype`` and in float32 (``gflops_before``; the caller adds ``gflops_after`` and the
    higher as ``gflops``)."""
    peak = matmul_gflops(shapes, dtype, threads)
    return {
        "bench": "matmul",
        "dtype": dtype,
        "threads": threads,
        "shapes": shapes,
        "gflops": peak,
        "gflops_float32": matmul_gflops(shapes, "float32", threads) if dtype != "float32" else peak,
        "gflops_before": peak,
    }


def _compute_totals(trainer) -> tuple[float, float]:
    """The FLOPs the trainer's inference and update have executed and their seconds, as
    counted since its counters were last zeroed."""
    return (
        trainer.flops["inference"] + trainer.flops["update"],
        trainer.seconds["inference"] + trainer.seconds["update"],
    )


def _train_record(
    trainer, game: str, options: dict, wall: float, steps: int, peak: float, gflops_float32: float
) -> dict:
    """The "train" record of a timed window (module docstring): ``wall`` seconds and
    ``steps`` env steps, FLOPs over the matmul figures ``peak`` (the trainer's dtype) and
    ``gflops_float32``."""
    cfg = trainer.cfg
    threads, dtype = trainer.threads, "bfloat16" if trainer.bf16 else "float32"
    sec = trainer.seconds
    flops, compute = _compute_totals(trainer)
    executed = flops / compute / 1e9
    dense = (
        trainer.flops_per_sample * trainer.samples["inference"]
        + trainer.flops_per_update_sample * trainer.samples["update"]
    )
    return {
        "bench": "train",
        "game": game,
        "options": options,
        "num_envs": trainer.num_envs,
        "rollout": cfg.rollout,
        "minibatch": cfg.minibatch,
        "epochs": cfg.epochs,
        "hidden": list(cfg.hidden),
        "dtype": dtype,
        "threads": threads,
        "env_threads": cfg.env_threads,
        "steps": steps,
        "seconds": wall,
        "steps_per_s": steps / wall,
        "time_split": {k: v / wall for k, v in sec.items()},
        "env_plumbing_share": (sec["env"] + sec["plumbing"]) / wall,
        "model_gflops": executed,
        "inference_gflops": trainer.flops["inference"] / max(sec["inference"], 1e-9) / 1e9,
        "update_gflops": trainer.flops["update"] / max(sec["update"], 1e-9) / 1e9,
        "mfu": executed / peak,
        "mfu_vs_float32_matmul": executed / gflops_float32,
        "mfu_dense": dense / compute / 1e9 / peak,
    }


def _timed_window(trainer, seconds: float, progress: bool = False) -> tuple[float, int]:
    """One warm-up rollout and update, the trainer's counters zeroed, then rollouts and
    updates for ``seconds`` (a progress bar on a terminal where ``progress``); returns the
    window's wall seconds and env steps."""
    lr = trainer.cfg.lr
    bar = ProgressBar(seconds, "trainer window", enabled=progress, unit="s", transient=True)
    try:
        bar.update(0, "warm-up")
        trainer.collect()
        trainer.update(lr)
        trainer.seconds = dict.fromkeys(trainer.seconds, 0.0)
        trainer.flops = dict.fromkeys(trainer.flops, 0.0)
        trainer.samples = dict.fromkeys(trainer.samples, 0)
        s0 = trainer.global_step
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            trainer.collect()
            trainer.update(lr)
            dt = time.perf_counter() - t0
            bar.update(round(min(dt, seconds), 1), f"{(trainer.global_step - s0) / dt:,.0f} steps/s")
    finally:
        bar.close()
    return time.perf_counter() - t0, trainer.global_step - s0


PAIRED_ROUNDS = 9


def _paired_mfu(
    trainer, shapes: list[tuple[int, int, int]], dtype: str, threads: int, progress: bool = False
) -> dict:
    """The MFU read in :data:`PAIRED_ROUNDS` rounds after the timed window, each one rollout
    and update, then the matmuls on the network's shapes for as long as that round's
    inference and update took: each round's FLOPs per second of inference and update over
    the matmuls' mean rate right after, and the median over the rounds (``mfu_paired``).
    On a shared machine whose speed moves within seconds, ``mfu`` divides a 30-second mean
    by the best second-long burst before or after; the paired rounds compare two means
    taken a second apart. Both count the same FLOPs. A Ctrl-C ends the rounds: the
    figures are then the rounds done (None for none), ``paired_rounds`` their number."""
    mats, flops = _matmuls(shapes, dtype, threads)
    lr = trainer.cfg.lr
    ratios, rates, peaks = [], [], []
    bar = ProgressBar(PAIRED_ROUNDS, "paired rounds", enabled=progress, unit="rounds", transient=True)
    try:
        for _ in range(PAIRED_ROUNDS):
            f0, s0 = _compute_totals(trainer)
            trainer.collect()
            trainer.update(lr)
            f1, s1 = _compute_totals(trainer)
            compute = s1 - s0
            rate = (f1 - f0) / compute / 1e9
            peak = _mean_gflops(mats, flops, min(1.0, max(0.1, compute)))
            rates.append(rate)
            peaks.append(peak)
            ratios.append(rate / peak)
            bar.update(len(ratios), f"mfu {ratios[-1]:.2f}")
    except KeyboardInterrupt:
        pass
    finally:
        bar.close()

    def median(values: list[float]) -> float | None:
        return float(np.median(values)) if values else None

    return {
        "mfu_paired": median(ratios),
        "model_gflops_paired": median(rates),
        "matmul_gflops_paired": median(peaks),
        "paired_rounds": len(ratios),
    }


def _summary(game: str, rec: dict, sb3: dict) -> dict:
    """The "summary" record: the trainer's "train" record against MaskablePPO's."""
    return {
        "bench": "summary",
        "game": game,
        "steps_per_s": rec["steps_per_s"],
        "sb3_steps_per_s": sb3["steps_per_s"],
        "speedup_vs_sb3": rec["steps_per_s"] / sb3["steps_per_s"],
        "mfu": rec["mfu"],
        "mfu_paired": rec["mfu_paired"],
        "env_plumbing_share": rec["env_plumbing_share"],
        "targets": {
            "speedup_vs_sb3": ">= 10 (aim 30)",
            "mfu": ">= 0.5",
            "env_plumbing_share": "<= 0.15",
        },
    }
