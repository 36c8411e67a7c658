"""``tabletop train``: masked PPO on the vector env, the fast version of :mod:`~tabletop_core.train.ppo`.

:mod:`tabletop_core.train.ppo` is the reference, one file read like CleanRL's ``ppo.py``
(a config, a rollout with action masks, per-seat GAE, the clipped objective, the
minibatch loop). This trainer computes the same update (``tests/test_ppo_reference.py``)
with opponents, reward normalisation and timing around it; each faster step names the
function of the reference it optimizes. What is built for these envs:

* **Rollout.** Thousands of envs. The envs run with ``copy=False``; their observation,
  mask, reward, termination and acting-seat buffers are wrapped once by
  ``torch.from_numpy`` and rewritten in place by every step, so a step's only copy is
  the one into the rollout storage the update reads. Masked sampling is compiled on the
  CPU (:func:`~tabletop_core.train.sample.masked_sample`, inverse CDF over the legal
  actions) and Gumbel-max on a GPU (:func:`~tabletop_core.train.model.masked_gumbel_sample`).
* **Opponents** (:mod:`tabletop_core.train.opponents`). The envs are split between
  self-play (one :class:`~tabletop_core.envs.vector.SelfPlayVectorEnv`, the learner acting for
  whichever seat is to move; league envs share it, a snapshot acting for the seats the
  learner does not hold) and scripted bots (the game's learner kernels: the bots' turns
  run inside compiled code).
* **Update**, each step an optimization of :func:`ppo.ppo_step
  <tabletop_core.train.ppo.ppo_step>`: on the CPU with Adam, the network's forward and
  backward written out without autograd, in bfloat16
  (:class:`~tabletop_core.train.fused.FusedStep`) or float32
  (:class:`~tabletop_core.train.plain.PlainStep`); with ``--optimizer muon`` autograd
  takes the backward from the loss's gradient, computed in one compiled pass
  (:meth:`Trainer._ppo_step_compiled`, :func:`~tabletop_core.train.loss.ppo_loss_grad`);
  on a GPU the reference's loss over the legal actions' logits
  (:meth:`Trainer._ppo_step_torch`).
* **Credit** per seat (:func:`~tabletop_core.train.advantages.seat_advantages`); a
  cooperative game's team is credited as one chain, as the learner views do.
* **Threads.** torch's intra-op threads take the cores (``--threads``, default every
  core), the env steps on one numba thread (``--env-threads 1``): the env's share of the
  wall time is small, and two spin-waiting OpenMP pools (numba's and torch's) on the same
  cores slow each other (``docs/training.md``).
* **Time split.** Every phase is timed (env stepping, inference, update, plumbing: the
  rest), logged per update and summed in the final record.

Outputs in ``--out``: ``imitated.npz`` (with ``--imitate``: the cloned actor before PPO),
``policy.npz`` (:class:`~tabletop_core.agents.policy.MLPPolicy`, so
``tabletop match --bots policy:FILE`` plays it), ``checkpoint.pt`` (``--resume``),
``log.jsonl``, ``curve.png`` and ``summary.json``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
import warnings
from typing import BinaryIO, NamedTuple

import numpy as np
import torch
from torch import nn

from tabletop_core.agents.baseline import baseline_policy
from tabletop_core.agents.policy import MLPPolicy
from tabletop_core.envs.single_agent import LearnerCore
from tabletop_core.envs.vector import SelfPlayVectorEnv, available_cores
from tabletop_core.kernel.jit import shards
from tabletop_core.kernel.rng import stream_seed, stream_words
from tabletop_core.train import ppo
from tabletop_core.train.adam import compiled_step
from tabletop_core.train.advantages import seat_advantages
from tabletop_core.train.config import ConfigError, TrainConfig, cpu_bf16_unit, load_init_policy, validate
from tabletop_core.train.fused import FusedStep
from tabletop_core.train.loss import minibatch_loss_grad
from tabletop_core.train.model import (
    ACTION_GAIN_SCALE,
    NEG,
    Agent,
    ObservationRows,
    masked_gumbel_sample,
    model_flops_per_sample,
    piece_values_at,
)
from tabletop_core.train.muon import Muon
from tabletop_core.train.opponents import (
    POLICY_ENTRIES,
    League,
    default_opponents,
    parse_opponents,
    parse_seats,
    split_envs,
)
from tabletop_core.train.plain import PlainStep
from tabletop_core.train.sample import legal_index, masked_sample, max_legal, sample_legal_dots
from tabletop_core.train.sparse import SPARSE_DENSITY, SPARSE_OVER_BF16, SparseRows, density

__all__ = ["TrainConfig", "Trainer"]


def default_threads() -> int:
    """torch threads when ``--threads`` is not given: the cores that the 1-minute load
    average leaves idle, at least one (``cores - floor(load)``): every core on an idle
    machine, one on a 2-core machine with one busy process, 15 of 16 beside one. Measured
    on 2 cores: with other busy processes on them, a second torch thread ran the update at
    0.6-1.2x of one thread (and a spin-waiting one at 0.1x). torch's float32 sums differ in
    their last bits with the thread count: pass ``--threads`` for bit-identical reruns.
    The load is the whole machine's, the cores this process's (its affinity): pinned to
    a few cores of a busy machine, pass ``--threads``."""
    cores = available_cores()
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    return max(1, cores - math.floor(load))


# --- env groups ------------------------------------------------------------------------------
class _Group:
    """Rows ``lo:hi`` of the batch, stepped by one env object; numpy buffers rewritten in
    place by each step, wrapped once as tensors (no per-step conversion)."""

    lo: int
    hi: int
    obs: np.ndarray
    mask: np.ndarray
    rewards: np.ndarray
    term: np.ndarray
    cur: np.ndarray

    def wrap(self):
        with warnings.catch_warnings():  # read-only views of the env buffers: we only read
            warnings.simplefilter("ignore", UserWarning)
            self.obs_t = torch.from_numpy(self.obs)
            self.mask_t = torch.from_numpy(self.mask)


SELF = -1  # a self-play env's opponent id (League.sample's "no snapshot yet" too)
BASELINE = -2  # a baseline env's opponent id


class _SelfPlayGroup(_Group):
    """Self-play and league envs: a :class:`SelfPlayVectorEnv` (``copy=False``)."""

    def __init__(self, game, n, lo, league_rows, baseline_rows, seed, env_threads, options, rng, seat_groups):
        self.venv = SelfPlayVectorEnv(
            game, n, seed=seed, copy=False, num_threads=min(env_threads, n), **options
        )
        self.lo, self.hi, self.n = lo, lo + n, n
        self.num_players = self.venv.num_players
        self.venv.reset(seed=seed)
        v = self.venv
        self.obs, self.mask, self.rewards, self.term, self.cur = v._obs, v._mask, v._rewards, v._term, v._cur
        # league: envs [n - league_rows, n) hold a snapshot in the seats the learner does not
        self.league = np.zeros(n, np.bool_)
        self.league[n - league_rows :] = True
        # baseline: envs [n - league_rows - baseline_rows, n - league_rows) hold the shipped baseline
        self.baseline = np.zeros(n, np.bool_)
        self.baseline[n - league_rows - baseline_rows : n - league_rows] = True
        self.opp = np.full(n, SELF, np.int64)  # snapshot id per env, SELF: self-play, BASELINE
        self.seat = np.zeros(n, np.int64)  # the learner's (first) seat in a league env
        self.held = np.zeros(n, np.int64)  # the learner's seats in a league env, as a bit set
        self.seat_groups = seat_groups
        self.first = np.array([grp[0] for grp in seat_groups], np.int64)
        self.bits = np.array([sum(1 << k for k in grp) for grp in seat_groups], np.int64)
        self.rng = rng
        self.wrap()

    def resample(self, rows: np.ndarray, league: League) -> None:
        base = rows[self.baseline[rows]]
        rows = rows[self.league[rows]]
        if rows.size:
            self.opp[rows] = league.sample(self.rng, rows.size)
            pick = self.rng.integers(0, len(self.seat_groups), rows.size)
            self.seat[rows], self.held[rows] = self.first[pick], self.bits[pick]
        if base.size:
            self.opp[base] = BASELINE
            pick = self.rng.integers(0, len(self.seat_groups), base.size)
            self.seat[base], self.held[base] = self.first[pick], self.bits[pick]

    def learner_acts(self) -> np.ndarray:
        return (self.opp == SELF) | (((self.held >> self.cur) & 1) != 0)

    def step(self, actions: np.ndarray) -> None:
        self.venv.step(actions)


class _BotGroup(_Group):
    """Envs against a scripted bot: the game's learner kernels (bots inside compiled code)."""

    def __init__(self, game, n, lo, bot, seats, seed, options):
        lineup = bot.split("+") if "+" in bot else bot  # one bot per other seat, in order
        self.core = LearnerCore(game, n, None if game.cooperative else seats, lineup, options)
        self.lo, self.hi, self.n, self.bot = lo, lo + n, n, bot
        self.first_seat = self.core.seats[0]
        self.core.reset([seed + k for k in range(n)])
        c = self.core
        self.obs, self.mask, self.rewards, self.term, self.cur = c.obs, c.mask, c.rewards, c.term, c.cur
        self.wrap()

    def step(self, actions: np.ndarray) -> None:
        self.core.step(actions, autoreset=True)


class _RunningStd:
    """Running variance of the learner's discounted return (gymnasium's NormalizeReward):
    rewards are divided by its standard deviation before the advantages."""

    def __init__(self, num_envs: int, gamma: float):
        self.ret = np.zeros(num_envs, np.float64)
        self.gamma, self.count, self.mean, self.var = gamma, 1e-4, 0.0, 1.0

    def update(self, rewards: np.ndarray, dones: np.ndarray) -> None:
        for t in range(rewards.shape[0]):
            self.ret = self.ret * self.gamma + rewards[t]
            x = self.ret
            bm, bv, bc = x.mean(), x.var(), x.size
            delta, tot = bm - self.mean, self.count + bc
            self.mean += delta * bc / tot
            self.var = (self.var * self.count + bv * bc + delta**2 * self.count * bc / tot) / tot
            self.count = tot
            self.ret[dones[t]] = 0.0

    @property
    def std(self) -> float:
        return float(np.sqrt(self.var + 1e-8))


# --- the trainer -----------------------------------------------------------------------------
class _Batch(NamedTuple):
    """A rollout's valid transitions, flat, for :meth:`Trainer._optimise`: ``M`` samples."""

    obs: torch.Tensor  # the rollout's observations, every transition, flat (T * N, D): no copy
    sample_rows: torch.Tensor | None  # each sample's row of obs (M,), None where M = T * N
    lidx: torch.Tensor  # the legal actions' indices, padded (M, K)
    lbias: torch.Tensor  # 0 on a legal action, NEG on the padding (M, K)
    lpos: torch.Tensor  # the taken action's position among the legal ones (M,)
    old_logp: torch.Tensor
    advs: torch.Tensor
    rets: torch.Tensor
    listed: SparseRows | None  # obs's nonzero entries, listed once for the sparse first layer
    piece_values: torch.Tensor | None  # the action pieces' entries at lidx (M, J, K)

    @property
    def size(self) -> int:
        """The number of samples ``M``."""
        return int(self.lidx.shape[0])

    def rows(self, idx: torch.Tensor) -> ObservationRows:
        """The observations of samples ``idx`` ((N,) int64), read in place."""
        rows = idx if self.sample_rows is None else self.sample_rows.index_select(0, idx)
        return ObservationRows(self.obs, rows, self.listed, self.piece_values, idx)


class Trainer:
    """Build everything for a run from a :class:`TrainConfig` (validated first), then
    :meth:`run` it. Exposed for tests and benchmarks (:meth:`collect`, :meth:`update`)."""

    def __init__(self, cfg: TrainConfig):
        self.cfg = cfg
        self.game, self.options = validate(cfg)
        self.opts = dataclasses.asdict(self.options) if dataclasses.is_dataclass(self.options) else {}
        self.game_options = {k: v for k, v in cfg.options.items()}
        game = self.game
        self.agents = list(game.agents(self.options))
        self.num_players = p = len(self.agents)
        self.device = torch.device(cfg.device)
        threads = cfg.threads or default_threads()
        torch.set_num_threads(threads)
        self.threads = threads
        torch.manual_seed(cfg.seed)
        self.gen = torch.Generator(device=self.device).manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.mix = parse_opponents(cfg.opponents or default_opponents(game), game)
        counts = dict(split_envs(cfg.num_envs, self.mix, p))
        self.seat_groups = parse_seats(cfg.seats, list(game.agents(self.options)), game.cooperative)
        # float32 on a CPU: the head computes only the legal logits and the value (sampler
        # and update), not all A + 1 outputs
        self._build_envs(counts)
        start_density = self._start_density()
        self.bf16 = self._choose_bf16(start_density)
        self.legal_dots = self.device.type == "cpu" and not self.bf16
        self._build_model()
        # float32 on a CPU, observations mostly zeros: the first layer reads the nonzeros
        self.agent.sparse_input = self.legal_dots and start_density <= SPARSE_DENSITY
        self._allocate_storage()
        # each rollout step's listing of the observations' nonzero entries, made for the
        # step's inference and stacked for the update (sparse first layer only)
        self.step_listings: list[SparseRows | None] = [None] * cfg.rollout
        self._warm_kernels()
        self.flops_per_sample = model_flops_per_sample(self.obs_dim, self.num_actions, cfg.hidden)
        self.flops_per_update_sample = model_flops_per_sample(
            self.obs_dim, self.num_actions, cfg.hidden, update=True
        )
        self.flops = {"inference": 0.0, "update": 0.0}  # FLOPs computed (bench: MFU)
        self.samples = {"inference": 0, "update": 0}  # forward passes of one observation

    def _build_envs(self, counts: dict[str, int]) -> None:
        """The env groups: one self-play vector env (self + league rows), one learner core
        per bot x seat group; rows ``[lo, hi)`` of the batch each."""
        cfg, game = self.cfg, self.game
        n_self, n_league = counts.get("self", 0), counts.get("league", 0)
        n_base = counts.get("baseline", 0)
        self.groups: list[_Group] = []
        lo = 0
        self.selfplay: _SelfPlayGroup | None = None
        if n_self + n_base + n_league:
            self.selfplay = _SelfPlayGroup(
                game,
                n_self + n_base + n_league,
                0,
                n_league,
                n_base,
                cfg.seed,
                cfg.env_threads,
                self.game_options,
                self.rng,
                self.seat_groups,
            )
            self.groups.append(self.selfplay)
            lo = self.selfplay.hi
        for name, c in counts.items():
            if name in POLICY_ENTRIES:
                continue
            k = len(self.seat_groups)
            for j, seats in enumerate(self.seat_groups):
                n = c // k + (1 if j < c % k else 0)
                g = _BotGroup(game, n, lo, name, seats, cfg.seed + 7_919 * (lo + 1), self.game_options)
                self.groups.append(g)
                lo = g.hi
        self.num_envs = lo
        self.league = League(cfg.league_size)
        if self.selfplay is not None:
            self.selfplay.resample(np.arange(self.selfplay.n), self.league)

    def _choose_bf16(self, rho: float) -> bool:
        """``--bf16``: ``on``, ``off``, or ``auto``: bf16 on a CPU with AMX; on one with
        AVX512-BF16 only, bf16 unless the dense network's FLOPs are at least
        :data:`~tabletop_core.train.sparse.SPARSE_OVER_BF16` times those of the float32
        path with its sparse first layer, on the first observations (``rho`` of their
        entries nonzero); float32 elsewhere (``docs/training.md``, "The dtype ``--bf16
        auto`` picks")."""
        cfg = self.cfg
        if cfg.bf16 != "auto":
            return cfg.bf16 == "on"
        unit = cpu_bf16_unit() if self.device.type == "cpu" else None
        if unit != "avx512":
            return unit == "amx"
        if rho > SPARSE_DENSITY:
            return True
        d, a = self.game.observation_layout(self.options).dim, self.game.num_actions
        dense = model_flops_per_sample(d, a, cfg.hidden)
        return dense < SPARSE_OVER_BF16 * model_flops_per_sample(d, a, cfg.hidden, input_nonzeros=rho * d)

    def _start_density(self) -> float:
        """The fraction of nonzero entries in the envs' first observations."""
        return density(np.concatenate([g.obs_t.numpy().reshape(-1) for g in self.groups]))

    def _build_model(self) -> None:
        """The agent (from ``--init-policy`` where given) and its optimiser."""
        cfg, game = self.cfg, self.game
        d = game.observation_layout(self.options).dim
        a = game.num_actions
        self.obs_dim, self.num_actions = d, a
        self.agent = (
            Agent(d, a, cfg.hidden, cfg.activation, game.action_inputs(self.options))
            .to(self.device)
            .fuse(self.bf16 and self.device.type == "cpu")
        )
        if cfg.init_policy is not None and not cfg.resume:
            init = load_init_policy(cfg.init_policy, game, self.options, cfg.hidden, cfg.activation)
            linears = [m for m in self.agent.trunk if isinstance(m, nn.Linear)] + [self.agent.actor]
            with torch.no_grad():
                for k, (lin, (w, b)) in enumerate(zip(linears, init["layers"])):
                    if k == 0 and init["scale"] is not None:  # fold the observation scale in
                        w = w * init["scale"][:, None]
                    lin.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
                    lin.bias.copy_(torch.from_numpy(b))
                if init["action_inputs"] == self.agent.action_inputs and init["action_inputs"]:
                    self.agent.action_gain.copy_(torch.from_numpy(init["action_gain"] / ACTION_GAIN_SCALE))
        # fused Adam: one kernel over all parameters, not one per parameter tensor; with
        # --optimizer muon the hidden layers' weights go to Muon and Adam keeps the rest
        params = list(self.agent.parameters())
        self.muon: Muon | None = None
        if cfg.optimizer == "muon":
            hidden = [m.weight for m in self.agent.trunk if isinstance(m, nn.Linear)]
            self.muon = Muon(hidden, lr=cfg.lr)
            params = [p for p in params if all(p is not w for w in hidden)]
        self.optim = torch.optim.Adam(params, lr=cfg.lr, eps=1e-5, fused=self.device.type in ("cpu", "cuda"))
        # the CPU step without autograd, bfloat16 or float32 (Adam only: Muon steps from p.grad)
        self.cpu_step: FusedStep | PlainStep | None = None
        if self.muon is None and self.device.type == "cpu":
            if self.agent.fused:
                self.cpu_step = FusedStep(self.agent)
            elif not self.bf16:  # float32 (bfloat16 without oneDNN's linear runs under autocast)
                self.cpu_step = PlainStep(self.agent)

    def _allocate_storage(self) -> None:
        """The rollout buffers and the run's counters."""
        cfg = self.cfg
        t, n, d, a, p = cfg.rollout, self.num_envs, self.obs_dim, self.num_actions, self.num_players
        dev = self.device
        # bf16 autocast casts a linear layer's input to bf16 anyway: storing the observations
        # as bf16 is the same computation with half the bytes to copy and gather
        self.obs_buf = torch.zeros(
            (t, n, d), device=dev, dtype=torch.bfloat16 if self.bf16 else torch.float32
        )
        self.mask_buf = torch.zeros((t, n, a), dtype=torch.bool, device=dev)
        self.act_buf = torch.zeros((t, n), dtype=torch.long, device=dev)
        self.logp_buf = torch.zeros((t, n), device=dev)
        self.val_buf = np.zeros((t, n), np.float32)
        self.rew_buf = np.zeros((t, n, p), np.float32)
        self.done_buf = np.zeros((t, n), np.bool_)
        self.seat_buf = np.zeros((t, n), np.int64)
        self.sample_rng = stream_words(cfg.seed, "sampler", n)
        self.reward_std = _RunningStd(n, cfg.gamma)
        self.ep_ret = np.zeros(n, np.float64)
        self.finished: list[float] = []
        self.global_step = 0
        self.update_idx = 0
        self.seconds = {"env": 0.0, "inference": 0.0, "update": 0.0, "plumbing": 0.0}
        self.train_seconds = 0.0
        self.teacher_rounds = 0  # a search teacher's finished rounds (tabletop_core.train.teacher)
        self._snap_models: dict[int, Agent] = {}

    def _warm_kernels(self) -> None:
        """Compile (or load from numba's cache) the rollout's and the update's kernels before
        any timing."""
        p, a = self.num_players, self.num_actions
        seat_advantages(
            np.zeros((1, 1, p), np.float32),
            np.zeros((1, 1), np.float32),
            np.zeros((1, 1), np.int64),
            np.zeros((1, 1), np.bool_),
            np.zeros(1, np.float32),
            np.zeros(1, np.int64),
            0.9,
            0.9,
        )
        masked_sample(
            np.zeros((1, a), np.float32),
            np.ones((1, a), np.bool_),
            np.ones(1, np.uint64),
            np.zeros(1, np.int64),
            np.zeros(1, np.float32),
            np.zeros((1, 0), np.float32),
        )
        if self.legal_dots:
            sample_legal_dots(
                shards(1, 1),
                np.zeros((1, 2), np.float32),
                np.zeros((a + 1, 2), np.float32),
                np.zeros(a + 1, np.float32),
                np.zeros((1, 1), np.float32),
                np.ones((1, a), np.bool_),
                np.ones(1, np.uint64),
                np.zeros(1, np.int64),
                np.zeros(1, np.float32),
                np.zeros(1, np.float32),
            )
            # the network's own kernels (head, sparse first layer), forward and backward
            obs = torch.zeros((2, self.obs_dim))
            obs[:, 0] = 1.0
            logits, value = self.agent.legal_forward(obs, torch.zeros((2, 1), dtype=torch.long))
            (logits.sum() + value.sum()).backward()
            self.agent.zero_grad(set_to_none=True)

    # --- helpers -------------------------------------------------------------------------------
    def _autocast(self):
        return torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.bf16)

    def _chain_seat(self) -> tuple[np.ndarray, np.ndarray]:
        """Per env: the learner chain of the current observation (-1: a snapshot acts),
        and whether the learner acts."""
        n = self.num_envs
        seat = np.empty(n, np.int64)
        for g in self.groups:
            rows = slice(g.lo, g.hi)
            if isinstance(g, _SelfPlayGroup):
                acts = g.learner_acts()
                chain = np.zeros(g.n, np.int64) if self.game.cooperative else g.cur.copy()
                seat[rows] = np.where(acts, chain, -1)
            else:  # the learner is to act in every bot env: the chain is the acting seat
                seat[rows] = 0 if self.game.cooperative else g.cur
        return seat, seat >= 0

    def _reward_column(self) -> np.ndarray:
        """Per env, the seat whose return the progress bar shows (the learner's seat; seat 0
        in self-play)."""
        col = np.zeros(self.num_envs, np.int64)
        for g in self.groups:
            if isinstance(g, _SelfPlayGroup):
                col[g.lo : g.hi] = np.where(g.opp != SELF, g.seat, 0)
            elif not self.game.cooperative:
                col[g.lo : g.hi] = g.first_seat
        return col

    def _baseline_actions(self, obs: torch.Tensor, masks: np.ndarray, cur: np.ndarray) -> torch.Tensor:
        """Greedy actions of the shipped baseline for the rows ``obs`` (its seat's policy
        per row: Exit Now's human and ghost seats may have their own)."""
        x = obs.float().cpu().numpy()
        out = np.zeros(len(cur), np.int64)
        for k in np.unique(cur):
            r = np.flatnonzero(cur == k)
            pol = baseline_policy(self.game, int(k), **self.game_options)
            out[r] = pol(x[r], masks[r])
        return torch.from_numpy(out).to(self.device)

    def _snapshot_model(self, sid: int) -> Agent:
        m = self._snap_models.get(sid)
        if m is None:
            m = Agent(
                self.obs_dim, self.num_actions, self.cfg.hidden, self.cfg.activation, self.agent.action_inputs
            ).to(self.device)
            m.load_state_dict(self.league.snapshots[sid][1])
            m.eval().fuse(self.agent.fused)
            m.sparse_input = self.agent.sparse_input
            self._snap_models[sid] = m
        return m

    def _act(self, model: Agent, obs: torch.Tensor, t: int, rows) -> tuple[torch.Tensor, ...]:
        """``(actions, log-probabilities, values)`` of ``model`` on ``obs``, rows ``rows``
        of step ``t``: on the float32 CPU path from the legal logits alone
        (:func:`~tabletop_core.train.sample.sample_legal_dots`), else the whole head and
        :meth:`_sample`."""
        if not self.legal_dots:
            with self._autocast():
                if self.device.type != "cpu":
                    logits, value = model(obs)
                    return (*self._sample(logits, t, rows), value)
                logits, value = model.head_forward(obs)  # the term added at the legal actions
                term = model.action_term(obs)
            return (*self._sample(logits, t, rows, term), value)
        whole = isinstance(rows, slice)
        x: torch.Tensor | ObservationRows = obs
        if whole and model is self.agent and model.sparse_input and obs.dtype == torch.float32:
            listed = SparseRows(obs.numpy(), torch.get_num_threads())
            self.step_listings[t] = listed
            x = ObservationRows(obs, torch.arange(obs.shape[0]), listed)
        z, w, b = model.features_and_head(x)
        n = z.shape[0]
        with torch.no_grad():
            term = model.action_term(obs)
        extra = np.zeros((n, 0), np.float32) if term is None else term.contiguous().numpy()
        actions, logp, value = torch.empty(n, dtype=torch.long), torch.empty(n), torch.empty(n)
        mask = self.mask_buf[t].numpy() if whole else self.mask_buf[t].numpy()[rows]
        rng = self.sample_rng if whole else self.sample_rng[rows]
        legal = sample_legal_dots(
            shards(n, self.threads),
            z.numpy(),
            w.numpy(),
            b.numpy(),
            extra,
            mask,
            rng,
            actions.numpy(),
            logp.numpy(),
            value.numpy(),
        )
        if not whole:
            self.sample_rng[rows] = rng
        trunk = model_flops_per_sample(
            self.obs_dim, self.num_actions, self.cfg.hidden, 0, self._input_nonzeros(model, n)
        )
        self.flops["inference"] += trunk * n + 2 * z.shape[1] * (legal + n)
        return actions, logp, value

    def _sample(
        self, logits: torch.Tensor, t: int, rows, term: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked sample of rows ``rows`` of step ``t``: compiled on the CPU (inverse CDF
        over the legal actions, a generator word per env, the action pieces' ``term``
        (N, E) added at the legal actions), torch on a GPU (``term`` already in the
        logits)."""
        if self.device.type != "cpu":
            return masked_gumbel_sample(logits, self.mask_buf[t, rows], self.gen)
        if logits.dtype == torch.bfloat16:  # read in place as bits (masked_sample)
            lg = logits.view(torch.int16).numpy()
        else:
            lg = np.ascontiguousarray(logits.float().numpy())
        n = lg.shape[0]
        extra = np.zeros((n, 0), np.float32) if term is None else np.ascontiguousarray(term.float().numpy())
        whole = isinstance(rows, slice)
        mask = self.mask_buf[t].numpy() if whole else self.mask_buf[t].numpy()[rows]
        rng = self.sample_rng if whole else self.sample_rng[rows]
        actions = torch.empty(n, dtype=torch.long)
        logp = torch.empty(n, dtype=torch.float32)
        # one thread: numba's OpenMP team, spinning after a parallel sampler, slowed the
        # torch operations that follow it
        masked_sample(lg, mask, rng, actions.numpy(), logp.numpy(), extra)
        if not whole:
            self.sample_rng[rows] = rng
        return actions, logp

    # --- rollout -------------------------------------------------------------------------------
    @torch.no_grad()
    def collect(self) -> None:
        """Play ``rollout`` vector steps in every env, filling the rollout storage."""
        tick = time.perf_counter
        sec = self.seconds
        agent = self.agent
        col_cache = None
        self.step_listings = [None] * self.cfg.rollout
        for t in range(self.cfg.rollout):
            t0 = tick()
            for g in self.groups:
                self.obs_buf[t, g.lo : g.hi].copy_(g.obs_t, non_blocking=True)
                self.mask_buf[t, g.lo : g.hi].copy_(g.mask_t, non_blocking=True)
            seat, learner = self._chain_seat()
            self.seat_buf[t] = seat
            t1 = tick()
            actions, logp, value = self._act(agent, self.obs_buf[t], t, slice(None))
            if not learner.all():  # league snapshots and the baseline act for their seats
                self._others_act(actions, np.flatnonzero(~learner), t)
            self.act_buf[t] = actions
            self.logp_buf[t] = logp
            self.val_buf[t] = value.float().cpu().numpy()
            acts = actions.numpy() if self.device.type == "cpu" else actions.cpu().numpy()
            t2 = tick()
            for g in self.groups:
                g.step(acts[g.lo : g.hi])
            t3 = tick()
            for g in self.groups:
                self.rew_buf[t, g.lo : g.hi] = g.rewards
                self.done_buf[t, g.lo : g.hi] = g.term
            col_cache = self._end_episodes(t, col_cache)
            self.global_step += self.num_envs
            t4 = tick()
            sec["plumbing"] += (t1 - t0) + (t4 - t3)
            sec["inference"] += t2 - t1
            sec["env"] += t3 - t2
        self.samples["inference"] += self.num_envs * self.cfg.rollout
        if not self.legal_dots:
            self.flops["inference"] += self.flops_per_sample * self.num_envs * self.cfg.rollout

    def _others_act(self, actions: torch.Tensor, rows: np.ndarray, t: int) -> None:
        """Write into ``actions`` (N,) the moves of the league snapshots and the baseline
        at ``rows`` (the self-play envs of step ``t`` where the learner does not act)."""
        sp = self.selfplay
        ids = sp.opp[rows - sp.lo]
        for sid in np.unique(ids):
            r = rows[ids == sid]
            rt = torch.from_numpy(r).to(self.device)
            if sid == BASELINE:
                actions[rt] = self._baseline_actions(
                    self.obs_buf[t, rt], self.mask_buf[t, rt].cpu().numpy(), sp.cur[r - sp.lo]
                )
            else:
                actions[rt] = self._act(self._snapshot_model(int(sid)), self.obs_buf[t, rt], t, r)[0]

    def _end_episodes(self, t: int, col_cache: np.ndarray | None) -> np.ndarray | None:
        """Step ``t``'s rewards into the running returns (the seat of ``col_cache``,
        :meth:`_reward_column`, made when None); the ended episodes' returns into
        ``finished`` and their self-play envs' opponents drawn again. Returns the
        column, or None where a draw changed it."""
        if col_cache is None:
            col_cache = self._reward_column()
        self.ep_ret += self.rew_buf[t, np.arange(self.num_envs), col_cache]
        done = self.done_buf[t]
        if done.any():
            ended = np.flatnonzero(done)
            self.finished.extend(self.ep_ret[ended].tolist())
            self.ep_ret[ended] = 0.0
            if self.selfplay is not None:
                sp = ended[(ended >= self.selfplay.lo) & (ended < self.selfplay.hi)] - self.selfplay.lo
                self.selfplay.resample(sp, self.league)
                col_cache = None
        return col_cache

    # --- update --------------------------------------------------------------------------------
    def update(self, lr: float | None = None) -> dict[str, float]:
        """One PPO update on the stored rollout; returns the losses."""
        tick = time.perf_counter
        t0 = tick()
        batch = self._rollout_batch()
        t1 = tick()
        if lr is not None:
            for opt in self._optimizers():
                opt.param_groups[0]["lr"] = lr
        stats, count = self._optimise(self._read_once(batch))
        t2 = tick()
        self.seconds["plumbing"] += t1 - t0
        self.seconds["update"] += t2 - t1
        self.update_idx += 1
        out = {k: v / max(count, 1) for k, v in stats.items()}
        out["samples"] = batch.size
        return out

    def _advantages(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rollout's per-seat GAE advantages, returns and valid transitions (rewards
        scaled by their running std with ``normalize_rewards``)."""
        cfg = self.cfg
        with torch.no_grad(), self._autocast():
            _, last_value = self.agent(
                torch.from_numpy(np.concatenate([g.obs for g in self.groups])).to(self.device)
            )
        last_seat, _ = self._chain_seat()
        rewards = self.rew_buf
        if cfg.normalize_rewards:
            col = self._reward_column()
            self.reward_std.update(rewards[:, np.arange(self.num_envs), col], self.done_buf)
            rewards = rewards / np.float32(self.reward_std.std)
        adv, valid = seat_advantages(
            rewards,
            self.val_buf,
            self.seat_buf,
            self.done_buf,
            last_value.float().cpu().numpy(),
            last_seat,
            cfg.gamma,
            cfg.gae_lambda,
        )
        return adv, adv + self.val_buf, valid

    def _legal_actions(self, mask: torch.Tensor, act: torch.Tensor):
        """The loss needs only the legal actions' logits (The Game: at most 29 of 393): a
        padded list of them per sample makes the softmax, entropy and their gradients work
        on (mb, K) instead of (mb, A). Returns their indices, the padding's bias and the
        taken action's position in the list."""
        mask_np, act_np = mask.cpu().numpy(), act.cpu().numpy()
        width = max(1, int(max_legal(mask_np)))
        lidx = np.empty((mask_np.shape[0], width), np.int64)
        lvalid = np.empty((mask_np.shape[0], width), np.bool_)
        lpos = np.empty(mask_np.shape[0], np.int64)
        legal_index(mask_np, act_np, width, lidx, lvalid, lpos)
        lidx = torch.from_numpy(lidx).to(self.device)
        # padding is masked by adding NEG: cheaper than torch.where forward and backward
        lbias = torch.from_numpy(np.where(lvalid, np.float32(0.0), np.float32(NEG))).to(self.device)
        lpos = torch.from_numpy(lpos).to(self.device)
        return lidx, lbias, lpos

    def _rollout_batch(self) -> _Batch:
        """The rollout's valid transitions as one flat batch for the PPO epochs."""
        adv, ret, valid = self._advantages()
        keep = torch.from_numpy(valid.reshape(-1)).to(self.device)
        t_len, n = self.val_buf.shape

        def kept(x: torch.Tensor) -> torch.Tensor:  # no copy when every transition is valid
            x = x.view(t_len * n, *x.shape[2:])
            return x if all_valid else x[keep]

        all_valid = bool(valid.all())
        obs = self.obs_buf.view(t_len * n, -1)  # read in place through sample_rows: often GBs
        sample_rows = (
            None if all_valid else torch.from_numpy(np.flatnonzero(valid.reshape(-1))).to(self.device)
        )
        mask, act = kept(self.mask_buf), kept(self.act_buf)
        lidx, lbias, lpos = self._legal_actions(mask, act)
        old_logp = kept(self.logp_buf)
        advs = kept(torch.from_numpy(adv).to(self.device))
        rets = kept(torch.from_numpy(ret).to(self.device))
        return _Batch(obs, sample_rows, lidx, lbias, lpos, old_logp, advs, rets, None, None)

    def _read_once(self, batch: _Batch) -> _Batch:
        """``batch`` with what every minibatch reads computed once: the nonzero entries of
        the observations where the first layer is sparse, and the action pieces' entries
        at the legal actions (the network's own work, timed with the update)."""
        obs, agent = batch.obs, self.agent
        listed = None
        if agent.sparse_input and not agent.fused and obs.dtype == torch.float32 and obs.device.type == "cpu":
            listed = self._rollout_listing(obs)
        inputs = agent.action_inputs
        pieces = piece_values_at(obs, batch.lidx, inputs, batch.sample_rows) if inputs else None
        return batch._replace(listed=listed, piece_values=pieces)

    def _rollout_listing(self, obs: torch.Tensor) -> SparseRows:
        """The update's listing of ``obs`` (the rollout storage, (T * N, D) float32), with
        its common row: the steps' inference listings stacked where ``obs`` is the whole
        storage and every step was listed (the same entries, without reading the storage
        again), else a new listing."""
        steps, threads = self.step_listings, torch.get_num_threads()
        whole = obs.data_ptr() == self.obs_buf.data_ptr() and obs.numel() == self.obs_buf.numel()
        if whole and all(s is not None for s in steps):
            return SparseRows.stacked(steps, threads, common_row=True)  # type: ignore[arg-type]
        return SparseRows(obs.numpy(), threads, common_row=True)

    def _legal_forward(self, batch: _Batch, idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The logits of minibatch ``idx``'s legal actions (N, K) and its values (N,)."""
        with self._autocast():
            return self.agent.legal_forward(batch.rows(idx), batch.lidx.index_select(0, idx))

    def _ppo_step_torch(self, batch: _Batch, idx: torch.Tensor) -> tuple[float, ...]:
        """Optimization of :func:`ppo.ppo_step <tabletop_core.train.ppo.ppo_step>` (the
        trainer's step on a GPU): same update, faster because the head computes the logits
        of each sample's legal actions alone (``Agent.legal_forward``) and the softmax, the
        entropy and their gradients run over those K columns (padded with ``NEG``) instead
        of all A. The loss is :func:`ppo.ppo_loss <tabletop_core.train.ppo.ppo_loss>` itself.
        Returns the pg loss, value loss, entropy, approx KL and clip fraction."""
        cfg = self.cfg
        legal_logits, value = self._legal_forward(batch, idx)
        loss, stats = ppo.ppo_loss(
            legal_logits.float() + batch.lbias.index_select(0, idx),
            value.float(),
            batch.lpos.index_select(0, idx),
            batch.old_logp.index_select(0, idx),
            batch.advs.index_select(0, idx),
            batch.rets.index_select(0, idx),
            cfg.clip,
            cfg.vf_coef,
            cfg.ent_coef,
        )
        self._zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.agent.parameters(), cfg.max_grad_norm)
        for opt in self._optimizers():
            opt.step()
        return tuple(stats.tolist())

    def _ppo_step_compiled(self, batch: _Batch, idx: torch.Tensor) -> tuple[float, ...]:
        """Optimization of :func:`ppo.ppo_step <tabletop_core.train.ppo.ppo_step>` (the
        trainer's step on a CPU with ``--optimizer muon``, or bfloat16 without oneDNN's
        fused linear): same update, faster because, beside :meth:`_ppo_step_torch`'s legal
        columns, the loss and its gradient with respect to the logits and values come from
        one compiled pass (:func:`~tabletop_core.train.loss.ppo_loss_grad`) handed to
        autograd for the network's backward, and the clipping and Adam's step from another
        (:func:`~tabletop_core.train.adam.compiled_step`)."""
        cfg = self.cfg
        out = self._autograd_gradients(batch, idx)
        if self.muon is None:
            compiled_step(self.optim, cfg.max_grad_norm)  # clip_grad_norm_ and Adam's step
        else:  # the clipping is over every parameter, Muon's and Adam's
            nn.utils.clip_grad_norm_(self.agent.parameters(), cfg.max_grad_norm)
            self.muon.step()
            compiled_step(self.optim, math.inf)
        return tuple(float(x) for x in out)

    def _autograd_gradients(self, batch: _Batch, idx: torch.Tensor) -> np.ndarray:
        """The parameters' ``grad`` on minibatch ``idx``: the loss's gradient with respect to
        the legal logits and values (:func:`~tabletop_core.train.loss.minibatch_loss_grad`)
        through autograd's backward. Returns the loss's (5,) statistics."""
        cfg = self.cfg
        legal_logits, value = self._legal_forward(batch, idx)
        legal_logits, value = legal_logits.float(), value.float()
        g_logits, g_value, out = minibatch_loss_grad(
            batch, idx, legal_logits, value, cfg.clip, cfg.vf_coef, cfg.ent_coef
        )
        self._zero_grad()
        torch.autograd.backward([legal_logits, value], [g_logits, g_value])
        return out

    def _optimizers(self) -> list[torch.optim.Optimizer]:
        """Adam, and Muon with ``--optimizer muon``."""
        return [self.optim] if self.muon is None else [self.optim, self.muon]

    def _zero_grad(self) -> None:
        for opt in self._optimizers():
            opt.zero_grad(set_to_none=True)

    def _optimise(self, batch: _Batch) -> tuple[dict[str, float], int]:
        """Optimization of :func:`ppo.update <tabletop_core.train.ppo.update>`: ``epochs``
        passes of full minibatches over ``batch``, each step the fastest path for the
        device and dtype (:class:`~tabletop_core.train.fused.FusedStep`,
        :class:`~tabletop_core.train.plain.PlainStep`, :meth:`_ppo_step_compiled`,
        :meth:`_ppo_step_torch`); the value head alone during the critic warm-up. Returns
        the summed losses and the number of minibatches."""
        cfg = self.cfg
        rets = batch.rets
        m = batch.size
        stats = {"pg_loss": 0.0, "v_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clipfrac": 0.0}
        count = 0
        mb = min(cfg.minibatch, m)
        if self.cpu_step is not None:  # the parameters may have changed since its last step
            self.cpu_step.refresh()
        for _ in range(cfg.epochs):
            perm = torch.randperm(m, generator=self.gen, device=self.device)
            for start in range(0, m - mb + 1, mb):  # full minibatches only (equal weight)
                idx = perm[start : start + mb]
                if self.update_idx < cfg.critic_warmup:  # only the value head learns
                    with self._autocast():
                        value = self.agent.value_only(batch.rows(idx))
                    v_loss = 0.5 * (value.float() - rets.index_select(0, idx)).pow(2).mean()
                    self._zero_grad()
                    (cfg.vf_coef * v_loss).backward()
                    self.optim.step()
                    stats["v_loss"] += float(v_loss.detach())
                    count += 1
                    continue
                if self.cpu_step is not None:
                    losses = self.cpu_step.step(
                        batch, idx, self.optim, cfg.clip, cfg.vf_coef, cfg.ent_coef, cfg.max_grad_norm
                    )
                elif self.device.type == "cpu":
                    losses = self._ppo_step_compiled(batch, idx)
                else:
                    losses = self._ppo_step_torch(batch, idx)
                for key, v in zip(stats, losses):
                    stats[key] += v
                count += 1
                self.flops["update"] += self._update_flops_per_sample(batch, mb) * mb
                self.samples["update"] += mb
        return stats, count

    def _update_flops_per_sample(self, batch: _Batch, mb: int) -> float:
        """The FLOPs of one sample of the last minibatch (``mb`` samples), forward and
        backward (:func:`~tabletop_core.train.model.model_flops_per_sample`, ``update``): the whole
        head, or on the float32 CPU path only the K legal logits and the value
        (:meth:`Agent.legal_forward`), and the first layer over the nonzero entries where
        it is sparse."""
        if not self.legal_dots:
            return self.flops_per_update_sample
        return model_flops_per_sample(
            self.obs_dim,
            self.num_actions,
            self.cfg.hidden,
            batch.lidx.shape[1] + 1,
            self._input_nonzeros(self.agent, mb),
            update=True,
        )

    @staticmethod
    def _input_nonzeros(model: Agent, n: int) -> float | None:
        """The mean nonzero observation entries per sample that ``model``'s last forward
        pass over ``n`` samples read, where its first layer is sparse; else ``None``."""
        return float(model.input_nonzeros[0]) / n if model.sparse_input else None

    def snapshot_if_due(self) -> None:
        """Every ``league_every`` updates, add the learner to the league's pool (league envs
        draw from it; at the end the last snapshots are rated against the bots, with or
        without league envs) and forget snapshots no env plays any more."""
        if self.update_idx % self.cfg.league_every:
            return
        self.league.add(self.update_idx, self.agent.state_dict())
        if self.selfplay is not None:
            self.league.release(self.selfplay.opp)
        self._snap_models = {k: v for k, v in self._snap_models.items() if k in self.league.snapshots}

    # --- persistence ---------------------------------------------------------------------------
    def policy(self) -> MLPPolicy:
        """The actor as an :class:`MLPPolicy`, with ``meta``: the game, its options, the
        observation layout's digest and the seats it was trained in."""
        pol = MLPPolicy(self.agent.policy_weights())
        pol.meta = {
            "game": self.game.name,
            "options": self.opts,
            "layout": self.game.observation_layout(self.options).digest(),
            "seats": [list(grp) for grp in self.seat_groups],
        }
        return pol

    def save_policy(self, path: str | BinaryIO) -> None:
        """Write :meth:`policy` as an ``.npz`` (``tabletop match --bots policy:FILE``) to a
        path or an open binary file."""
        self.policy().save(path)

    def checkpoint(self) -> dict:
        return {
            "config": dataclasses.asdict(self.cfg),
            "game": self.game.name,
            "options": self.opts,
            "obs_dim": self.obs_dim,
            "num_actions": self.num_actions,
            "model": self.agent.state_dict(),
            "optim": self.optim.state_dict(),
            "muon": None if self.muon is None else self.muon.state_dict(),
            "update": self.update_idx,
            "global_step": self.global_step,
            "train_seconds": self.train_seconds,
            "teacher_rounds": self.teacher_rounds,
            "league": self.league.state(),
            "reward_std": (self.reward_std.count, self.reward_std.mean, self.reward_std.var),
            "torch_rng": self.gen.get_state(),
            "numpy_rng": self.rng.bit_generator.state,
        }

    def load_checkpoint(self, ck: dict) -> None:
        """Continue from :meth:`checkpoint` output.

        Raises:
            ValueError: the checkpoint was made for another game, other options or
                another network.
        """
        if ck.get("game") != self.game.name or ck.get("options") != self.opts:
            raise ConfigError(
                f"--resume: the checkpoint was made for {ck.get('game')} {ck.get('options')}, "
                f"this run is {self.game.name} {self.opts} (another game or other options)"
            )
        if tuple(ck["config"]["hidden"]) != tuple(self.cfg.hidden):
            raise ConfigError(
                f"--resume: the checkpoint's network is --hidden {ck['config']['hidden']}, "
                f"this run asks for {list(self.cfg.hidden)}"
            )
        saved = ck["config"].get("activation", "tanh")  # checkpoints from before --activation
        if saved != self.cfg.activation:
            raise ConfigError(
                f"--resume: the checkpoint's network is --activation {saved}, this run asks for "
                f"{self.cfg.activation}"
            )
        saved = ck["config"].get("optimizer", "adam")  # checkpoints from before --optimizer
        if saved != self.cfg.optimizer:
            raise ConfigError(
                f"--resume: the checkpoint was trained with --optimizer {saved}, this run asks for "
                f"{self.cfg.optimizer}"
            )
        self.agent.load_state_dict(ck["model"])
        self.optim.load_state_dict(ck["optim"])
        if self.muon is not None:
            self.muon.load_state_dict(ck["muon"])
        self.update_idx, self.global_step = int(ck["update"]), int(ck["global_step"])
        self.train_seconds = float(ck["train_seconds"])
        self.teacher_rounds = int(ck.get("teacher_rounds", 0))  # checkpoints from before the teacher
        self.league.load(ck["league"])
        self.reward_std.count, self.reward_std.mean, self.reward_std.var = ck["reward_std"]
        self.gen.set_state(ck["torch_rng"])
        self.rng.bit_generator.state = ck["numpy_rng"]
        # fresh deals, not the first run's again: reseed every env from the seed and update
        seed = stream_seed(self.cfg.seed, "resume", self.update_idx)
        for g in self.groups:
            if isinstance(g, _SelfPlayGroup):
                g.venv.reset(seed=seed + g.lo)
                g.resample(np.arange(g.n), self.league)
            else:
                g.core.reset([seed + g.lo + k for k in range(g.n)])
        self.ep_ret[:] = 0.0
