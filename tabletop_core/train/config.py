"""The settings of a ``tabletop train`` run and their checks (no torch needed here)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop_core.agents.baseline import baseline_policy
from tabletop_core.agents.policy import ACTIVATIONS, MLPPolicy
from tabletop_core.contract.catalog import game_names, load_game
from tabletop_core.train.opponents import default_opponents, parse_opponents, parse_seats, split_envs
from tabletop_core.train.teacher import is_search_teacher, parse_teacher

__all__ = ["TrainConfig", "ConfigError", "validate", "bf16_supported", "cpu_bf16_unit", "default_minibatch"]

OPTIMIZERS = ("adam", "muon")
"""The choices of ``--optimizer``: Adam for every parameter, or Muon for the hidden
layers' weights and Adam for the rest (:mod:`tabletop_core.train.muon`)."""


@dataclass
class TrainConfig:
    """Every setting of a run (the ``tabletop train`` flags, same names with dashes).

    Budget: ``minutes`` (wall time of training, evaluation excluded) and/or ``steps``
    (env steps: one per env per vector step, a decision of the learner or of a league
    snapshot; a bot's decisions inside the learner kernels are not counted); training
    stops at the first reached.
    Defaults: chosen by the quality reached in a fixed time on The Game, 2 players
    (``docs/training.md``). ``num_envs`` and ``minibatch`` left None are filled in by
    :func:`validate` (:func:`auto_num_envs`, :func:`default_minibatch`).
    """

    game: str = "thegame"
    options: dict[str, Any] = field(default_factory=dict)
    out: str = "runs/train"
    minutes: float | None = None
    steps: int | None = None
    seed: int = 0
    device: str = "cpu"
    resume: bool = False
    init_policy: str | None = None
    imitate: str | None = None
    imitate_samples: int = 200_000
    imitate_epochs: int = 3
    imitate_rounds: int = 0
    critic_warmup: int = 0
    # rollout
    num_envs: int | None = None
    rollout: int = 16
    opponents: str | None = None
    seats: str | None = None
    league_every: int = 10
    league_size: int = 16
    # PPO
    epochs: int = 3
    minibatch: int | None = None
    hidden: tuple[int, ...] = (256, 256)
    activation: str = "tanh"
    lr: float = 1e-3
    optimizer: str = "adam"
    anneal_lr: bool = True
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    normalize_rewards: bool = True
    bf16: str = "auto"
    # threads
    threads: int | None = None
    env_threads: int = 1
    # evaluation
    eval_every: float = 60.0
    eval_games: int = 200
    final_games: int = 500
    eval_seed: int = 1_000_000
    eval_opponents: str = "random"
    eval_bots: str | None = None
    rate_snapshots: int = 8
    progress: bool = True
    checkpoint_every: float = 120.0


class ConfigError(ValueError):
    """A bad ``tabletop train`` option, raised before any training starts."""


def _positive(name: str, value, kind=int, allow_none=False, zero=False):
    if value is None and allow_none:
        return
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if kind is int:
        ok = ok and float(value).is_integer()
    if not ok or not math.isfinite(float(value)) or (value < 0 if zero else value <= 0):
        raise ConfigError(
            f"--{name.replace('_', '-')} must be a {'non-negative' if zero else 'positive'} "
            f"{'integer' if kind is int else 'number'}, got {value!r}"
        )


def default_minibatch(device: str) -> int:
    """The PPO minibatch when ``--minibatch`` is not given: 1024 samples on a CPU, 4096 on a
    GPU (``device`` ``"cuda"`` or ``"cuda:N"``). Chosen by the return a fixed wall time reaches
    (``docs/training.md``, "Defaults"): on a CPU the update's products are the bottleneck and
    four times the updates per sample learn faster; on a GPU a minibatch of 1024 is bound by
    kernel launches, and 4096 runs about three times the steps a second."""
    return 4096 if str(device).startswith("cuda") else 1024


def validate(cfg: TrainConfig):
    """Check every option before anything is built; returns ``(game, options)``.

    Raises:
        ConfigError (a ValueError): naming the option and what is allowed (unknown game,
            bot, opponent mix, bad game option, a budget missing, ...).
    """
    game, options = _game_and_options(cfg)
    _check_budget_and_sizes(cfg, game, options)
    _check_model_and_device(cfg, game, options)
    _check_imitation(cfg, game)
    _check_opponents(cfg, game, options)
    return game, options


def _game_and_options(cfg: TrainConfig):
    """The game ``cfg.game`` names and its options from ``cfg.options``."""
    game = load_game(cfg.game) if cfg.game in game_names() else None
    if game is None:
        raise ConfigError(f"unknown game {cfg.game!r}; games: {', '.join(game_names())}")
    try:
        options = game.make_options(**cfg.options)
    except TypeError as exc:
        raise ConfigError(f"{cfg.game}: bad game option ({exc})") from None
    return game, options


def _check_budget_and_sizes(cfg: TrainConfig, game, options) -> None:
    """A budget, and every count, size and rate in range (``num_envs`` filled in when unset)."""
    if cfg.minutes is None and cfg.steps is None:
        raise ConfigError("give a budget: --minutes M and/or --steps N")
    _positive("minutes", cfg.minutes, float, allow_none=True)
    if cfg.steps == 0 and cfg.imitate is None:
        raise ConfigError("--steps 0 (no PPO) is for a run that only imitates: give --imitate BOT")
    _positive("steps", cfg.steps, int, allow_none=True, zero=cfg.imitate is not None)
    if cfg.num_envs is None:
        cfg.num_envs = auto_num_envs(game.observation_layout(options).dim, game.num_actions, cfg.rollout)
    if cfg.minibatch is None:
        cfg.minibatch = default_minibatch(cfg.device)
    for name in (
        "num_envs",
        "rollout",
        "epochs",
        "minibatch",
        "league_every",
        "league_size",
        "env_threads",
        "eval_games",
        "final_games",
    ):
        _positive(name, getattr(cfg, name), int)
    _positive("threads", cfg.threads, int, allow_none=True)
    for name in ("lr", "gamma", "gae_lambda", "clip", "max_grad_norm", "eval_every", "checkpoint_every"):
        _positive(name, getattr(cfg, name), float)
    for name in ("ent_coef", "vf_coef", "rate_snapshots"):
        _positive(name, getattr(cfg, name), float, zero=True)


def _check_model_and_device(cfg: TrainConfig, game, options) -> None:
    """The network's widths, bf16, the device, the env threads and the ``--init-policy`` file."""
    if not all(isinstance(h, int) and h > 0 for h in cfg.hidden) or not cfg.hidden:
        raise ConfigError(f"--hidden must be positive widths such as 256,256, got {cfg.hidden!r}")
    if cfg.bf16 not in ("auto", "on", "off"):
        raise ConfigError(f"--bf16 must be auto, on or off, got {cfg.bf16!r}")
    if cfg.activation not in ACTIVATIONS:
        raise ConfigError(f"--activation must be one of {', '.join(ACTIVATIONS)}, got {cfg.activation!r}")
    if cfg.optimizer not in OPTIMIZERS:
        raise ConfigError(f"--optimizer must be one of {', '.join(OPTIMIZERS)}, got {cfg.optimizer!r}")
    if cfg.device != "cpu" and not cfg.device.startswith("cuda"):
        raise ConfigError(f"--device must be cpu or cuda[:N], got {cfg.device!r}")
    if cfg.device.startswith("cuda") and not _cuda_available():
        raise ConfigError("--device cuda: torch sees no CUDA device here")
    if cfg.env_threads > 1 and game.batch_step_threads is None:
        raise ConfigError(f"{cfg.game} has no threaded batch kernels: --env-threads must be 1")
    if cfg.init_policy is not None:
        load_init_policy(cfg.init_policy, game, options, cfg.hidden, cfg.activation)


def _check_imitation(cfg: TrainConfig, game) -> None:
    """The behaviour cloning options (``--imitate`` and its rounds, samples, epochs) and the critic warm-up."""
    _positive("imitate_rounds", cfg.imitate_rounds, int, zero=True)
    if cfg.imitate_rounds and cfg.imitate is None:
        raise ConfigError("--imitate-rounds: DAgger rounds need the bot that labels them (--imitate BOT)")
    if cfg.imitate is not None:
        # a search teacher's round 0 labels the --init-policy actor's own play
        teacher = is_search_teacher(cfg.imitate)
        if cfg.init_policy is not None and not cfg.imitate_rounds and not teacher:
            raise ConfigError(
                "--imitate and --init-policy both set the starting actor: give one "
                "(or add --imitate-rounds K: DAgger rounds from the --init-policy actor)"
            )
        if teacher:
            try:
                parse_teacher(game, cfg.imitate)
            except ValueError as exc:
                raise ConfigError(str(exc)) from None
        elif cfg.imitate not in game.bot_names:
            raise ConfigError(
                f"--imitate: unknown bot {cfg.imitate!r}; bots: {', '.join(game.bot_names)}, "
                "or search[:rollouts=N][:bot=NAME][:z=X][:blueprint=self][:target=values|move] (a search teacher)"
            )
        _positive("imitate_samples", cfg.imitate_samples, int)
        _positive("imitate_epochs", cfg.imitate_epochs, int)
    _positive("critic_warmup", cfg.critic_warmup, int, zero=True)


def _check_opponents(cfg: TrainConfig, game, options) -> None:
    """The opponent mix, the learner's seats, the bot lineups, the baseline and the evaluation bots."""
    mix = parse_opponents(cfg.opponents or default_opponents(game), game)
    agents = list(game.agents(options))
    num_players = len(agents)
    try:
        groups = parse_seats(cfg.seats, agents, game.cooperative)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    split_envs(cfg.num_envs, mix, num_players)
    for name, _ in mix:
        lineup = name.split("+")
        if len(lineup) > 1:
            for grp in groups:
                if len(lineup) != num_players - len(grp):
                    raise ConfigError(
                        f"--opponents: the lineup {name!r} names {len(lineup)} bots, but the learner "
                        f"holding seats {'+'.join(map(str, grp))} leaves {num_players - len(grp)} "
                        f"seats (one bot per seat, in seat order)"
                    )
    if any(name == "baseline" for name, _ in mix):
        needed = sorted({k for grp in groups for k in range(num_players) if k not in grp})
        try:
            for k in needed:  # the seats the baseline plays beside the learner
                baseline_policy(game, k, **cfg.options)
        except ValueError as exc:
            raise ConfigError(f"--opponents baseline: {exc}") from None
    if not game.cooperative:
        opp = [b.strip() for b in cfg.eval_opponents.split(",")]
        others = num_players - len(groups[0])
        try:
            game.bot_ids(opp if len(opp) > 1 else opp * others, others)
        except ValueError as exc:
            raise ConfigError(f"--eval-opponents: {exc}") from None
    if cfg.eval_bots:
        try:
            game.bot_ids(cfg.eval_bots, len(cfg.eval_bots.split(",")))
        except ValueError as exc:
            raise ConfigError(f"--eval-bots: {exc}") from None


def cpu_bf16_unit() -> str | None:
    """This CPU's native bfloat16 unit, from ``/proc/cpuinfo``: ``"amx"`` (AMX tiles,
    ``amx_bf16``), ``"avx512"`` (AVX512-BF16 dot products, no AMX) or ``None`` (neither, or
    no ``/proc/cpuinfo``). ``--bf16 auto`` treats the two units differently
    (``docs/training.md``, "The dtype ``--bf16 auto`` picks")."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return None
    if "amx_bf16" in flags:
        return "amx"
    return "avx512" if "avx512_bf16" in flags else None


def bf16_supported() -> bool:
    """True where this CPU multiplies bfloat16 natively (AVX512-BF16 or AMX)."""
    return cpu_bf16_unit() is not None


DEFAULT_NUM_ENVS = 4096
ROLLOUT_BYTES = 1 << 30


def auto_num_envs(obs_dim: int, num_actions: int, rollout: int) -> int:
    """``--num-envs`` when not given: 4096, fewer where the rollout storage (float32
    observations and bool masks, ``rollout`` steps per env) would pass 1 GiB (Exit Now's
    8,033-float observation: 2048)."""
    per_env = rollout * (4 * obs_dim + num_actions)
    n = DEFAULT_NUM_ENVS
    while n > 64 and n * per_env > ROLLOUT_BYTES:
        n //= 2
    return n


def _cuda_available() -> bool:
    import torch  # here, not at the top: this module imports without torch (the CLI's checks)

    return torch.cuda.is_available()


def load_init_policy(path: str, game, options, hidden, activation: str = "tanh") -> dict:
    """The weights of an :class:`~tabletop_core.agents.policy.MLPPolicy` file to start the actor
    from, checked against the game, its options, the network's widths and its activation.

    Raises:
        ConfigError: the file is missing, not a policy, made for another game or other
            options, or has other hidden widths or another activation.
    """
    try:
        policy = MLPPolicy.load(path)
        policy.check(game.observation_layout(options).dim, game.num_actions, f"{game.name} {options}")
    except ValueError as exc:
        raise ConfigError(f"--init-policy: {exc}") from None
    widths = tuple(w.shape[1] for w, _ in policy.layers[:-1])
    if widths != tuple(hidden):
        raise ConfigError(
            f"--init-policy: the policy's hidden widths are {','.join(map(str, widths))}; "
            f"this run's --hidden is {','.join(map(str, hidden))}"
        )
    if policy.activation != activation:
        raise ConfigError(
            f"--init-policy: the policy's activation is {policy.activation}; this run's --activation is {activation}"
        )
    return {
        "layers": policy.layers,
        "scale": policy.scale,
        "action_inputs": policy.action_inputs,
        "action_gain": policy.action_gain,
    }
