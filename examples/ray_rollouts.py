"""Vector-env rollout workers as Ray actors: gather trajectories and throughput.

Each worker (a Ray actor) owns one self-play vector env of ``--num-envs`` games and plays
``--steps`` vector steps with either

* bots chosen inside the compiled kernel (``--bots strong`` or ``random,strong``), or
* a policy given as weights (``--policy weights.npz``: a tanh MLP's ``W0, b0, W1, b1, ...``
  as ``rl_cleanrl_selfplay_ppo.py --save-policy`` writes (an optional ``scale`` vector is
  applied if present; observations already lie in [0, 1]);
  ``--policy random-mlp`` makes random weights), evaluated in numpy on the worker, greedy
  over the legal actions.

Workers return their trajectories (actions, per-seat rewards, acting seat, episode ends;
observations too with ``--keep-obs``; ``--save`` writes them to an .npz) and
finished-episode returns; the driver reports env steps/s over all workers (compilation
and Ray start-up excluded: a warm-up call runs first).

Laptop:  python examples/ray_rollouts.py --game thegame --workers 2 --steps 2000
Cluster: python examples/ray_rollouts.py --address auto --workers 64 --steps 2000
         (``--address`` is passed to ``ray.init``: ``auto`` or ``ray://head:10001``)
Install: pip install -e ".[ray]"
"""

from __future__ import annotations

import argparse
import importlib
import time

import numpy as np
import ray

from tabletop_core.agents.policy import MLPPolicy
from tabletop_core.contract.catalog import load_game


def random_mlp(obs_dim: int, num_actions: int, hidden: int = 256, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    sizes = [obs_dim, hidden, hidden, num_actions]
    w = {}
    for k in range(3):
        w[f"W{k}"] = (rng.standard_normal((sizes[k], sizes[k + 1])) / np.sqrt(sizes[k])).astype(np.float32)
        w[f"b{k}"] = np.zeros(sizes[k + 1], np.float32)
    return w


@ray.remote
class RolloutWorker:
    def __init__(self, game: str, num_envs: int, seed: int, options: dict, policy: dict | None, bots):
        package = importlib.import_module(load_game(game).package)
        self.venv = package.vector_env(num_envs, seed=seed, copy=False, **options)
        self.policy, self.bots = (MLPPolicy(policy) if policy is not None else None), bots
        self.obs, self.info = self.venv.reset()
        self.ep_ret = np.zeros((num_envs, self.venv.num_players))

    def act(self) -> np.ndarray:
        return self.policy(self.obs, self.info["action_mask"])

    def run(self, steps: int, keep_obs: bool = False) -> dict:
        b, p = self.venv.num_envs, self.venv.num_players
        traj = {
            "actions": np.zeros((steps, b), np.int16),
            "rewards": np.zeros((steps, b, p), np.float32),
            "current_player": np.zeros((steps, b), np.int8),
            "done": np.zeros((steps, b), bool),
        }
        if keep_obs:
            traj["obs"] = np.zeros((steps, b, self.obs.shape[1]), np.float32)
        returns = []
        t0 = time.perf_counter()
        for t in range(steps):
            traj["current_player"][t] = self.info["current_player"]
            if keep_obs:
                traj["obs"][t] = self.obs
            if self.policy is not None:
                actions = self.act()
                self.obs, rewards, term, trunc, self.info = self.venv.step(actions)
            else:
                self.obs, rewards, term, trunc, self.info = self.venv.step_bots(self.bots)
                actions = self.info["actions"]
            done = term | trunc
            traj["actions"][t], traj["rewards"][t], traj["done"][t] = actions, rewards, done
            self.ep_ret += rewards
            returns.extend(self.ep_ret[done, 0].tolist())
            self.ep_ret[done] = 0.0
        seconds = time.perf_counter() - t0
        return {"traj": traj, "returns": returns, "env_steps": steps * b, "seconds": seconds}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="thegame")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--num-envs", type=int, default=1024, help="envs per worker")
    p.add_argument("--steps", type=int, default=1000, help="vector steps per worker")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bots", default="random", help="in-kernel bots (when no --policy)")
    p.add_argument("--policy", default=None, help="weights .npz, or 'random-mlp'")
    p.add_argument("--keep-obs", action="store_true", help="return observations too")
    p.add_argument("--save", default=None, help="save the gathered trajectories here (.npz, worker-major)")
    p.add_argument("--address", default=None, help="Ray cluster address (default: a local Ray)")
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray")
    args = p.parse_args()

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus or max(2, args.workers), include_dashboard=False, log_to_driver=False)
    game = load_game(args.game)
    options = {"num_players": args.players}
    policy = None
    if args.policy == "random-mlp":
        venv = importlib.import_module(load_game(args.game).package).vector_env(1, **options)
        policy = random_mlp(venv.single_observation_space.shape[0], game.num_actions, seed=args.seed)
    elif args.policy:
        policy = dict(np.load(args.policy))
    policy_ref = ray.put(policy) if policy is not None else None
    workers = [
        RolloutWorker.remote(
            args.game, args.num_envs, args.seed + w * args.num_envs, options, policy_ref, args.bots
        )
        for w in range(args.workers)
    ]
    ray.get([w.run.remote(2) for w in workers])  # warm-up: compile / load the kernels
    t0 = time.perf_counter()
    results = ray.get([w.run.remote(args.steps, args.keep_obs) for w in workers])
    wall = time.perf_counter() - t0
    env_steps = sum(r["env_steps"] for r in results)
    returns = np.concatenate([np.asarray(r["returns"]) for r in results])
    traj_mb = sum(v.nbytes for r in results for v in r["traj"].values()) / 2**20
    if args.save:
        keys = results[0]["traj"].keys()
        np.savez_compressed(args.save, **{k: np.stack([r["traj"][k] for r in results]) for k in keys})
    per_worker = ", ".join(f"{r['env_steps'] / r['seconds']:,.0f}" for r in results)
    print(f"per-worker env steps/s: {per_worker}; trajectories gathered: {traj_mb:.1f} MiB")
    print(
        f"workers={args.workers} env_steps={env_steps} steps_per_s={env_steps / wall:.0f} "
        f"episodes={returns.size} mean_return={returns.mean() if returns.size else float('nan'):.2f}"
    )
    ray.shutdown()


if __name__ == "__main__":
    main()
