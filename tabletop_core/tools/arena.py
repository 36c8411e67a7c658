"""Matches: many games played entirely in compiled code, summarized with intervals.

:func:`run_match` seeds game ``g`` of a match with ``seed + g`` (so any game can be
replayed in an AEC env reset with that seed). One loop (:func:`_play`) drives either
player: scripted bots play whole games in the game's ``play_games`` kernel, chunk by
chunk; trained policies play a batch of games in the learner kernels, one greedy pass a
step for every game waiting on a policy, a game that ends handing its row to the next.
Both gather every seat's return and the game's ``episode_stats``. :func:`summarize`
turns that into a table: per seat, mean return and win/loss rates with 95 % intervals
that never leave the figure's range (:data:`INTERVALS`) and openskill ratings
(competitive games), or team win/perfect rates and mean score (cooperative games).
"""

from __future__ import annotations

import math
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop_core.agents.baseline import BASELINE, is_baseline
from tabletop_core.agents.seats import is_policy, policy_actions, search_blueprint, seat_policy
from tabletop_core.contract.game import GameDef, bot_count_message
from tabletop_core.contract.options import as_options
from tabletop_core.contract.search import SEARCH
from tabletop_core.envs.single_agent import LearnerCore
from tabletop_core.envs.vector import available_cores
from tabletop_core.kernel.rng import bot_seed_word, check_seed, seed_word
from tabletop_core.tools.progress import ProgressBar, compile_notice, format_duration

#: The most games one match plays: every game's returns and figures are kept (about
#: 50 bytes a game), so a larger match is played as several, seeded one after the other.
MAX_GAMES = 100_000_000

__all__ = [
    "MAX_GAMES",
    "MatchResult",
    "run_match",
    "summarize",
    "wilson_interval",
    "mean_interval",
    "bootstrap_interval",
]


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
    options: Any = None,
    **kwargs: Any,
) -> MatchResult:
    """Play ``games`` games of ``game`` with one bot or policy per seat.

    Scripted bots play whole games inside the game's ``play_games`` kernel, ``chunk``
    games a call. Trained policies (``baseline``, ``policy:FILE.npz``, an
    :class:`~tabletop_core.agents.policy.MLPPolicy`, ``search:...:blueprint=baseline``)
    play ``chunk`` games at once in the learner kernels, one forward pass a step for all
    the games waiting on a policy, the scripted seats of a mixed lineup inside the kernel;
    a game that ends hands its row to the next game. Either way game ``g`` is dealt with
    ``seed + g`` and its figures do not depend on ``chunk``.

    Args:
        bots: one entry per seat (list or comma-separated), or one for every seat.
        games: number of games (1 to :data:`MAX_GAMES`).
        seed: game g is dealt as an env seeded with ``seed + g`` (``0 <= seed`` and
            ``seed + games - 1 < 2**64``).
        chunk: games per kernel call (bots) or games played at once (policies).
        progress: show progress with the time left (:class:`~tabletop_core.tools.progress.ProgressBar`),
            say when the kernels compile, and warn before a match of over ten minutes.
        options: the game's options object (``game.make_options(...)``) or a dict.
        **kwargs: game options given one by one (``num_players=3``).

    Raises:
        ValueError: bad bot names/count, ``games`` outside 1..MAX_GAMES, a seed out of
            range, ``chunk`` below 1, or a bad game option.
    """
    _check_games(games, chunk)
    check_seed(seed, games, what="seed")
    opts = as_options(game.make_options, options, **kwargs)
    agents = list(game.agents(opts))
    bot_list = [b.strip() for b in bots.split(",")] if isinstance(bots, str) else list(bots)
    if len(bot_list) in (1, len(agents)):
        game.check_roles(
            [None if is_policy(b) else b for b in bot_list * (len(agents) // len(bot_list))], opts
        )
    if any(is_policy(b) for b in bot_list):
        player: _BotPlayer | _PolicyPlayer = _PolicyPlayer(game, bot_list, games, seed, chunk, opts)
    else:
        player = _BotPlayer(game, game.bot_ids(bots, len(agents)), games, seed, chunk, opts)
    with compile_notice(game.name, progress):
        player.warm_up()
    done, seconds = _play(player, games, f"{game.name}: {','.join(player.names)}", progress)
    return _result(game, player, done, seconds, seed, opts, agents)


def _result(game: GameDef, player, done: np.ndarray, seconds: float, seed: int, opts, agents) -> MatchResult:
    """The :class:`MatchResult` of the games ``done`` (G,) bool of ``player``."""
    definitions = game.match_stats(opts) if game.match_stats is not None else dict.fromkeys(player.stats, "")
    return MatchResult(
        game=game.name,
        bots=player.names,
        options=opts,
        returns=player.returns[done],
        steps=player.steps[done],
        stats={k: player.stats[k][done] for k in definitions if k in player.stats},
        seconds=seconds,
        seed=int(seed),
        agents=agents,
        definitions={k: v for k, v in definitions.items() if k in player.stats},
        interrupted=not done.all(),
        requested=len(done),
    )


def _check_games(games, chunk) -> None:
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if games > MAX_GAMES:
        raise ValueError(
            f"games must be at most {MAX_GAMES:,} in one match (every game's result is kept in memory), "
            f"got {games:,}; play several matches, e.g. --seed 0, --seed {MAX_GAMES}, ..."
        )
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk must be a positive integer, got {chunk!r}")


WARN_SECONDS = 600.0
"""A match estimated (from its first games' rate) to take longer than this warns first."""


def _play(player, games: int, label: str, progress: bool) -> tuple[np.ndarray, float]:
    """The match loop: ``player.advance()`` until every game is played, with progress and
    its time left, a warning when the rate of the first games (the first ``player.batch``,
    those played at once) puts the match over :data:`WARN_SECONDS`, and Ctrl-C keeping the games played. Returns ``(done (G,) bool,
    seconds of play)``."""
    done = np.zeros(games, bool)
    bar = ProgressBar(games, label, enabled=progress, unit="games", plain_every=15.0)
    seconds, warned, played = 0.0, not progress, 0
    try:
        while played < games:
            ended, took = player.advance()
            seconds += took
            done[ended] = True
            played += len(ended)
            if not warned and played >= min(player.batch, games):  # the first batch played
                warned = True
                _warn_if_long(games, played, seconds)
            bar.update(played)
    except KeyboardInterrupt:
        if not done.any():
            raise
    finally:
        bar.close()
    return done, seconds


def _warn_if_long(games: int, played: int, seconds: float) -> None:
    estimate = seconds / played * games
    if estimate > WARN_SECONDS:
        print(
            f"tabletop: this match will take about {format_duration(estimate)} at its first games' rate "
            f"({played / seconds:,.1f} games/s); Ctrl-C stops it and shows the games played so far",
            file=sys.stderr,
            flush=True,
        )


class _BotPlayer:
    """Scripted bots in every seat: ``advance`` plays the next ``chunk`` games in the
    game's ``play_games`` kernel. A search bot takes seconds a game: then each call plays
    one game on each of ``workers`` threads (the kernel releases the GIL; every game is
    dealt and searched from its own seeds, so the figures are those of one thread)."""

    def __init__(self, game: GameDef, ids: np.ndarray, games: int, seed: int, chunk: int, opts, workers=None):
        self.game, self.ids, self.games, self.seed, self.opts = game, ids, games, seed, opts
        self.names = [game.bot_name(int(k)) for k in ids]
        searching = any(int(k) >= SEARCH for k in ids)
        self.workers = (workers or available_cores()) if searching else 1
        self.chunk = self.workers if searching else chunk
        self.batch = self.chunk
        self.returns = np.zeros((games, len(ids)), np.float64)
        self.steps = np.zeros(games, np.int64)
        self.stats: dict[str, np.ndarray] = {}
        self.start = 0

    def warm_up(self) -> None:
        """Compile (or load from the cache) the kernels on one game, untimed."""
        warm = self.game.new_state(1, self.opts)
        warm["rng"] = seed_word(self.seed)
        rng = np.array([bot_seed_word(self.seed)], np.uint64)
        self.game.play_games(warm, self.ids, rng, np.zeros((1, len(self.ids))), np.zeros(1, np.int64))

    def advance(self) -> tuple[np.ndarray, float]:
        """Play the next games; returns their indices and the seconds of compiled play
        (the dealing and the figures read after are not timed, as in ``play_games``' own
        rate)."""
        start, n = self.start, min(self.chunk, self.games - self.start)
        s = self.game.new_state(n, self.opts)
        s["rng"] = [seed_word(self.seed + start + k) for k in range(n)]
        bot_rng = np.array([bot_seed_word(self.seed + start + k) for k in range(n)], np.uint64)
        returns, steps = self.returns[start : start + n], self.steps[start : start + n]
        t0 = time.perf_counter()
        if self.workers > 1 and n > 1:
            with ThreadPoolExecutor(min(self.workers, n)) as pool:
                for _ in pool.map(
                    lambda k: self.game.play_games(
                        s[k : k + 1], self.ids, bot_rng[k : k + 1], returns[k : k + 1], steps[k : k + 1]
                    ),
                    range(n),
                ):
                    pass
        else:
            self.game.play_games(s, self.ids, bot_rng, returns, steps)
        took = time.perf_counter() - t0
        rows = np.arange(start, start + n)
        _keep_stats(self.stats, self.game.episode_stats(s), rows, self.games)
        self.start += n
        return rows, took


def _keep_stats(stats: dict[str, np.ndarray], new: dict, rows: np.ndarray, games: int) -> None:
    """Write the figures ``new`` of the games ``rows`` into ``stats`` ({name: (G,) array})."""
    for key, val in new.items():
        val = np.asarray(val)
        stats.setdefault(key, np.zeros(games, val.dtype))[rows] = val


def _policy_lineup(game: GameDef, bot_list: list, opts) -> tuple[list, list[int], list]:
    """``(entries per seat, the policy seats, the other seats' bot names)`` of a lineup
    with a policy, checked: one entry per seat (or one for all); in a cooperative game the
    same policy in every seat."""
    p = len(game.agents(opts))
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
    others = [b for k, b in enumerate(bot_list) if k not in seats]
    if others:
        game.bot_ids(others, len(others))  # validates the bot names
    return bot_list, seats, others


class _PolicyPlayer:
    """Some seats played by trained policies, the others by bots (inside the learner
    kernels); in a cooperative game one policy plays every seat. ``chunk`` games are in
    play at once, in the rows of a :class:`~tabletop_core.envs.single_agent.LearnerCore`:
    each ``advance`` is one step of them all, each policy deciding for every row whose
    seat to act it holds in one call. An ended game's figures are read from its final
    position (the step does not deal again); its row then deals the next game (``seed +
    g``), or leaves the batch when none is left. ``steps`` counts the policies' decisions."""

    def __init__(self, game: GameDef, bot_list: list, games: int, seed: int, chunk: int, opts):
        bot_list, seats, others = _policy_lineup(game, bot_list, opts)
        self.game, self.games, self.seed = game, games, seed
        self.names = [
            b if not is_policy(b) or search_blueprint(b) else (BASELINE if is_baseline(b) else "policy")
            for b in bot_list
        ]
        policies = {k: seat_policy(game, bot_list[k], k, opts) for k in seats}
        self.by_policy: dict[int, tuple] = {}  # seats played by one policy object act in one batch
        for k, pol in policies.items():
            self.by_policy.setdefault(id(pol), (pol, []))[1].append(k)
        searching = any(getattr(pol, "needs_state", False) for pol in policies.values())
        n = min(games, chunk, 8) if searching else min(games, chunk)  # a search takes ms a decision
        self.core = LearnerCore(game, n, None if game.cooperative else seats, others or None, opts)
        self.row_game = np.arange(n)  # the game each row plays
        self.n = self.batch = n
        self.next = n
        self.returns = np.zeros((games, len(bot_list)), np.float64)
        self.steps = np.zeros(games, np.int64)
        self.stats: dict[str, np.ndarray] = {}

    def warm_up(self) -> None:
        """Compile (or load) the kernels on a copy of one row, then deal the first games."""
        warm = LearnerCore(self.game, 1, *self._lineup(), self.core.options)
        warm.reset([self.seed])
        warm.step(self._actions(warm, 1), autoreset=False)
        self.core.reset([self.seed + g for g in range(self.n)])

    def _lineup(self) -> tuple:
        core = self.core
        others = None if core.learners == -1 else [self.game.bot_name(int(k)) for k in core.bot_ids]
        return core.seats, others

    def _actions(self, core: LearnerCore, n: int) -> np.ndarray:
        """The policies' actions (n,) for the first ``n`` rows of ``core``: each policy
        acts for the rows whose seat to act it holds, in one call."""
        obs, mask, cur = core.obs[:n], core.mask[:n], core.cur[:n]
        if len(self.by_policy) == 1:  # every row's seat to act is the policy's
            pol, _ = next(iter(self.by_policy.values()))
            if not getattr(pol, "needs_state", False):
                return pol(obs, mask)
        actions = mask.argmax(axis=1).astype(np.int64)
        for pol, held in self.by_policy.values():
            rows = np.flatnonzero(np.isin(cur, held))
            if rows.size:
                actions[rows] = policy_actions(pol, obs[rows], mask[rows], core.state, rows, core.bot_rng)
        return actions

    def advance(self) -> tuple[np.ndarray, float]:
        """One step of every game in play; returns the indices of the games it ended and
        the seconds the step took (forward pass, env step, the next deals)."""
        t0 = time.perf_counter()
        core, n = self.core, self.n
        actions = self._actions(core, n)
        self.game.batch_step_learner(*_rows(core, n, actions))
        games = self.row_game[:n]
        self.returns[games] += core.rewards[:n]
        self.steps[games] += 1
        ended = np.flatnonzero(core.term[:n])
        finished = games[ended]  # a copy (fancy index), taken before the rows deal again
        if ended.size:
            _keep_stats(self.stats, self.game.episode_stats(core.state[ended]), finished, self.games)
            self._deal(ended)
        return finished, time.perf_counter() - t0

    def _deal(self, ended: np.ndarray) -> None:
        """Deal the next games in the rows ``ended``; rows left without a game leave."""
        k = min(ended.size, self.games - self.next)
        if k:
            rows = ended[:k]
            self.row_game[rows] = np.arange(self.next, self.next + k)
            self.next += k
            _deal_rows(self.core, rows, [self.seed + g for g in self.row_game[rows]])
        if k < ended.size:
            keep = np.setdiff1d(np.arange(self.n), ended[k:])
            _compact(self.core, self.row_game, keep)
            self.n = keep.size


def _rows(core: LearnerCore, n: int, actions: np.ndarray) -> tuple:
    """The arguments of ``batch_step_learner`` for the first ``n`` rows of ``core``,
    without autoreset (a final position stays to be read)."""
    return (
        core.state[:n],
        core.notes[:n],
        actions,
        core.learners,
        core.bot_ids,
        core.bot_rng[:n],
        core.obs[:n],
        core.mask[:n],
        core.rewards[:n],
        core.term[:n],
        core.cur[:n],
        core.final[:n],
        core.carry[:n],
        False,
    )


_ROW_ARRAYS = ("state", "notes", "bot_rng", "obs", "mask", "cur", "carry")


def _deal_rows(core: LearnerCore, rows: np.ndarray, seeds: list[int]) -> None:
    """Deal new games in the rows ``rows`` of ``core``, dealt with ``seeds`` as a reset
    with those seeds deals them (bots play up to a policy's first decision)."""
    part = {name: getattr(core, name)[rows] for name in _ROW_ARRAYS}
    part["state"]["rng"] = [seed_word(s) for s in seeds]
    part["bot_rng"][:] = [bot_seed_word(s) for s in seeds]
    core.game.batch_reset_learner(
        part["state"], part["notes"], core.learners, core.bot_ids, part["bot_rng"],
        part["obs"], part["mask"], part["cur"], part["carry"],
    )  # fmt: skip
    for name, val in part.items():
        getattr(core, name)[rows] = val


def _compact(core: LearnerCore, row_game: np.ndarray, keep: np.ndarray) -> None:
    """Move the rows ``keep`` (rising) of ``core`` to its front, in order."""
    for name in _ROW_ARRAYS:
        arr = getattr(core, name)
        arr[: keep.size] = arr[keep]
    row_game[: keep.size] = row_game[keep]


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
    """Mean and its 95 % normal interval ``(mean, low, high)`` (it may leave the measure's
    range for few games: a match's tables use :func:`bootstrap_interval`)."""
    x = np.asarray(x, np.float64)
    m = float(x.mean())
    half = z * float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else float("nan")
    return m, m - half, m + half


BOOTSTRAP_RESAMPLES = 2000
"""Resamples of a mean's percentile bootstrap interval (:func:`bootstrap_interval`)."""

MAX_BOOTSTRAP_VALUES = 4096
"""A figure taking more distinct values than this gets a normal interval clipped to the
range it was seen in, as a bootstrap over its values would cost too much."""

INTERVALS = (
    "95 % intervals: Wilson score for rates, percentile bootstrap "
    f"({BOOTSTRAP_RESAMPLES:,} resamples) for means; an interval stays within the values seen"
)
"""How a match's intervals are made (the table's footer, the JSON's ``intervals``)."""


def bootstrap_interval(x: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float, float]:
    """Mean of ``x`` (n,) and its 95 % percentile bootstrap interval ``(mean, low, high)``.

    Each resample's mean is a mean of values of ``x``, so the interval never leaves the
    range of the values seen, hence never the measure's possible range (a score >= 0 keeps
    ``low >= 0``). Resampled as counts over the distinct values (a multinomial draw),
    from a fixed generator: the same ``x`` gives the same interval. A figure with more than
    :data:`MAX_BOOTSTRAP_VALUES` distinct values gets the normal interval clipped to
    ``[min(x), max(x)]``. ``low``/``high`` are NaN for fewer than two values.
    """
    x = np.asarray(x, np.float64).reshape(-1)
    n = x.size
    m = float(x.mean()) if n else float("nan")
    if n < 2:
        return m, float("nan"), float("nan")
    values, counts = np.unique(x, return_counts=True)
    if values.size == 1:
        return m, float(values[0]), float(values[0])
    if values.size > MAX_BOOTSTRAP_VALUES:
        _, lo, hi = mean_interval(x)
    else:
        draws = np.random.default_rng(0).multinomial(n, counts / n, size=resamples)
        lo, hi = np.quantile(draws @ values / n, [0.025, 0.975])
    return m, float(np.clip(lo, values[0], values[-1])), float(np.clip(hi, values[0], values[-1]))


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
    (``GameDef.match_stats``): a rate (flags, Wilson interval) or a mean (numbers,
    :func:`bootstrap_interval`) with its 95 % interval and its ``definition``; no interval
    leaves the figure's range. ``intervals``: how they are made (:data:`INTERVALS`).
    ``seats``: per seat, the mean return, win rate and loss rate with 95 % intervals, and openskill ratings (competitive games, when ``openskill`` is
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
            m, lo, hi = bootstrap_interval(v)
            stats[key] = {"mean": m, "low": lo, "high": hi}
        if result.definitions.get(key):
            stats[key]["definition"] = result.definitions[key]
    out["stats"] = stats
    out["intervals"] = INTERVALS
    out["definitions"] = {**SEAT_FIGURES, **{k: v for k, v in result.definitions.items() if v}}
    if g > MAX_RATED_GAMES:
        out["definitions"]["rating"] += f" (from the first {MAX_RATED_GAMES:,} games)"
    rates = _ratings(result) if ratings and result.returns.shape[1] > 1 else None
    seats = [_seat_figures(result, k, None if rates is None else rates[k]) for k in range(len(result.agents))]
    out["seats"] = seats
    return out


def _seat_figures(result: MatchResult, k: int, rating: dict | None) -> dict:
    """Seat ``k``'s figures: mean return, win and loss rates with intervals, its rating."""
    r = result.returns[:, k]
    g = len(r)
    m, lo, hi = bootstrap_interval(r)
    wins = float((r > 0).sum())
    losses = float((r < 0).sum())
    seat = {
        "agent": result.agents[k],
        "bot": result.bots[k],
        "mean_return": {"mean": m, "low": lo, "high": hi},
        "win_rate": dict(zip(("rate", "low", "high"), (wins / g, *wilson_interval(wins, g)))),
        "loss_rate": dict(zip(("rate", "low", "high"), (losses / g, *wilson_interval(losses, g)))),
    }
    if rating is not None:
        seat["rating"] = rating
    return seat
