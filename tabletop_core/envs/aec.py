"""The PettingZoo AEC adapter over a game's batch kernels (a batch of one env).

:class:`TabletopAECEnv` is the unwrapped ``raw_env`` of every game: it keeps one env of
the game's State and calls the same kernels as the vector env, so the two can never
disagree. :class:`LeanChecks` is the single wrapper ``env()`` applies: it performs the
checks of PettingZoo's three stock wrappers (``OrderEnforcingWrapper``,
``AssertOutOfBoundsWrapper``, ``TerminateIllegalWrapper``) in one layer (why: its
docstring).

Illegal-action policy:
    * ``raw_env``: an illegal or out-of-range action raises :class:`IllegalActionError`
      (a ``ValueError``) naming the legal actions; the state is left unchanged, so the
      caller may retry.
    * ``env()`` (:class:`LeanChecks`): as PettingZoo's ``TerminateIllegalWrapper`` —
      a legal-range but illegal action ends the episode for everyone, the offender gets
      ``illegal_reward`` (-1) and the others 0, with a warning. An out-of-range action
      raises :class:`ActionOutOfBoundsError` (a ``ValueError`` that is also an
      ``AssertionError``, like the stock ``AssertOutOfBoundsWrapper``).
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from tabletop_core.contract import loops
from tabletop_core.contract.game import GameDef
from tabletop_core.contract.options import as_options
from tabletop_core.contract.svg import rasterize
from tabletop_core.kernel.rng import check_seed, seed_word

__all__ = [
    "TabletopAECEnv",
    "LeanChecks",
    "IllegalActionError",
    "ActionOutOfBoundsError",
    "ResetNeededError",
]

ILLEGAL_MOVE_WARNING = (
    "[WARNING]: Illegal move made, game terminating with current player losing. \n"
    "obs['action_mask'] contains a mask of all legal moves that can be chosen."
)


class IllegalActionError(ValueError):
    """An action the acting agent may not take now (the env is left unchanged)."""


class ActionOutOfBoundsError(IllegalActionError, AssertionError):
    """An action outside the action space (also an AssertionError, as PettingZoo's
    ``AssertOutOfBoundsWrapper`` raises)."""


class ResetNeededError(AssertionError, RuntimeError, ValueError):
    """step/observe/render called before reset (an AssertionError, as PettingZoo's
    ``OrderEnforcingWrapper`` raises; also a ValueError, as every misuse of the API)."""


def _as_action(action: Any, num_actions: int) -> int:
    """Validate an action's type and range; return it as a Python int."""
    if isinstance(action, (bool, np.bool_)):
        raise ActionOutOfBoundsError(
            f"action must be an integer in [0, {num_actions}), got a bool {action!r}"
        )
    try:
        a = operator.index(action)
    except TypeError:
        if isinstance(action, np.ndarray) and action.size == 1 and np.issubdtype(action.dtype, np.integer):
            a = int(action.reshape(()))
        else:
            raise ActionOutOfBoundsError(
                f"action must be an integer in [0, {num_actions}), got {type(action).__name__} {action!r}"
            ) from None
    if not 0 <= a < num_actions:
        raise ActionOutOfBoundsError(f"action {a} is out of range: allowed actions are 0..{num_actions - 1}")
    return a


class TabletopAECEnv(AECEnv):
    """PettingZoo AEC env of one game over its batch kernels (batch of one).

    Subclasses set :attr:`game` (a :class:`~tabletop_core.contract.game.GameDef`). Constructor
    keyword arguments are the game's options (validated by ``game.make_options``, which
    raises ValueError) plus ``render_mode``: ``None``, ``"ansi"`` (text), ``"human"``
    (prints the text), ``"svg"`` (the SVG document of the table, a str) or
    ``"rgb_array"`` (that picture rasterized: ``(H, W, 3)`` uint8 with ``(W, H) =
    game.svg_size``; needs the ``render`` extra). The pictures are drawn from the view of
    :attr:`render_seat` (a seat number or an agent name; ``None``, the default, is the
    omniscient view).

    Observation of an agent: ``{"observation": float32 (D,), "action_mask": int8 (A,)}``;
    the mask is all zeros for agents that are not acting. The acting agent is
    ``agent_selection``; every agent stays in ``agents`` until the episode ends.
    """

    game: GameDef
    render_seat: int | str | None = (
        None  # whose view "svg"/"rgb_array" draw (seat or agent); None: omniscient
    )
    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human", "svg", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, render_mode: str | None = None, **options: Any):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}"
            )
        self.render_mode = render_mode
        g = self.game
        self.options = as_options(g.make_options, options.pop("options", None), **options)
        self.possible_agents = list(g.agents(self.options))
        self._seat = {a: k for k, a in enumerate(self.possible_agents)}
        self.layout = g.observation_layout(self.options)
        n, d, a = len(self.possible_agents), self.layout.dim, g.num_actions
        self._num_actions = a
        self._state = g.new_state(1, self.options)
        self._notes = g.new_notes(1)  # what the kernels wrote to _obs / _final (not game state)
        self._obs = np.zeros((1, d), np.float32)
        self._mask = np.zeros((1, a), np.int8)
        self._rewards = np.zeros((1, n), np.float32)
        self._term = np.zeros(1, np.bool_)
        self._cur = np.zeros(1, np.int64)
        self._final = np.zeros((1, d), np.float32)
        self._step_out_buffers = (self._obs, self._mask, self._rewards, self._term, self._cur, self._final)
        self._act = np.zeros(1, np.int64)
        # a step's kernel call, its arguments bound once (the AEC loop's hottest line)
        self._batch_step = g.batch_step
        self._step_args = (self._state, self._notes, self._act, *self._step_out_buffers, loops.STEP)
        self._seat_buf = np.zeros(1, np.int64)  # the seat observed (batch_step's OBSERVE_SEAT)
        self._no_mask = np.zeros(a, np.int8)
        self._done = True
        self._ever_reset = False
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (d,), np.float32),
                "action_mask": spaces.Box(0, 1, (a,), np.int8),
            }
        )
        act_space = spaces.Discrete(a)
        self.observation_spaces = {ag: obs_space for ag in self.possible_agents}
        self.action_spaces = {ag: act_space for ag in self.possible_agents}

    # --- spaces --------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # --- episode ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start an episode. ``seed`` fixes the deal (env seeded with s plays exactly the
        episode of vector env i reset with seed s - i); ``None`` continues the env's own
        stream (fresh OS entropy on the very first reset). ``options`` is accepted for
        API compatibility and ignored: game options are given to the constructor."""
        if seed is not None or not self._ever_reset:
            check_seed(seed)  # 0 <= seed < 2**64: the generator holds one uint64 word
            self._state["rng"][0] = seed_word(seed)
        self._ever_reset = True
        self.game.batch_step(self._state, self._notes, self._act, *self._step_out_buffers, loops.RESET)
        self._start_bookkeeping()

    def _start_bookkeeping(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {ag: {} for ag in self.agents}
        self._done = False
        self.agent_selection = self.agents[int(self._cur[0])]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": (D,) float32, "action_mask": (A,) int8}`` for ``agent``."""
        if not self._ever_reset:
            raise ResetNeededError("reset() needs to be called before observe")
        seat = self._seat.get(agent)
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        if not self._done and seat == self._cur[0]:
            return {"observation": self._obs[0].copy(), "action_mask": self._mask[0].copy()}
        out = np.empty((1, self.layout.dim), np.float32)
        self._seat_buf[0] = seat
        self.game.batch_step(
            self._state, self._notes, self._seat_buf, out, *self._step_out_buffers[1:], loops.OBSERVE_SEAT
        )
        return {"observation": out[0], "action_mask": self._no_mask.copy()}

    def legal_actions(self) -> np.ndarray:
        """Ids of the acting agent's legal actions (empty once the episode is over)."""
        if self._done:
            return np.zeros(0, np.int64)
        return np.flatnonzero(self._mask[0])

    def step(self, action: Any) -> None:
        """Apply the acting agent's action (``None`` for a terminated agent).

        Raises:
            IllegalActionError: (ValueError) for an illegal action, naming the legal ones;
                the env is unchanged.
            ActionOutOfBoundsError: for a non-integer or out-of-range action.
            RuntimeError: after the episode ended and every agent was removed (reset first).
        """
        if not self._ever_reset:
            raise ResetNeededError("reset() needs to be called before step")
        if not self.agents:
            raise RuntimeError("the episode is over and every agent has been removed: call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = _as_action(action, self._num_actions)
        if not self._mask[0, a]:
            raise IllegalActionError(self._illegal_message(a))
        self._apply(agent, a)

    def _illegal_message(self, a: int) -> str:
        legal = self.legal_actions()
        names = ", ".join(f"{x} ({self.game.action_name(int(x), self._state)})" for x in legal[:12])
        more = f", ... ({len(legal)} in all)" if len(legal) > 12 else ""
        return (
            f"action {a} ({self.game.action_name(a, self._state)}) is illegal for {self.agent_selection} now; "
            f"legal actions: {names}{more}"
        )

    def _apply(self, agent: str, a: int) -> None:
        self._act[0] = a
        self._batch_step(*self._step_args)
        cum = self._cumulative_rewards
        cum[agent] = 0.0
        rewards = self.rewards
        for ag, r in zip(self.agents, self._rewards[0].tolist()):
            rewards[ag] = r
            cum[ag] += r
        if self._term[0]:
            self._done = True
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos = self._final_infos()
        else:
            self.agent_selection = self.agents[int(self._cur[0])]

    def _final_infos(self) -> dict[str, dict]:
        """Each agent's info when the episode ends: the game's declared ``final_info``."""
        if self.game.final_info is None:
            return {ag: {} for ag in self.agents}
        per_seat = self.game.final_info(self._state, self.options)
        return {ag: per_seat[self._seat[ag]] for ag in self.agents}

    def _terminate_illegal(self, illegal_reward: float) -> None:
        """TerminateIllegalWrapper's policy: end the episode, the offender gets
        ``illegal_reward`` and the others 0 (terminated and truncated, as the stock
        wrapper sets)."""
        warnings.warn(ILLEGAL_MOVE_WARNING, stacklevel=3)
        agent = self.agent_selection
        self._cumulative_rewards[agent] = 0
        self._done = True
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0)
        self.rewards[agent] = float(illegal_reward)
        self._accumulate_rewards()
        self._deads_step_first()

    # --- rendering -------------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: return the table as text; ``"human"``: print it; ``"svg"``: return
        the SVG text of the table; ``"rgb_array"``: return it rasterized, ``(H, W, 3)``
        uint8 (``(W, H) = game.svg_size``); both from :attr:`render_seat`'s view.
        ``None``: warn.

        Raises:
            ImportError: ``"rgb_array"`` without the ``render`` extra.
        """
        if self.render_mode is None:
            warnings.warn(
                "render() called without a render_mode; pass render_mode='ansi' or 'human'", stacklevel=2
            )
            return None
        if self.render_mode in ("svg", "rgb_array"):
            seat = self.render_seat
            if isinstance(seat, str):
                if seat not in self._seat:
                    raise ValueError(
                        f"render_seat must be None, a seat or one of {self.possible_agents}, got {seat!r}"
                    )
                seat = self._seat[seat]
            svg = self.game.render_svg(self._state, self.options, seat)
            if self.render_mode == "svg":
                return svg
            return rasterize(svg)
        text = self.game.render_ansi(self._state, self.options)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # --- save / restore ------------------------------------------------------------------
    def get_state(self) -> dict:
        """A picklable deep copy of the full state: the game's State record plus the
        PettingZoo bookkeeping, so ``set_state`` can branch (MCTS) or replay mid-episode."""
        return {
            "game": self.game.env_id,
            "state": self._state.copy(),
            "agents": list(self.agents),
            "agent_selection": self.agent_selection,
            "rewards": dict(self.rewards),
            "cumulative_rewards": dict(self._cumulative_rewards),
            "terminations": dict(self.terminations),
            "truncations": dict(self.truncations),
            "infos": {k: dict(v) for k, v in self.infos.items()},
            "done": self._done,
        }

    _SAVED_KEYS = (
        "agents",
        "agent_selection",
        "rewards",
        "cumulative_rewards",
        "terminations",
        "truncations",
        "infos",
        "done",
    )

    def set_state(self, saved: dict) -> None:
        """Restore a state returned by :meth:`get_state` (of an env with the same options).

        Atomic: the game State (the game's ``validate_state``: every field's range and
        the rules' invariants) and the PettingZoo bookkeeping are checked in full before
        anything is written, so on any error the env is exactly as before.

        Raises:
            ValueError: if ``saved`` is not such a state, naming what is wrong (a missing
                key, an unknown agent, an ``agent_selection`` that is not the acting
                seat, a State field out of range with its env index, ...).
        """
        g = self.game
        g.load_saved_state(saved, self._state, write=False)
        book = self._checked_bookkeeping(saved)
        st = np.asarray(saved["state"])
        self._state[...] = st
        (
            self.agents,
            self.agent_selection,
            self.rewards,
            self._cumulative_rewards,
            self.terminations,
            self.truncations,
            self.infos,
            self._done,
        ) = book
        self._ever_reset = True
        g.batch_step(self._state, self._notes, self._act, *self._step_out_buffers, loops.OBSERVE)

    def _checked_bookkeeping(self, saved: dict) -> tuple:
        """The PettingZoo bookkeeping of ``saved`` as fresh objects, after checking it
        against the saved State; raises ValueError naming the first problem."""
        missing = [k for k in self._SAVED_KEYS if k not in saved]
        if missing:
            raise ValueError(
                f"saved state lacks {missing}; set_state expects a dict from {self.game.env_id} get_state()"
            )
        agents, sel, done = self._checked_turn(saved)
        return (agents, sel, *self._checked_dicts(saved, agents), done)

    def _checked_turn(self, saved: dict) -> tuple[list[str], str, bool]:
        """``(agents, agent_selection, done)`` of ``saved``, checked against the saved
        State: while the episode runs every agent is listed and the acting one selected."""
        possible = self.possible_agents
        agents = saved["agents"]
        if not isinstance(agents, (list, tuple)) or any(a not in self._seat for a in agents):
            raise ValueError(f"saved 'agents' must be a list of agents from {possible}, got {agents!r}")
        agents = list(agents)
        if [a for a in possible if a in agents] != agents or len(set(agents)) != len(agents):
            raise ValueError(
                f"saved 'agents' must list distinct agents in seat order {possible}, got {agents}"
            )
        done = saved["done"]
        if not isinstance(done, (bool, np.bool_)):
            raise ValueError(f"saved 'done' must be True or False, got {done!r}")
        sel = saved["agent_selection"]
        if sel not in self._seat:
            raise ValueError(f"saved 'agent_selection' must be one of {possible}, got {sel!r}")
        if done:
            return agents, sel, True
        st = np.asarray(saved["state"])
        status = int(st["status"][0])
        if status != 0:
            raise ValueError(f"saved 'done' is False but the game is over (status {status}); allowed: True")
        if agents != possible:
            raise ValueError(
                f"saved 'agents' must be every agent {possible} while the episode runs, got {agents}"
            )
        acting = possible[int(st["current"][0])]
        if sel != acting:
            raise ValueError(
                f"saved 'agent_selection' is {sel!r} but the acting seat of the saved game is {acting!r}; "
                "allowed: the acting agent while the episode runs"
            )
        return agents, sel, False

    _SAVED_DICTS = (
        ("rewards", (int, float, np.number)),
        ("cumulative_rewards", (int, float, np.number)),
        ("terminations", (bool, np.bool_)),
        ("truncations", (bool, np.bool_)),
        ("infos", dict),
    )

    def _checked_dicts(self, saved: dict, agents: list[str]) -> list[dict]:
        """Fresh copies of the per-agent dicts of ``saved`` (:attr:`_SAVED_DICTS` order),
        each checked to be keyed by ``agents`` with values of its type (a bool is no
        reward)."""
        out = []
        for key, kind in self._SAVED_DICTS:
            d = saved[key]
            if not isinstance(d, dict) or set(d) != set(agents):
                raise ValueError(
                    f"saved {key!r} must be a dict keyed by the saved agents {agents}, got {d!r}"
                )
            if key == "infos" or key.endswith("rewards"):
                bad = [k for k, v in d.items() if not isinstance(v, kind) or isinstance(v, (bool, np.bool_))]
            else:
                bad = [k for k, v in d.items() if not isinstance(v, kind)]
            if bad:
                raise ValueError(
                    f"saved {key!r} has values of the wrong type for {bad}: {[d[k] for k in bad]}"
                )
            out.append({k: dict(v) for k, v in d.items()} if key == "infos" else dict(d))
        return out


class LeanChecks(BaseWrapper):
    """One wrapper with the checks of PettingZoo's three stock wrappers.

    * call order (``OrderEnforcingWrapper``): ``step``/``observe``/``last``/``render``/
      ``state``/``agent_iter`` before ``reset`` raise :class:`ResetNeededError` (an
      AssertionError); reading ``agents``, ``rewards``, ... before reset raises
      AttributeError; ``step`` after every agent was removed warns and does nothing;
    * action bounds (``AssertOutOfBoundsWrapper``): :class:`ActionOutOfBoundsError` (an
      AssertionError), the env unchanged;
    * illegal moves (``TerminateIllegalWrapper``): the episode ends (every agent
      terminated and truncated), the offender gets ``illegal_reward``, the others 0.

    Why one layer: the stock stack is three ``BaseWrapper`` layers, so each step passes
    three ``step`` calls and every ``agent_selection``/``terminations``/... read is
    forwarded through ``__getattr__`` three times, while the kernel step under them is
    cheap; this layer reads the raw env's own mask and bookkeeping, and ``env()`` steps
    at close to ``raw_env``'s rate (``tabletop bench <game>`` reports both).
    ``tests/test_api.py`` passes the same calls through this and the stock stack and
    requires the same outcomes.

    Differences from the stock stack: warnings go through :mod:`warnings` (``UserWarning``),
    not PettingZoo's ``EnvLogger``; a 1-element integer array is taken as its one integer
    (``Discrete.contains`` refuses it) and a ``bool`` is refused as out of bounds; once an
    illegal move has ended the episode, observations carry an all-zero action mask.
    """

    _PRE_RESET = (
        "rewards",
        "terminations",
        "truncations",
        "infos",
        "agent_selection",
        "num_agents",
        "agents",
    )

    def __init__(self, env: TabletopAECEnv, illegal_reward: float = -1.0):
        super().__init__(env)
        self._has_reset = False
        self._illegal_reward = float(illegal_reward)

    def __getattr__(self, name: str) -> Any:
        if name in LeanChecks._PRE_RESET and not self.__dict__.get("_has_reset", False):
            raise AttributeError(f"{name} cannot be accessed before reset")
        return super().__getattr__(name)

    # hot attributes read directly (BaseWrapper would go through __getattr__)
    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.agent_selection

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        return self.env.agents

    @property
    def terminations(self) -> dict:
        return self.env.terminations

    @property
    def truncations(self) -> dict:
        return self.env.truncations

    @property
    def rewards(self) -> dict:
        return self.env.rewards

    @property
    def infos(self) -> dict:
        return self.env.infos

    @property
    def _cumulative_rewards(self) -> dict:
        return self.env._cumulative_rewards

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._has_reset = True
        self.env.reset(seed=seed, options=options)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            raise ResetNeededError("reset() needs to be called before observe.")
        return self.env.observe(agent)

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise ResetNeededError("reset() needs to be called before last.")
        env = self.env
        agent = env.agent_selection
        return (
            env.observe(agent) if observe else None,
            env._cumulative_rewards[agent],
            env.terminations[agent],
            env.truncations[agent],
            env.infos[agent],
        )

    def render(self):
        if not self._has_reset:
            raise ResetNeededError("reset() needs to be called before render.")
        return self.env.render()

    def state(self) -> np.ndarray:
        if not self._has_reset:
            raise ResetNeededError("reset() needs to be called before state.")
        return self.env.state()

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            raise ResetNeededError("reset() needs to be called before agent_iter().")
        return super().agent_iter(max_iter)

    def step(self, action: Any) -> None:
        env = self.env
        if not self._has_reset:
            raise ResetNeededError("reset() needs to be called before step.")
        if not env.agents:
            warnings.warn(
                "[WARNING]: step() called after all agents are terminated or truncated. Should reset() first.",
                stacklevel=2,
            )
            return
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env._was_dead_step(action)
            return
        a = _as_action(action, env._num_actions)
        if not env._mask[0, a]:
            env._terminate_illegal(self._illegal_reward)
            return
        env._apply(agent, a)

    def __str__(self) -> str:
        return str(self.env)
