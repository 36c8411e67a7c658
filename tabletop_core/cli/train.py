"""The ``tabletop train`` subcommand and ``tabletop bench --train`` (argparse).

Registered by :mod:`tabletop_core.cli` with :func:`add_train_parser` and
:func:`add_bench_flag`; every argument and the logic live here. torch is imported only
when the command runs, so the rest of the CLI works without the ``train`` extra.

Examples::

    tabletop train thegame --players 2 --minutes 20 --seed 0 --out runs/thegame2
    tabletop train koikoi --players 4 --opponents self:0.5,league:0.3,greedy:0.2 --steps 5000000
    tabletop train thegame --players 2 --minutes 20 --out runs/thegame2 --resume
    tabletop bench thegame --train        # training throughput, JSON lines
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import fields
from typing import Any

from tabletop_core.contract.catalog import load_game
from tabletop_core.train.config import OPTIMIZERS, TrainConfig, validate

__all__ = [
    "add_train_parser",
    "setup_train",
    "add_bench_flag",
    "cmd_train",
    "train_handler",
    "cmd_bench_train",
    "bench_train_handler",
    "config_from_args",
]

_HELP_EPILOG = """Game options follow as --option-name VALUE (e.g. --on-fire, --level 1, --rounds 4).
Outputs in --out: policy.npz (plays in `tabletop match --bots policy:FILE`), checkpoint.pt
(--resume), log.jsonl, curve.png, summary.json. Defaults and how they were chosen:
docs/training.md."""


def _widths(text: str) -> tuple[int, ...]:
    try:
        out = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--hidden takes widths such as 256,256, got {text!r}") from None
    if not out or any(w <= 0 for w in out):
        raise argparse.ArgumentTypeError(f"--hidden widths must be positive, got {text!r}")
    return out


def add_train_parser(sub, games: list[str]) -> argparse.ArgumentParser:
    """Add ``train`` to the ``tabletop`` subcommands (``sub``: argparse subparsers), with a
    ``game`` positional, ``--players`` and the game options as ``--name value``
    (:func:`cmd_train`)."""
    sp = sub.add_parser(
        "train",
        help=TRAIN_HELP,
        description="Masked PPO on the game's vector env: self-play, a league of past snapshots "
        "and scripted bots as opponents.",
        epilog=_HELP_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sp.add_argument("game", help=f"one of: {', '.join(games)}")
    sp.add_argument(
        "--players",
        "--humans",
        dest="players",
        type=int,
        default=None,
        help="number of players (Exit Now: humans)",
    )
    setup_train(sp)
    return sp


TRAIN_HELP = "train a policy with masked PPO on the vector env (needs the 'train' extra)"


def setup_train(sp: argparse.ArgumentParser, game=None) -> None:
    """Add the trainer's own arguments to ``sp``: usable as the ``setup(parser, game)``
    callback of a per-game sub-parser (``tabletop_core.cli.add_game_subparsers``), whose
    handler is then :func:`train_handler`."""

    D = {f.name: f.default for f in fields(TrainConfig) if not callable(f.default_factory)}
    _add_run_arguments(sp.add_argument_group("run"))
    _add_warm_start_arguments(sp.add_argument_group("warm start"), D)
    _add_rollout_arguments(sp.add_argument_group("rollout and opponents"), D)
    _add_ppo_arguments(sp.add_argument_group("PPO"), D)
    _add_evaluation_arguments(sp.add_argument_group("evaluation (arena code, fixed deals)"), D)


def _add_run_arguments(g) -> None:
    """The budget, seed, run folder, resume, starting policy, device and progress bar."""
    g.add_argument("--minutes", type=float, default=None, help="training wall time (evaluation excluded)")
    g.add_argument(
        "--steps",
        type=int,
        default=None,
        help="env steps (learner and snapshot decisions); 0 with --imitate: imitation only, no PPO",
    )
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--out", default="runs/train", help="run folder (default %(default)s)")
    g.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    g.add_argument(
        "--init-policy",
        default=None,
        metavar="FILE.npz",
        help="start the actor from an MLPPolicy file (same game, options and widths)",
    )
    g.add_argument("--device", default="cpu", help="cpu or cuda[:N]")
    g.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")


def _add_warm_start_arguments(g, D: dict) -> None:
    """Behaviour cloning of a bot (and DAgger rounds) before PPO, and the critic warm-up."""
    g.add_argument(
        "--imitate",
        default=None,
        metavar="BOT",
        help="first train the actor to play as this scripted bot (behaviour cloning on its decisions "
        "in the --seats seats; counted in the budget), then PPO; or learn from the search bot "
        "(search[:rollouts=N][:z=X][:blueprint=self][:target=values|move]: expert iteration toward the "
        "search's values of every legal move, or its one move; labels on every core, kept in RUN/teacher "
        "and resumable with --resume)",
    )
    g.add_argument("--imitate-samples", type=int, default=D["imitate_samples"], help="bot decisions to clone")
    g.add_argument("--imitate-epochs", type=int, default=D["imitate_epochs"])
    g.add_argument(
        "--imitate-rounds",
        type=int,
        default=D["imitate_rounds"],
        metavar="K",
        help="then K DAgger rounds: the actor plays (its --seats choices or every seat), the bot labels "
        "the positions it reaches, the actor trains on them (--imitate-samples each; with --init-policy: "
        "from that actor, no cloning first)",
    )
    g.add_argument(
        "--critic-warmup",
        type=int,
        default=D["critic_warmup"],
        help="first updates that train only the value head (the cloned actor kept as it is)",
    )


def _add_rollout_arguments(g, D: dict) -> None:
    """The env batch, the rollout length, the opponent mix, the learner's seats and the league."""
    g.add_argument(
        "--num-envs",
        type=int,
        default=None,
        help="default 4096, fewer if the rollout storage would pass 1 GiB",
    )
    g.add_argument("--rollout", type=int, default=D["rollout"], help="vector steps per env per update")
    g.add_argument(
        "--opponents",
        default=None,
        help="mix of self, league and bots, e.g. self:0.5,league:0.3,random:0.2 "
        "(default: self in a cooperative game, else that example)",
    )
    g.add_argument(
        "--seats",
        default=None,
        help="the learner's seats in bot and league envs and in evaluation (the first choice): "
        "comma-separated choices, each a seat or a team joined by '+', e.g. 0+1+2 for Exit Now's "
        "humans (default: every seat alone, evaluation in seat 0)",
    )
    g.add_argument("--league-every", type=int, default=D["league_every"], help="updates between snapshots")
    g.add_argument("--league-size", type=int, default=D["league_size"], help="snapshots in the pool")


def _add_ppo_arguments(g, D: dict) -> None:
    """PPO's hyper-parameters, the network's widths, bf16 and the threads."""
    from tabletop_core.agents.policy import ACTIVATIONS

    g.add_argument("--epochs", type=int, default=D["epochs"], help="passes over each rollout")
    g.add_argument(
        "--minibatch",
        type=int,
        default=D["minibatch"],
        help="PPO minibatch (default: 1024 on the CPU, 4096 on cuda)",
    )
    g.add_argument("--hidden", type=_widths, default=D["hidden"], help="MLP widths, e.g. 256,256")
    g.add_argument(
        "--activation",
        choices=ACTIVATIONS,
        default=D["activation"],
        help="the hidden layers' nonlinearity (written into policy.npz)",
    )
    g.add_argument("--lr", type=float, default=D["lr"])
    g.add_argument(
        "--optimizer",
        choices=OPTIMIZERS,
        default=D["optimizer"],
        help="adam, or muon for the hidden layers' weights (Adam keeps the heads and biases)",
    )
    g.add_argument("--no-anneal-lr", dest="anneal_lr", action="store_false")
    g.add_argument("--gamma", type=float, default=D["gamma"])
    g.add_argument("--gae-lambda", type=float, default=D["gae_lambda"])
    g.add_argument("--clip", type=float, default=D["clip"])
    g.add_argument("--ent-coef", type=float, default=D["ent_coef"])
    g.add_argument("--vf-coef", type=float, default=D["vf_coef"])
    g.add_argument("--max-grad-norm", type=float, default=D["max_grad_norm"])
    g.add_argument("--no-normalize-rewards", dest="normalize_rewards", action="store_false")
    g.add_argument(
        "--bf16",
        choices=("auto", "on", "off"),
        default=D["bf16"],
        help="bfloat16 autocast (auto: where the CPU has AMX, or AVX512-BF16 unless the observations are "
        "so sparse that the float32 path's sparse first layer is faster)",
    )
    g.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch threads (default: the cores the load average leaves idle, at least one)",
    )
    g.add_argument(
        "--env-threads", type=int, default=D["env_threads"], help="numba threads stepping the envs"
    )


def _add_evaluation_arguments(g, D: dict) -> None:
    """When and how the policy is evaluated and rated, and the checkpoints' period."""
    g.add_argument(
        "--eval-every", type=float, default=D["eval_every"], help="seconds of training between evaluations"
    )
    g.add_argument("--eval-games", type=int, default=D["eval_games"])
    g.add_argument("--final-games", type=int, default=D["final_games"])
    g.add_argument("--eval-seed", type=int, default=D["eval_seed"])
    g.add_argument(
        "--eval-opponents",
        default=D["eval_opponents"],
        help="bots in the other seats during evaluation (competitive games)",
    )
    g.add_argument(
        "--eval-bots",
        default=None,
        help="bots whose levels are measured (default: every bot that fits the measured seats)",
    )
    g.add_argument(
        "--rate-snapshots",
        type=int,
        default=D["rate_snapshots"],
        help="last snapshots rated with openskill at the end",
    )
    g.add_argument("--checkpoint-every", type=float, default=D["checkpoint_every"], help="seconds")


def add_bench_flag(bench_parser: argparse.ArgumentParser) -> None:
    """Add ``--train`` (training throughput) to ``tabletop bench``."""
    bench_parser.add_argument(
        "--train",
        action="store_true",
        help="training throughput of `tabletop train` against MaskablePPO (JSON lines)",
    )


def _parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def game_options(extra: list[str]) -> dict[str, Any]:
    """``["--on-fire", "--level", "1"]`` -> ``{"on_fire": True, "level": 1}``.

    Raises:
        ValueError: a stray argument that is not ``--name [value]``.
    """
    opts: dict[str, Any] = {}
    k = 0
    while k < len(extra):
        tok = extra[k]
        if not tok.startswith("--"):
            raise ValueError(f"unexpected argument {tok!r}; game options look like --name value")
        name = tok[2:]
        if "=" in name:
            name, value = name.split("=", 1)
            opts[name.replace("-", "_")] = _parse_value(value)
            k += 1
        elif k + 1 < len(extra) and not extra[k + 1].startswith("--"):
            opts[name.replace("-", "_")] = _parse_value(extra[k + 1])
            k += 2
        else:
            opts[name.replace("-", "_")] = True
            k += 1
    return opts


def config_from_args(args: argparse.Namespace, extra: list[str]):
    """A validated :class:`~tabletop_core.train.config.TrainConfig` from parsed arguments
    and the game options left in ``extra`` (``--name value``).

    Raises:
        ValueError: a bad game, game option, bot, opponent mix or policy file.
    """

    game = load_game(args.game)
    options = game_options(extra)
    if args.players is not None:
        options[game.players_option] = args.players
    return config_from_options(args, options)


def config_from_options(args: argparse.Namespace, options: dict[str, Any]):
    """The same from parsed arguments and the game options as a dict."""

    game = load_game(args.game)
    try:
        game.make_options(**options)
    except TypeError as exc:
        raise ValueError(f"{args.game}: bad game option ({exc})") from None
    fields = {
        k: getattr(args, k) for k in TrainConfig.__dataclass_fields__ if hasattr(args, k) and k != "options"
    }
    cfg = TrainConfig(options=dict(options), **fields)
    validate(cfg)
    return cfg


def cmd_train(args: argparse.Namespace, extra: list[str]) -> int:
    """Run ``tabletop train`` (game options in ``extra``); returns the exit code."""
    _require_torch()
    return _run(config_from_args(args, extra))


def train_handler(args: argparse.Namespace) -> int:
    """Run ``tabletop train`` from a per-game sub-parser (``args.game``, ``args.options``)."""
    _require_torch()
    return _run(config_from_options(args, args.options))


def _require_torch() -> None:
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit("tabletop train needs torch: pip install torch==2.13.0 && pip install 'tabletop-rl[train]'")


def _run(cfg) -> int:
    from tabletop_core.train.loop import run

    print(start_line(cfg), flush=True)
    summary = run(cfg)
    print(final_line(cfg, summary))
    return 0


def final_line(cfg, summary: dict) -> str:
    """The line ``tabletop train`` prints last: steps and speed, the greedy policy's mean
    return on the final deals with the game's own measures (The Game: ``score``, the cards
    left), and each scripted bot's on the same deals."""
    from tabletop_core.train.evaluate import measures_text, opponents_text

    ev = summary["final_eval"]

    def with_measures(d: dict) -> str:
        measures = measures_text(d.get("stats", {}))
        return f"{d['mean']:.2f}" + (f" ({measures})" if measures else "")

    who = opponents_text(load_game(cfg.game), cfg.eval_opponents)
    return (
        f"{summary['game']}: {summary['steps']:,} steps in {summary['train_seconds'] / 60:.1f} min "
        f"({summary['steps_per_s']:,.0f} steps/s); greedy policy {who} on {ev['games']} deals: mean return "
        f"{ev['mean']:.2f} [{ev['low']:.2f}, {ev['high']:.2f}]"
        + (f" ({measures_text(ev['stats'])})" if ev.get("stats") else "")
        + "; the bots in its place: "
        + ", ".join(f"{b} {with_measures(d)}" for b, d in summary["levels"].items())
        + f"; wrote {cfg.out}/policy.npz"
    )


def start_line(cfg) -> str:
    """The line ``tabletop train`` prints first: what is trained, against whom, for how long,
    with which seed, and where it is written."""
    options = ", ".join(f"{k}={v}" for k, v in sorted(cfg.options.items())) or "default options"
    budget = (
        f"{cfg.minutes:g} min"
        if cfg.minutes is not None
        else f"{cfg.steps:,} steps"
        if cfg.steps
        else "no limit"
    )
    from tabletop_core.train.evaluate import opponents_text

    game = load_game(cfg.game)
    against = cfg.opponents or "self-play"
    measures = game.match_stats(game.make_options(**cfg.options)) if game.match_stats is not None else {}
    also = f" and {', '.join(measures)}" if measures else ""
    return (
        f"training {cfg.game} ({options}) for {budget} against {against}, seed {cfg.seed}, on {cfg.device}; "
        f"evaluated every {cfg.eval_every:g} s on {cfg.eval_games} fixed deals {opponents_text(game, cfg.eval_opponents)} "
        f"(the game's episode return{also}); writing {cfg.out}/"
    )


def cmd_bench_train(args: argparse.Namespace, extra: list[str]) -> int:
    """``tabletop bench GAME --train``: the training benchmark's JSON lines."""
    return _bench(args.game, game_options(extra), args.seconds)


def bench_train_handler(args: argparse.Namespace) -> int:
    """The same from a per-game sub-parser (``args.game``, ``args.options``)."""
    return _bench(args.game, dict(args.options), args.seconds)


def _bench(game: str, options: dict[str, Any], seconds: float) -> int:
    from tabletop_core.train.bench import iter_train_bench

    for rec in iter_train_bench(game, options, seconds=max(float(seconds), 20.0)):
        print(json.dumps(rec), flush=True)
    return 0
