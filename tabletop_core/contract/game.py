"""The game contract: what a game package declares, once, to be served by every adapter.

A game package (a folder with ``spec``, ``state``, ``rules``, ``observe``, ``bots``,
``render``, ``narrate`` and ``hooks`` modules) declares itself with one :class:`GameDef`
in its ``game.py``, holding only what the game alone knows: its name and version, its
options, agents and observation layout, its State (:class:`StateDef`), the numba
:class:`Hooks` the batch loops call (with the action count), its bots (:class:`Bots`), the
facts of its episodes as data (``cooperative``, ``zero_sum``, longest episode, reward
bounds), how it is shown (:class:`Views`), what an ended episode reports (:class:`Ending`)
and its words (:class:`Docs`). The core derives the rest once: the env ids, the batch
loops, the observation of any seat, the text view of one seat, the determinization of a
saved State (``resample_hidden``), the seat count option and the check of ended episodes'
returns. The AEC env, the vector env, the learner
views, the arena, the soak, the replays and the trainer read only this declaration, so
the rules stay in the game's kernels and the core never names a game. The catalog
(:mod:`tabletop_core.contract.catalog`) finds the declarations through the
``tabletop_rl.games`` entry points. ``docs/adding-a-game.md`` walks through it.

The batch loops (reset, step, step with bots, threads, whole games, learner steps,
observe) are written once, in :mod:`tabletop_core.contract.loops`, over the hooks: a loop
compiles once per game and is cached. :class:`GameDef` exposes each name of
:data:`~tabletop_core.contract.loops.LOOPS` (``batch_reset``, ``batch_step``, ...) as an
attribute, for every game alike.

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
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any, Generic, TypeVar

import numpy as np

from tabletop_core.contract import loops, search
from tabletop_core.contract.encoders import ObservationLayout, check_action_inputs
from tabletop_core.contract.resample import resample_entry
from tabletop_core.kernel.records import at

_T = TypeVar("_T")

__all__ = [
    "GameDef",
    "Hooks",
    "StateDef",
    "Bots",
    "Views",
    "Ending",
    "Docs",
    "observe_env",
    "bot_count_message",
    "registry_id",
    "player_agents",
]


def player_agents(count: int) -> list[str]:
    """``["player_0", ..., "player_{count-1}"]``: the agents of a game whose seats all play
    for themselves."""
    return [f"player_{k}" for k in range(int(count))]


def registry_id(name: str, version: int) -> str:
    """The PettingZoo registry id of a game: ``tabletop/<name>-v<version>`` (the one place
    it is spelled; ``GameDef.ENV_ID``)."""
    return f"tabletop/{name}-v{version}"


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
    each a ``@kernel`` on the env's record ``e`` (signatures in the loops' table), and the
    sizes they are compiled for.

    Attributes:
        num_actions: the size ``A`` of the discrete action space.
        deal: ``deal(e)``, start a new episode from the record's generator and options.
        step: ``step(e, action, acc, row)``, apply a legal action and add every seat's
            reward to ``acc[row]``.
        legal_mask: ``legal_mask(e, masks, row)``, the acting seat's mask into ``masks[row]``.
        observe: ``observe(e, seat, out, row)``, ``seat``'s observation into ``out[row]``.
        bot_action: ``bot_action(e, bot, masks, row, rng, r)``, bot ``bot``'s action with
            ``masks[row]`` holding the acting seat's mask (every bot of :class:`Bots`, the
            ``random`` bot included: the game's ``bot_action_r``).
        is_legal: ``is_legal(e, action) -> bool``.
        random_move: optional ``random_move(e, rng, r)``, the ``random`` bot's action drawn
            from the record without a mask (the draw ``bot_action`` makes on the mask); the
            loops use it where no mask is at hand.
        random_on_mask: optional ``random_on_mask(masks, row, rng, r)``, the ``random``
            bot's draw on the mask row, where the game has a faster one than its
            ``bot_action``'s.
        bot_move: optional ``bot_move(e, bot, masks, row, rng, r)``, the bot's action with
            ``masks[row]`` as scratch; default: ``random_move`` for the ``random`` bot,
            else the legal mask into the row and ``bot_action``
            (:func:`tabletop_core.contract.hooks.register`).
        observe_patch, observe_fresh: optional, for a game that rewrites only what a step
            changed (Exit Now); default: ``observe``.
        prefetch: optional cache hints for the next envs; default: none.
        resample_hidden: optional ``resample_hidden(e, seat, w) -> w``, a determinization
            for ``seat`` in place (the game's ``resample_hidden_r``); without it the game
            has no ``search`` bot (:mod:`tabletop_core.contract.search`).
        rollout_phase: optional ``rollout_phase(e) -> int``, the part of the episode the
            record is in; a search rollout ends where it changes (Koikoi: the round, each
            scored on its own); default: the whole episode is one phase.
        notes_dtype: the dtype of the adapters' observation notes (:meth:`GameDef.new_notes`):
            what a game that patches its observation rows in place (``observe_patch``)
            remembers of each row it wrote (Exit Now);
            :data:`tabletop_core.contract.loops.NO_NOTES` otherwise.
    """

    num_actions: int
    deal: Callable
    step: Callable
    legal_mask: Callable
    observe: Callable
    bot_action: Callable
    is_legal: Callable
    random_move: Callable | None = None
    random_on_mask: Callable | None = None
    bot_move: Callable | None = None
    observe_patch: Callable | None = None
    observe_fresh: Callable | None = None
    prefetch: Callable | None = None
    resample_hidden: Callable | None = None
    rollout_phase: Callable | None = None
    notes_dtype: np.dtype = loops.NO_NOTES

    @classmethod
    def from_names(cls, num_actions: int, *namespaces: Any, **given: Any) -> Hooks:
        """A game's hooks found by the kernels' naming convention: each hook ``h`` (a field
        of this class) is the first kernel named ``h_r`` in ``namespaces`` (modules or
        mappings, searched in order: typically the hooks module's ``globals()``, then its
        ``rules``, ``observe``, ``bots`` and ``resample`` modules), unless ``given`` names
        it; a hook found nowhere is left to its default. The game passes only what differs
        from the convention (``random_move=bots.random_bot_r``, ``notes_dtype=...``).

        Args:
            num_actions: the size ``A`` of the action space.
            namespaces: modules or mappings holding the ``<hook>_r`` kernels.
            given: hooks (and ``notes_dtype``) by field name, taken as they are.

        Raises:
            ValueError: a keyword that is not a field of :class:`Hooks`, or a required
                hook (``deal``, ``step``, ``legal_mask``, ``observe``, ``bot_action``,
                ``is_legal``) neither given nor found as ``<hook>_r``.
        """
        names = [f.name for f in fields(cls) if f.name != "num_actions"]
        unknown = sorted(set(given) - set(names))
        if unknown:
            raise ValueError(f"Hooks.from_names: unknown hooks {unknown}; allowed: {names}")
        found = dict(given)
        for name in names[: names.index("notes_dtype")]:
            for space in () if name in found else namespaces:
                kernel = (
                    space.get(f"{name}_r")
                    if isinstance(space, Mapping)
                    else getattr(space, f"{name}_r", None)
                )
                if kernel is not None:
                    found[name] = kernel
                    break
        required = [f.name for f in fields(cls) if f.default is MISSING and f.name != "num_actions"]
        missing = [name for name in required if found.get(name) is None]
        if missing:
            raise ValueError(
                f"Hooks.from_names: no kernel for the hooks {missing}: define '<hook>_r' in one of"
                " the namespaces or pass the hook by keyword"
            )
        return cls(num_actions=int(num_actions), **found)

    def as_dict(self) -> dict[str, Callable | None]:
        """The hook kernels by name (what :func:`tabletop_core.contract.loops.register`
        takes; ``num_actions`` and ``notes_dtype`` are not kernels and are left out)."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in ("num_actions", "notes_dtype")
        }


@dataclass(frozen=True)
class StateDef:
    """A game's State: the record dtype the hooks are compiled for, how a State is made and
    the one validation of a saved one (``<game>/state.py``).

    Attributes:
        dtype: the State record dtype (fields ``rng``, ``current``, ``status`` at least).
        new: ``new_state(batch, options) -> (batch,) array``, configured, not yet dealt
            (:func:`tabletop_core.kernel.records.blank_state` and the game's options).
        validate: ``validate_state(saved) -> None``, raising ValueError naming the env,
            the field and what is allowed; run before anything of a saved State is written.
        agents: ``agents(record) -> [agent name per seat]`` of one env's record, for a game
            whose saved States are resampled (``resample_hidden`` takes a seat's agent name).
    """

    dtype: np.dtype
    new: Callable[[int, Any], np.ndarray]
    validate: Callable[[Any], None]
    agents: Callable[[np.void], list[str]] | None = None


@dataclass(frozen=True)
class Bots:
    """A game's scripted bots (the kernels of its ``bot_action`` hook) and their defaults.

    Attributes:
        names: the bots' names, index = bot id in the kernels; one is ``random``.
        play: the bot ``tabletop play`` seats by default.
        rollout: the bot that plays every seat in the ``search`` bot's rollouts by default;
            it must play any seat.
        rollouts: the ``search`` bot's rollouts per decision by default (0:
            :data:`~tabletop_core.contract.search.DEFAULT_BUDGET`), chosen so a decision
            takes well under 50 ms on one core (``docs/search-bot.md``).
        roles: ``((bot name, role), ...)`` for the bots bound to one role of
            :attr:`GameDef.seat_roles` (Exit Now's ``human`` and ``ghost``); a bot not named
            plays any seat.
    """

    names: tuple[str, ...]
    play: str = "strong"
    rollout: str = "strong"
    rollouts: int = 0
    roles: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Views:
    """How a game is shown to people: its text, its picture and its narration.

    Attributes:
        ansi: ``render_ansi(state (1,), options, seat=None) -> str``, the table as text,
            omniscient or (``seat``) as that seat may see it.
        svg: ``render_svg(state (1,), options, seat) -> str``, the table as an SVG document
            from ``seat``'s view (``None``: omniscient) of a fixed size (:attr:`svg_size`);
            used by ``render_mode="svg"``/``"rgb_array"`` and replays. None: no picture.
        svg_size: ``(width, height)`` in pixels of ``svg``'s picture.
        narrate: the game's narration (a module with ``describe_step``/``describe_end``
            as :mod:`tabletop_core.tools.play` reads them), or None.
    """

    ansi: Callable[..., str]
    svg: Callable[..., str] | None = None
    svg_size: tuple[int, int] = (0, 0)
    narrate: Any = None

    @classmethod
    def of(cls, render: Any, narrate: Any = None) -> Views:
        """The views of a game package's ``render`` module (``render_ansi``, and where it
        draws pictures ``render_svg`` with ``SVG_WIDTH`` x ``SVG_HEIGHT``) and its
        ``narrate`` module."""
        svg = getattr(render, "render_svg", None)
        size = (int(render.SVG_WIDTH), int(render.SVG_HEIGHT)) if svg is not None else (0, 0)
        return cls(render.render_ansi, svg, size, narrate)


@dataclass(frozen=True)
class Ending:
    """What an ended episode reports.

    Attributes:
        stats: ``episode_stats(final states (G,)) -> {name: (G,) array}``, the game's
            figures of finished episodes for the arena (e.g. The Game's ``score``).
        match_stats: ``options -> {name: definition}``, the ``stats`` figures that mean
            something under these options, each with the one line that defines it (a
            match table prints these only; None: every figure, undefined).
        info: ``final_info(state (1,), options) -> [dict per seat]``, each agent's info when
            an episode ends (None: empty infos).
    """

    stats: Callable[[np.ndarray], dict[str, np.ndarray]]
    match_stats: Callable[[Any], dict[str, str]] | None = None
    info: Callable[[np.ndarray, Any], list[dict]] | None = None


@dataclass(frozen=True)
class Docs:
    """A game's words for people.

    Attributes:
        title: the game's name as people write it (``"The Game"``).
        description: one line on what the game is (``tabletop list``, the CLI's help).
        rewards: one paragraph on the vector env's rewards (shape and meaning).
    """

    title: str
    description: str = ""
    rewards: str = ""


def _call_with_action(action_name: Callable) -> Callable[[int, np.ndarray], str]:
    """``action_name`` as the core calls it, ``(action, state)``: a function of the action
    alone is called with the action alone."""
    try:
        import inspect

        params = [
            p
            for p in inspect.signature(action_name).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
        ]
    except (TypeError, ValueError):  # no signature: take it as (action, state)
        return action_name
    if len(params) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params):
        return action_name
    return functools.partial(_action_only, action_name)


def _action_only(action_name: Callable, action: int, state: np.ndarray = None) -> str:
    return action_name(action)


CONVENTION: dict[str, tuple[str, ...]] = {
    "make_options": ("Options",),
    "agents": ("agents",),  # default: seat_agents
    "observation_layout": ("observation_layout",),
    "state": ("STATE_DTYPE", "new_state", "validate_state", "record_agents?"),  # default: record_seat_agents
    "hooks": ("HOOKS",),
    "max_episode_steps": ("MAX_EPISODE_STEPS",),
    "action_name": ("action_name",),
    "views": ("render", "narrate?"),
    "ending": ("episode_stats", "match_stats?", "final_info?"),
    "identity": ("return_identity?",),
    "seat_roles": ("seat_roles?",),
    "action_pieces": ("ACTION_PIECES?",),
}
"""The names by which :class:`GameDef` fills each field a declaration leaves out, looked
up in the declaring module (:attr:`GameDef.module`), then in its package's modules
(:data:`CONVENTION_MODULES`, the first that has the name): ``state`` is
``StateDef(STATE_DTYPE, new_state, validate_state, record_agents)``, ``views``
``Views.of(render, narrate)`` (the package's modules), ``ending``
``Ending(episode_stats, match_stats, final_info)``, the others the one name as it is. A name
marked ``?`` may be absent (its default, None, stands)."""

CONVENTION_MODULES = ("spec", "state", "hooks", "observe", "rules", "bots")
"""The modules of a game's package searched, in order, after the declaring module for the
names of :data:`CONVENTION`; the package's ``render`` and ``narrate`` modules are the
names ``render`` and ``narrate``."""

_BUILD: dict[str, Callable[..., Any]] = {"state": StateDef, "views": Views.of, "ending": Ending}


def seat_agents(options: Any) -> list[str]:
    """The agents of a game whose seats are all alike, from its ``num_players`` option:
    ``player_0`` .. ``player_{n-1}`` (the ``agents`` of a package that defines none)."""
    return player_agents(options.num_players)


def record_seat_agents(e: np.void) -> list[str]:
    """The agents of one env's record from its ``cfg_players`` field (the ``record_agents``
    of a package that defines no ``agents``)."""
    return player_agents(e["cfg_players"])


_DEFAULTS: dict[str, Callable[..., Any]] = {"agents": seat_agents, "record_agents": record_seat_agents}
"""What stands for a name of :data:`CONVENTION` a package leaves out: seats named
``player_<k>`` from the ``num_players`` option and the record's ``cfg_players`` (both only
where the package defines no ``agents`` of its own)."""


def _convention_lookup(module: str) -> Callable[[str], Any]:
    """``name -> value or None`` over the declaring module ``module`` and its package's
    modules (:data:`CONVENTION_MODULES`; ``render``/``narrate``: the modules themselves)."""
    import importlib
    import importlib.util

    package = module.rpartition(".")[0]
    own = vars(sys.modules[module]) if module in sys.modules else {}

    def sub(name: str) -> Any:
        full = f"{package}.{name}"
        if full in sys.modules:
            return sys.modules[full]
        return importlib.import_module(full) if package and importlib.util.find_spec(full) else None

    def lookup(name: str) -> Any:
        if name in own:
            return own[name]
        if name in ("render", "narrate"):
            return sub(name)
        for mod in filter(None, map(sub, CONVENTION_MODULES)):
            if hasattr(mod, name):
                return getattr(mod, name)
        return None

    return lookup


def _fill_by_convention(game: GameDef) -> None:
    """Fill ``game``'s fields left out from the names of its package (:data:`CONVENTION`).

    Raises:
        ValueError: a required name found nowhere, naming the field and the name.
    """
    found = _convention_lookup(game.module)
    alike = found("agents") is None  # seats all alike: the default agents and record agents

    def lookup(name: str) -> Any:
        value = found(name)
        return _DEFAULTS[name] if value is None and alike and name in _DEFAULTS else value

    for field, names in CONVENTION.items():
        if getattr(game, field) not in (None, ()):
            continue
        values = [lookup(n.rstrip("?")) for n in names]
        missing = [n for n, v in zip(names, values) if v is None and not n.endswith("?")]
        if missing:
            raise ValueError(
                f"{game.name}: GameDef field {field!r} not given, and neither module {game.module!r}"
                f" nor its package's {list(CONVENTION_MODULES)} has {missing} to make it from"
                f" (pass {field}=...)"
            )
        value = _BUILD[field](*values) if field in _BUILD else values[0]
        if value is not None:
            object.__setattr__(game, field, value)


class _Forward(Generic[_T]):
    """A read-only attribute of :class:`GameDef` read from one of its groups, the name the
    adapters read (``game.title`` is ``game.docs.title``): ``getattr(game.<group>, <field>)``."""

    def __init__(self, group: str, field: str, doc: str) -> None:
        self.group, self.field, self.__doc__ = group, field, doc

    def __get__(self, game: Any, owner: type | None = None) -> _T:
        if game is None:
            return self  # the class attribute itself, for help() and the docs
        return getattr(getattr(game, self.group), self.field)

    def __set__(self, game: Any, value: Any) -> None:
        raise AttributeError(f"GameDef's {self.field!r} is read-only: it is {self.group}.{self.field}")


@dataclass(frozen=True, eq=False)
class GameDef:
    """Everything the adapters need to know about one game (see the module docstring).

    Declared (what only the game knows). A field from ``make_options`` on, left out, is
    made from the game package's names by convention (:data:`CONVENTION`: ``Options``,
    ``agents``, ``observation_layout``, ``STATE_DTYPE``, ``HOOKS``, ``MAX_EPISODE_STEPS``,
    ``action_name``, ``render``, ``episode_stats``, ...), so a declaration states only its
    name, version, words, bots, reward bounds and the facts that differ from the defaults:

    Attributes:
        name: registry name, e.g. ``"thegame"``.
        version: environment version (``thegame_v1``, ``tabletop/thegame-v1``); bumped
            whenever observations, actions, rewards or rules change.
        module: the declaring module (``__name__``): its docstring is the game's page
            (:attr:`page`) and its package the game's package (:attr:`package`).
        docs: the game's title, one-line description and rewards paragraph (:class:`Docs`).
        make_options: ``(**kwargs) -> options`` validating the game's options
            (raises ValueError naming the bad option and what is allowed).
        agents: ``options -> list[str]``, agent names in seat order.
        observation_layout: ``options -> ObservationLayout``.
        state: the State (:class:`StateDef`): dtype, ``new_state``, ``validate_state``.
        hooks: the rules kernels of the batch loops and the action count (:class:`Hooks`);
            the declaration registers them with :func:`tabletop_core.contract.loops.register`.
        bots: the scripted bots and their defaults (:class:`Bots`).
        max_episode_steps: longest possible episode (agent steps).
        reward_range: ``(low, high)`` of one step's reward.
        cooperative: every seat gets the same reward, so the same return (The Game).
        zero_sum: every ended episode's returns sum to 0 (Koikoi's chips).
        identity: the game's ``return_identity(returns (G, P), options) -> (G,) bool``, True
            where an ended episode's returns obey what the game says beyond
            :attr:`cooperative` and :attr:`zero_sum`; None: the facts say it all. The soak
            checks all of it through :attr:`return_identity`.
        action_name: ``(action, state (1,) array) -> str`` (for error messages, play); a
            function of the action alone is called with the action alone.
        views: text, picture and narration (:class:`Views`).
        ending: what an ended episode reports (:class:`Ending`).
        seat_roles: ``options -> (role per seat)``, for a game whose seats play different
            roles (Exit Now's humans and ghost): seats of one role act as one team in
            ratings and take that role's bots (:attr:`Bots.roles`). None: every seat plays
            for itself.
        action_pieces: observation pieces whose entry ``a`` describes action ``a`` (the
            piece's first entries line up with the first action ids). The trainer's network
            adds a learned multiple of each to those actions' logits
            (:class:`~tabletop_core.train.model.Agent`, :meth:`action_inputs`).

    A declaration is one object per game: it compares and hashes by identity.

    Derived by the core (read-only properties, the names the adapters read): ``env_id``,
    ``ENV_ID``, ``num_actions``, ``state_dtype``, ``new_state``, ``validate_state``,
    ``notes_dtype``, ``observe``, ``render_ansi``, ``render_view``, ``render_svg``,
    ``svg_size``, ``narrate``, ``episode_stats``, ``match_stats``, ``final_info``,
    ``title``, ``description``, ``rewards_doc``, ``page``, ``package``, ``bot_names``,
    ``default_bot``, ``play_bot``, ``rollout_bot``, ``search_rollouts``, ``bot_roles``,
    ``players_option``, ``resample_hidden`` and the batch loops
    (:data:`~tabletop_core.contract.loops.LOOPS`).
    """

    name: str
    version: int
    module: str
    docs: Docs
    bots: Bots
    reward_range: tuple[float, float]
    make_options: Callable[..., Any] = None
    agents: Callable[[Any], list[str]] = None
    observation_layout: Callable[[Any], ObservationLayout] = None
    state: StateDef = None
    hooks: Hooks = None
    max_episode_steps: int = None
    action_name: Callable[[int, np.ndarray], str] = None
    views: Views = None
    ending: Ending = None
    cooperative: bool = False
    zero_sum: bool = False
    identity: Callable[[np.ndarray, Any], np.ndarray] | None = None
    seat_roles: Callable[[Any], tuple[str, ...]] | None = None
    action_pieces: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Register the hooks with the batch loops (the ``random`` bot's id with them).

        Raises:
            ValueError: a required hook missing, a field neither given nor found by its
                conventional name in :attr:`module` (:data:`CONVENTION`), or bots without
                a ``random`` bot.
        """
        _fill_by_convention(self)
        if "random" not in self.bots.names:
            raise ValueError(f"{self.name}: the bots must include 'random', got {self.bots.names}")
        object.__setattr__(self, "action_name", _call_with_action(self.action_name))
        loops.register(
            self.state.dtype,
            self.hooks.num_actions,
            {**self.hooks.as_dict(), "random_bot": self.bots.names.index("random")},
        )

    # --- derived facts --------------------------------------------------------------------
    @property
    def env_id(self) -> str:
        """``<name>_v<version>``: the tag of a saved State and the AEC env's metadata name."""
        return f"{self.name}_v{self.version}"

    @property
    def ENV_ID(self) -> str:  # noqa: N802 - the name the game packages export
        """The PettingZoo registry id, ``tabletop/<name>-v<version>`` (:func:`registry_id`)."""
        return registry_id(self.name, self.version)

    num_actions = _Forward[int](
        "hooks", "num_actions", "The size ``A`` of the action space (:attr:`Hooks.num_actions`)."
    )

    state_dtype = _Forward[np.dtype]("state", "dtype", "The State record dtype (:attr:`StateDef.dtype`).")

    def new_state(self, batch: int, options: Any) -> np.ndarray:
        """A ``(batch,)`` State configured by ``options``, not yet dealt (:attr:`StateDef.new`).

        Raises:
            ValueError: if ``batch`` < 1.
        """
        return self.state.new(batch, options)

    validate_state = _Forward[Callable[[Any], None]](
        "state", "validate", "The game's one validation of a saved State (:attr:`StateDef.validate`)."
    )

    notes_dtype = _Forward[np.dtype](
        "hooks", "notes_dtype", "The observation notes' dtype (:attr:`Hooks.notes_dtype`)."
    )

    @functools.cached_property
    def observe(self) -> Callable:
        """``(s, i, seat, out (D,) f32)``, env ``i`` from any seat's view: the
        :func:`observe_env` of the ``observe`` hook."""
        return observe_env(self.hooks.observe)

    @property
    def players_option(self) -> str:
        """The option that sets the number of seats (``--players`` in the CLI): the first
        option named ``num_*``."""
        from tabletop_core.contract.options import option_infos

        names = [o.name for o in option_infos(self.make_options)]
        return next((n for n in names if n.startswith("num_")), "num_players")

    def returns_hold(self, returns: np.ndarray, options: Any) -> np.ndarray:
        """``(G,) bool``: where the ended episodes' returns ``returns`` ((G, P) float) obey
        the game's facts (:attr:`cooperative`: every seat the same; :attr:`zero_sum`: the
        sum is 0) and its :attr:`identity`."""
        r = np.asarray(returns, dtype=np.float64)
        ok = np.ones(r.shape[0], bool)
        if self.cooperative:
            ok &= (r == r[:, :1]).all(axis=1)
        if self.zero_sum:
            ok &= np.abs(r.sum(axis=1)) < 1e-3
        if self.identity is not None:
            ok &= np.asarray(self.identity(r, options), bool)
        return ok

    @property
    def return_identity(self) -> Callable[[np.ndarray, Any, Any], np.ndarray] | None:
        """``(returns (G, P), lengths (G,), options) -> (G,) bool``, :meth:`returns_hold`
        (``lengths`` is not read), or None where the returns have nothing to obey beyond
        the reward bounds."""
        if not (self.cooperative or self.zero_sum or self.identity is not None):
            return None
        return self._returns_hold_with_lengths

    def _returns_hold_with_lengths(self, returns: np.ndarray, lengths: Any, options: Any) -> np.ndarray:
        return self.returns_hold(returns, options)

    # --- views and endings ------------------------------------------------------------------
    render_ansi = _Forward[Callable[..., str]](
        "views", "ansi", "``(state (1,), options, seat=None) -> str`` (:attr:`Views.ansi`)."
    )

    def render_view(self, state: np.ndarray, options: Any, seat: int) -> str:
        """The table as text as ``seat`` may see it (:attr:`Views.ansi` with ``seat``)."""
        return self.views.ansi(state, options, seat=seat)

    render_svg = _Forward[Callable[..., str] | None](
        "views", "svg", "``(state (1,), options, seat) -> str`` SVG, or None (:attr:`Views.svg`)."
    )

    svg_size = _Forward[tuple[int, int]](
        "views", "svg_size", "``(width, height)`` of :attr:`render_svg`'s picture."
    )

    narrate = _Forward[Any](
        "views", "narrate", "The game's narration module, or None (:attr:`Views.narrate`)."
    )

    episode_stats = _Forward[Callable[[np.ndarray], dict[str, np.ndarray]]](
        "ending", "stats", "The figures of finished episodes (:attr:`Ending.stats`)."
    )

    match_stats = _Forward[Callable[[Any], dict[str, str]] | None](
        "ending", "match_stats", "The figures a match reports, defined (:attr:`Ending.match_stats`)."
    )

    final_info = _Forward[Callable[[np.ndarray, Any], list[dict]] | None](
        "ending", "info", "Each agent's info when an episode ends (:attr:`Ending.info`)."
    )

    # --- words ------------------------------------------------------------------------------
    title = _Forward[str]("docs", "title", "The game's name as people write it (:attr:`Docs.title`).")

    description = _Forward[str](
        "docs", "description", "One line on what the game is (:attr:`Docs.description`)."
    )

    rewards_doc = _Forward[str](
        "docs", "rewards", "One paragraph on the vector env's rewards (:attr:`Docs.rewards`)."
    )

    @property
    def page(self) -> str:
        """The game's documentation page: the docstring of :attr:`module`, shown by
        ``help(<package>.env)``."""
        mod = sys.modules.get(self.module)
        return (mod.__doc__ or "") if mod is not None else ""

    @property
    def package(self) -> str:
        """The game's package (``"thegame_env"``): its ``baselines/`` folder holds the
        shipped policies, and a fresh process imports it for cold-start timings."""
        mod = sys.modules.get(self.module)
        if mod is not None and mod.__package__:
            return mod.__package__
        return self.module.rpartition(".")[0] or self.module

    # --- bots -------------------------------------------------------------------------------
    bot_names = _Forward[tuple[str, ...]](
        "bots", "names", "The scripted bots' names, index = bot id (:attr:`Bots.names`)."
    )

    default_bot = _Forward[str](
        "bots", "play", "The bot ``tabletop play`` seats by default (:attr:`Bots.play`)."
    )

    play_bot = _Forward[str](
        "bots", "play", "The bot ``tabletop play`` seats by default (:attr:`Bots.play`)."
    )

    rollout_bot = _Forward[str](
        "bots", "rollout", "The ``search`` bot's rollout bot by default (:attr:`Bots.rollout`)."
    )

    search_rollouts = _Forward[int](
        "bots", "rollouts", "The ``search`` bot's rollouts per decision as declared (:attr:`Bots.rollouts`)."
    )

    bot_roles = _Forward[tuple[tuple[str, str], ...]](
        "bots", "roles", "The bots bound to one role (:attr:`Bots.roles`)."
    )

    @functools.cached_property
    def resample_hidden(self) -> Callable[[Any, Any, Any], dict] | None:
        """``(saved, seat, seed) -> saved``, a determinization for search of a
        ``get_state()`` dict (:func:`tabletop_core.contract.resample.resample_entry` of the
        ``resample_hidden`` hook), or None for a game without that hook."""
        if self.hooks.resample_hidden is None:
            return None
        title = self.docs.title or self.name
        return resample_entry(self.name, title, self.state, self.hooks.resample_hidden, self.package)

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
    def option_infos(self) -> tuple:
        """The declarations of the game's options (:func:`tabletop_core.contract.options.option_infos`)."""
        from tabletop_core.contract.options import option_infos

        return option_infos(self.make_options)

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
        return self.search_budget, self.bots.rollout, search.DEFAULT_Z

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


for _loop in loops.LOOPS:  # the batch loops: the same functions for every game
    setattr(GameDef, _loop, staticmethod(getattr(loops, _loop)))
del _loop
