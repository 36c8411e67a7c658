"""CleanRL-style single-file masked PPO, self-play on a game's vector env.

One policy acts for the current seat of every env (``info["current_player"]``); rewards
come per seat (``rewards (B, P)``) and are credited per seat: a seat's transition earns the
rewards that seat receives from its action up to its own next action (or the episode's
end), and bootstraps from the value of its own next observation. So the same code trains
a cooperative team (The Game) and both sides of a competitive game. A transition whose
seat does not act again within the rollout is left out of the loss (its successor is
unknown), which keeps the estimate unbiased without per-seat observations.

Illegal actions are masked out of the logits with ``info["action_mask"]``. Observations
lie in [0, 1] (``Box(0, 1)``) and go to the network as they are. The vector env runs with
``copy=False``: every output is copied into the rollout buffers before the next step.

Evaluation (every ``--eval-every`` steps and at the end): the greedy policy plays
``--eval-episodes`` fixed deals through the single-agent view (all seats in a cooperative
game; seat 0 against ``--opponents`` otherwise).

Install: pip install torch==2.13.0 && pip install -e ".[rl]"
Run:     python examples/rl_cleanrl_selfplay_ppo.py --game thegame --players 2 --steps 500000
"""

from __future__ import annotations

import argparse
import importlib
import time

import numpy as np
import torch
from torch import nn

from tabletop_core.games import GAME_PACKAGES, load_game
from tabletop_core.single_agent import LearnerVectorEnv


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="thegame")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--steps", type=int, default=500_000, help="total env steps (all seats)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--num-steps", type=int, default=128, help="rollout length per env")
    p.add_argument("--lr", type=float, default=2.5e-4)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatch", type=int, default=1024)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--opponents", default="random", help="evaluation bots (competitive games)")
    p.add_argument("--eval-every", type=int, default=0)
    p.add_argument("--eval-episodes", type=int, default=100)
    p.add_argument("--eval-seed", type=int, default=1_000_000)
    p.add_argument("--curve", default=None, help="write the learning curve here (CSV)")
    p.add_argument(
        "--save-policy", default=None, help="save the actor as .npz (for ray_rollouts.py --policy)"
    )
    return p.parse_args()


class Agent(nn.Module):
    def __init__(self, obs_dim: int, num_actions: int, hidden: int = 256):
        super().__init__()

        def mlp(out, std):
            layers = [nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()]
            head = nn.Linear(hidden, out)
            for layer in [*layers[::2], head]:
                nn.init.orthogonal_(layer.weight, np.sqrt(2) if layer is not head else std)
                nn.init.zeros_(layer.bias)
            return nn.Sequential(*layers, head)

        self.critic = mlp(1, 1.0)
        self.actor = mlp(num_actions, 0.01)

    def value(self, x):
        return self.critic(x).squeeze(-1)

    def dist(self, x, mask):
        logits = self.actor(x).masked_fill(~mask, -1e9)
        return torch.distributions.Categorical(logits=logits)


@torch.no_grad()
def evaluate(agent, game, args, options):
    """Mean return of the greedy policy over fixed deals (single-agent view)."""
    view = {} if game.cooperative else {"seat": 0, "opponents": args.opponents}
    n = args.eval_episodes
    venv = LearnerVectorEnv(game, n, **view, **options)
    obs, info = venv.reset(seed=args.eval_seed)
    total, done = np.zeros(n), np.zeros(n, bool)
    while not done.all():
        mask = torch.as_tensor(info["action_mask"].astype(bool))
        logits = agent.actor(torch.tensor(obs)).masked_fill(~mask, -1e9)
        obs, r, term, trunc, info = venv.step(logits.argmax(-1).numpy())
        total += np.where(done, 0.0, r)
        done |= term | trunc
    return float(total.mean())


def seat_advantages(rewards, values, cur, dones, last_cur, last_value, gamma, lam):
    """Per-seat GAE over a rollout (numpy, vectorized over envs).

    rewards (T, B, P): what each seat got at each step; values/cur/dones (T, B): value of the
    acting seat's observation, acting seat, episode ended by this step. Returns advantages
    (T, B) and valid (T, B): False where the seat's successor lies beyond the rollout.
    """
    t_len, b, p = rewards.shape
    envs = np.arange(b)
    next_val = np.zeros((b, p), np.float32)
    next_adv = np.zeros((b, p), np.float32)
    acc = np.zeros((b, p), np.float32)
    known = np.zeros((b, p), bool)
    next_val[envs, last_cur] = last_value
    known[envs, last_cur] = True
    adv = np.zeros((t_len, b), np.float32)
    valid = np.zeros((t_len, b), bool)
    for t in range(t_len - 1, -1, -1):
        d = dones[t]
        next_val[d] = 0.0
        next_adv[d] = 0.0
        acc[d] = 0.0
        known[d] = True
        acc += rewards[t]
        k = cur[t]
        delta = acc[envs, k] + gamma * next_val[envs, k] - values[t]
        adv[t] = delta + gamma * lam * next_adv[envs, k]
        valid[t] = known[envs, k]
        next_val[envs, k] = values[t]
        next_adv[envs, k] = adv[t]
        acc[envs, k] = 0.0
        known[envs, k] = True
    return adv, valid


def main() -> None:
    args = parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    game = load_game(args.game)
    package = importlib.import_module(GAME_PACKAGES[args.game])
    options = {"num_players": args.players}
    venv = package.vector_env(args.num_envs, seed=args.seed, copy=False, **options)
    b, t_len, p = args.num_envs, args.num_steps, venv.num_players
    d, a = venv.single_observation_space.shape[0], venv.single_action_space.n
    agent = Agent(d, a)
    optim = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)

    obs_buf = torch.zeros((t_len, b, d))
    mask_buf = torch.zeros((t_len, b, a), dtype=torch.bool)
    act_buf = torch.zeros((t_len, b), dtype=torch.long)
    logp_buf = torch.zeros((t_len, b))
    val_buf = np.zeros((t_len, b), np.float32)
    rew_buf = np.zeros((t_len, b, p), np.float32)
    cur_buf = np.zeros((t_len, b), np.int64)
    done_buf = np.zeros((t_len, b), bool)

    obs, info = venv.reset()
    ep_ret, finished = np.zeros(b), []
    rows, steps, next_eval, t0 = [], 0, 0, time.time()
    num_updates = max(1, args.steps // (b * t_len))
    for update in range(num_updates):
        optim.param_groups[0]["lr"] = args.lr * (1.0 - update / num_updates)
        if args.eval_every and steps >= next_eval:
            next_eval += args.eval_every
            rows.append((steps, time.time() - t0, evaluate(agent, game, args, options)))
            print(f"eval steps={steps} mean_return={rows[-1][2]:.2f}", flush=True)
        for t in range(t_len):
            x = torch.tensor(obs)  # a copy: the env's buffer is overwritten next step
            m = torch.as_tensor(info["action_mask"].astype(bool))
            with torch.no_grad():
                dist = agent.dist(x, m)
                action = dist.sample()
                logp_buf[t], val_buf[t] = dist.log_prob(action), agent.value(x).numpy()
            obs_buf[t], mask_buf[t], act_buf[t] = x, m, action
            cur_buf[t] = info["current_player"]
            obs, rewards, term, trunc, info = venv.step(action.numpy())
            rew_buf[t], done_buf[t] = rewards, term | trunc
            ep_ret += rewards[:, 0]
            finished.extend(ep_ret[done_buf[t]].tolist())
            ep_ret[done_buf[t]] = 0.0
        steps += b * t_len
        with torch.no_grad():
            last_value = agent.value(torch.tensor(obs)).numpy()
        adv, valid = seat_advantages(
            rew_buf,
            val_buf,
            cur_buf,
            done_buf,
            info["current_player"],
            last_value,
            args.gamma,
            args.gae_lambda,
        )
        ret = adv + val_buf
        keep = torch.as_tensor(valid.reshape(-1))
        fo, fm, fa, fl = (
            z.reshape(t_len * b, *z.shape[2:])[keep] for z in (obs_buf, mask_buf, act_buf, logp_buf)
        )
        fadv = torch.as_tensor(adv.reshape(-1))[keep]
        fret = torch.as_tensor(ret.reshape(-1))[keep]
        n = fo.shape[0]
        for _ in range(args.epochs):
            perm = torch.randperm(n)
            for start in range(0, n, args.minibatch):
                idx = perm[start : start + args.minibatch]
                dist = agent.dist(fo[idx], fm[idx])
                ratio = (dist.log_prob(fa[idx]) - fl[idx]).exp()
                mb_adv = (fadv[idx] - fadv[idx].mean()) / (fadv[idx].std() + 1e-8)
                pg_loss = torch.max(
                    -mb_adv * ratio, -mb_adv * ratio.clamp(1 - args.clip, 1 + args.clip)
                ).mean()
                v_loss = 0.5 * (agent.value(fo[idx]) - fret[idx]).pow(2).mean()
                loss = pg_loss + args.vf_coef * v_loss - args.ent_coef * dist.entropy().mean()
                optim.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optim.step()
        if update % 10 == 0 or update == num_updates - 1:
            recent = np.mean(finished[-200:]) if finished else float("nan")
            print(
                f"update={update + 1}/{num_updates} steps={steps} train_return(seat 0)={recent:.2f} "
                f"sps={steps / (time.time() - t0):.0f}",
                flush=True,
            )

    final = evaluate(agent, game, args, options)
    rows.append((steps, time.time() - t0, final))
    if args.curve:
        with open(args.curve, "w") as f:
            f.write("steps,seconds,mean_return\n")
            f.writelines(f"{s},{t:.1f},{r:.3f}\n" for s, t, r in rows)
    if args.save_policy:
        linear = [m for m in agent.actor if isinstance(m, nn.Linear)]
        weights = {f"W{k}": m.weight.detach().numpy().T for k, m in enumerate(linear)}
        weights |= {f"b{k}": m.bias.detach().numpy() for k, m in enumerate(linear)}
        np.savez(args.save_policy, **weights)
    print(f"mean_return={final:.2f} steps={steps} episodes={len(finished)} seconds={time.time() - t0:.0f}")


if __name__ == "__main__":
    main()
