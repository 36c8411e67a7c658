"""Leduc hold'em side by side with its peers, in ONE process: steps/s of random legal play
on our vector env and on Pgx ``leduc_holdem``, OpenSpiel ``leduc_poker`` and RLCard
``leduc-holdem``, and a check that they play the same game.

    python benchmarks/peers.py [--seconds 30] [--batch 4096] [--seed 0]
        [--rounds 8] [--episodes 40000] [--json]

Speed. Each loop plays uniformly random legal actions and counts env steps (one action of
one env; chance events are not steps):

- ours: the vector env at ``--batch`` (``copy=False``), actions from its compiled sampler
  through ``step`` (``python_actions``, the figure the ratios use) and from the random
  bot inside the kernel (``kernel_actions``);
- Pgx: ``jit(vmap(auto_reset(step, init)))`` at ``--batch`` with a jitted masked sampler;
- OpenSpiel: ``pyspiel`` states, one hand after another (``legal_actions``,
  ``apply_action``; no observation tensor is computed);
- RLCard: ``env.reset`` / ``env.step`` (which build the acting player's observation).

The loops are timed in ``--rounds`` interleaved rounds, one window of each loop a round,
the order turned by one each round; the figures are the medians over the rounds, and each
ratio ours / peer is the median of the per-round ratios (load that comes and goes on a
shared machine falls on every loop of a round).

Rules check (``docs/leduc-peers.md``). Our game's tree is walked exactly through its kernels
(chance outcomes and legal actions with uniform weights): the expected return of each seat
under uniform random play and the information states per seat. OpenSpiel's tree is walked
the same way through ``pyspiel``; both figures must be equal. Pgx and RLCard are checked by
Monte-Carlo: the mean return of the seat that acts first and of the other over
``--episodes`` random hands must lie within :data:`TOLERANCE_SE` standard errors of the
exact value of the rules as that peer plays them (:data:`PEER_RULES`, walked by
:func:`rules_walk`, which equals our kernels' walk on the standard rules). A peer that is
not installed is skipped with a note.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for _p in (str(ROOT), str(ROOT / "tests")):  # our game is the test suite's contract game
    if _p not in sys.path:
        sys.path.insert(0, _p)

from tabletop_core.tools.scripts import run_script  # noqa: E402

PEERS = ("pgx", "open_spiel", "rlcard")
STATS = ("return_first", "return_second", "abs_return", "steps")
"""The figures of random play compared: the mean return of the seat acting first in round 1
and of the other, the mean absolute return and the mean number of steps (actions) of a hand."""
TOLERANCE_SE = 4.0
"""A Monte-Carlo mean agrees with an exact value when they differ by at most this many
standard errors of the mean (a false alarm about once in 16,000 checks)."""


# --- the rules as each implementation plays them ------------------------------------------------
@dataclass(frozen=True)
class Rules:
    """Leduc hold'em as one implementation plays it, in the terms random play can tell
    apart. Seats are named by role: the seat acting first in round 1, and the other.

    Attributes:
        blinds: chips each role has in the pot before round 1 (first actor, other).
        free_fold: folding is legal when not facing a bet.
        round2_first: who acts first in round 2: ``"same"`` (the first actor of round 1)
            or ``"not_closer"`` (the seat that did not close round 1).
        chip_value: the reward of one chip.
        bets: the raise of round 1 and of round 2.
        max_raises: raises allowed per round (blinds do not count).
    """

    blinds: tuple[int, int] = (1, 1)
    free_fold: bool = False
    round2_first: str = "same"
    chip_value: Fraction = Fraction(1)
    bets: tuple[int, int] = (2, 4)
    max_raises: int = 2


STANDARD = Rules()
PEER_RULES = {
    "pgx": (
        STANDARD,
        "the same rules; the seat acting first is drawn at random each hand (ours: the start_player "
        "option), so the figures are compared by role",
    ),
    "open_spiel": (STANDARD, "the same rules: a fold only when facing a bet, player 0 first in both rounds"),
    "rlcard": (
        Rules(blinds=(1, 2), free_fold=True, round2_first="not_closer", chip_value=Fraction(1, 2)),
        "blinds of 1 (the first actor) and 2 in place of antes of 1, so one raise in round 1 makes "
        "4 and two make 6 (ours 3 and 5); a fold is legal without a bet; round 2 is opened by the "
        "seat that did not close round 1; rewards are in big blinds (chips / 2); four actions "
        "(call, raise, fold, check); the seat acting first is drawn at random each hand",
    ),
}
"""Each peer's rules and how they differ from ours (read from the peers' sources)."""


def _showdown(cards: tuple[int, int], public: int) -> int:
    """The winning role of a showdown (card ids, rank ``id // 2``), -1 on a split."""
    r = [c // 2 for c in cards]
    p = public // 2
    if (r[0] == p) != (r[1] == p):
        return 0 if r[0] == p else 1
    return -1 if r[0] == r[1] else (0 if r[0] > r[1] else 1)


def rules_walk(rules: Rules = STANDARD) -> dict:
    """Exact figures of uniform random play of Leduc hold'em played by ``rules``: the
    expected return of each role, of the absolute return and of the steps (actions) of a
    hand, and the number of information states (own card id, public card id, action
    history) of each role.

    Returns:
        ``{"expected": {name: Fraction} for name in STATS, "info_states": [int, int]}``,
        roles: the seat acting first in round 1, the other.
    """
    value = dict.fromkeys(STATS, Fraction(0))
    info: list[set] = [set(), set()]

    def end(q: Fraction, gain_first: Fraction, steps: int) -> None:
        """A hand ends with probability ``q``, the first actor winning ``gain_first``."""
        for name, x in zip(STATS, (gain_first, -gain_first, abs(gain_first), steps)):
            value[name] += q * x

    def node(cards, public, pot, actor, raises, acted, hist, p):
        rnd = 0 if public < 0 else 1
        info[actor].add((cards[actor], public, hist))
        facing = pot[actor] < pot[1 - actor]
        legal = (["fold"] if facing or rules.free_fold else []) + ["call"]
        legal += ["raise"] if raises < rules.max_raises else []
        q = p / len(legal)
        steps = len(hist) - rnd + 1  # the actions of the hand with this one ("/" marks round 2)
        for a in legal:
            if a == "fold":
                end(q, rules.chip_value * pot[actor] * (1 if actor else -1), steps)
                continue
            mine = pot[1 - actor] + (rules.bets[rnd] if a == "raise" else 0)
            nxt = (mine, pot[1]) if actor == 0 else (pot[0], mine)
            h = (*hist, a)
            if a == "raise" or acted == 0:
                node(cards, public, nxt, 1 - actor, raises + (a == "raise"), acted + 1, h, q)
            elif rnd == 1:
                w = _showdown(cards, public)
                end(q, 0 if w < 0 else rules.chip_value * nxt[1 - w] * (1 if w == 0 else -1), steps)
            else:
                first = 0 if rules.round2_first == "same" else 1 - actor
                unseen = [c for c in range(6) if c not in cards]
                for c in unseen:
                    node(cards, c, nxt, first, 0, 0, (*h, "/"), q / len(unseen))

    for c0 in range(6):
        for c1 in range(6):
            if c0 != c1:
                node((c0, c1), -1, rules.blinds, 0, 0, 0, (), Fraction(1, 30))
    return {"expected": value, "info_states": [len(s) for s in info]}


def our_tree() -> dict:
    """Walk our Leduc hold'em (``tests/contract_game``, standard options: seat 0 acts first)
    exactly through its kernels (``GAME.hooks``: ``deal``, ``legal_mask``, ``step``): every
    deal of the private cards, every legal action with uniform weight, every public card.
    The kernel draws the public card when round 1 closes; the walk then sets each of the
    four unseen cards in turn.

    Returns:
        ``{"expected": {name: Fraction} for name in STATS, "info_states": [int, int],
        "decisions": int, "terminals": int}``; an information state of a seat is its card
        id, the public card id (-1 before it is dealt) and the action history.
    """
    from contract_game import GAME

    from tabletop_core.kernel.records import at

    h = GAME.hooks
    root = GAME.new_state(1, GAME.make_options())
    at(h.deal, root, 0)
    mask = np.zeros((1, GAME.num_actions), np.int8)
    acc = np.zeros((1, 2), np.float32)
    value = dict.fromkeys(STATS, Fraction(0))
    info: list[set] = [set(), set()]
    count = {"decisions": 0, "terminals": 0}

    def legal(s) -> list[int]:
        mask[:] = 0
        at(h.legal_mask, s, 0, mask, 0)
        return np.flatnonzero(mask[0]).tolist()

    def walk(s, p: Fraction, hist: tuple, steps: int) -> None:
        seat = int(s["current"][0])
        info[seat].add((int(s["private"][0, seat]), int(s["public"][0]), hist))
        count["decisions"] += 1
        actions = legal(s)
        q = p / len(actions)
        for a in actions:
            c = s.copy()
            acc[:] = 0
            at(h.step, c, 0, a, acc, 0)
            if not legal(c):
                count["terminals"] += 1
                r0, r1 = (Fraction(float(x)) for x in acc[0])
                for name, x in zip(STATS, (r0, r1, abs(r0), steps + 1)):
                    value[name] += q * x
            elif c["round"][0] != s["round"][0]:
                unseen = [x for x in range(6) if x not in c["private"][0].tolist()]
                for x in unseen:
                    d = c.copy()
                    d["public"] = x
                    walk(d, q / len(unseen), (*hist, a, -1), steps + 1)
            else:
                walk(c, q, (*hist, a), steps + 1)

    for c0 in range(6):
        for c1 in range(6):
            if c0 != c1:
                s = root.copy()
                s["private"][0] = (c0, c1)
                walk(s, Fraction(1, 30), (), 0)
    return {"expected": value, "info_states": [len(x) for x in info], **count}


def openspiel_tree() -> dict:
    """Walk OpenSpiel's ``leduc_poker`` (player 0 acts first) exactly through ``pyspiel``:
    its chance outcomes with their probabilities, legal actions uniformly.

    Returns:
        ``{"expected": {name: float} for name in STATS, "info_states": [int, int]}``, the
        information states counted by ``information_state_string``.

    Raises:
        ImportError: without ``open_spiel``.
    """
    import pyspiel

    game = pyspiel.load_game("leduc_poker")
    value = dict.fromkeys(STATS, 0.0)
    info: list[set] = [set(), set()]

    def walk(state, p: float, steps: int) -> None:
        if state.is_terminal():
            r0, r1 = state.returns()
            for name, x in zip(STATS, (r0, r1, abs(r0), steps)):
                value[name] += p * x
            return
        if state.is_chance_node():
            for a, w in state.chance_outcomes():
                walk(state.child(a), p * w, steps)
            return
        info[state.current_player()].add(state.information_state_string())
        actions = state.legal_actions()
        for a in actions:
            walk(state.child(a), p / len(actions), steps + 1)

    walk(game.new_initial_state(), 1.0, 0)
    return {"expected": value, "info_states": [len(x) for x in info]}


# --- random play: the timed loops and the Monte-Carlo means ------------------------------------
def _ours_loops(batch: int, seed: int) -> tuple[Callable[[], int], Callable[[], int]]:
    from contract_game import GAME

    from tabletop_core.envs.vector import SelfPlayVectorEnv

    venv = SelfPlayVectorEnv(GAME, batch, seed=seed, copy=False)
    venv.reset(seed=seed)

    def python_actions() -> int:
        venv.step(venv.sample_actions())
        return batch

    def kernel_actions() -> int:
        venv.step_bots("random")
        return batch

    return python_actions, kernel_actions


def _hands(first: np.ndarray, second: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Finished hands as rows of :data:`STATS` from the returns of the seat acting first and
    of the other, and the steps of each hand."""
    return np.stack([first, second, np.abs(first), steps], axis=1).astype(np.float64)


def summarize(hands: np.ndarray) -> dict:
    """Rows of :data:`STATS` (one per hand): ``{"mean": {name: float}, "se": {name:
    float}, "episodes": N}``, ``se`` the standard error of each mean."""
    n = len(hands)
    se = hands.std(axis=0, ddof=1) / np.sqrt(n)
    return {
        "mean": dict(zip(STATS, hands.mean(axis=0).tolist())),
        "se": dict(zip(STATS, se.tolist())),
        "episodes": n,
    }


def ours_monte_carlo(episodes: int, seed: int, batch: int = 4096) -> dict:
    """:func:`summarize` of the first ``ceil(episodes / batch)`` hands of each env of our
    vector env (standard options: seat 0 acts first), random play from its sampler. (The
    first hands of every env, not the hands that end in a span of steps: those would favour
    short hands.)"""
    from contract_game import GAME

    from tabletop_core.envs.vector import SelfPlayVectorEnv

    venv = SelfPlayVectorEnv(GAME, batch, seed=seed, copy=False)
    venv.reset(seed=seed)
    per_env = -(-episodes // batch)
    steps = np.zeros(batch, np.int64)
    hands = np.zeros(batch, np.int64)
    done: list[np.ndarray] = []
    while hands.min() < per_env:
        _, rewards, term, _, _ = venv.step(venv.sample_actions())
        steps += 1
        keep = term & (hands < per_env)
        done.append(_hands(rewards[keep, 0], rewards[keep, 1], steps[keep]))
        hands += term
        steps[term] = 0
    return summarize(np.concatenate(done))


def _pgx_parts(batch: int, seed: int, scan: int = 1):
    """Pgx's ``leduc_holdem``: a jitted function playing ``scan`` random steps of the batch
    (autoreset, actions from a masked sampler) that returns the state, the key and each
    step's ``terminated``, ``rewards`` and ``current_player``; and a first state and key."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make("leduc_holdem")
    step_one = jax.vmap(auto_reset(env.step, env.init))

    def one(carry, _):
        state, key = carry
        k1, k2, key = jax.random.split(key, 3)
        action = jax.random.categorical(k1, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=-1)
        state = step_one(state, action, jax.random.split(k2, batch))
        return (state, key), (state.terminated, state.rewards, state.current_player)

    @jax.jit
    def play(state, key):
        (state, key), seen = jax.lax.scan(one, (state, key), None, length=scan)
        return state, key, seen

    key, sub = jax.random.split(jax.random.PRNGKey(seed))
    return play, jax.jit(jax.vmap(env.init))(jax.random.split(sub, batch)), key


def _pgx_loop(batch: int, seed: int) -> Callable[[], int]:
    play, state, key = _pgx_parts(batch, seed)
    box = {"state": state, "key": key}

    def one() -> int:
        box["state"], box["key"], seen = play(box["state"], box["key"])
        seen[0].block_until_ready()
        return batch

    return one


def pgx_monte_carlo(episodes: int, seed: int, batch: int = 4096) -> dict:
    """:func:`summarize` of the first ``ceil(episodes / batch)`` hands of each env of Pgx
    at ``batch``, random play; the seat acting first is the acting seat of the hand's
    fresh state."""
    scan = 16
    play, state, key = _pgx_parts(batch, seed, scan)
    per_env = -(-episodes // batch)
    first = np.asarray(state.current_player)
    steps = np.zeros(batch, np.int64)
    hands = np.zeros(batch, np.int64)
    rows = np.arange(batch)
    done: list[np.ndarray] = []
    while hands.min() < per_env:
        state, key, (term, rew, cur) = play(state, key)
        term, rew, cur = np.asarray(term), np.asarray(rew, np.float64), np.asarray(cur)
        for t in range(scan):
            steps += 1
            e = rows[term[t] & (hands < per_env)]
            f = first[e]
            done.append(_hands(rew[t, e, f], rew[t, e, 1 - f], steps[e]))
            hands += term[t]
            steps[term[t]] = 0
            first = np.where(term[t], cur[t], first)
    return summarize(np.concatenate(done))


def _openspiel_loop(seed: int) -> Callable[[], int]:
    import pyspiel

    game = pyspiel.load_game("leduc_poker")
    rng = random.Random(seed)

    def hand() -> int:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                n += 1
        return n

    return hand


def _rlcard_env(seed: int):
    import rlcard

    return rlcard.make("leduc-holdem", config={"seed": seed})


def _rlcard_loop(seed: int) -> Callable[[], int]:
    env = _rlcard_env(seed)
    rng = random.Random(seed)

    def hand() -> int:
        state, _ = env.reset()
        n = 0
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            n += 1
        return n

    return hand


def rlcard_monte_carlo(episodes: int, seed: int) -> dict:
    """:func:`summarize` of ``episodes`` hands of random play on RLCard (its payoffs)."""
    env = _rlcard_env(seed)
    rng = random.Random(seed)
    out = np.empty((episodes, len(STATS)))
    for i in range(episodes):
        state, first = env.reset()
        n = 0
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            n += 1
        pay = env.get_payoffs()
        out[i] = _hands(np.array([pay[first]]), np.array([pay[1 - first]]), np.array([n]))[0]
    return summarize(out)


# --- the rules check ---------------------------------------------------------------------------
def _floats(expected: dict) -> dict:
    return {k: float(v) for k, v in expected.items()}


def compare(mc: dict, exact: dict) -> dict:
    """A Monte-Carlo :func:`summarize` against exact values (by :data:`STATS` name): each
    figure's distance in standard errors (``z``) and whether all are within
    :data:`TOLERANCE_SE`."""
    z = {k: (mc["mean"][k] - float(exact[k])) / mc["se"][k] if mc["se"][k] > 0 else 0.0 for k in STATS}
    return {"z": z, "agree": all(abs(v) <= TOLERANCE_SE for v in z.values())}


def _peer_check(name: str, episodes: int, seed: int, ours: dict) -> dict:
    """The rules check of one peer (raises ImportError when it is not installed)."""
    rules, differences = PEER_RULES[name]
    if name == "open_spiel":
        tree = openspiel_tree()
        agree = tree["info_states"] == ours["info_states"] and all(
            abs(tree["expected"][k] - float(ours["expected"][k])) <= 1e-9 for k in STATS
        )
        return {"differences": differences, "method": "exact tree walk", **tree, "agree": agree}
    mc = pgx_monte_carlo(episodes, seed) if name == "pgx" else rlcard_monte_carlo(episodes, seed)
    exact = rules_walk(rules)["expected"]
    out = {"differences": differences, "method": "Monte-Carlo", "monte_carlo": mc}
    out["expected_by_its_rules"] = _floats(exact)
    out.update(compare(mc, exact))
    if rules != STANDARD:
        out["z_against_ours"] = compare(mc, ours["expected"])["z"]
        out["max_z_without_each_difference"] = {
            field: _max_z(mc, rules_walk(replace(rules, **{field: getattr(STANDARD, field)}))["expected"])
            for field in differing_fields(rules)
        }
    return out


def differing_fields(rules: Rules) -> list[str]:
    """The fields of ``rules`` that differ from the standard rules."""
    return [f.name for f in fields(Rules) if getattr(rules, f.name) != getattr(STANDARD, f.name)]


def _max_z(mc: dict, exact: dict) -> float:
    return max(abs(v) for v in compare(mc, exact)["z"].values())


def rules_check(episodes: int, seed: int, peers: tuple[str, ...] = PEERS) -> dict:
    """The rules check of the module docstring: ``{"ours": {...}, peer: {...} or
    {"skipped": reason}}``; each entry has ``agree``."""
    ours = our_tree()
    model = rules_walk(STANDARD)
    mc = ours_monte_carlo(episodes, seed)
    out = {
        "ours": {
            "method": "exact tree walk",
            "expected": _floats(ours["expected"]),
            "expected_exact": {k: str(v) for k, v in ours["expected"].items()},
            "info_states": ours["info_states"],
            "decisions": ours["decisions"],
            "terminals": ours["terminals"],
            "rules_model_equal": model == {k: ours[k] for k in model},
            "monte_carlo": mc,
            **compare(mc, ours["expected"]),
        }
    }
    out["ours"]["agree"] = out["ours"]["agree"] and out["ours"]["rules_model_equal"]
    for name in peers:
        try:
            out[name] = _peer_check(name, episodes, seed, ours)
        except ImportError as exc:
            out[name] = {"skipped": f"not installed ({exc.name or exc})"}
    return out


# --- timing ------------------------------------------------------------------------------------
def _rate(fn: Callable[[], int], window: float) -> float:
    """Steps/s of ``fn`` (returns the steps it made) called for ``window`` seconds."""
    n = 0
    t0 = time.perf_counter()
    while True:
        n += fn()
        dt = time.perf_counter() - t0
        if dt >= window:
            return n / dt


def make_loops(batch: int, seed: int, peers: tuple[str, ...] = PEERS) -> tuple[dict, dict]:
    """The timed loops by name (``ours``, ``ours_kernel`` and each installed peer) and the
    peers skipped, with the reason."""
    python_actions, kernel_actions = _ours_loops(batch, seed)
    loops = {"ours": python_actions, "ours_kernel": kernel_actions}
    makers = {"pgx": lambda: _pgx_loop(batch, seed), "open_spiel": lambda: _openspiel_loop(seed)}
    makers["rlcard"] = lambda: _rlcard_loop(seed)
    skipped = {}
    for name in peers:
        try:
            loops[name] = makers[name]()
        except ImportError as exc:
            skipped[name] = f"not installed ({exc.name or exc})"
    return loops, skipped


def time_rounds(loops: dict, seconds: float, rounds: int, progress=None) -> list[dict[str, float]]:
    """Each loop once for a settling window (compilation), then ``rounds`` rounds of one
    window of each loop, ``seconds`` in all, the order turned by one each round. Returns
    each round's steps/s by loop name."""
    window = seconds / (len(loops) * rounds)
    for fn in loops.values():
        _rate(fn, min(window, 0.5))
    names = list(loops)
    out = []
    for i in range(rounds):
        order = names[i % len(names) :] + names[: i % len(names)]
        out.append({k: _rate(loops[k], window) for k in order})
        if progress is not None:
            progress.update(i + 1, info=f"round {i + 1}")
    return out


# --- the records -------------------------------------------------------------------------------
def machine() -> dict:
    """The CPU model, the cores and the platform of this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform()}


def commit() -> str | None:
    """``git rev-parse --short HEAD`` of this checkout (None outside git)."""
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() or None


def _version(name: str) -> str | None:
    dist = {"ours": "tabletop-rl", "open_spiel": "open_spiel"}.get(name, name)
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


LOOPS = {
    "ours": "vector env, actions from its compiled sampler through step()",
    "pgx": "jit(vmap(auto_reset(step, init))) with a jitted masked sampler",
    "open_spiel": "pyspiel states, legal_actions() and apply_action(), no observation",
    "rlcard": "env.reset() / env.step() (observation built each step)",
}


def records(args: argparse.Namespace, rounds: list[dict], skipped: dict, check: dict) -> list[dict]:
    """One JSON record per implementation: steps/s (median over the rounds), ours over the
    peer (median of the per-round ratios), the rules check, and the run's settings."""
    common = {
        "bench": "leduc_peers",
        "command": "python benchmarks/peers.py " + " ".join(sys.argv[1:]),
        "seconds": args.seconds,
        "batch": args.batch,
        "seed": args.seed,
        "rounds": args.rounds,
        "episodes": args.episodes,
        "machine": machine(),
        "commit": commit(),
    }
    med = {k: float(np.median([r[k] for r in rounds])) for k in rounds[0]}
    out = [
        {
            **common,
            "impl": "ours",
            "version": _version("ours"),
            "loop": LOOPS["ours"],
            "steps_per_s": med["ours"],
            "kernel_actions_steps_per_s": med["ours_kernel"],
            "rules": check["ours"],
        }
    ]
    for name in PEERS:
        rec = {**common, "impl": name, "version": _version(name)}
        if name in skipped:
            out.append({**rec, "skipped": skipped[name]})
            continue
        ratios = {
            side: float(np.median([r[key] / r[name] for r in rounds]))
            for side, key in (("python_actions", "ours"), ("kernel_actions", "ours_kernel"))
        }
        rec.update(loop=LOOPS[name], steps_per_s=med[name], ours_over_peer=ratios, rules=check[name])
        out.append(rec)
    return out


def _fig(x: float) -> str:
    return f"{x / 1e6:.2f} M" if x >= 1e5 else f"{x / 1e3:.1f} k"


_SHORT = {"return_first": "first", "return_second": "second", "abs_return": "|return|", "steps": "steps"}


def _check_lines(name: str, rules: dict) -> list[str]:
    """The rules check of one implementation as a few readable lines."""
    if "skipped" in rules:
        return [f"  {name:<11} skipped: {rules['skipped']}"]
    verdict = "agree" if rules["agree"] else "DISAGREE"
    if rules["method"] == "exact tree walk":
        e, n = rules["expected"], rules["info_states"]
        out = [f"  {name:<11} exact tree walk, information states {n[0]}/{n[1]}: {verdict}"]
        out.append("    " + ", ".join(f"{_SHORT[k]} {e[k]:+.6f}" for k in STATS))
        if "monte_carlo" in rules:
            z = max(abs(v) for v in rules["z"].values())
            out.append(f"    our vector env, {rules['monte_carlo']['episodes']} hands: within {z:.1f} SE")
        return out
    mc, x = rules["monte_carlo"], rules["expected_by_its_rules"]
    out = [
        f"  {name:<11} Monte-Carlo, {mc['episodes']} hands, against the exact value of its rules: {verdict}"
    ]
    out.append(
        "    " + ", ".join(f"{_SHORT[k]} {mc['mean'][k]:+.4f}±{mc['se'][k]:.4f} ({x[k]:+.4f})" for k in STATS)
    )
    if "z_against_ours" in rules:
        z = max(abs(v) for v in rules["z_against_ours"].values())
        each = ", ".join(f"{k} {v:.1f}" for k, v in rules["max_z_without_each_difference"].items())
        out.append(f"    against our rules: {z:.1f} SE off; with one difference undone: {each} SE off")
    return out


def table(recs: list[dict]) -> str:
    """The records as a readable table and the rules check beside it."""
    head = recs[0]
    lines = [
        f"Leduc hold'em, random legal play: batch {head['batch']}, rounds {head['rounds']} in "
        f"{head['seconds']} s (medians), seed {head['seed']}, {head['machine']['cpu']}, "
        f"{head['machine']['cores']} cores, commit {head['commit']}",
        f"  {'impl':<11} {'version':<9} {'steps/s':>9}  {'ours/peer':>9}  {'(in-kernel)':>11}",
    ]
    for r in recs:
        if "skipped" in r:
            lines.append(f"  {r['impl']:<11} skipped: {r['skipped']}")
        elif r["impl"] == "ours":
            lines.append(f"  {'ours':<11} {r['version'] or '':<9} {_fig(r['steps_per_s']):>9}")
            lines.append(f"  {'ours (bots)':<11} {'':<9} {_fig(r['kernel_actions_steps_per_s']):>9}")
        else:
            q = r["ours_over_peer"]
            lines.append(
                f"  {r['impl']:<11} {r['version'] or '':<9} {_fig(r['steps_per_s']):>9}  "
                f"{q['python_actions']:>8.1f}x  {q['kernel_actions']:>10.1f}x"
            )
    lines.append(
        f"Rules check, uniform random play (a Monte-Carlo mean agrees within {TOLERANCE_SE:g} standard errors):"
    )
    for r in recs:
        lines += _check_lines(r["impl"], r["rules"]) if "rules" in r else []
    lines.append("Rules of the peers against ours:")
    lines += [f"  {n:<11} {PEER_RULES[n][1]}" for n in PEERS]
    return "\n".join(lines)


def _positive(kind: type) -> Callable[[str], float]:
    def parse(text: str):
        try:
            x = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive {kind.__name__}, got {text!r}") from None
        if not x > 0:
            raise argparse.ArgumentTypeError(f"expected a positive {kind.__name__}, got {text}")
        return x

    return parse


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--seconds", type=_positive(float), default=30.0, help="timed seconds, all loops and rounds"
    )
    p.add_argument("--batch", type=_positive(int), default=4096, help="batch of our vector env and of Pgx")
    p.add_argument("--seed", type=int, default=0, help="seed of every loop and of the Monte-Carlo hands")
    p.add_argument("--rounds", type=_positive(int), default=8, help="interleaved rounds (medians over them)")
    p.add_argument(
        "--episodes", type=_positive(int), default=40000, help="Monte-Carlo hands of each implementation"
    )
    p.add_argument("--json", action="store_true", help="JSON lines on stdout, the table on stderr")
    return p


def main() -> int:
    """Time the loops, check the rules, print the records; 1 if an implementation disagrees."""
    args = _parser().parse_args()
    if args.batch > 65536:
        _parser().error(f"--batch must be 1..65536, got {args.batch}")
    from tabletop_core.tools.progress import ProgressBar

    loops, skipped = make_loops(args.batch, args.seed)
    for name, why in skipped.items():
        print(f"{name}: skipped, {why}", file=sys.stderr, flush=True)
    bar = ProgressBar(args.rounds, "leduc peers", unit="rounds", transient=True, plain_every=10.0)
    try:
        rounds = time_rounds(loops, args.seconds, args.rounds, bar)
    finally:
        bar.close()
    print("checking the rules ...", file=sys.stderr, flush=True)
    check = rules_check(args.episodes, args.seed, tuple(p for p in PEERS if p not in skipped))
    recs = records(args, rounds, skipped, check)
    if args.json:
        for r in recs:
            print(json.dumps(r), flush=True)
    print(table(recs), file=sys.stderr if args.json else sys.stdout, flush=True)
    return 0 if all(r["rules"]["agree"] for r in recs if "rules" in r and "agree" in r["rules"]) else 1


if __name__ == "__main__":
    run_script(main)
