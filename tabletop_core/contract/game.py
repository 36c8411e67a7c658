"""The game contract: what a game package declares, once, to be served by every adapter.

A game package (a folder with ``spec``, ``state``, ``rules``, ``observe``, ``bots``,
``render``, ``narrate`` and ``hooks`` modules) declares itself with one :class:`GameDef`
in its ``game.py``: the numba :class:`Hooks` the batch loops call, the facts (agents,
options, action count, observation layout, longest episode, reward bounds) and the optional
parts (bots, narration, pictures, baseline). The AEC env, the vector env, the learner
views, the arena, the soak, the replays and the trainer read only this declaration, so
the rules stay in the game's kernels and the core never names a game. The catalog
(:mod:`tabletop_core.contract.catalog`) finds the declarations through the
``tabletop_rl.games`` entry points. ``docs/adding-a-game.md`` walks through it.

The batch loops (reset, step, step with bots, threads, whole games, learner steps,
observe) are written once, in :mod:`tabletop_core.contract.loops`, over the hooks: a loop
compiles once per game and is cached. :class:`GameDef` exposes them as ``batch_reset``,
``batch_step``, ... for every game alike.

State convention: a NumPy structured array of shape ``(B,)`` with at least the fields
``rng`` (uint64 generator word, :mod:`tabletop_core.kernel.rng`), ``current`` (seat to act) and
``status`` (0 while the episode runs).

Kernel signatures (``s`` the State, arrays batch-first, ``B`` envs, ``P`` seats,
``D`` observation length, ``A`` actions)::

    batch_step(s, notes (B,), actions (B,) i64, obs (B,D) f32, masks (B,A) i8,
               rewards (B,P) f32, terminated (B,) bool, current (B,) i64,
               final_obs (B,D) f32, mode int)
        mode STEP / STEP_AUTORESET: apply one LEGAL action per env; rewards per seat for
        this step; final_obs is the ended episode's last observation from the seat that
        moved; with STEP_AUTORESET an ended env starts its next episode at once
        (same-step autoreset); plus FRESH: obs is not the buffer the notes describe,
        every row is written in full. Mode RESET: start a new episode in every env with its own
        generator; OBSERVE: change nothing (after set_state); both write only the acting
        seat's observation, its action mask and the acting seat. OBSERVE_SEAT: write only
        obs[i], as seat actions[i] sees env i.
    batch_reset(s, notes, obs, masks, current), batch_observe(s, notes, obs, masks, current)
        batch_step with RESET / OBSERVE and scratch step buffers (Python functions).
    batch_step_bots(s, notes, bot_ids (P,) i64 (u64 with a search bot), bot_rng (B,) u64, actions (B,) i64,
                    obs, masks, rewards, terminated, current, final_obs, fresh bool)
        the same (autoreset on) with each action chosen in the kernel by the bot of the
        acting seat; the chosen actions are written to ``actions``; ``fresh`` as FRESH.
    batch_step_threads(bounds (T+1,) i64, <batch_step's arguments>)
    batch_step_bots_threads(bounds, <batch_step_bots' arguments>)
        the two steps on the shards of envs bounds[k]:bounds[k+1] at once, a ``prange``
        over the shards (``parallel=True``) calling the serial loop on row slices; used
        by the vector env with ``num_threads`` > 1 (optional: without them it runs on one
        thread).
    first_illegal(s, actions) -> int   index of the first illegal action, or -1.
    observe(s, i, seat, out (D,) f32)  env i from any seat's point of view (Python:
        :func:`observe_env` of the game's record kernel ``observe_r``).
    play_games(s, bot_ids (P,) i64 (u64 with a search bot), bot_rng (G,) u64, returns (G,P) f64, steps (G,) i64)
        play one whole episode in each of G envs (generators already seeded: start with
        the game's deal) with bots; write every seat's episode return and the number of
        agent steps. The final positions stay in ``s`` for ``episode_stats``.
    batch_bot_actions(s, bot_ids (P,) i64 (u64 with a search bot), bot_rng (B,) u64, masks (B,A) i8, actions (B,) i64)
        each env's bot choice for its acting seat, without playing it (-1 when ended).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from tabletop_core.contract import loops, search
from tabletop_core.contract.encoders import ObservationLayout, check_action_inputs
from tabletop_core.kernel.records import at

__all__ = ["GameDef", "Hooks", "observe_env", "bot_count_message"]


def bot_count_message(game: str, seats: int, bots) -> str:
    """The message for a wrong number of bots: ``thegame: 2 seats take one bot each (or
    one bot for all), got 3: strong, strong, random``."""
    names = ", ".join(str(b) for b in bots)
    each = "one bot each (or one bot for all)" if seats != 1 else "one bot"
    return f"{game}: {seats} seat{'s' if seats != 1 else ''} take{'s' if seats == 1 else ''} {each}, got {len(bots)}: {names}"


def observe_env(observe_r: Callable) -> Callable:
    """:attr:`GameDef.observe` of a game whose observation kernel is the record kernel
    ``observe_r(e, seat, out (B, D) f32, row)``: a callable ``(s, i, seat, out)`` writing
    env ``i``'s observation of the State ``s`` from ``seat``'s view into ``out`` ((D,)
    float32), through :func:`tabletop_core.kernel.records.at` (picklable, like the kernel).
    """
    return functools.partial(_observe_env, observe_r)


def _observe_env(observe_r: Callable, s: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    at(observe_r, s, i, seat, out[None, :], 0)


@dataclass(frozen=True)
class Hooks:
    """The rules kernels a game hands the batch loops (:mod:`tabletop_core.contract.loops`),
    each a ``@kernel`` on the env's record ``e`` (signatures in the loops' table).

    Attributes:
        deal: ``deal(e)``, start a new episode from the record's generator and options.
        step: ``step(e, action, acc, row)``, apply a legal action and add every seat's
            reward to ``acc[row]``.
        legal_mask: ``legal_mask(e, masks, row)``, the acting seat's mask into ``masks[row]``.
        observe: ``observe(e, seat, out, row)``, ``seat``'s observation into ``out[row]``.
        bot_action: ``bot_action(e, bot, masks, row, rng, r)``, bot ``bot``'s action with
            ``masks[row]`` holding the acting seat's mask.
        bot_move: the same with ``masks[row]`` as scratch.
        is_legal: ``is_legal(e, action) -> bool``.
        observe_patch, observe_fresh: optional, for a game that rewrites only what a step
            changed (Exit Now); default: ``observe``.
        prefetch: optional cache hints for the next envs; default: none.
        resample_hidden: optional ``resample_hidden(e, seat, w) -> w``, a determinization
            for ``seat`` in place (the game's ``resample_hidden_r``); without it the game
            has no ``search`` bot (:mod:`tabletop_core.contract.search`).
        rollout_phase: optional ``rollout_phase(e) -> int``, the part of the episode the
            record is in; a search rollout ends where it changes (Koikoi: the round, each
            scored on its own); default: the whole episode is one phase.
    """

    deal: Callable
    step: Callable
    legal_mask: Callable
    observe: Callable
    bot_action: Callable
    bot_move: Callable
    is_legal: Callable
    observe_patch: Callable | None = None
    observe_fresh: Callable | None = None
    prefetch: Callable | None = None
    resample_hidden: Callable | None = None
    rollout_phase: Callable | None = None

    def as_dict(self) -> dict[str, Callable | None]:
        """The hooks by name (what :func:`tabletop_core.contract.loops.register` takes)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class GameDef:
    """Everything the adapters need to know about one game (see the module docstring).

    Attributes:
        name: registry name, e.g. ``"thegame"``.
        version: environment version for the PettingZoo registry (``thegame_v1``).
        num_actions: size of the discrete action space ``A``.
        make_options: ``(**kwargs) -> options`` validating the game's options
            (raises ValueError naming the bad option and what is allowed).
        agents: ``options -> list[str]``, agent names in seat order.
        observation_layout: ``options -> ObservationLayout``.
        new_state: ``(batch, options) -> structured array (batch,)``.
        render_ansi: ``(state (1,) array, options) -> str``.
        action_name: ``(action, state (1,) array) -> str`` (for error messages, play).
        bot_names: names of the bots, index = bot id in the kernels.
        max_episode_steps: longest possible episode (agent steps).
        reward_range: ``(low, high)`` of one step's reward.
        observe: ``(s, i, seat, out (D,) f32)``, env i from any seat's view: the
            :func:`observe_env` of the game's record kernel ``observe_r``.
        episode_stats: ``final states (G,) -> {name: (G,) array}``, game-specific figures
            of finished episodes for the arena (e.g. The Game's ``score``).
        match_stats: ``options -> {name: definition}``, the ``episode_stats`` figures that
            mean something under these options, each with the one line that defines it
            (a match table prints these only; None: every figure, undefined).
        cooperative: every seat shares one reward (The Game).
        render_view: ``(state (1,), options, seat) -> str``, the table as ``seat`` may see
            it (defaults to ``render_ansi``).
        players_option: the option that sets the number of seats (``--players`` in the CLI).
        default_bot: the bot ``tabletop play`` seats by default (empty: ``"strong"``).
        render_svg: ``(state (1,), options, seat) -> str``, the table as an SVG document from
            ``seat``'s view (``None``: omniscient), of a fixed size per game
            (``svg_size``); used by ``render_mode="svg"``/``"rgb_array"`` and replays.
        svg_size: ``(width, height)`` in pixels of ``render_svg``'s picture.
        notes_dtype: the dtype of the adapters' observation notes (:meth:`new_notes`): what
            a game that patches its observation rows in place remembers of each row it
            wrote (Exit Now); :data:`tabletop_core.contract.loops.NO_NOTES` otherwise.
        validate_state: ``(saved) -> None``, the game's one validation of a saved State
            (``<game>/state.py``; raises ValueError naming the env, the field and what
            is allowed); run by :meth:`load_saved_state` before anything is written.
        description: one line on what the game is (``tabletop list``, the CLI's help).
        title: the game's name as people write it (``"The Game"``).
        package: the game's package (``"thegame_env"``): its ``baselines/`` folder holds
            the shipped policies, and a fresh process imports it for cold-start timings.
        page: the game's documentation page (the declaration module's docstring), shown
            by ``help(<package>.env)``.
        rewards_doc: one paragraph on the vector env's rewards (shape and meaning).
        state_dtype: the State record dtype the hooks are compiled for.
        hooks: the rules kernels of the batch loops (:class:`Hooks`); the declaration
            registers them with :func:`tabletop_core.contract.loops.register`.
        final_info: ``(state (1,), options) -> [dict per seat]``, each agent's info when
            an episode ends (None: empty infos).
        narrate: the game's narration (a module with ``describe_step``/``describe_end``
            as :mod:`tabletop_core.tools.play` reads them), or None.
        seat_roles: ``options -> (role per seat)``, for a game whose seats play different
            roles (Exit Now's humans and ghost): seats of one role act as one team in
            ratings and take that role's bots. None: every seat plays for itself.
        bot_roles: ``((bot name, role), ...)`` for the bots bound to one role of
            :attr:`seat_roles` (Exit Now's ``human`` and ``ghost``); a bot not named plays
            any seat. :meth:`check_roles` refuses a bound bot (or a trained policy recorded
            for another role) in a seat of another role.
        return_identity: ``(returns (G, P), lengths (G,), options) -> (G,) bool``, True
            where an ended episode's returns obey the game's identity (checked by the
            soak); None: only the reward bounds are checked.
        resample_hidden: ``(saved, seat, seed) -> saved``, a determinization for search
            (:mod:`<game>.resample`), or None.
        rollout_bot: the scripted bot that plays every seat in the ``search`` bot's
            rollouts by default (empty: ``"strong"``); it must play any seat.
        search_rollouts: the ``search`` bot's rollouts per decision by default (0:
            :data:`~tabletop_core.contract.search.DEFAULT_BUDGET`), chosen so a decision
            takes well under 50 ms on one core (``docs/search-bot.md``).
        action_pieces: observation pieces whose entry ``a`` describes action ``a`` (the
            piece's first entries line up with the first action ids). The trainer's network
            adds a learned multiple of each to those actions' logits
            (:class:`~tabletop_core.train.model.Agent`, :meth:`action_inputs`).
    """

    name: str
    version: int
    num_actions: int
    make_options: Callable[..., Any]
    agents: Callable[[Any], list[str]]
    observation_layout: Callable[[Any], ObservationLayout]
    new_state: Callable[[int, Any], np.ndarray]
    render_ansi: Callable[[np.ndarray, Any], str]
    action_name: Callable[[int, np.ndarray], str]
    bot_names: tuple[str, ...]
    max_episode_steps: int
    reward_range: tuple[float, float]
    episode_stats: Callable[[np.ndarray], dict[str, np.ndarray]]
    cooperative: bool = False
    match_stats: Callable[[Any], dict[str, str]] | None = None
    render_view: Callable | None = None
    players_option: str = "num_players"
    render_svg: Callable | None = None
    svg_size: tuple[int, int] = (0, 0)
    validate_state: Callable[[Any], None] | None = None
    description: str = ""
    default_bot: str = ""
    notes_dtype: np.dtype = loops.NO_NOTES
    title: str = ""
    package: str = ""
    page: str = ""
    rewards_doc: str = ""
    state_dtype: np.dtype | None = None
    hooks: Hooks | None = None
    observe: Callable | None = None
    final_info: Callable[[np.ndarray, Any], list[dict]] | None = None
    narrate: Any = None
    seat_roles: Callable[[Any], tuple[str, ...]] | None = None
    bot_roles: tuple[tuple[str, str], ...] = ()
    return_identity: Callable[[np.ndarray, np.ndarray, Any], np.ndarray] | None = None
    resample_hidden: Callable | None = None
    rollout_bot: str = ""
    search_rollouts: int = 0
    action_pieces: tuple[str, ...] = ()

    # the batch loops of the module docstring: the same for every game
    # (tabletop_core.contract.loops, resolved per game by the hooks its package registered)
    batch_reset = staticmethod(loops.batch_reset)
    batch_observe = staticmethod(loops.batch_observe)
    batch_step = staticmethod(loops.batch_step)
    batch_step_bots = staticmethod(loops.batch_step_bots)
    batch_step_threads = staticmethod(loops.batch_step_threads)
    batch_step_bots_threads = staticmethod(loops.batch_step_bots_threads)
    first_illegal = staticmethod(loops.first_illegal)
    play_games = staticmethod(loops.play_games)
    batch_bot_actions = staticmethod(loops.batch_bot_actions)
    batch_reset_learner = staticmethod(loops.batch_reset_learner)
    batch_step_learner = staticmethod(loops.batch_step_learner)

    def __post_init__(self) -> None:
        """Register the hooks with the batch loops and derive :attr:`observe` from them.

        Raises:
            ValueError: hooks without a ``state_dtype``, or a required hook missing.
        """
        if self.hooks is not None:
            if self.state_dtype is None:
                raise ValueError(f"{self.name}: a GameDef with hooks needs its state_dtype")
            loops.register(self.state_dtype, self.num_actions, self.hooks.as_dict())
            if self.observe is None:
                object.__setattr__(self, "observe", observe_env(self.hooks.observe))

    def action_inputs(self, options: Any) -> tuple[tuple[int, int], ...]:
        """``((offset, size), ...)``: where each of :attr:`action_pieces` lies in the flat
        observation for ``options``; entry ``offset + a`` describes action ``a < size``.

        Raises:
            ValueError: a named piece the layout lacks, or one longer than the action space
                (:func:`~tabletop_core.contract.encoders.check_action_inputs`).
        """
        layout = self.observation_layout(options)
        missing = [name for name in self.action_pieces if name not in layout.offset]
        if missing:
            raise ValueError(f"{self.name}: action pieces {missing} are no observation pieces")
        places = [(layout.offset[name], layout.size[name]) for name in self.action_pieces]
        return check_action_inputs(places, layout.dim, self.num_actions)

    @property
    def baseline_dir(self) -> str:
        """The folder of the game's shipped baselines (``<package>/baselines``)."""
        module = sys.modules.get(self.package)
        if module is None or not getattr(module, "__file__", None):
            return ""
        return os.path.join(os.path.dirname(module.__file__), "baselines")

    def bot_decision(self, bot_id: int, state: np.ndarray, mask: np.ndarray, rng: np.ndarray) -> int:
        """One decision of bot ``bot_id`` for the acting seat of the one-env State ``state``
        ((1,) record array), ``mask`` ((A,) int8) its action mask, drawing from the bot
        generator ``rng`` ((1,) uint64, advanced): the ``bot_action`` hook, as the batch
        loops call it (terminal play, replays, pictures). -1 once the episode has ended."""
        ids = search.bot_id_array(np.full(int(state["current"][0]) + 1, bot_id, np.int64))
        out = np.empty(1, np.int64)
        self.batch_bot_actions(state, ids, rng, mask.reshape(1, -1), out)
        return int(out[0])

    def new_notes(self, batch: int) -> np.ndarray:
        """The adapter's observation notes for ``batch`` envs (``(batch,)`` of
        :attr:`notes_dtype`, zeroed: "nothing written yet"); they go with its observation
        buffers into every batch loop (:mod:`tabletop_core.contract.loops`)."""
        return np.zeros(batch, self.notes_dtype)

    @property
    def env_id(self) -> str:
        return f"{self.name}_v{self.version}"

    @property
    def option_infos(self) -> tuple:
        """The declarations of the game's options (:func:`tabletop_core.contract.options.option_infos`)."""
        from tabletop_core.contract.options import option_infos

        return option_infos(self.make_options)

    @property
    def play_bot(self) -> str:
        """The bot ``tabletop play`` seats by default (:attr:`default_bot` or ``"strong"``)."""
        return self.default_bot or "strong"

    def bot_ids(self, bots, num_seats: int) -> np.ndarray:
        """Map bot names (one per seat, or one name for every seat) to kernel ids.

        Raises:
            ValueError: on an unknown bot name or a wrong count.
        """
        if isinstance(bots, str):
            bots = [b.strip() for b in bots.split(",")]
        bots = list(bots)
        if len(bots) == 1:
            bots = bots * num_seats
        if len(bots) != num_seats:
            raise ValueError(bot_count_message(self.name, num_seats, bots))
        ids = []
        for b in bots:
            if b == "baseline":
                raise ValueError(
                    f"{self.name}: 'baseline' is a trained policy, not a compiled bot: it plays in "
                    "tabletop match / play / replay, vector_env(...).step_bots, the trainer's --opponents "
                    f"and baseline_policy(); here name a scripted bot: {', '.join(self.bot_names)}"
                )
            if isinstance(b, str) and b.partition(":")[0] == "search":
                ids.append(self.search_bot_id(b))
                continue
            if b not in self.bot_names:
                raise ValueError(
                    f"{self.name}: unknown bot {b!r}; available bots: {', '.join(self.bot_choices)}, "
                    "baseline (the shipped trained policy; policy:FILE.npz for another)"
                )
            ids.append(self.bot_names.index(b))
        return search.bot_id_array(ids)

    @property
    def has_search(self) -> bool:
        """Whether the game has the ``search`` bot (its hooks include ``resample_hidden``)."""
        return self.hooks is not None and self.hooks.resample_hidden is not None

    @property
    def bot_choices(self) -> tuple[str, ...]:
        """Every bot name a seat may take: :attr:`bot_names` and, where the game has it,
        ``search`` (:mod:`tabletop_core.contract.search`)."""
        return self.bot_names + (("search",) if self.has_search else ())

    def search_bot_id(self, spec: str) -> int:
        """The kernel id of the search bot named by ``spec``: ``search``, optionally followed
        by ``:rollouts=N``, ``:bot=NAME`` and ``:z=X`` (:func:`~tabletop_core.contract.search.parse_search`;
        defaults :attr:`search_defaults`), e.g. ``search:rollouts=512:bot=greedy``.

        Raises:
            ValueError: a game without the search bot, an unknown key, a budget that is not
                an int in range, or a rollout bot that is not one of the game's scripted bots
                playing any seat.
        """
        if spec.partition(":")[0] != "search" or not self.has_search:
            raise ValueError(
                f"{self.name}: unknown bot {spec!r}; available bots: {', '.join(self.bot_choices)}"
            )
        bound = dict(self.bot_roles)  # a bot bound to one role cannot play every seat's rollouts
        rollout_bots = tuple("" if n in bound else n for n in self.bot_names)
        return search.parse_search(spec, self.name, rollout_bots, self.search_defaults)

    @property
    def search_defaults(self) -> tuple[int, str, float]:
        """``(rollouts, rollout bot, z)`` of ``search`` named without settings."""
        return self.search_budget, self.rollout_bot or "strong", search.DEFAULT_Z

    @property
    def search_budget(self) -> int:
        """The ``search`` bot's rollouts per decision when none are named."""
        return self.search_rollouts or search.DEFAULT_BUDGET

    def bot_name(self, bot_id: int) -> str:
        """The name of the bot with kernel id ``bot_id`` (:meth:`bot_ids`' inverse): a
        scripted bot's name, or ``search`` with its settings when they differ from the
        defaults."""
        if bot_id < search.SEARCH:
            return self.bot_names[bot_id]
        return search.search_name(bot_id, self.bot_names, self.search_defaults)

    def check_roles(self, bots, options: Any) -> None:
        """Refuse a seat whose bot plays another role than the seat's (:attr:`seat_roles`,
        :attr:`bot_roles`): ``bots`` holds one entry per seat (a bot name, or None for a
        person or a policy, checked by :func:`tabletop_core.agents.seats.seat_policy`).

        Raises:
            ValueError: naming every mismatched seat, its role and the bots that fit it.
        """
        if self.seat_roles is None or not self.bot_roles:
            return
        bound = dict(self.bot_roles)
        opts = self.make_options(**options) if isinstance(options, dict) else options
        roles = tuple(self.seat_roles(opts))
        agents = list(self.agents(opts))
        wrong = []
        for k, b in enumerate(bots):
            role = bound.get(b) if isinstance(b, str) else None
            if role is not None and k < len(roles) and role != roles[k]:
                wrong.append(f"seat {k} ({agents[k]}) is a {roles[k]} seat, not a {role} seat")
        if wrong:
            fits = {
                r: ", ".join(n for n in self.bot_names if bound.get(n, r) == r) for r in dict.fromkeys(roles)
            }
            raise ValueError(
                f"{self.name}: {'; '.join(wrong)}. The seats' roles are {', '.join(roles)}; "
                + "; ".join(f"{r} seats take {names}" for r, names in fits.items())
            )

    def lineup_for(self, bot: str, options: Any) -> list[str]:
        """One bot name per seat for "``bot`` everywhere": a seat of another role than the one
        ``bot`` is bound to (:attr:`bot_roles`) takes the bot bound to its own role (Exit
        Now's ``human`` bot with the ``ghost`` bot in the ghost seat), every other seat
        ``bot``.
        """
        opts = self.make_options(**options) if isinstance(options, dict) else options
        seats = len(self.agents(opts))
        if self.seat_roles is None or bot not in dict(self.bot_roles):
            return [bot] * seats
        role_bot = {role: name for name, role in self.bot_roles}
        mine = dict(self.bot_roles)[bot]
        return [bot if r == mine else role_bot.get(r, bot) for r in self.seat_roles(opts)]

    def load_saved_state(self, saved: Any, target: np.ndarray, write: bool = True) -> None:
        """Check a ``get_state()`` dict against ``target`` (the live State) and copy its
        ``"state"`` into ``target`` (with ``write=False`` only check it).

        Every check runs before anything is written: the game's :attr:`validate_state`
        (field ranges and the rules' invariants, per env) included, so a bad state leaves
        ``target`` unchanged.

        Raises:
            ValueError: if ``saved`` is not from this game, has another shape or dtype
                (batch size), was made with other game options, or holds a value the
                game's validation rejects (naming the env index and the field).
        """
        if not isinstance(saved, dict) or saved.get("game") != self.env_id or "state" not in saved:
            raise ValueError(f"set_state expects a dict from {self.env_id} get_state()")
        st = np.asarray(saved["state"])
        if st.dtype != target.dtype or st.shape != target.shape:
            raise ValueError(
                f"saved state has shape {st.shape} and dtype {st.dtype}; expected shape {target.shape} "
                "with this env's dtype (same game, options and batch size)"
            )
        if any(not np.array_equal(st[n], target[n]) for n in st.dtype.names if n.startswith("cfg_")):
            raise ValueError(
                "saved state was made with other game options; create the env with the same options"
            )
        if self.validate_state is not None:
            self.validate_state(st)
        if write:
            target[...] = st
