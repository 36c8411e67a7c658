"""Round robins of mixed lineups and their openskill ratings, and the baselines' targets
(``docs/baselines.md``, ``benchmarks/baselines.py``).

A round robin plays ``games`` games split evenly over lineups of the entrants (every
scripted bot and ``baseline``), each lineup on its own deals (game g of the round robin
is dealt with ``seed + g``), and rates the entrants with openskill's Plackett-Luce model:

* competitive games (Exhaust, Koikoi): every lineup of the entrants over the seats,
  repeats allowed, but not one entrant in every seat (so a game with a weak entrant in
  one seat still tells the others apart); a game ranks the seats by their returns, and an
  entrant in several seats takes the mean of those seats' updated ratings;
* Exit Now: one entrant plays every human seat, another the ghost seat (every ordered
  pair of distinct entrants); a game ranks the human team against the ghost by their
  returns (the team's best seat: a human who escaped wins for the team);
* The Game (cooperative): each entrant plays every seat of the same deals; a deal ranks
  the entrants by their team's return.
"""

from __future__ import annotations

import itertools
from typing import Any

from tabletop_core.contract.options import as_options
from tabletop_core.tools.arena import run_match

__all__ = ["round_robin", "lineups"]


def _roles(game, opts) -> tuple[str, ...] | None:
    """The role of each seat, for a game whose seats play different roles (else None)."""
    roles = tuple(game.seat_roles(opts)) if game.seat_roles is not None else None
    return roles if roles is not None and len(set(roles)) > 1 else None


def lineups(game, entrants: list[str], **options: Any) -> list[list[str]]:
    """The lineups of a round robin of ``entrants`` (see the module docstring)."""
    opts = as_options(game.make_options, options)
    p = len(game.agents(opts))
    if game.cooperative:
        return [[e] * p for e in entrants]
    roles = _roles(game, opts)
    if roles is not None:
        distinct = list(dict.fromkeys(roles))
        return [
            [pick[distinct.index(r)] for r in roles]
            for pick in itertools.permutations(entrants, len(distinct))
        ]
    if len(entrants) < 2:
        raise ValueError(f"{game.name}: a round robin needs at least 2 entrants, got {entrants}")
    return [list(x) for x in itertools.product(entrants, repeat=p) if len(set(x)) > 1]


def round_robin(
    game, entrants: list[str], games: int = 10_000, seed: int = 0, progress: bool = False, **options: Any
) -> dict[str, Any]:
    """Play a round robin and rate the entrants.

    Returns:
        The ratings as a dict
        ``{"games", "seed", "lineups": [(lineup, games)], "ratings": {entrant: {"mu",
        "sigma", "ordinal"}}}`` (ordinal = mu - 3 sigma), entrants sorted best first.

    Raises:
        ValueError: an unknown entrant, too few entrants, or openskill missing.
    """
    try:
        from openskill.models import PlackettLuce  # the cli extra
    except ImportError:
        raise ValueError("ratings need openskill: pip install 'tabletop-rl[cli]'") from None
    opts = as_options(game.make_options, options)
    ups = lineups(game, entrants, **options)
    model = PlackettLuce()
    rating = {e: model.rating(name=e) for e in entrants}
    if game.cooperative:
        played = _rate_cooperative(game, ups, entrants, games, seed, progress, opts, model, rating)
    else:
        played = _rate_competitive(game, ups, games, seed, progress, opts, model, rating)
    table = {e: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for e, r in rating.items()}
    table = dict(sorted(table.items(), key=lambda kv: -kv[1]["ordinal"]))
    return {"games": int(sum(n for _, n in played)), "seed": int(seed), "lineups": played, "ratings": table}


def _rate_cooperative(game, ups, entrants, games, seed, progress, opts, model, rating) -> list:
    """The same deals for every entrant, ranked per deal; ``rating`` updated in place.
    Returns the lineups played with their games."""
    deals = max(1, games // len(ups))
    returns = {
        up[0]: run_match(game, up, deals, seed=seed, progress=progress, options=opts).returns[:, 0]
        for up in ups
    }
    for g in range(deals):
        new = model.rate([[rating[e]] for e in entrants], scores=[float(returns[e][g]) for e in entrants])
        rating.update({e: t[0] for e, t in zip(entrants, new)})
    return [(up, deals) for up in ups]


def _rate_competitive(game, ups, games, seed, progress, opts, model, rating) -> list:
    """Each lineup its share of ``games`` (seeded one after the other), the lineups' games
    rated interleaved, so no lineup's games all come last; ``rating`` updated in place.
    Returns the lineups played with their games."""
    seat_roles = _roles(game, opts)
    roles = (
        None
        if seat_roles is None
        else {r: [k for k, x in enumerate(seat_roles) if x == r] for r in dict.fromkeys(seat_roles)}
    )
    per = [games // len(ups) + (1 if k < games % len(ups) else 0) for k in range(len(ups))]
    start, results, played = seed, [], []
    for up, n in zip(ups, per):
        if n == 0:
            continue
        results.append((up, run_match(game, up, n, seed=start, progress=progress, options=opts).returns))
        start += n
        played.append((up, n))
    order = [(k, g) for g in range(max(n for _, n in played)) for k in range(len(results))]
    for k, g in order:
        up, ret = results[k]
        if g >= len(ret):
            continue
        if roles is not None:  # one team per role, scored by its best seat
            teams = [up[seats[0]] for seats in roles.values()]
            scores = [float(ret[g, seats].max()) for seats in roles.values()]
        else:
            teams, scores = up, [float(x) for x in ret[g]]
        new = model.rate([[rating[e]] for e in teams], scores=scores)
        for e in set(teams):  # an entrant in several seats: the mean of their updates
            mine = [t[0] for t, who in zip(new, teams) if who == e]
            rating[e] = model.rating(
                mu=sum(r.mu for r in mine) / len(mine), sigma=sum(r.sigma for r in mine) / len(mine), name=e
            )
    return played
