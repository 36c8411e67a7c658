"""Training from a search teacher (expert iteration): ``tabletop train GAME --imitate search``.

Expert iteration (Anthony, Tian and Barber, 2017) alternates two steps. The *expert*, a
search, chooses better moves than the *apprentice* policy; the apprentice learns the
expert's moves; then the expert, guided by the better apprentice, proposes better moves
again. Here the expert is the ``search`` bot (:mod:`tabletop_core.contract.search`:
PIMC over the game's ``resample_hidden``, scripted rollouts) and the apprentice is the
trainer's actor:

* Round 0 (cloning): the teacher plays the learner's seats and labels each of their
  decisions with its choice.
* Round ``k >= 1`` (DAgger): the actor plays the learner's seats (greedily, as
  ``MLPPolicy`` plays), the teacher labels every decision the actor meets, and the actor
  trains on the labels of every round so far (DAgger's aggregate data set).
* ``search:...:blueprint=self``: the teacher takes the actor's own choice as its default
  move (the *blueprint*), in place of its rollout bot's. Search then only leaves the
  actor's move for one whose paired gain is significant, so a stronger actor makes a
  stronger teacher: the loop of expert iteration. With it, ``top=K`` searches only the
  actor's K best moves and ``own=policy`` lets the actor play its own seat's moves in the
  rollouts (``docs/search-bot.md``), so the actor steers the search as well.

The learner's seats are one group of ``--seats`` per episode (every seat in a
cooperative game); the other seats are played by the scripted bots of ``--opponents``
(its first entry that names a scripted bot or a ``+`` lineup), or by the teacher's
rollout bot where it names none. A decision with one legal action is played and not
kept.

Labelling runs on every core (the search kernels release the GIL; the rows of a batch are
split between threads, each with its own envs' generators, so the labels do not depend on
the number of threads). The labelled positions are written in chunks of
:data:`CHUNK` decisions to ``RUN/teacher/round-KK-CCCC.npz``; a run stopped part-way and
started again with ``--resume`` keeps every chunk written and every finished round
(``RUN/checkpoint.pt`` records it), and deals fresh games for the chunks still to come.
"""

from __future__ import annotations

import glob
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from tabletop_core.agents.seats import parse_guide, search_blueprint
from tabletop_core.contract.search import GUIDE_SETTINGS, batch_search_values, guide_params, search_params
from tabletop_core.envs.vector import SelfPlayVectorEnv, available_cores
from tabletop_core.kernel.rng import stream_seed, stream_words
from tabletop_core.tools.progress import ProgressBar

__all__ = [
    "CHUNK",
    "Teacher",
    "parse_teacher",
    "teacher_target",
    "is_search_teacher",
    "label_rows",
    "value_logits",
    "collect_round",
    "load_rounds",
]

CHUNK = 4096
"""Labelled decisions per chunk file (what a stopped run can lose at most: one chunk)."""

SELF = "self"
"""``blueprint=self``: the actor being trained names the teacher's default move."""

ILLEGAL = -1e9
"""The value logit of an action that is not legal."""

TARGETS = ("values", "move")
"""What the actor learns (``target=``): ``values``, its own policy reweighted by the
search's value estimates of every legal action (:func:`value_logits`, the default);
``move``, the search's one chosen move."""


def is_search_teacher(spec: str | None) -> bool:
    """Whether ``--imitate`` names the search bot (``search[:...]``)."""
    return isinstance(spec, str) and spec.strip().partition(":")[0] == "search"


@dataclass(frozen=True)
class Teacher:
    """The search teacher named by ``--imitate``.

    Attributes:
        name: the spec as typed (``search:rollouts=64:blueprint=self``).
        bot_id: the search bot's kernel id (:func:`tabletop_core.contract.search.search_id`).
        rollout_bot: the kernel id of its rollout bot (a scripted bot of the game).
        guided: ``blueprint=self``: the actor's choice is the default move.
        num_actions: the game's action count (the width of the search's values).
        target: what the actor learns, one of :data:`TARGETS`.
    """

    name: str
    bot_id: int
    rollout_bot: int
    guided: bool
    num_actions: int
    target: str = TARGETS[0]


def teacher_target(spec: str) -> str:
    """What the actor learns from the teacher ``spec`` (its last ``target=``, else
    ``values``), unchecked: :func:`parse_teacher` checks it."""
    targets = [v for k, _, v in (p.partition("=") for p in spec.strip().split(":")) if k == "target"]
    return targets[-1] if targets else TARGETS[0]


def parse_teacher(game, spec: str) -> Teacher:
    """The :class:`Teacher` of ``spec``:
    ``search[:rollouts=N][:bot=NAME][:z=X][:blueprint=self[:top=K][:own=policy]][:target=values|move]``.

    Raises:
        ValueError: a setting the search bot refuses (its message), a blueprint other
            than ``self`` (the actor being trained), ``top=``/``own=`` without it, or a
            target other than :data:`TARGETS`. Nothing here needs torch, so the option checks of
            ``tabletop train`` call it too.
    """
    pairs = [p.partition("=") for p in spec.strip().split(":")]
    target = teacher_target(spec)
    if target not in TARGETS:
        raise ValueError(
            f"--imitate {spec!r}: target must be values (the search's value of every legal action) "
            f"or move (its one chosen move), got target={target!r}"
        )
    search = ":".join(k + eq + v for k, eq, v in pairs if k != "target")
    guided = search_blueprint(search)
    plain = search
    steering = [k for k, _, _ in pairs if k in GUIDE_SETTINGS]
    if guided is None and steering:
        raise ValueError(
            f"--imitate {spec!r}: {steering[0]}= steers the search with the actor being trained; "
            f"add blueprint={SELF}"
        )
    if guided is not None:
        plain, blueprint = guided
        if blueprint != SELF:
            raise ValueError(
                f"--imitate {spec!r}: the teacher's blueprint is the actor being trained "
                f"(blueprint={SELF}), or none; got blueprint={blueprint!r}"
            )
    try:
        bot_id = int(game.search_bot_id(plain)) | (parse_guide(game, search) if guided is not None else 0)
    except ValueError as exc:
        raise ValueError(f"--imitate: {exc}") from None
    return Teacher(
        spec.strip(), bot_id, search_params(bot_id)[1], guided is not None, int(game.num_actions), target
    )


def label_rows(
    state, rows: np.ndarray, teacher: Teacher, blueprints: np.ndarray, bot_rng, workers: int, net=None
):
    """The teacher's actions (K,) int64 for the acting seats of the envs ``rows`` ((K,)
    int64) of the State batch ``state``, with the default moves ``blueprints`` ((K,) int64;
    -1: the rollout bot's choice), and what its search learned: each legal action's value
    (K, A) float64 (NaN where not legal) and the noise of its final comparison (K,)
    float64 (:func:`tabletop_core.contract.search.search_values_from`). Each search draws
    from ``bot_rng[rows[k]]`` ((B,) uint64, advanced). The rows are split between
    ``workers`` threads; each env's search depends on its own generator only, so the
    labels are the same for any ``workers``. ``net``: the actor's network
    (:attr:`~tabletop_core.agents.forward.PackedMLP.args`) where the teacher's ``top=`` or
    ``own=policy`` asks it inside the search, else None.

    Returns:
        ``(actions, values, noise)``.
    """
    k_rows = rows.size
    out = np.empty(k_rows, np.int64)
    q = np.empty((k_rows, teacher.num_actions), np.float64)
    noise = np.empty(k_rows, np.float64)
    bot = np.uint64(teacher.bot_id)
    parts = max(1, min(workers, k_rows // 8))
    if parts == 1:
        batch_search_values(state, rows, bot, bot_rng, blueprints, out, q, noise, net)
        return out, q, noise
    bounds = np.linspace(0, k_rows, parts + 1).astype(np.int64)

    def run(k: int) -> None:
        lo, hi = bounds[k], bounds[k + 1]
        batch_search_values(
            state, rows[lo:hi], bot, bot_rng, blueprints[lo:hi], out[lo:hi], q[lo:hi], noise[lo:hi], net
        )

    with ThreadPoolExecutor(parts) as pool:
        list(pool.map(run, range(parts)))
    return out, q, noise


def value_logits(values: np.ndarray, mask: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """What the actor learns from the search's values (``target=values``): (N, A) float32
    ``(q - max q) / noise`` over each row's legal actions (:data:`ILLEGAL` elsewhere),
    added to the actor's own logits to make its target, ``softmax(own + these)``
    (:func:`tabletop_core.train.imitate.fit_actor`): the policy-improvement step of MPO
    and AWR, with the search's values as the advantages. Moves the search could not tell
    apart keep the actor's own preference between them; a move the search found better by
    one standard error of its final comparison (the noise) gets e times the weight. A row
    without noise (one legal action, or exact rollouts) keeps the best moves only.

    Args:
        values: (N, A) the actions' values (NaN where not legal).
        mask: (N, A) the legal actions (nonzero).
        noise: (N,) the standard error of each row's final comparison.
    """
    legal = (mask != 0) & np.isfinite(values)
    q = np.where(legal, values, -np.inf)
    best = q.max(axis=1, keepdims=True)
    tau = np.maximum(np.nan_to_num(noise, nan=0.0), 1e-9)[:, None]
    z = np.where(legal, np.maximum((q - best) / tau, ILLEGAL / 2), ILLEGAL)
    return z.astype(np.float32)


def _chunk_files(folder: str, round_: int) -> list[str]:
    return sorted(glob.glob(os.path.join(folder, f"round-{round_:02d}-*.npz")))


def _write_chunk(
    path: str, obs: np.ndarray, mask: np.ndarray, act: np.ndarray, q: np.ndarray, noise: np.ndarray
) -> None:
    """One chunk, written whole (a ``.partial`` file renamed): obs float16 (values in
    [0, 1]), masks packed bits, actions int32, the search's values float16 and its noise
    float32."""
    partial = path + ".partial"
    with open(partial, "wb") as f:
        np.savez(
            f,
            obs=obs.astype(np.float16),
            mask=np.packbits(mask != 0, axis=1),
            act=act.astype(np.int32),
            q=q.astype(np.float16),
            noise=noise.astype(np.float32),
        )
    os.replace(partial, path)


def _read_chunk(path: str, obs_dim: int, num_actions: int):
    """One chunk file: ``(obs (n, D) float16, packed masks (n, ceil(A / 8)) uint8, actions
    (n,) int32, the search's values (n, A) float16 or None, its noise (n,) float32 or
    None)``; a chunk written before the values were kept has None for both.

    Raises:
        ValueError: the file is not a readable chunk, or was labelled for another
            observation size or action count (another game or other options in the same
            ``--out``); the message names the file.
    """
    try:
        with np.load(path) as z:
            obs, mask, act = z["obs"], z["mask"], z["act"]
            q = z["q"] if "q" in z.files else None
            noise = z["noise"] if "noise" in z.files else None
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise ValueError(
            f"{path} is not a search teacher's chunk ({type(exc).__name__}: {exc}); delete it or "
            "start the run in another --out folder"
        ) from None
    n = act.shape[0]
    if obs.shape != (n, obs_dim) or mask.shape != (n, -(-num_actions // 8)):
        raise ValueError(
            f"{path} holds observations of size {obs.shape[-1]} and {mask.shape[-1] * 8} action bits; "
            f"this run has {obs_dim} and {num_actions} (labels of another game or other options): "
            "start the run in another --out folder"
        )
    if (q is None) != (noise is None) or (
        q is not None and (q.shape != (n, num_actions) or noise.shape != (n,))
    ):
        raise ValueError(
            f"{path} holds values of shape {None if q is None else q.shape} and noise of shape "
            f"{None if noise is None else noise.shape}; a chunk of {n} decisions needs ({n}, {num_actions}) "
            f"and ({n},): delete it or start the run in another --out folder"
        )
    return obs, mask, act, q, noise


def load_rounds(folder: str, rounds: int, obs_dim: int, num_actions: int, target: str = "move"):
    """Every chunk of rounds ``0..rounds-1`` in ``folder``: ``(obs (N, D) bfloat16, masks
    (N, A) bool, actions (N,) int64, targets)`` torch tensors (DAgger's aggregate data
    set). ``targets`` is None for ``target="move"`` (the actor learns ``actions``); for
    ``"values"`` it is (N, A) float32, :func:`value_logits` of each row (for a row of a
    chunk that kept no values: 0 at its move, :data:`ILLEGAL` elsewhere).

    Raises:
        ValueError: a chunk that is unreadable or made for another game (:func:`_read_chunk`).
    """
    import torch  # the train extra; the option checks import this module without it

    xs, ms, acts, ts = [], [], [], []
    for k in range(rounds):
        for path in _chunk_files(folder, k):
            obs, packed, act, q, noise = _read_chunk(path, obs_dim, num_actions)
            mask = np.unpackbits(packed, axis=1, count=num_actions).astype(np.bool_)
            xs.append(torch.from_numpy(obs.astype(np.float32)).to(torch.bfloat16))
            ms.append(torch.from_numpy(mask))
            acts.append(torch.from_numpy(act.astype(np.int64)))
            if target == "values":
                if q is None:
                    t = np.full(mask.shape, ILLEGAL, np.float32)
                    t[np.arange(act.shape[0]), act] = 0.0
                else:
                    t = value_logits(q.astype(np.float64), mask, noise.astype(np.float64))
                ts.append(torch.from_numpy(t))
    return torch.cat(xs), torch.cat(ms), torch.cat(acts), (torch.cat(ts) if ts else None)


def _opponent_ids(game, opponents: list[str] | None, num_players: int, teacher: Teacher) -> np.ndarray:
    """(P,) int64 ids of the scripted bots in the seats the learner does not hold: the
    lineup ``opponents`` (one bot per seat, or one for all), else the rollout bot."""
    if not opponents:
        return np.full(num_players, teacher.rollout_bot, np.int64)
    return np.asarray(game.bot_ids(opponents if len(opponents) > 1 else opponents * num_players, num_players))


def collect_round(
    game,
    options: dict,
    teacher: Teacher,
    actor,
    round_: int,
    samples: int,
    seed: int,
    seat_groups: list[tuple[int, ...]],
    folder: str,
    opponents: list[str] | None = None,
    num_envs: int = 256,
    workers: int | None = None,
    progress: bool = True,
) -> float:
    """Play and label round ``round_`` until ``samples`` decisions of the learner's seats
    are in ``folder`` (chunks already there count: a resumed round goes on from them).

    Args:
        actor: the actor as a greedy policy ``(obs (B, D), mask (B, A)) -> (B,) int64``
            (an ``MLPPolicy``): it plays the learner's seats and names the teacher's
            default move where ``teacher.guided``; ``None`` (round 0, cloning): the
            teacher plays them, its default move the rollout bot's.
        seat_groups: the learner's seat groups; each episode the learner holds one.
        opponents: the scripted bots that play the seats the learner does not hold: one
            name per seat (the learner's own entries are not used) or one for every seat;
            ``None``: the teacher's rollout bot.

    Returns:
        the share of the actor's decisions in this session where it chose the teacher's
        move (``nan`` in round 0).
    """
    os.makedirs(folder, exist_ok=True)
    done = _chunk_files(folder, round_)
    start = len(done)
    run_seed = stream_seed(seed, "teacher", round_ * 10_000 + start)
    venv = SelfPlayVectorEnv(game, num_envs, seed=run_seed, copy=False, num_threads=1, **options)
    have = sum(_read_chunk(f, venv._obs.shape[1], game.num_actions)[2].shape[0] for f in done)
    if have >= samples:
        return float("nan")
    workers = workers or available_cores()
    p = venv.num_players
    opp = _opponent_ids(game, opponents, p, teacher)
    venv.reset(seed=run_seed)
    groups = np.zeros((len(seat_groups), p), np.bool_)
    for k, grp in enumerate(seat_groups):
        groups[k, list(grp)] = True
    rng = np.random.default_rng(run_seed)
    holds = groups[rng.integers(0, len(groups), num_envs)]  # (B, P): the learner's seats
    bot_rng = stream_words(run_seed, "bots", num_envs)
    opp_rng = stream_words(run_seed, "sampler", num_envs)
    plays = actor is not None
    steers = plays and teacher.guided and any(guide_params(teacher.bot_id))
    net = actor.packed().args if steers else None  # top= / own=: the actor inside the search
    buf: list[tuple[np.ndarray, ...]] = []  # (obs, mask, action, values, noise) per labelled batch
    kept, chunk = 0, start
    agree = asked = 0
    bar = ProgressBar(
        samples, f"round {round_}: labelling with {teacher.name}", unit="decisions", plain_every=30
    )
    bar.update(have)
    actions = np.empty(num_envs, np.int64)
    try:
        while have + kept < samples:
            cur = venv._cur
            mask = venv._mask
            mine = holds[np.arange(num_envs), cur]
            game.batch_bot_actions(venv.state, opp, opp_rng, mask, actions)
            rows = np.flatnonzero(mine & (mask.sum(axis=1) > 1)).astype(np.int64)
            if rows.size:
                obs, m = venv._obs[rows], mask[rows]
                own = np.asarray(actor(obs, m), np.int64) if actor is not None else np.full(rows.size, -1)
                blue = own if teacher.guided and plays else np.full(rows.size, -1, np.int64)
                labels, values, noise = label_rows(venv.state, rows, teacher, blue, bot_rng, workers, net)
                buf.append((obs.copy(), m.copy(), labels, values, noise))
                kept += rows.size
                if plays:
                    agree += int((own == labels).sum())
                    asked += rows.size
                actions[rows] = own if plays else labels
            forced = np.flatnonzero(mine & (mask.sum(axis=1) == 1))
            if forced.size:
                actions[forced] = mask[forced].argmax(axis=1)
            _, _, term, trunc, _ = venv.step(actions)
            ended = np.flatnonzero(term | trunc)
            if ended.size:
                holds[ended] = groups[rng.integers(0, len(groups), ended.size)]
            info = f"agreement {agree / asked:.1%}" if asked else ""
            bar.update(min(have + kept, samples), info)
            if kept >= CHUNK or have + kept >= samples:
                path = os.path.join(folder, f"round-{round_:02d}-{chunk:04d}.npz")
                _write_chunk(path, *(np.concatenate(column) for column in zip(*buf, strict=True)))
                chunk, have, kept, buf = chunk + 1, have + kept, 0, []
    finally:
        bar.close(min(have, samples))
    return agree / asked if asked else float("nan")
