"""Who the learner plays against: the ``--opponents`` mix and the league of snapshots.

A mix is a comma-separated list of ``name[:weight]`` entries (weights are normalised;
an entry without one gets an equal share of what is left):

* ``self`` — self-play: the learner plays every seat of the env;
* ``league`` — the learner plays one seat (drawn per episode), a past snapshot of itself
  the others; the snapshot is drawn per env at each reset from the league pool (until the
  first snapshot exists, such an env plays self-play);
* ``baseline`` — the learner plays one seat (drawn per episode), the game's shipped
  trained baseline (:mod:`tabletop_core.agents.baseline`) the others;
* a scripted bot of the game (``random``, ``greedy``, ...) — the learner plays one seat,
  the bot the others, inside the game's compiled learner kernels;
* a lineup of scripted bots joined by ``+`` (``strong+greedy+random``) — one bot per seat
  the learner does not hold, in seat order: the learner trains against the table it will
  be measured at (Koikoi's baseline in seat 0 against strong, greedy and random).

``--seats`` chooses the learner's seats (or teams of seats) in league, baseline and bot
envs.

The envs are split between the entries by weight, once, at the start. In a cooperative
game (The Game) the learner plays every seat: the only mix is ``self``.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.envs.single_agent import learner_seats

__all__ = ["parse_opponents", "parse_seats", "League", "default_opponents"]


POLICY_ENTRIES = ("self", "league", "baseline")
"""Mix entries played in the self-play vector env (the other entries are scripted bots)."""


def default_opponents(game) -> str:
    """``self`` for a cooperative game, else ``self:0.5,league:0.3,random:0.2``."""
    return "self" if game.cooperative else "self:0.5,league:0.3,random:0.2"


def parse_opponents(text: str, game) -> list[tuple[str, float]]:
    """Parse a mix into ``[(name, weight), ...]`` with weights summing to 1.

    Raises:
        ValueError: an unknown entry (naming the allowed ones), a bad or negative weight,
            a repeated entry, weights summing past 1, or anything but ``self`` in a
            cooperative game.
    """
    allowed = ["self", "league", "baseline", *game.bot_choices]
    if not isinstance(text, str) or not text.strip():
        raise ValueError("--opponents must be a non-empty mix such as 'self:0.5,league:0.3,random:0.2'")
    entries: list[tuple[str, float | None]] = []
    for part in text.split(","):
        name, _, w = part.strip().partition(":")
        name = "+".join(x.strip() for x in name.split("+"))
        lineup = name.split("+")
        if len(lineup) > 1 and all(b in game.bot_choices for b in lineup):
            pass  # a lineup of scripted bots (its length is checked against the seats)
        elif name not in allowed:
            raise ValueError(
                f"--opponents: unknown entry {name!r}; allowed: {', '.join(allowed)} "
                f"(each optionally ':weight', e.g. 'self:0.5,league:0.3,{game.bot_names[0]}:0.2'), "
                f"or a lineup of bots joined by '+'"
            )
        if any(name == n for n, _ in entries):
            raise ValueError(f"--opponents: {name!r} appears twice")
        weight = None
        if "=" in w:
            raise ValueError(
                f"--opponents: {part.strip()!r}: an opponent takes a weight only (e.g. '{name}:0.5'); "
                "the search bot plays here with its defaults (docs/search-bot.md), so settings such as "
                "rollouts= or blueprint= are for tabletop match / play / replay"
            )
        if w:
            try:
                weight = float(w)
            except ValueError:
                raise ValueError(f"--opponents: weight {w!r} of {name!r} is not a number") from None
            if not np.isfinite(weight) or weight < 0:
                raise ValueError(f"--opponents: weight of {name!r} must be >= 0, got {w}")
        entries.append((name, weight))
    given = sum(w for _, w in entries if w is not None)
    free = [n for n, w in entries if w is None]
    if free and given > 1 + 1e-9:
        raise ValueError(f"--opponents: the given weights sum to {given:g} > 1, nothing left for {free}")
    rest = (1.0 - given) / len(free) if free else 0.0
    out = [(n, w if w is not None else rest) for n, w in entries]
    total = sum(w for _, w in out)
    if total <= 0:
        raise ValueError("--opponents: the weights sum to 0")
    out = [(n, w / total) for n, w in out if w > 0]
    if game.cooperative and [n for n, _ in out] != ["self"]:
        raise ValueError(
            f"{game.name} is cooperative: the learner plays every seat, so --opponents must be 'self' "
            f"(got {text!r})"
        )
    return out


def parse_seats(text: str | None, agents: list[str], cooperative: bool) -> list[tuple[int, ...]]:
    """The learner's seats in bot and league envs (``--seats``): a comma-separated list
    of choices the envs are split between, each one seat or a team of seats joined by
    ``+`` that the learner holds together (indices or agent names). ``None``: every seat
    alone (the learner's seat rotates over them).

    Example: Exit Now's humans as one team against the ghost bot is ``--seats 0+1+2``
    (or ``human_0+human_1+human_2``); the ghost alone is ``--seats 3``.

    Raises:
        ValueError: an unknown or repeated seat, a team of every seat, or any value in a
            cooperative game (the learner plays every seat there).
    """
    if text is None:
        return [(k,) for k in range(len(agents))]
    if cooperative:
        raise ValueError(f"--seats: the game is cooperative, the learner plays every seat (got {text!r})")
    out = []
    for part in str(text).split(","):
        names = [x.strip() for x in part.split("+")]
        seats = [int(x) if x.lstrip("-").isdigit() else x for x in names]
        try:
            team = learner_seats(agents, seats)
        except ValueError as exc:
            raise ValueError(f"--seats {text!r}: {exc}") from None
        if team in out:
            raise ValueError(f"--seats {text!r}: {part.strip()!r} appears twice")
        out.append(team)
    return out


def split_envs(num_envs: int, mix: list[tuple[str, float]], num_players: int) -> list[tuple[str, int]]:
    """Env counts per mix entry (largest remainder; bot entries rounded to a multiple of
    the seat count, so the learner's seat rotates evenly over the bot groups).

    Raises:
        ValueError: when an entry would get no env (``num_envs`` too small for the mix).
    """
    raw = [w * num_envs for _, w in mix]
    counts = [int(np.floor(x)) for x in raw]
    for k in np.argsort([-(x - np.floor(x)) for x in raw])[: num_envs - sum(counts)]:
        counts[k] += 1
    out = []
    for (name, _), c in zip(mix, counts):
        if c < 1 or (name not in POLICY_ENTRIES and c < num_players):
            raise ValueError(
                f"--num-envs {num_envs} is too small for the mix entry {name!r} "
                f"(it needs at least {1 if name in POLICY_ENTRIES else num_players} envs)"
            )
        out.append((name, c))
    return out


class League:
    """A pool of past snapshots of the learner, sampled per env at reset.

    Snapshots are the actor-critic's ``state_dict`` (on the CPU), kept under increasing
    ids; the pool keeps the newest ``size`` (an older one leaves the sampling pool at once
    and memory once no env plays it any more). Sampling is uniform over the pool, from the
    trainer's own numpy generator (reproducible).

    Attributes:
        snapshots: ``{id: (update, state_dict)}`` still held.
        pool: ids that can be drawn.
        drawn: ``{id: count}``, how many episodes each snapshot was drawn for.
    """

    def __init__(self, size: int):
        if size < 1:
            raise ValueError(f"--league-size must be >= 1, got {size}")
        self.size = int(size)
        self.snapshots: dict[int, tuple[int, dict]] = {}
        self.pool: list[int] = []
        self.drawn: dict[int, int] = {}
        self._next = 0

    def add(self, update: int, state_dict: dict) -> int:
        """Store a snapshot taken after ``update``; returns its id."""
        sid = self._next
        self._next += 1
        self.snapshots[sid] = (int(update), {k: v.detach().cpu().clone() for k, v in state_dict.items()})
        self.pool.append(sid)
        self.drawn[sid] = 0
        if len(self.pool) > self.size:
            self.pool.pop(0)
        return sid

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` snapshot ids drawn uniformly from the pool ((n,) int64); -1 (self-play)
        while the pool is empty."""
        if not self.pool:
            return np.full(n, -1, np.int64)
        ids = np.asarray(self.pool, np.int64)[rng.integers(0, len(self.pool), n)]
        for sid, c in zip(*np.unique(ids, return_counts=True)):
            self.drawn[int(sid)] += int(c)
        return ids

    def release(self, in_use: np.ndarray) -> None:
        """Forget snapshots that left the pool and that no env plays any more."""
        used = set(int(x) for x in np.unique(in_use)) | set(self.pool)
        for sid in [s for s in self.snapshots if s not in used]:
            del self.snapshots[sid]

    def state(self) -> dict:
        return {
            "size": self.size,
            "snapshots": self.snapshots,
            "pool": self.pool,
            "drawn": self.drawn,
            "next": self._next,
        }

    def load(self, st: dict) -> None:
        self.size, self.snapshots, self.pool = st["size"], st["snapshots"], list(st["pool"])
        self.drawn, self._next = dict(st["drawn"]), int(st["next"])
