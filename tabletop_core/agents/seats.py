"""What may sit in a seat besides a compiled bot: a trained policy, or the search bot
guided by one.

A seat entry is a bot name (``"strong"``), ``"baseline"`` (the game's shipped trained
policy), ``"policy:FILE.npz"``, an :class:`~tabletop_core.agents.policy.MLPPolicy`, or
the search bot with the baseline as its default move (``"search:blueprint=baseline"``,
:class:`SearchPolicy`); :func:`is_policy` tells the policy entries apart,
:func:`seat_policy` loads one, checked against the game and its options, and
:func:`policy_actions` asks one for its actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_core.agents.baseline import baseline_policy, is_baseline
from tabletop_core.agents.policy import MLPPolicy
from tabletop_core.contract.options import as_options
from tabletop_core.contract.search import GUIDED_KEYS, batch_search_actions, guide_bits, guide_params

__all__ = ["is_policy", "seat_policy", "policy_actions", "search_blueprint", "parse_guide", "SearchPolicy"]

BLUEPRINTS = ("baseline", "PATH.npz")
"""What ``search:blueprint=...`` may name: ``baseline``, the game's shipped trained policy
for the seat, or the path of a trained policy file (``.npz``, as ``policy:FILE.npz`` takes)."""


def search_blueprint(bot) -> tuple[str, str] | None:
    """``(the search bot's own name, the blueprint)`` of an entry with a ``blueprint=``
    setting (``search:rollouts=64:blueprint=baseline`` -> ``("search:rollouts=64",
    "baseline")``), or None (another entry, or the search bot whose default move is its
    rollout bot's choice)."""
    if not isinstance(bot, str) or bot.partition(":")[0] != "search":
        return None
    pairs = [p.partition("=") for p in bot.split(":")]
    named = [value for key, _, value in pairs if key == "blueprint"]
    if not named:
        return None
    return ":".join(k + eq + v for k, eq, v in pairs if k not in GUIDED_KEYS), named[-1]


OWN = ("bot", "policy")
"""Who may play the searching seat's own later moves in the rollouts (``own=``)."""


def parse_guide(game, bot: str) -> int:
    """The id bits of ``bot``'s ``top=K`` and ``own=bot|policy`` settings
    (:func:`~tabletop_core.contract.search.search_id`).

    Raises:
        ValueError: ``top`` not an int in 0..255, or ``own`` not one of :data:`OWN`.
    """
    top, own = 0, False
    for key, _, value in (p.partition("=") for p in bot.split(":")[1:]):
        if key == "top":
            try:
                top = int(value)
            except ValueError:
                raise ValueError(f"{game.name}: {bot!r}: top must be an int, got {value!r}") from None
        elif key == "own":
            if value not in OWN:
                raise ValueError(f"{game.name}: {bot!r}: own must be one of {', '.join(OWN)}, got {value!r}")
            own = value == "policy"
    try:
        return guide_bits(top, own)
    except ValueError as exc:
        raise ValueError(f"{game.name}: {bot!r}: {str(exc).removeprefix('search: ')}") from None


def is_policy(bot) -> bool:
    """A seat played by a trained policy: ``policy:FILE.npz``, the bot name ``baseline``,
    an :class:`~tabletop_core.agents.policy.MLPPolicy` object, or the search bot guided by
    a trained policy (``search:blueprint=baseline``, ``search:blueprint=FILE.npz``,
    :class:`SearchPolicy`)."""
    return (
        not isinstance(bot, str)
        or bot.startswith("policy:")
        or is_baseline(bot)
        or search_blueprint(bot) is not None
    )


class SearchPolicy:
    """The ``search`` bot (``docs/search-bot.md``) with a trained policy's greedy choice as
    its default move (the blueprint, as in SPARTA) in place of its rollout bot's choice. The
    rollouts are still played by the scripted rollout bot, inside the kernel; a challenger
    replaces the policy's move only when it gains more than ``z`` standard errors over it.

    Built by :func:`seat_policy` from ``search[:rollouts=N][:bot=NAME][:z=X]:blueprint=B``,
    ``B`` one of :data:`BLUEPRINTS` (``baseline`` or a policy file ``PATH.npz``).
    Unlike a plain policy it needs the position itself, so it is asked through
    :func:`policy_actions` (or :meth:`act`).

    Attributes:
        blueprint: the policy that names the default move (an ``MLPPolicy``).
        bot_id: the search bot's kernel id (:func:`tabletop_core.contract.search.search_id`).
        name: the entry as typed.
    """

    needs_state = True

    def __init__(self, blueprint, bot_id: int, name: str):
        self.blueprint = blueprint
        self.bot_id = int(bot_id)
        self.name = name
        self.meta = getattr(blueprint, "meta", None)

    def act(
        self, obs: np.ndarray, mask: np.ndarray, state: np.ndarray, rows, bot_rng: np.ndarray
    ) -> np.ndarray:
        """The actions of the acting seats of the envs ``rows`` ((K,) ints) of the State
        ``state`` ((B,) records), whose observations and masks are ``obs`` (K, D) float32
        and ``mask`` (K, A) int8; each search draws from its env's bot generator
        ``bot_rng[rows[k]]`` ((B,) uint64, advanced). Returns (K,) int64 legal actions; no
        env changes.

        Raises:
            ValueError: ``rows`` outside the batch, ``obs`` or ``mask`` without one row per
                env asked, or ``bot_rng`` not a (B,) uint64 array. Nothing is searched then.
        """
        rows = np.asarray(rows, np.int64).reshape(-1)
        n = len(state)
        if rows.size and not (rows.min() >= 0 and rows.max() < n):
            raise ValueError(
                f"{self.name}: rows must index the {n} envs of state, got {rows.min()}..{rows.max()}"
            )
        if len(obs) != rows.size or len(mask) != rows.size:
            raise ValueError(
                f"{self.name}: obs and mask need one row per env asked ({rows.size}), got {len(obs)} and {len(mask)}"
            )
        if not (isinstance(bot_rng, np.ndarray) and bot_rng.dtype == np.uint64 and bot_rng.shape == (n,)):
            raise ValueError(
                f"{self.name}: bot_rng must be a ({n},) uint64 array, one generator word per env"
            )
        blueprints = np.asarray(self.blueprint(obs, mask), np.int64).reshape(-1)
        out = np.empty(rows.shape[0], np.int64)
        batch_search_actions(state, rows, np.uint64(self.bot_id), bot_rng, blueprints, out, self.net())
        return out

    def net(self) -> tuple | None:
        """The blueprint's network as the search kernel takes it
        (:mod:`tabletop_core.kernel.mlp`) where the search asks it (``top=`` or
        ``own=policy``), else None."""
        top, own = guide_params(self.bot_id)
        return self.blueprint.packed().args if top or own else None

    def __call__(self, obs, mask):
        raise TypeError(
            f"{self.name} searches the position itself: ask it through "
            "tabletop_core.agents.seats.policy_actions(policy, obs, mask, state, rows, bot_rng)"
        )


def policy_actions(
    pol, obs: np.ndarray, mask: np.ndarray, state: np.ndarray, rows, bot_rng: np.ndarray
) -> np.ndarray:
    """The actions of the policy ``pol`` (from :func:`seat_policy`) for the envs ``rows`` of
    the State ``state``, whose observations and masks are ``obs`` (K, D) and ``mask`` (K, A):
    a plain policy reads only those, a :class:`SearchPolicy` searches the positions too,
    drawing from ``bot_rng`` ((B,) uint64). Returns (K,) int64."""
    if getattr(pol, "needs_state", False):
        return pol.act(obs, mask, state, rows, bot_rng)
    return pol(obs, mask)


def seat_policy(game, bot, seat: int, options: Any = None):
    """The policy that plays ``seat`` for the bot entry ``bot`` (``policy:FILE.npz``,
    ``baseline`` or a policy object: an :class:`~tabletop_core.agents.policy.MLPPolicy`;
    ``search:...:blueprint=baseline`` or ``search:...:blueprint=FILE.npz``: a
    :class:`SearchPolicy`), checked against the game and its options (the game's options
    object, or a dict of them); a blueprint file is checked as ``policy:FILE.npz`` is.

    Raises:
        ValueError: an unreadable file, or a policy made for another game, observation
            layout, (a baseline) other options or, in a game of roles, seats of another
            role than ``seat``'s (Exit Now's ghost policy in a human seat); a search
            setting out of range, or a blueprint other than ``baseline`` or a ``.npz``
            path (the message names the entry).
    """
    opts = as_options(game.make_options, options)
    guided = search_blueprint(bot)
    if guided is not None:
        plain, blueprint = guided
        bot_id = _search_id(game, plain) | parse_guide(game, bot)
        return SearchPolicy(_blueprint_policy(game, bot, blueprint, seat, opts), bot_id, bot)
    if isinstance(bot, MLPPolicy):
        pol = bot
    elif is_baseline(bot):
        return baseline_policy(game, seat, opts)
    else:
        pol = MLPPolicy.load(bot[len("policy:") :])
    pol.check_game(game, opts)
    _check_policy_role(game, pol, seat, opts, bot if isinstance(bot, str) else "the policy")
    return pol


def _search_id(game, plain: str) -> int:
    """The kernel id of the search bot ``plain`` (its name without ``blueprint=``)."""
    return int(game.bot_ids([plain], 1)[0])


def _blueprint_policy(game, bot: str, blueprint: str, seat: int, opts) -> MLPPolicy:
    """The trained policy that names the default move of ``bot`` (``search:...:blueprint=B``)
    in ``seat``: the shipped baseline for ``B == "baseline"``, else the policy file ``B``
    (a ``.npz`` path), checked against the game, its options and the seat's role.

    Raises:
        ValueError: ``B`` neither ``baseline`` nor a ``.npz`` path, or a file that is
            unreadable or made for another game, layout or role (the message names ``bot``).
    """
    if is_baseline(blueprint):
        return baseline_policy(game, seat, opts)
    if not blueprint.endswith(".npz"):
        raise ValueError(
            f"{game.name}: {bot!r}: blueprint must be one of {', '.join(BLUEPRINTS)} (the game's "
            f"shipped trained policy for the seat, or a trained policy file), got {blueprint!r}"
        )
    try:
        pol = MLPPolicy.load(blueprint)
        pol.check_game(game, opts)
        _check_policy_role(game, pol, seat, opts, f"blueprint {blueprint!r}")
    except ValueError as exc:
        raise ValueError(f"{game.name}: {bot!r}: {str(exc).removeprefix(game.name + ': ')}") from None
    return pol


def _check_policy_role(game, pol, seat: int, opts, label: str) -> None:
    """In a game of roles (``GameDef.seat_roles``), refuse a policy whose recorded seats
    (``meta["seats"]``, under its recorded options) play none of ``seat``'s role."""
    meta = pol.meta or {}
    if game.seat_roles is None or not meta.get("seats"):
        return
    try:
        trained = game.make_options(**meta.get("options", {}))
    except (TypeError, ValueError):
        trained = opts
    trained_roles = tuple(game.seat_roles(trained))
    played = {trained_roles[k] for group in meta["seats"] for k in group if k < len(trained_roles)}
    role = tuple(game.seat_roles(opts))[seat]
    if played and role not in played:
        agent = list(game.agents(opts))[seat]
        raise ValueError(
            f"{game.name}: {label} was trained for {' and '.join(sorted(played))} seats; "
            f"seat {seat} ({agent}) is a {role} seat"
        )
