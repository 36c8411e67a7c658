"""Behaviour cloning from a scripted bot: the warm start of ``tabletop train --imitate BOT``.

AlphaStar began from a policy trained by supervised learning on human games before its
league of reinforcement learning; here the demonstrations are a scripted bot's games,
played inside the kernels (``vector_env(...).step_bots``, whose ``info["actions"]`` are
the bots' choices). The actor (trunk and policy head) learns the bot's action from the
acting seat's observation by masked cross-entropy, on the decisions of the learner's
``--seats`` (every seat by default: Exit Now's ``--seats 3`` clones the ghost alone, its
own network); PPO then starts from it. Where
rewards are sparse (Exit Now: a human's only reward is escaping, at the end), PPO from a
random policy may never see one; from the bot's play it sees them at once.

A clone trained on the bot's own games meets, when it plays, positions the bot never
reaches after the clone's first mistakes, and errs more there. ``--imitate-rounds K`` adds
K rounds of DAgger (Ross, Gordon and Bagnell, 2011): the actor plays (in each env its seats
of one ``--seats`` choice, or every seat; the bot plays the others), the bot labels every
position reached (``GameDef.batch_bot_actions``: its choice, not played), and the actor
is trained on those labels. Each round's positions replace the previous ones (one round's
demonstrations in memory at a time).

Demonstrations are stored as bfloat16 observations (the network reads them so under
bf16 autocast anyway) and int8 masks.
"""

from __future__ import annotations

import time
from collections.abc import Collection

import numpy as np
import torch
import torch.nn.functional as F

from tabletop_core.envs.vector import SelfPlayVectorEnv
from tabletop_core.kernel.rng import stream_words
from tabletop_core.train.model import Agent, masked_logits

__all__ = ["collect_demos", "collect_dagger", "behaviour_cloning", "fit_actor"]


def collect_demos(
    game,
    options: dict,
    bot: str,
    samples: int,
    seed: int,
    num_envs: int = 512,
    seats: Collection[int] | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``samples`` decisions of ``bot`` in fresh games: the decisions of ``seats`` (seat
    indices; ``None``: every seat), in the order the games reach them. The bot plays every
    seat; the others' decisions are played and not kept (Exit Now's ghost alone:
    ``seats=[3]``).

    Returns:
        ``(obs (N, D) bfloat16, masks (N, A) bool, actions (N,) int64)``.

    Raises:
        ValueError: an unknown bot (``game.bot_ids``' message), or ``seats`` holding no
            seat of the game.
    """
    venv = SelfPlayVectorEnv(game, num_envs, seed=seed, copy=False, num_threads=1, **options)
    game.bot_ids(bot, venv.num_players)  # a clear error before anything runs
    keep_seat = np.zeros(venv.num_players, np.bool_)
    if seats is None:
        keep_seat[:] = True
    else:
        for k in seats:
            if not 0 <= int(k) < venv.num_players:
                raise ValueError(f"seats: {k} is no seat of {venv.num_players} players")
            keep_seat[int(k)] = True
    if not keep_seat.any():
        raise ValueError("seats: give at least one seat whose decisions to keep")
    obs, info = venv.reset(seed=seed)
    d, a = obs.shape[1], game.num_actions
    xs = torch.empty((samples + num_envs, d), dtype=torch.bfloat16)
    ms = torch.empty((samples + num_envs, a), dtype=torch.bool)
    acts = torch.empty(samples + num_envs, dtype=torch.long)
    n = 0
    while n < samples:
        rows = np.flatnonzero(keep_seat[venv._cur])
        k = rows.size
        if k:
            xs[n : n + k] = torch.from_numpy(venv._obs[rows])
            ms[n : n + k] = torch.from_numpy(venv._mask[rows] != 0)
        _, _, _, _, info = venv.step_bots(bot)
        if k:
            acts[n : n + k] = torch.from_numpy(np.asarray(info["actions"], np.int64)[rows])
        n += k
    return xs[:samples], ms[:samples], acts[:samples]


def _seat_choices(seat_groups: list[tuple[int, ...]], num_players: int) -> np.ndarray:
    """``(len(seat_groups) + 1, P)`` bool: row ``k`` the seats of choice ``k``, the last
    row every seat (what DAgger draws the actor's seats from)."""
    choices = np.zeros((len(seat_groups) + 1, num_players), np.bool_)
    for k, grp in enumerate(seat_groups):
        choices[k, list(grp)] = True
    choices[-1] = True
    return choices


def _greedy_actions(agent: Agent, x: torch.Tensor, m: torch.Tensor, bf16: bool) -> np.ndarray:
    """The actor's greedy actions (N,) int64: argmax of the masked logits on observations
    ``x`` (N, D) with masks ``m`` (N, A) bool (bfloat16 autocast where ``bf16``)."""
    device = next(agent.parameters()).device
    with torch.no_grad(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
        logits = masked_logits(agent.actor_logits(x.to(device)), m.to(device))
    return logits.argmax(dim=1).cpu().numpy()


def collect_dagger(
    agent: Agent,
    game,
    options: dict,
    bot: str,
    samples: int,
    seed: int,
    seat_groups: list[tuple[int, ...]],
    bf16: bool = False,
    num_envs: int = 512,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, float]:
    """``samples`` positions reached with ``agent`` playing, each labelled with ``bot``'s
    choice there (one DAgger round's data).

    Each env's episode gives the actor the seats of one choice in ``seat_groups`` or every
    seat (drawn uniformly, again at each new episode); ``bot`` plays the others. The actor
    plays its greedy action (argmax of the masked logits, as ``MLPPolicy`` plays).

    Returns:
        ``(obs (N, D) bfloat16, masks (N, A) bool, bot actions (N,) int64, agreement)``:
        agreement is the share of the actor's own decisions where it chose the bot's move.
    """
    venv = SelfPlayVectorEnv(game, num_envs, seed=seed, copy=False, num_threads=1, **options)
    p = venv.num_players
    ids = game.bot_ids(bot, p)
    venv.reset(seed=seed)
    choices = _seat_choices(seat_groups, p)
    rng = np.random.default_rng(seed)
    plays = choices[rng.integers(0, len(choices), num_envs)]  # (B, P): the actor's seats
    bot_rng = stream_words(seed, "bots", num_envs)
    labels = np.empty(num_envs, np.int64)
    d, a = venv._obs.shape[1], game.num_actions
    steps = -(-samples // num_envs)
    xs = torch.empty((steps * num_envs, d), dtype=torch.bfloat16)
    ms = torch.empty((steps * num_envs, a), dtype=torch.bool)
    acts = torch.empty(steps * num_envs, dtype=torch.long)
    rows_b = np.arange(num_envs)
    agree = played = 0
    for t in range(steps):
        rows = slice(t * num_envs, (t + 1) * num_envs)
        x = torch.from_numpy(venv._obs)
        m = torch.from_numpy(venv._mask != 0)
        xs[rows] = x
        ms[rows] = m
        game.batch_bot_actions(venv.state, ids, bot_rng, venv._mask, labels)
        acts[rows] = torch.from_numpy(labels)
        mine = _greedy_actions(agent, x, m, bf16)
        own = plays[rows_b, venv._cur]
        agree += int((mine[own] == labels[own]).sum())
        played += int(own.sum())
        _, _, term, trunc, _ = venv.step(np.where(own, mine, labels))
        ended = np.flatnonzero(term | trunc)
        if ended.size:
            plays[ended] = choices[rng.integers(0, len(choices), ended.size)]
    return xs[:samples], ms[:samples], acts[:samples], agree / max(played, 1)


def fit_actor(
    agent: Agent,
    xs: torch.Tensor,
    ms: torch.Tensor,
    acts: torch.Tensor,
    epochs: int,
    seed: int,
    minibatch: int = 1024,
    lr: float = 1e-3,
    bf16: bool = False,
    log=None,
    targets: torch.Tensor | None = None,
    **tags,
) -> dict[str, float]:
    """Train ``agent``'s actor (trunk, policy head and action pieces' gains) to choose ``acts`` (N,) at ``xs``
    (N, D) under ``ms`` (N, A): masked cross-entropy, Adam, ``epochs`` passes. With
    ``targets`` ((N, A) float32 value logits, a search teacher's ``target=values``,
    :func:`tabletop_core.train.teacher.value_logits`) the cross-entropy is instead to
    ``softmax(own + targets)``, ``own`` the actor's masked logits before this fit: its
    own policy, reweighted by the search's values (MPO's and AWR's improvement step).

    Returns:
        ``{"epoch", "loss", "accuracy"}`` of the last epoch: its mean loss and the share of
        rows whose argmax action is ``acts``.
    """
    device = next(agent.parameters()).device
    params = [*agent.trunk.parameters(), *agent.actor.parameters()]
    if agent.action_gain is not None:
        params.append(agent.action_gain)
    optim = torch.optim.Adam(params, lr=lr, eps=1e-5)
    gen = torch.Generator().manual_seed(seed)
    n = len(acts)
    if targets is not None:  # the improved policy: the actor's own, before this fit, times exp(values)
        targets = _improved(agent, xs, ms, targets, minibatch, device)
    out: dict[str, float] = {}
    for epoch in range(epochs):
        order = torch.randperm(n, generator=gen)
        total, hits = 0.0, 0
        for lo in range(0, n, minibatch):
            idx = order[lo : lo + minibatch]
            x, m, y = xs[idx].to(device), ms[idx].to(device), acts[idx].to(device)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
                logits = masked_logits(agent.actor_logits(x if bf16 else x.float()), m)
            if targets is None:
                loss = F.cross_entropy(logits.float(), y)
            else:
                t = targets[idx].to(device)
                logp = torch.log_softmax(logits.float(), dim=1)
                loss = -torch.where(t > 0, t * logp, torch.zeros_like(logp)).sum(dim=1).mean()
            optim.zero_grad(set_to_none=True)
            loss.backward()
            optim.step()
            total += loss.item() * len(idx)
            hits += int((logits.argmax(dim=1) == y).sum())
        out = {"epoch": epoch + 1, "loss": total / n, "accuracy": hits / n}
        if log is not None:
            log("imitate", samples=n, **tags, **out)
    return out


@torch.no_grad()
def _improved(agent: Agent, xs, ms, value_logits, minibatch: int, device) -> torch.Tensor:
    """(N, A) float32 ``softmax(own + value_logits)`` over the legal actions, ``own`` the
    actor's masked logits now."""
    out = torch.empty(value_logits.shape, dtype=torch.float32)
    for lo in range(0, len(xs), minibatch):
        x, m = xs[lo : lo + minibatch].to(device).float(), ms[lo : lo + minibatch].to(device)
        own = masked_logits(agent.actor_logits(x).float(), m)
        out[lo : lo + minibatch] = torch.softmax(
            own + value_logits[lo : lo + minibatch].to(device), dim=1
        ).cpu()
    return out


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
    rounds: int = 0,
    seat_groups: list[tuple[int, ...]] | None = None,
    clone_first: bool = True,
    on_round=None,
) -> dict[str, float]:
    """Train ``agent``'s actor to play as ``bot``: masked cross-entropy on the bot's own
    decisions in the seats of ``seat_groups`` (every seat where ``None``) of its games (unless ``clone_first`` is False: the actor already plays, e.g. from
    ``--init-policy``), then ``rounds`` DAgger rounds (:func:`collect_dagger` over
    ``seat_groups``), each ``samples`` positions trained ``epochs`` times.
    ``on_round(k)`` is called after round ``k`` (0: the cloning).

    Returns:
        ``{"samples", "epochs", "rounds", "loss", "accuracy", "seconds"}``: the last
        epoch's mean loss and share of demonstrations whose argmax action is the bot's.
    """
    t0 = time.perf_counter()

    def timed_log(kind, **fields):
        if log is not None:
            log(kind, bot=bot, seconds=time.perf_counter() - t0, **fields)

    out: dict[str, float] = {}
    if clone_first:
        seats = sorted({k for grp in seat_groups for k in grp}) if seat_groups else None
        xs, ms, acts = collect_demos(game, options, bot, samples, seed, seats=seats)
        out = fit_actor(agent, xs, ms, acts, epochs, seed, minibatch, lr, bf16, timed_log, round=0)
        del xs, ms, acts
        if on_round is not None:
            on_round(0)
    for k in range(1, rounds + 1):
        xs, ms, acts, agreement = collect_dagger(
            agent, game, options, bot, samples, seed + 1000 * k, seat_groups or [], bf16
        )
        timed_log("dagger", round=k, samples=len(acts), agreement=agreement)
        out = fit_actor(agent, xs, ms, acts, epochs, seed + k, minibatch, lr, bf16, timed_log, round=k)
        del xs, ms, acts
        if on_round is not None:
            on_round(k)
    out.update(samples=samples, epochs=epochs, rounds=rounds, seconds=time.perf_counter() - t0)
    return out
