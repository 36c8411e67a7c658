"""What may sit in a seat besides a compiled bot: a trained policy.

A seat entry is a bot name (``"strong"``), ``"baseline"`` (the game's shipped trained
policy), ``"policy:FILE.npz"`` or an :class:`~tabletop_core.agents.policy.MLPPolicy`;
:func:`is_policy` tells the policy entries apart and :func:`seat_policy` loads one,
checked against the game and its options.
"""

from __future__ import annotations

from tabletop_core.agents.baseline import baseline_policy, is_baseline

__all__ = ["is_policy", "seat_policy"]


def is_policy(bot) -> bool:
    """A seat played by a trained policy: ``policy:FILE.npz``, the bot name ``baseline``
    or an :class:`~tabletop_core.agents.policy.MLPPolicy` object."""
    return not isinstance(bot, str) or bot.startswith("policy:") or is_baseline(bot)


def seat_policy(game, bot, seat: int, options: dict):
    """The :class:`~tabletop_core.agents.policy.MLPPolicy` that plays ``seat`` for the bot entry
    ``bot`` (``policy:FILE.npz``, ``baseline`` or a policy object), checked against the
    game and its options.

    Raises:
        ValueError: an unreadable file, or a policy made for another game, observation
            layout, (a baseline) other options or, in a game of roles, seats of another
            role than ``seat``'s (Exit Now's ghost policy in a human seat).
    """
    from tabletop_core.agents.policy import MLPPolicy

    opts = game.make_options(**options)
    if isinstance(bot, MLPPolicy):
        pol = bot
    elif is_baseline(bot):
        return baseline_policy(game, seat, **options)
    else:
        pol = MLPPolicy.load(bot[len("policy:") :])
    pol.check_game(game, opts)
    _check_policy_role(game, pol, seat, opts, bot if isinstance(bot, str) else "the policy")
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
