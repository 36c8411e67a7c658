"""PPO, the reference: masked PPO with per-seat credit, plain torch with autograd.

Read it as CleanRL's ``ppo.py``, top to bottom: the config, the network, a rollout over the
vector env with action masks, the advantages (GAE), the clipped policy loss with the value
loss and the entropy bonus, and the update loop over minibatches. :func:`train` runs it:
self-play on one :class:`~tabletop_core.envs.vector.SelfPlayVectorEnv`, one policy acting
for whichever seat is to move (``python -m tabletop_core.train.ppo thegame --steps 200000``).

This file says what the update of ``tabletop train`` *is*. The trainer
(:class:`~tabletop_core.train.trainer.Trainer`) computes the same update faster; each of its
faster paths is an optimization of a function here, and ``tests/test_ppo_reference.py``
checks that it gives the same update as this file on a fixed batch:

* :meth:`Trainer._ppo_step_torch <tabletop_core.train.trainer.Trainer._ppo_step_torch>`
  (``--device cuda``) and ``Trainer._ppo_step_compiled`` (CPU with ``--optimizer muon``),
  :class:`~tabletop_core.train.plain.PlainStep` (CPU float32, the default without a
  bfloat16 unit) and :class:`~tabletop_core.train.fused.FusedStep` (CPU bfloat16, the
  default with one) are optimizations of :func:`ppo_step`;
* :func:`~tabletop_core.train.loss.ppo_loss_grad` of :func:`ppo_loss` and its backward pass;
* :func:`~tabletop_core.train.sample.masked_sample` of :func:`sample_actions`' draw;
* ``Trainer._optimise`` of :func:`update`.

What ``tabletop train`` adds around the same update, and this file leaves out: opponents
(league snapshots, scripted bots, the shipped baseline), reward normalisation (gymnasium's
``NormalizeReward``), a critic warm-up, evaluation, checkpoints and the run folder
(:mod:`~tabletop_core.train.loop`).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
import torch
from torch import nn

from tabletop_core.envs.vector import SelfPlayVectorEnv
from tabletop_core.train.advantages import seat_advantages
from tabletop_core.train.config import TrainConfig, validate
from tabletop_core.train.model import Agent, masked_logits

__all__ = [
    "Rollout",
    "Batch",
    "sample_actions",
    "rollout",
    "advantages",
    "ppo_loss",
    "ppo_step",
    "update",
    "train",
]

# --- config ----------------------------------------------------------------------------------
# The config is :class:`~tabletop_core.train.config.TrainConfig`, every field a flag of
# ``tabletop train``. This file reads its PPO fields: game, options, seed, steps, num_envs,
# rollout, epochs, minibatch, hidden, activation, lr, anneal_lr, gamma, gae_lambda, clip,
# ent_coef, vf_coef, max_grad_norm.

# --- network ---------------------------------------------------------------------------------
# The network is :class:`~tabletop_core.train.model.Agent`: an MLP trunk (tanh), an actor
# head (logits over the A actions, plus what the game's action pieces add) and a critic head
# (the value), initialised as CleanRL's (orthogonal; gains sqrt(2), 0.01 and 1).


# --- rollout ---------------------------------------------------------------------------------
class Rollout(NamedTuple):
    """``T`` vector steps of ``N`` envs; ``D`` observation floats, ``A`` actions, ``P`` seats."""

    obs: torch.Tensor  # (T, N, D) float32, from the acting seat's view
    mask: torch.Tensor  # (T, N, A) bool, the legal actions
    actions: torch.Tensor  # (T, N) int64
    logp: torch.Tensor  # (T, N) float32, log-probability of the action under the acting policy
    values: torch.Tensor  # (T, N) float32
    rewards: np.ndarray  # (T, N, P) float32, what each seat received at the step
    dones: np.ndarray  # (T, N) bool, the episode ended with the step
    seats: np.ndarray  # (T, N) int64, the decision chain of the step (the acting seat; 0 for a team)
    last_value: np.ndarray  # (N,) float32, the value of the observation after the rollout
    last_seat: np.ndarray  # (N,) int64, its chain


def sample_actions(
    agent: Agent, obs: torch.Tensor, mask: torch.Tensor, gen: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """A legal action per row: ``(actions (N,) int64, log-probabilities (N,), values (N,))``
    from ``obs`` (N, D) float32 and ``mask`` (N, A) bool (illegal logits set to
    :data:`~tabletop_core.train.model.NEG`, probability 0)."""
    logits, value = agent(obs)
    logp_all = torch.log_softmax(masked_logits(logits, mask), dim=1)
    actions = torch.multinomial(logp_all.exp(), 1, generator=gen).squeeze(1)
    return actions, logp_all.gather(1, actions[:, None]).squeeze(1), value


def _chain(seat: np.ndarray, cooperative: bool) -> np.ndarray:
    """The decision chain of each env's acting seat: the seat, or 0 for a team credited as one."""
    return np.zeros_like(seat) if cooperative else seat.astype(np.int64)


@torch.no_grad()
def rollout(agent: Agent, env: SelfPlayVectorEnv, state: dict, steps: int, gen: torch.Generator) -> Rollout:
    """Play ``steps`` vector steps of ``env`` with ``agent`` in every seat.

    ``state`` carries the env's current ``obs``, ``mask``, ``seat`` and each env's running
    ``episode_return`` (seat 0's) between rollouts, and collects the ``finished`` episodes'
    returns. Autoreset is ``SAME_STEP``: a step that ends an episode returns the next one's
    first observation, so the step's ``done`` cuts the advantages' chains there."""
    t_len, n, p = steps, env.num_envs, env.num_players
    obs = torch.zeros((t_len, n, state["obs"].shape[1]))
    mask = torch.zeros((t_len, n, env.game.num_actions), dtype=torch.bool)
    actions = torch.zeros((t_len, n), dtype=torch.long)
    logp = torch.zeros((t_len, n))
    values = torch.zeros((t_len, n))
    rewards = np.zeros((t_len, n, p), np.float32)
    dones = np.zeros((t_len, n), np.bool_)
    seats = np.zeros((t_len, n), np.int64)
    for step in range(steps):
        obs[step] = torch.from_numpy(state["obs"])
        mask[step] = torch.from_numpy(state["mask"] != 0)
        seats[step] = _chain(state["seat"], env.game.cooperative)
        actions[step], logp[step], values[step] = sample_actions(agent, obs[step], mask[step], gen)
        next_obs, rewards[step], term, trunc, info = env.step(actions[step].numpy())
        dones[step] = term | trunc
        state["episode_return"] += rewards[step, :, 0]
        state["finished"].extend(state["episode_return"][dones[step]].tolist())
        state["episode_return"][dones[step]] = 0.0
        state.update(obs=next_obs, mask=info["action_mask"], seat=info["current_player"])
    _, last_value = agent(torch.from_numpy(state["obs"]))
    last_seat = _chain(state["seat"], env.game.cooperative)
    return Rollout(obs, mask, actions, logp, values, rewards, dones, seats, last_value.numpy(), last_seat)


# --- advantages ------------------------------------------------------------------------------
def advantages(ro: Rollout, gamma: float, gae_lambda: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GAE per seat (:func:`~tabletop_core.train.advantages.seat_advantages`: a seat's step
    earns every reward that seat receives until its own next step and bootstraps from that
    step's value; with one seat per env it is CleanRL's GAE).

    Returns:
        ``(advantages (T, N) float32, returns (T, N) float32, valid (T, N) bool)``: the
        returns are advantages plus values; valid is False where a step's successor lies
        beyond the rollout (left out of the loss).
    """
    values = ro.values.numpy()
    adv, valid = seat_advantages(
        ro.rewards, values, ro.seats, ro.dones, ro.last_value, ro.last_seat, gamma, gae_lambda
    )
    return adv, adv + values, valid


class Batch(NamedTuple):
    """A rollout's valid steps, flat: ``M`` samples (:func:`flatten`)."""

    obs: torch.Tensor  # (M, D) float32
    mask: torch.Tensor  # (M, A) bool
    actions: torch.Tensor  # (M,) int64
    logp: torch.Tensor  # (M,) float32, the rollout's log-probabilities
    advantages: torch.Tensor  # (M,) float32
    returns: torch.Tensor  # (M,) float32

    def take(self, idx: torch.Tensor) -> Batch:
        """Samples ``idx`` ((N,) int64): a minibatch."""
        return Batch(*(x.index_select(0, idx) for x in self))


def flatten(ro: Rollout, adv: np.ndarray, ret: np.ndarray, valid: np.ndarray) -> Batch:
    """The valid steps of ``ro`` (with their advantages and returns) as one flat batch."""
    keep = torch.from_numpy(valid.reshape(-1))

    def flat(x) -> torch.Tensor:
        x = torch.as_tensor(x)
        return x.reshape(-1, *x.shape[2:])[keep]

    return Batch(flat(ro.obs), flat(ro.mask), flat(ro.actions), flat(ro.logp), flat(adv), flat(ret))


# --- loss ------------------------------------------------------------------------------------
def ppo_loss(
    logits: torch.Tensor,
    value: torch.Tensor,
    actions: torch.Tensor,
    old_logp: torch.Tensor,
    adv: torch.Tensor,
    ret: torch.Tensor,
    clip: float,
    vf_coef: float,
    ent_coef: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """PPO's clipped objective on a minibatch of ``N`` samples.

    Args:
        logits: (N, C) float32, the policy's logits with the illegal ones at
            :data:`~tabletop_core.train.model.NEG` (``C``: the A actions, or any list of
            columns that holds every legal action: the trainer passes the legal ones alone).
        value: (N,) float32, the critic's values.
        actions: (N,) int64, the column of each sample's action in ``logits``.
        old_logp: (N,) float32, its log-probability when it was played.
        adv: (N,) float32, the advantages, normalised here over the minibatch (mean 0,
            unbiased std 1, ``+ 1e-8``).
        ret: (N,) float32, the returns the value regresses to.
        clip: the probability ratio's clip range ``c``.
        vf_coef, ent_coef: the value loss's and the entropy's weights.

    Returns:
        ``(loss, stats)``: ``loss = pg - ent_coef H + vf_coef v`` with ``pg =
        mean(max(-a r, -a clip(r, 1 - c, 1 + c)))``, ``H`` the mean entropy and ``v = 0.5
        mean((V - R)^2)``; ``stats`` (5,) detached: pg, v, H, the approximate KL
        ``mean((r - 1) - log r)`` and the fraction of ratios clipped.
    """
    logp_all = torch.log_softmax(logits, dim=1)
    new_logp = logp_all.gather(1, actions[:, None]).squeeze(1)
    entropy = -(logp_all.exp() * logp_all).sum(1).mean()  # exp(NEG) is 0: no term for illegal actions
    log_ratio = new_logp - old_logp
    ratio = log_ratio.exp()
    a = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg_loss = torch.max(-a * ratio, -a * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
    v_loss = 0.5 * (value - ret).pow(2).mean()
    loss = pg_loss - ent_coef * entropy + vf_coef * v_loss
    with torch.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()
        clipfrac = ((ratio - 1).abs() > clip).float().mean()
        stats = torch.stack([pg_loss, v_loss, entropy, approx_kl, clipfrac])
    return loss, stats


STATS = ("pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac")
"""The names of :func:`ppo_loss`'s statistics, in order."""


# --- update ----------------------------------------------------------------------------------
def ppo_step(
    agent: Agent, optimizers: Sequence[torch.optim.Optimizer], mb: Batch, cfg: TrainConfig
) -> tuple[float, ...]:
    """One gradient step on minibatch ``mb``: the forward pass over every action, the loss
    (:func:`ppo_loss`), autograd's backward, the gradients clipped to a global norm of
    ``cfg.max_grad_norm``, then each optimizer's step. Returns the (5,) statistics."""
    logits, value = agent(mb.obs)
    loss, stats = ppo_loss(
        masked_logits(logits, mb.mask),
        value,
        mb.actions,
        mb.logp,
        mb.advantages,
        mb.returns,
        cfg.clip,
        cfg.vf_coef,
        cfg.ent_coef,
    )
    for opt in optimizers:
        opt.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(agent.parameters(), cfg.max_grad_norm)
    for opt in optimizers:
        opt.step()
    return tuple(stats.tolist())


def update(
    agent: Agent,
    optimizers: Sequence[torch.optim.Optimizer],
    batch: Batch,
    cfg: TrainConfig,
    gen: torch.Generator,
) -> dict[str, float]:
    """``cfg.epochs`` passes over ``batch`` in shuffled minibatches of ``cfg.minibatch``
    samples (full ones only, each weighed the same), a :func:`ppo_step` each. Returns the
    statistics' means over the minibatches (:data:`STATS`)."""
    m = batch.actions.shape[0]
    mb = min(cfg.minibatch, m)
    total, count = np.zeros(len(STATS)), 0
    for _ in range(cfg.epochs):
        perm = torch.randperm(m, generator=gen)
        for start in range(0, m - mb + 1, mb):
            total += ppo_step(agent, optimizers, batch.take(perm[start : start + mb]), cfg)
            count += 1
    return dict(zip(STATS, (total / max(count, 1)).tolist()))


# --- training --------------------------------------------------------------------------------
def train(cfg: TrainConfig, log: Callable[[dict], None] = print) -> tuple[Agent, list[dict]]:
    """Self-play PPO on ``cfg.game`` for ``cfg.steps`` env steps (and/or ``cfg.minutes``).

    Each iteration: the learning rate annealed linearly to 0 (``cfg.anneal_lr``), a rollout
    of ``cfg.rollout`` steps in ``cfg.num_envs`` envs, the advantages, the update. ``log``
    receives each iteration's record (step, learning rate, mean return of the last 100
    episodes, seat 0's, and the loss statistics).

    Returns:
        ``(agent, records)``.

    Raises:
        ValueError (ConfigError): a bad option (:func:`~tabletop_core.train.config.validate`).
    """
    game, options = validate(cfg)
    torch.manual_seed(cfg.seed)
    gen = torch.Generator().manual_seed(cfg.seed)
    env = SelfPlayVectorEnv(game, cfg.num_envs, seed=cfg.seed, num_threads=1, **cfg.options)
    d = game.observation_layout(options).dim
    agent = Agent(d, game.num_actions, cfg.hidden, cfg.activation, game.action_inputs(options))
    optimizer = torch.optim.Adam(agent.parameters(), lr=cfg.lr, eps=1e-5)
    obs, info = env.reset(seed=cfg.seed)
    state = {"obs": obs, "mask": info["action_mask"], "seat": info["current_player"], "finished": []}
    state["episode_return"] = np.zeros(cfg.num_envs)
    per_iteration = cfg.num_envs * cfg.rollout
    iterations = math.ceil(cfg.steps / per_iteration) if cfg.steps else math.inf
    seconds, t0 = (cfg.minutes * 60 if cfg.minutes else math.inf), time.monotonic()
    records: list[dict] = []
    it = 0
    while (frac := max(it / iterations, (time.monotonic() - t0) / seconds)) < 1.0:
        lr = cfg.lr * (1.0 - frac) if cfg.anneal_lr else cfg.lr
        optimizer.param_groups[0]["lr"] = lr
        ro = rollout(agent, env, state, cfg.rollout, gen)
        adv, ret, valid = advantages(ro, cfg.gamma, cfg.gae_lambda)
        stats = update(agent, [optimizer], flatten(ro, adv, ret, valid), cfg, gen)
        it += 1
        recent = state["finished"][-100:]
        rec = {
            "step": it * per_iteration,
            "lr": lr,
            "mean_return": float(np.mean(recent)) if recent else None,
        }
        records.append({**rec, **stats})
        log(records[-1])
    return agent, records


_FLAGS = {"seed": int, "steps": int, "minutes": float, "num_envs": int, "rollout": int, "epochs": int}
_FLAGS |= {"minibatch": int, "lr": float, "gamma": float, "gae_lambda": float, "clip": float}
_FLAGS |= {"ent_coef": float, "vf_coef": float, "max_grad_norm": float}


def main(argv: list[str] | None = None) -> None:
    """``python -m tabletop_core.train.ppo GAME [--option NAME=VALUE ...] [--steps N ...]``:
    :func:`train` with the PPO fields of :class:`~tabletop_core.train.config.TrainConfig`
    as flags (default: 1,000,000 steps)."""
    parser = argparse.ArgumentParser(
        prog="python -m tabletop_core.train.ppo", description=__doc__.split("\n")[0]
    )
    parser.add_argument("game")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")
    for name, kind in _FLAGS.items():
        parser.add_argument(
            f"--{name.replace('_', '-')}", type=kind, default=getattr(TrainConfig, name, None)
        )
    args = vars(parser.parse_args(argv))
    options = dict(o.split("=", 1) for o in args.pop("option"))
    options = {k: int(v) if v.lstrip("-").isdigit() else v for k, v in options.items()}
    if args["steps"] is None and args["minutes"] is None:
        args["steps"] = 1_000_000
    train(TrainConfig(options=options, **args))


if __name__ == "__main__":
    main()
