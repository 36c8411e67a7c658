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
            layout or (a baseline) other options.
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
    return pol
