"""Behaviour cloning from a scripted bot: the warm start of ``tabletop train --imitate BOT``.

AlphaStar began from a policy trained by supervised learning on human games before its
league of reinforcement learning; here the demonstrations are a scripted bot's games,
played inside the kernels (``vector_env(...).step_bots``, whose ``info["actions"]`` are
the bots' choices). The actor (trunk and policy head) learns the bot's action from the
acting seat's observation by masked cross-entropy; PPO then starts from it. Where
rewards are sparse (Exit Now: a human's only reward is escaping, at the end), PPO from a
random policy may never see one; from the bot's play it sees them at once.

Demonstrations are stored as bfloat16 observations (the network reads them so under
bf16 autocast anyway) and int8 masks.
"""

from __future__ import annotations

import time

import numpy as np
import torch
import torch.nn.functional as F

from ..vector import SelfPlayVectorEnv
from .model import Agent, masked_logits

__all__ = ["collect_demos", "behaviour_cloning"]


def collect_demos(
    game, options: dict, bot: str, samples: int, seed: int, num_envs: int = 512
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``samples`` decisions of ``bot`` in every seat of fresh games.

    Returns:
        ``(obs (N, D) bfloat16, masks (N, A) bool, actions (N,) int64)``.

    Raises:
        ValueError: an unknown bot (``game.bot_ids``' message).
    """
    venv = SelfPlayVectorEnv(game, num_envs, seed=seed, copy=False, num_threads=1, **options)
    game.bot_ids(bot, venv.num_players)  # a clear error before anything runs
    obs, info = venv.reset(seed=seed)
    d, a = obs.shape[1], game.num_actions
    steps = -(-samples // num_envs)
    xs = torch.empty((steps * num_envs, d), dtype=torch.bfloat16)
    ms = torch.empty((steps * num_envs, a), dtype=torch.bool)
    acts = torch.empty(steps * num_envs, dtype=torch.long)
    for t in range(steps):
        rows = slice(t * num_envs, (t + 1) * num_envs)
        xs[rows] = torch.from_numpy(venv._obs)
        ms[rows] = torch.from_numpy(venv._mask != 0)
        _, _, _, _, info = venv.step_bots(bot)
        acts[rows] = torch.from_numpy(np.array(info["actions"], np.int64))
    return xs[:samples], ms[:samples], acts[:samples]


def behaviour_cloning(
    agent: Agent,
    game,
    options: dict,
    bot: str,
    samples: int,
    epochs: int,
    seed: int,
    minibatch: int = 1024,
    lr: float = 1e-3,
    bf16: bool = False,
    log=None,
) -> dict[str, float]:
    """Train ``agent``'s actor to play as ``bot`` (masked cross-entropy, Adam).

    Returns:
        ``{"samples", "epochs", "loss", "accuracy", "seconds"}``: the last epoch's mean
        loss and the share of demonstrations whose argmax action is the bot's.
    """
    t0 = time.perf_counter()
    xs, ms, acts = collect_demos(game, options, bot, samples, seed)
    device = next(agent.parameters()).device
    params = [*agent.trunk.parameters(), *agent.actor.parameters()]
    optim = torch.optim.Adam(params, lr=lr, eps=1e-5)
    gen = torch.Generator().manual_seed(seed)
    n = len(acts)
    out: dict[str, float] = {}
    for epoch in range(epochs):
        order = torch.randperm(n, generator=gen)
        total, hits = 0.0, 0
        for lo in range(0, n, minibatch):
            idx = order[lo : lo + minibatch]
            x, m, y = xs[idx].to(device), ms[idx].to(device), acts[idx].to(device)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
                logits = masked_logits(agent.actor(agent.trunk(x if bf16 else x.float())), m)
            loss = F.cross_entropy(logits.float(), y)
            optim.zero_grad(set_to_none=True)
            loss.backward()
            optim.step()
            total += loss.item() * len(idx)
            hits += int((logits.argmax(dim=1) == y).sum())
        out = {"epoch": epoch + 1, "loss": total / n, "accuracy": hits / n}
        if log is not None:
            log("imitate", bot=bot, samples=n, seconds=time.perf_counter() - t0, **out)
    out.update(samples=n, epochs=epochs, seconds=time.perf_counter() - t0)
    return out
