"""Evaluation of the learner with the arena's code (:mod:`tabletop_core.tools.arena`).

The greedy policy (argmax over legal actions, :class:`~tabletop_core.agents.policy.MLPPolicy`)
plays fixed deals: game ``g`` is dealt as an env seeded ``seed + g``, exactly as
``tabletop match`` deals it. In a cooperative game the policy plays every seat; in a
competitive one it plays ``seats`` (default seat 0; ``--seats``' first choice) against
``opponents`` (a bot per other seat), and its measure is the mean return of those seats.
The scripted bots' levels are the same match with each bot in the policy's place.

Beside the return, each evaluation reports the game's own measures of its finished deals
(``stats``: :meth:`GameDef.match_stats <tabletop_core.contract.game.GameDef>` figures as
the arena summarizes them, e.g. The Game's ``score``, the cards left).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_core.agents.policy import MLPPolicy
from tabletop_core.tools.arena import mean_interval, run_match, summarize

__all__ = ["evaluate_policy", "bot_levels", "rate_entrants", "measures_text", "opponents_text"]


def measures_text(stats: dict[str, dict], limit: int | None = None) -> str:
    """The game's measures of an evaluation (``stats`` as :func:`evaluate_policy` returns
    them) as short text, in the game's order, at most ``limit`` of them: ``"score 12.3,
    win 4 %"`` (a mean, or a rate in percent); ``""`` where the game has none."""
    parts = []
    for name, d in list(stats.items())[:limit]:
        parts.append(f"{name} {d['mean']:.1f}" if "mean" in d else f"{name} {100 * d['rate']:.0f} %")
    return ", ".join(parts)


def opponents_text(game, opponents: str) -> str:
    """Who plays beside the evaluated policy: ``"with copies of itself in every seat"`` in a
    cooperative game (``GameDef.cooperative``), else ``"against OPPONENTS"``."""
    return "with copies of itself in every seat" if game.cooperative else f"against {opponents}"


def _lineup(game, num_players: int, player, opponents: str, seats=(0,)) -> list:
    if game.cooperative:
        return [player] * num_players
    others = [b.strip() for b in opponents.split(",")]
    if len(others) == 1:
        others = others * (num_players - len(seats))
    others = iter(others)
    return [player if k in seats else next(others) for k in range(num_players)]


def _fits(game, lineup: list, options: dict) -> bool:
    """Whether every bot of ``lineup`` plays its seat's role (:meth:`GameDef.check_roles`)."""
    try:
        game.check_roles(lineup, options)
    except ValueError:
        return False
    return True


def _seat_mean(returns: np.ndarray, game, seats) -> np.ndarray:
    """Per game, the mean return of the measured seats (seat 0 in a cooperative game,
    whose seats share one return)."""
    return returns[:, 0] if game.cooperative else returns[:, list(seats)].mean(axis=1)


def evaluate_policy(
    game, policy: MLPPolicy, options: dict, games: int, seed: int, opponents: str, seats=(0,)
) -> tuple[dict[str, float], np.ndarray]:
    """Mean return of the policy's seat (every seat in a cooperative game) over ``games``
    fixed deals, with its 95 % interval, and the game's own measures of those deals.

    Returns:
        ``({"mean", "low", "high", "stats"}, returns (games,) float64)``; ``stats``:
        ``{name: {"mean" or "rate", "low", "high", "definition"}}`` (module docstring).
    """
    p = len(game.agents(game.make_options(**options)))
    r = run_match(game, _lineup(game, p, policy, opponents, seats), games, seed=seed, **options)
    x = _seat_mean(r.returns, game, seats)
    m, lo, hi = mean_interval(x)
    return {"mean": m, "low": lo, "high": hi, "stats": summarize(r, ratings=False)["stats"]}, x


def bot_levels(
    game, options: dict, games: int, seed: int, opponents: str, bots: list[str] | None = None, seats=(0,)
) -> dict[str, dict[str, Any]]:
    """Each scripted bot in the policy's place on the same deals: ``{bot: {"mean",
    "low", "high", "stats", "returns"}}`` (``stats`` as :func:`evaluate_policy`'s). ``bots``: the game's scripted bots when None, less those
    bound to another role than the measured seats (Exit Now's ``ghost`` bot where the
    policy plays the humans, :meth:`~tabletop_core.contract.game.GameDef.check_roles`).

    Raises:
        ValueError: a named bot whose role does not fit the measured seats (the message
            names the seats' roles and the bots that fit them).
    """
    p = len(game.agents(game.make_options(**options)))
    if bots is None:
        bots = [b for b in game.bot_names if _fits(game, _lineup(game, p, b, opponents, seats), options)]
    out = {}
    for bot in bots:
        lineup = _lineup(game, p, bot, opponents, seats)
        game.check_roles(lineup, options)
        r = run_match(game, lineup, games, seed=seed, **options)
        x = _seat_mean(r.returns, game, seats)
        m, lo, hi = mean_interval(x)
        out[bot] = {
            "mean": m,
            "low": lo,
            "high": hi,
            "stats": summarize(r, ratings=False)["stats"],
            "returns": x,
        }
    return out


def rate_entrants(returns: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """openskill (Plackett-Luce) ratings of entrants who each played the same deals in
    the same place: per deal, the entrants are ranked by their return there (ties share a
    rank). ``returns``: ``{name: (G,) returns}``. Returns ``{name: {"mu", "sigma",
    "ordinal"}}``, or ``{}`` without openskill."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return {}
    names = list(returns)
    model = PlackettLuce()
    ratings = [model.rating(name=n) for n in names]
    table = np.stack([np.asarray(returns[n], np.float64) for n in names], axis=1)
    for row in table:
        new = model.rate([[r] for r in ratings], scores=[float(v) for v in row])
        ratings = [t[0] for t in new]
    return {n: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for n, r in zip(names, ratings)}
