"""Single-agent views of a game: the learner plays one seat, bots play the others.

For training with single-agent RL libraries (Stable-Baselines3 / sb3-contrib
``MaskablePPO``, CleanRL-style loops, ...). The bots' turns run inside compiled code
(the game's ``batch_step_learner`` kernel), so a learner step is one kernel call.

* :class:`LearnerEnv` — a ``gymnasium.Env``: ``obs (D,) float32``, ``reward`` float (the
  learner seat's reward since its previous action), ``info["action_mask"]`` (A,) int8,
  and ``action_masks()`` as ``MaskablePPO`` expects.
* :class:`LearnerVectorEnv` — a ``gymnasium.vector.VectorEnv`` of ``B`` such envs:
  ``obs (B, D)``, ``rewards (B,)``, same-step autoreset, ``action_masks()`` (B, A).

In a cooperative game (The Game) the learner plays every seat (``seat=None``); its reward
is the shared team reward.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from tabletop_core.contract.game import GameDef
from tabletop_core.contract.options import as_options
from tabletop_core.envs.vector import first_unmasked
from tabletop_core.kernel.rng import bot_seed_word, check_seed, seed_word

__all__ = ["LearnerEnv", "LearnerVectorEnv"]


def learner_seats(agents: list[str], seat) -> tuple[int, ...]:
    """The seats a learner holds, from one seat or a sequence of them (indices or agent
    names), sorted.

    Raises:
        ValueError: an unknown seat, a repeated one, or every seat of a competitive game
            of two or more seats (bots must hold at least one).
    """
    p = len(agents)
    given = [seat] if isinstance(seat, (int, np.integer, str)) else list(seat)
    out = []
    for x in given:
        if isinstance(x, str):
            if x not in agents:
                raise ValueError(f"seat must be one of {agents} or 0..{p - 1}, got {x!r}")
            x = agents.index(x)
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not 0 <= int(x) < p:
            raise ValueError(f"seat must be in 0..{p - 1} or one of {agents}, got {x!r}")
        if int(x) in out:
            raise ValueError(f"seat {x} is named twice")
        out.append(int(x))
    if not out or (len(out) == p and p > 1):  # a one-seat game (Exhaust solo) has only the learner
        raise ValueError(f"the learner holds 1..{p - 1} of the {p} seats (bots hold the rest), got {seat!r}")
    return tuple(sorted(out))


class LearnerCore:
    """The state and buffers shared by both views (B envs).

    ``seat``: the learner's seat, or a sequence of seats it holds together (a team, as Exit
    Now's humans); the kernels get them as the bit set ``learners`` (-1: every seat, in a
    cooperative game)."""

    def __init__(self, game: GameDef, num_envs: int, seat, opponents, options: dict):
        if game.batch_step_learner is None or game.batch_reset_learner is None:
            raise ValueError(f"{game.name} has no single-agent kernels")
        self.game = game
        self.options = as_options(game.make_options, options)  # an options object or a dict
        self.agents = list(game.agents(self.options))
        p = len(self.agents)
        every = not isinstance(seat, (int, np.integer, str, type(None))) and set(seat) == set(range(p))
        if game.cooperative or every:  # a policy in every seat (matches between policies)
            if not every and seat not in (None, -1):
                raise ValueError(f"{game.name} is cooperative: the learner plays every seat (seat=None)")
            self.seats = tuple(range(p))
            self.learners = -1
            self.bot_ids = np.zeros(p, np.int64)
        else:
            self.seats = learner_seats(self.agents, 0 if seat is None else seat)
            self.learners = sum(1 << k for k in self.seats)
            opponents = opponents if opponents is not None else "random"
            names = [opponents] * p if isinstance(opponents, str) and "," not in opponents else opponents
            if isinstance(names, str):
                names = [x.strip() for x in names.split(",")]
            names = list(names)
            if len(names) == p - len(self.seats):  # one per other seat
                for k in self.seats:
                    names.insert(k, names[0])
            self.bot_ids = game.bot_ids(names, p)
        self.layout = game.observation_layout(self.options)
        b, d, a = num_envs, self.layout.dim, game.num_actions
        self.state = game.new_state(b, self.options)
        self.notes = game.new_notes(b)  # what the kernels wrote to obs / final (not game state)
        self.obs = np.zeros((b, d), np.float32)
        self.mask = np.zeros((b, a), np.int8)
        self.rewards = np.zeros((b, p), np.float32)
        self.carry = np.zeros((b, p), np.float32)
        self.term = np.zeros(b, np.bool_)
        self.cur = np.zeros(b, np.int64)
        self.final = np.zeros((b, d), np.float32)
        self.actions = np.zeros(b, np.int64)
        self.bot_rng = np.zeros(b, np.uint64)
        self._bots = (self.learners, self.bot_ids, self.bot_rng)  # who plays the other seats
        self.num_envs = b

    def reward_column(self) -> int:
        return self.seats[0]

    def reset(self, seeds: list[int] | None) -> None:
        if seeds is not None:
            for s in seeds:
                check_seed(s)  # 0 <= seed < 2**64
            self.state["rng"] = [seed_word(s) for s in seeds]
            self.bot_rng[:] = [bot_seed_word(s) for s in seeds]
        self.game.batch_reset_learner(
            self.state, self.notes, *self._bots, self.obs, self.mask, self.cur, self.carry
        )

    def step(self, actions, autoreset: bool) -> None:
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(
                f"actions must be {self.num_envs} integers, got shape {acts.shape} dtype {acts.dtype}"
            )
        out_of_range = (acts < 0) | (acts >= self.game.num_actions)
        if out_of_range.any():
            bad = int(np.flatnonzero(out_of_range)[0])
            raise ValueError(f"env {bad}: action {acts[bad]} is out of range 0..{self.game.num_actions - 1}")
        a = self.actions
        a[:] = acts
        bad = first_unmasked(self.mask, a)
        if bad >= 0:
            names = ", ".join(str(x) for x in np.flatnonzero(self.mask[bad])[:12])
            raise ValueError(f"env {bad}: action {a[bad]} is illegal now; legal actions: {names}")
        self.game.batch_step_learner(
            self.state,
            self.notes,
            a,
            *self._bots,
            self.obs,
            self.mask,
            self.rewards,
            self.term,
            self.cur,
            self.final,
            self.carry,
            autoreset,
        )


class LearnerEnv(gymnasium.Env):
    """One seat of a game as a Gymnasium env; bots play the other seats in compiled code.

    Args:
        game: the game's GameDef (e.g. ``thegame_env.GAME``).
        seat: the learner's seat (index or agent name); ``None``: seat 0, or every seat in
            a cooperative game.
        opponents: bot name(s) for the other seats: one name, or one per other seat
            (``"strong,npc,random"``), from ``game.bot_names``.
        illegal_action: ``"raise"`` (default): an illegal action raises ValueError and the
            env is unchanged; ``"terminate"``: it ends the episode with reward
            ``illegal_reward`` (-1), for algorithms that do not use masks.
        **options: the game's options.

    ``action_masks()`` returns the legal actions (bool (A,)) for ``MaskablePPO``.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: GameDef,
        seat: int | str | None = None,
        opponents=None,
        render_mode=None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        **options: Any,
    ):
        if illegal_action not in ("raise", "terminate"):
            raise ValueError(f"illegal_action must be 'raise' or 'terminate', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self._core = LearnerCore(game, 1, seat, opponents, options)
        self.game = game
        self.render_mode = render_mode
        d, a = self._core.layout.dim, game.num_actions
        self.observation_space = spaces.Box(0.0, 1.0, (d,), np.float32)
        self.action_space = spaces.Discrete(a)
        self._ended = True
        self._ever = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None and not self._ever:
            seed = int(seed_word(None) >> np.uint64(1))
        self._ever = True
        self._core.reset([seed] if seed is not None else None)
        self._ended = False
        return self._core.obs[0].copy(), {"action_mask": self._core.mask[0].copy()}

    def step(self, action):
        if self._ended:
            raise RuntimeError("the episode has ended: call reset()")
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer, np.ndarray)):
            raise ValueError(f"action must be an integer, got {action!r}")
        c = self._core
        if self.illegal_action == "terminate" and not (
            0 <= int(action) < self.game.num_actions and c.mask[0, int(action)]
        ):
            self._ended = True
            return (
                c.obs[0].copy(),
                self.illegal_reward,
                True,
                False,
                {"action_mask": np.zeros_like(c.mask[0]), "illegal_action": True},
            )
        self._core.step(np.asarray([int(action)], np.int64), autoreset=False)
        reward = float(c.rewards[0, c.reward_column()])
        terminated = bool(c.term[0])
        if terminated:
            self._ended = True
            return c.final[0].copy(), reward, True, False, {"action_mask": np.zeros_like(c.mask[0])}
        return c.obs[0].copy(), reward, False, False, {"action_mask": c.mask[0].copy()}

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now, bool (A,)."""
        return self._core.mask[0].astype(bool)

    def render(self):
        return self.game.render_ansi(self._core.state, self._core.options)


class LearnerVectorEnv(VectorEnv):
    """``num_envs`` single-agent views stepped together (same-step autoreset).

    Same arguments as :class:`LearnerEnv` plus ``num_envs`` and ``seed``. ``step``
    returns ``(obs (B, D), rewards (B,), terminated (B,), truncated (B,), info)`` with
    ``info["action_mask"]`` (B, A) int8 and ``info["final_obs"]``/``info["_final_obs"]``
    for ended episodes.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self, game: GameDef, num_envs: int, seat=None, opponents=None, seed: int | None = None, **options: Any
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self._core = LearnerCore(game, int(num_envs), seat, opponents, options)
        self.game = game
        self.num_envs = int(num_envs)
        d, a = self._core.layout.dim, game.num_actions
        self.single_observation_space = spaces.Box(0.0, 1.0, (d,), np.float32)
        self.single_action_space = spaces.Discrete(a)
        self.observation_space = spaces.Box(0.0, 1.0, (self.num_envs, d), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, a))
        self._seed = seed
        self._ever = False

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        if seed is None and not self._ever:
            seed = self._seed if self._seed is not None else int(seed_word(None) >> np.uint64(1))
        self._ever = True
        seeds = None
        if seed is not None:
            seeds = (
                list(seed)
                if isinstance(seed, (list, tuple, np.ndarray))
                else [int(seed) + i for i in range(self.num_envs)]
            )
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed list must have {self.num_envs} entries")
        self._core.reset(seeds)
        return self._core.obs.copy(), {"action_mask": self._core.mask.copy()}

    def step(self, actions):
        if not self._ever:
            raise RuntimeError("reset() needs to be called before step()")
        c = self._core
        c.step(actions, autoreset=True)
        term = c.term.copy()
        info = {"action_mask": c.mask.copy(), "final_obs": c.final.copy(), "_final_obs": term}
        return c.obs.copy(), c.rewards[:, c.reward_column()].copy(), term, np.zeros_like(term), info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner in every env, bool (B, A)."""
        return self._core.mask.astype(bool)
