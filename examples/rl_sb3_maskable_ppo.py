"""sb3-contrib MaskablePPO on a game's single-agent view (``LearnerVectorEnv``).

The learner plays every seat of The Game (cooperative); in a competitive game it plays
``--seat`` against ``--opponents`` bots. ``LearnerVectorEnv`` steps all envs in one
compiled call; a ~40-line adapter below makes it a Stable-Baselines3 ``VecEnv``
(``env_method("action_masks")`` feeds MaskablePPO's masks). Observations already lie in
[0, 1] (``observation_space`` is ``Box(0, 1)``): the network takes them as they are.

Every ``--eval-every`` steps the deterministic policy plays ``--eval-episodes`` fixed deals;
the curve goes to ``--curve`` (CSV). At the end the policy, the random bot and the strong
bot play the same ``--final-episodes`` deals; ``--eval-json`` saves that comparison.

Install: pip install torch==2.13.0 && pip install -e ".[rl]"
Run:     python examples/rl_sb3_maskable_ppo.py --game thegame --players 2 --steps 200000
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch
from rl_common import bot_baseline, evaluate_policy, load
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from tabletop_core.envs.single_agent import LearnerVectorEnv


class SB3LearnerVecEnv(VecEnv):
    """A ``LearnerVectorEnv`` as a Stable-Baselines3 ``VecEnv``."""

    def __init__(self, venv: LearnerVectorEnv, seed: int):
        self.venv, self._seed = venv, seed
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    def reset(self):
        obs, _ = self.venv.reset(seed=self._seed)
        return obs

    def step_async(self, actions):
        self._actions = np.asarray(actions, np.int64)

    def step_wait(self):
        obs, rewards, term, trunc, info = self.venv.step(self._actions)
        done = term | trunc
        infos = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(done):
            infos[i]["terminal_observation"] = info["final_obs"][i]
            infos[i]["TimeLimit.truncated"] = bool(trunc[i] and not term[i])
        return obs, rewards.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()

    def env_method(self, method_name, *args, indices=None, **kwargs):
        if method_name == "action_masks":
            return list(self.venv.action_masks())
        raise AttributeError(method_name)

    def has_attr(self, attr_name) -> bool:
        return attr_name == "action_masks"

    def get_attr(self, attr_name, indices=None):
        if attr_name == "render_mode":
            return [None] * self.num_envs
        raise AttributeError(attr_name)

    def set_attr(self, attr_name, value, indices=None):
        raise AttributeError(attr_name)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * self.num_envs

    def close(self):
        pass


def policy_fn(model):
    def act(obs, mask):
        actions, _ = model.predict(obs, action_masks=mask, deterministic=True)
        return actions

    return act


class CurveCallback(BaseCallback):
    """Evaluate on fixed deals every ``every`` steps; keep (steps, seconds, mean return)."""

    def __init__(self, every, evaluate, max_seconds=0.0):
        super().__init__()
        self.max_seconds = max_seconds
        self.every, self.evaluate, self.rows, self.t0 = every, evaluate, [], time.time()
        self.next = 0 if every else None

    def _on_step(self) -> bool:
        if self.next is not None and self.num_timesteps >= self.next:
            self.next += self.every
            self.record()
        return not (self.max_seconds and time.time() - self.t0 > self.max_seconds)

    def record(self):
        r = self.evaluate()
        self.rows.append((self.num_timesteps, time.time() - self.t0, float(r.mean())))
        print(f"eval steps={self.num_timesteps} mean_return={r.mean():.2f}", flush=True)


def export_npz(model, path: str) -> None:
    """The policy's tanh MLP as ``W0, b0, W1, b1, ...`` (logits = last layer; tanh between
    layers), the format ``tabletop_core.agents.policy`` reads (no ``scale``: observations are
    already in [0, 1])."""
    layers = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    layers.append(model.policy.action_net)
    w = {}
    for k, lin in enumerate(layers):
        w[f"W{k}"] = lin.weight.detach().cpu().numpy().T.astype(np.float32)
        w[f"b{k}"] = lin.bias.detach().cpu().numpy().astype(np.float32)
    np.savez(path, **w)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="thegame")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seat", default=None, help="learner seat (competitive games); default: all/0")
    p.add_argument("--opponents", default="random", help="bot(s) for the other seats (competitive)")
    p.add_argument("--steps", type=int, default=200_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-envs", type=int, default=32)
    p.add_argument("--n-steps", type=int, default=128, help="rollout length per env")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    p.add_argument("--max-minutes", type=float, default=0, help="stop training after this wall time")
    p.add_argument("--eval-every", type=int, default=0, help="0: only a final evaluation")
    p.add_argument("--eval-episodes", type=int, default=100)
    p.add_argument("--final-episodes", type=int, default=500)
    p.add_argument("--eval-seed", type=int, default=1_000_000, help="deal g uses eval_seed + g")
    p.add_argument("--curve", default=None, help="write the learning curve here (CSV)")
    p.add_argument("--eval-json", default=None, help="write the final comparison here (JSON)")
    p.add_argument("--save-model", default=None, help="save the trained model here (.zip)")
    p.add_argument(
        "--export-npz",
        default=None,
        help="export the policy as numpy weights (W0, b0, W1, b1, ...) for `tabletop match --bots policy:FILE`",
    )
    args = p.parse_args()

    torch.set_num_threads(args.threads)
    game, _ = load(args.game)
    options = {"num_players": args.players}
    seat = int(args.seat) if args.seat is not None and args.seat.isdigit() else args.seat
    view = {"seat": seat, "opponents": None if game.cooperative else args.opponents}
    venv = VecMonitor(SB3LearnerVecEnv(LearnerVectorEnv(game, args.num_envs, **view, **options), args.seed))
    batch = args.num_envs * args.n_steps
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=args.n_steps,
        batch_size=min(1024, batch),
        n_epochs=4,
        learning_rate=3e-4,
        gamma=0.995,
        gae_lambda=0.95,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [256, 256]},
        seed=args.seed,
        verbose=0,
        device="cpu",
    )

    def evaluate(n=args.eval_episodes):
        return evaluate_policy(game, policy_fn(model), n, args.eval_seed, **view, **options)

    cb = CurveCallback(args.eval_every, evaluate, 60 * args.max_minutes)
    t0 = time.time()
    model.learn(total_timesteps=args.steps, callback=cb)
    seconds = time.time() - t0
    if args.eval_every:
        cb.record()
    if args.curve:
        with open(args.curve, "w") as f:
            f.write("steps,seconds,mean_return\n")
            f.writelines(f"{s},{t:.1f},{r:.3f}\n" for s, t, r in cb.rows)

    if args.save_model:
        model.save(args.save_model)
    if args.export_npz:
        export_npz(model, args.export_npz)
    final = evaluate(args.final_episodes)
    line = f"mean_return={final.mean():.2f} steps={model.num_timesteps} seconds={seconds:.0f}"
    if args.eval_json:
        result = {
            "game": args.game,
            "options": options,
            "learner": view,
            "algorithm": "sb3-contrib MaskablePPO",
            "train_steps": int(model.num_timesteps),
            "train_seconds": round(seconds, 1),
            "episodes": args.final_episodes,
            "seeds": f"{args.eval_seed}..{args.eval_seed + args.final_episodes - 1}",
            "policy": "deterministic (argmax over legal actions)",
        }
        runs = {"ppo": final}
        for bot in ["random", "greedy", "strong"] if game.cooperative else []:
            if bot in game.bot_names:
                runs[bot] = bot_baseline(game, bot, args.final_episodes, args.eval_seed, **options)
        result["mean_return"] = {k: float(r.mean()) for k, r in runs.items()}
        result["return_sem"] = {k: float(r.std(ddof=1) / np.sqrt(len(r))) for k, r in runs.items()}
        if args.game == "thegame":  # return = 98 - cards left; a win is 9 or fewer left
            result["mean_cards_left"] = {k: round(98 - v, 3) for k, v in result["mean_return"].items()}
            result["win_rate"] = {k: float((98 - r <= 9).mean()) for k, r in runs.items()}
        with open(args.eval_json, "w") as f:
            json.dump(result, f, indent=2)
        line += " " + " ".join(f"{k}={v:.2f}" for k, v in result["mean_return"].items() if k != "ppo")
    print(line)


if __name__ == "__main__":
    main()
