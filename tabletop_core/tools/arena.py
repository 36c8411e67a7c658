"""Bot matches: many games played entirely in compiled code, summarized with intervals.

:func:`run_match` seeds game ``g`` of a match with ``seed + g`` (so any game can be
replayed in an AEC env reset with that seed), runs the game's ``play_games`` kernel in
chunks (a progress bar between chunks) and gathers every seat's return and the game's
``episode_stats``. :func:`summarize` turns that into a table: per seat, mean return and
win/loss rates with 95 % intervals and openskill ratings (competitive games), or team
win/perfect rates and mean score (cooperative games).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop_core.agents.baseline import BASELINE, is_baseline
from tabletop_core.agents.seats import is_policy, policy_actions, search_blueprint, seat_policy
from tabletop_core.contract.game import GameDef, bot_count_message
from tabletop_core.contract.search import SEARCH
from tabletop_core.kernel.rng import bot_seed_word, check_seed, seed_word
from tabletop_core.tools.progress import ProgressBar

#: The most games one match plays: every game's returns and figures are kept (about
#: 50 bytes a game), so a larger match is played as several, seeded one after the other.
MAX_GAMES = 100_000_000

__all__ = ["MAX_GAMES", "MatchResult", "run_match", "summarize", "wilson_interval", "mean_interval"]


@dataclass
class MatchResult:
    """Outcome of :func:`run_match`.

    Attributes:
        game: the game's name. bots: bot name per seat. options: the game options.
        returns: (G, P) float64, every seat's episode return.
        steps: (G,) int64, agent steps per game.
        stats: ``{name: (G,) array}`` from the game's ``episode_stats``, only the figures
            that mean something under these options (``GameDef.match_stats``).
        definitions: ``{name: one line}`` defining each figure of ``stats``.
        seconds: wall time of the compiled play (compilation excluded).
        seed: the match seed (game g used seed + g).
        interrupted: the match was stopped (Ctrl-C) before it played every game; the
            figures hold the games played (``requested`` were asked for).
    """

    game: str
    bots: list[str]
    options: Any
    returns: np.ndarray
    steps: np.ndarray
    stats: dict[str, np.ndarray]
    seconds: float
    seed: int
    agents: list[str] = field(default_factory=list)
    definitions: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False
    requested: int = 0

    @property
    def games(self) -> int:
        return int(self.returns.shape[0])

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")


def run_match(
    game: GameDef,
    bots,
    games: int,
    seed: int = 0,
    chunk: int = 2000,
    progress: bool = False,
    **options: Any,
) -> MatchResult:
    """Play ``games`` games of ``game`` with one bot per seat, in compiled code.

    Args:
        bots: bot names, one per seat (list or comma-separated), or one for every seat.
        games: number of games (1 to :data:`MAX_GAMES`).
        seed: game g is dealt as an env seeded with ``seed + g`` (``0 <= seed`` and
            ``seed + games - 1 < 2**64``).
        chunk: games per kernel call (the progress bar advances between calls).
        progress: show a progress bar (needs ``rich``: ``pip install tabletop-rl[cli]``).
        **options: the game's options.

    Raises:
        ValueError: bad bot names/count, ``games`` outside 1..MAX_GAMES, a seed out of
            range, or a bad game option.
    """
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if games > MAX_GAMES:
        raise ValueError(
            f"games must be at most {MAX_GAMES:,} in one match (every game's result is kept in memory), "
            f"got {games:,}; play several matches, e.g. --seed 0, --seed {MAX_GAMES}, ..."
        )
    check_seed(seed, games, what="seed")
    opts = game.make_options(**options)
    agents = list(game.agents(opts))
    bot_list = [b.strip() for b in bots.split(",")] if isinstance(bots, str) else list(bots)
    if len(bot_list) in (1, len(agents)):
        game.check_roles(
            [None if is_policy(b) else b for b in bot_list * (len(agents) // len(bot_list))], opts
        )
    if any(is_policy(b) for b in bot_list):
        return _run_policy_match(game, bot_list, games, seed, chunk, progress, opts, agents, options)
    ids = game.bot_ids(bots, len(agents))
    names = [game.bot_name(int(k)) for k in ids]
    if any(int(k) >= SEARCH for k in ids):  # a search game takes seconds: progress and Ctrl-C per game
        chunk = 1
    p = len(agents)
    returns = np.zeros((games, p), np.float64)
    steps = np.zeros(games, np.int64)
    stats: dict[str, list[np.ndarray]] = {}

    # compile (or load from cache) before timing
    warm = game.new_state(1, opts)
    warm["rng"] = seed_word(seed)
    game.play_games(
        warm, ids, np.array([bot_seed_word(seed)], np.uint64), np.zeros((1, p)), np.zeros(1, np.int64)
    )

    bar = ProgressBar(
        games, f"{game.name}: {','.join(names)}", enabled=progress, stream=sys.stdout, transient=True
    )
    seconds = 0.0
    played = 0
    try:
        for start in range(0, games, chunk):
            n = min(chunk, games - start)
            s = game.new_state(n, opts)
            s["rng"] = [seed_word(seed + start + k) for k in range(n)]
            bot_rng = np.array([bot_seed_word(seed + start + k) for k in range(n)], np.uint64)
            t0 = time.perf_counter()
            game.play_games(s, ids, bot_rng, returns[start : start + n], steps[start : start + n])
            seconds += time.perf_counter() - t0
            for key, val in game.episode_stats(s).items():
                stats.setdefault(key, []).append(np.asarray(val))
            played = start + n
            bar.update(played)
    except KeyboardInterrupt:
        if played == 0:
            raise
    finally:
        bar.close()
    definitions = game.match_stats(opts) if game.match_stats is not None else dict.fromkeys(stats, "")
    return MatchResult(
        game=game.name,
        bots=names,
        options=opts,
        returns=returns[:played],
        steps=steps[:played],
        stats={k: np.concatenate(stats[k]) for k in definitions if k in stats},
        seconds=seconds,
        seed=int(seed),
        agents=agents,
        definitions={k: v for k, v in definitions.items() if k in stats},
        interrupted=played < games,
        requested=games,
    )


def _choose(core, by_policy: dict, live: np.ndarray, searching: bool, actions: np.ndarray) -> None:
    """The policies' actions (B,) for the learner core ``core`` of a policy match, each
    policy acting for the envs whose seat to act it holds (one batch per policy). A
    search costs milliseconds a decision, so with a searching policy only the live games
    ask; the others get their first legal action (never played)."""
    if len(by_policy) == 1 and not searching:
        pol = next(iter(by_policy.values()))[0]
        actions[:] = pol(core.obs, core.mask)
        return
    if searching:
        actions[:] = core.mask.argmax(axis=1)
    for pol, held in by_policy.values():
        rows = np.flatnonzero(np.isin(core.cur, held) & (live | (not searching)))
        if rows.size:
            actions[rows] = policy_actions(
                pol, core.obs[rows], core.mask[rows], core.state, rows, core.bot_rng
            )


def _run_policy_match(game, bot_list, games, seed, chunk, progress, opts, agents, options) -> MatchResult:
    """A match in which some seats are trained policies (``policy:FILE.npz``,
    ``baseline``, or :class:`~tabletop_core.agents.policy.MLPPolicy` objects) and the other
    seats bots; in a cooperative game the same policy plays every seat. The games run in
    a single-agent vector env whose learner holds the policy seats (the bots inside
    compiled code, the policies in numpy, each acting for its own seats), dealt exactly
    as in a bot match (game g: seed + g). ``steps`` counts the policies' decisions. The
    game figures (``stats``) are read from each game's final position, which the step
    that ends a game replays without dealing the next one (:func:`_final_states`)."""
    from tabletop_core.envs.single_agent import LearnerCore

    p = len(agents)
    if len(bot_list) == 1:
        bot_list = bot_list * p
    if len(bot_list) != p:
        raise ValueError(bot_count_message(game.name, p, bot_list))
    seats = [k for k, b in enumerate(bot_list) if is_policy(b)]
    # the learner view of a cooperative game plays every seat with one policy
    if game.cooperative and (
        len(seats) != p or any(b is not bot_list[0] and b != bot_list[0] for b in bot_list)
    ):
        raise ValueError(
            f"{game.name} is cooperative: a policy plays every seat (the same policy:FILE "
            "for each seat); a policy beside bots needs a competitive game"
        )
    policies = {k: seat_policy(game, bot_list[k], k, options) for k in seats}
    others = [b for k, b in enumerate(bot_list) if k not in seats]
    if others:
        game.bot_ids(others, len(others))  # validates the bot names
    # seats played by the same policy object act in one batch
    by_policy: dict[int, tuple] = {}
    for k, pol in policies.items():
        by_policy.setdefault(id(pol), (pol, []))[1].append(k)
    searching = any(getattr(pol, "needs_state", False) for pol in policies.values())
    if searching:  # a search game takes seconds: progress and Ctrl-C every few games
        chunk = min(chunk, 8)
    returns = np.zeros((games, p), np.float64)
    steps = np.zeros(games, np.int64)
    stats: dict[str, np.ndarray] = {}
    names = [
        b if not is_policy(b) or search_blueprint(b) else (BASELINE if is_baseline(b) else "policy")
        for b in bot_list
    ]
    bar = ProgressBar(
        games, f"{game.name}: {','.join(names)}", enabled=progress, stream=sys.stdout, transient=True
    )
    seconds = 0.0
    played = 0
    try:
        for start in range(0, games, chunk):
            n = min(chunk, games - start)
            core = LearnerCore(game, n, None if game.cooperative else seats, others or None, options)
            core.reset([seed + start + k for k in range(n)])
            live = np.ones(n, bool)
            actions = np.zeros(n, np.int64)
            t0 = time.perf_counter()
            while live.any():
                before = (core.state.copy(), core.bot_rng.copy(), core.mask.copy())
                _choose(core, by_policy, live, searching, actions)
                core.step(actions, autoreset=True)  # a new deal in an ended env is not counted
                returns[start : start + n][live] += core.rewards[live]
                steps[start : start + n][live] += 1
                ended = np.flatnonzero(live & core.term)
                if ended.size:
                    final = _final_states(core, before, actions, ended, options)
                    for key, val in game.episode_stats(final).items():
                        val = np.asarray(val)
                        column = stats.setdefault(key, np.zeros(games, val.dtype))
                        column[start + ended] = val
                live &= ~core.term
            seconds += time.perf_counter() - t0
            played = start + n
            bar.update(played)
    except KeyboardInterrupt:
        if played == 0:
            raise
    finally:
        bar.close()
    definitions = game.match_stats(opts) if game.match_stats is not None else dict.fromkeys(stats, "")
    return MatchResult(
        game.name,
        names,
        opts,
        returns[:played],
        steps[:played],
        {k: stats[k][:played] for k in definitions if k in stats},
        seconds,
        int(seed),
        agents,
        definitions={k: v for k, v in definitions.items() if k in stats},
        interrupted=played < games,
        requested=games,
    )


def _final_states(core, before, actions: np.ndarray, rows: np.ndarray, options: dict) -> np.ndarray:
    """The final positions of the envs ``rows`` of ``core`` that the last step ended (and
    dealt again): that step replayed from ``before`` (state, bots' generators and masks
    before it) on a copy of those envs, without autoreset. The step is deterministic in
    these, so the copy ends exactly as the match's game did."""
    from tabletop_core.envs.single_agent import LearnerCore

    state, bot_rng, mask = before
    seats = None if core.learners == -1 else core.seats
    others = [core.game.bot_name(int(k)) for k in core.bot_ids] if seats is not None else None
    replay = LearnerCore(core.game, rows.size, seats, others, options)
    replay.state[:] = state[rows]
    replay.bot_rng[:] = bot_rng[rows]
    replay.mask[:] = mask[rows]
    replay.step(actions[rows].copy(), autoreset=False)
    return replay.state


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion (robust near 0 and 1)."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(x: np.ndarray, z: float = 1.96) -> tuple[float, float, float]:
    """Mean and its 95 % normal interval ``(mean, low, high)``."""
    x = np.asarray(x, np.float64)
    m = float(x.mean())
    half = z * float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else float("nan")
    return m, m - half, m + half


SEAT_FIGURES = {
    "mean_return": "a seat's episode return (the sum of its rewards), averaged over the games",
    "win_rate": "share of games with a positive episode return",
    "loss_rate": "share of games with a negative episode return",
    "rating": "openskill (Plackett-Luce) rating from the games' returns: mu, sigma, ordinal mu - 3 sigma",
}


MAX_RATED_GAMES = 10_000
"""The games a match's ratings are computed from (its first ones): openskill updates one game
at a time in Python (about 20 µs a game), and a lineup's rating has settled long before, so
a match of millions of games (or one interrupted after them) is not kept waiting."""


def _ratings(result: MatchResult) -> list[dict] | None:
    """openskill (Plackett-Luce) rating of every seat from the returns of the match's first
    :data:`MAX_RATED_GAMES` games."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return None
    model = PlackettLuce()
    players = [model.rating(name=f"{a} ({b})") for a, b in zip(result.agents, result.bots)]
    for row in result.returns[:MAX_RATED_GAMES]:
        teams = [[r] for r in players]
        new = model.rate(teams, scores=[float(v) for v in row])
        players = [t[0] for t in new]
    return [{"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for r in players]


def summarize(result: MatchResult, ratings: bool = True) -> dict:
    """Figures of a match as a JSON-ready dict.

    ``stats``: each game figure the game declares meaningful for the options
    (``GameDef.match_stats``): a rate (flags) or a mean (numbers) with its 95 % interval
    and its ``definition``. ``seats``: per seat, the mean return, win rate and loss rate
    with 95 % intervals, and openskill ratings (competitive games, when ``openskill`` is
    installed and ``ratings``; from the first :data:`MAX_RATED_GAMES` games).
    ``definitions``: one line per figure name used.
    """
    g = result.games
    out: dict[str, Any] = {
        "game": result.game,
        "options": {k: v for k, v in vars(result.options).items()}
        if hasattr(result.options, "__dict__")
        else {},
        "bots": result.bots,
        "games": g,
        "seed": result.seed,
        "games_per_s": result.games_per_second,
        "mean_steps": float(result.steps.mean()),
    }
    if result.interrupted:  # a whole match's JSON is unchanged; a partial one says so
        out["interrupted"] = True
        out["requested"] = result.requested
    stats = {}
    for key, val in result.stats.items():
        v = np.asarray(val)
        if v.dtype == np.bool_:
            lo, hi = wilson_interval(float(v.sum()), g)
            stats[key] = {"rate": float(v.mean()), "low": lo, "high": hi}
        else:
            m, lo, hi = mean_interval(v)
            stats[key] = {"mean": m, "low": lo, "high": hi}
        if result.definitions.get(key):
            stats[key]["definition"] = result.definitions[key]
    out["stats"] = stats
    out["definitions"] = {**SEAT_FIGURES, **{k: v for k, v in result.definitions.items() if v}}
    if g > MAX_RATED_GAMES:
        out["definitions"]["rating"] += f" (from the first {MAX_RATED_GAMES:,} games)"
    seats = []
    rates = _ratings(result) if ratings and result.returns.shape[1] > 1 else None
    for k, (agent, bot) in enumerate(zip(result.agents, result.bots)):
        r = result.returns[:, k]
        m, lo, hi = mean_interval(r)
        wins = float((r > 0).sum())
        losses = float((r < 0).sum())
        seat = {
            "agent": agent,
            "bot": bot,
            "mean_return": {"mean": m, "low": lo, "high": hi},
            "win_rate": dict(zip(("rate", "low", "high"), (wins / g, *wilson_interval(wins, g)))),
            "loss_rate": dict(zip(("rate", "low", "high"), (losses / g, *wilson_interval(losses, g)))),
        }
        if rates is not None:
            seat["rating"] = rates[k]
        seats.append(seat)
    out["seats"] = seats
    return out
