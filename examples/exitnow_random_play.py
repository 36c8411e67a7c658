"""Play one game of Exit Now with random legal actions through the PettingZoo AEC API.

python examples/exitnow_random_play.py --humans 3 --seed 42
"""

import argparse

import numpy as np

import exitnow_envs

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--humans", type=int, default=3, help="number of human players (1-5)")
parser.add_argument("--seed", type=int, default=42)
args = parser.parse_args()

env = exitnow_envs.env(num_humans=args.humans, render_mode="ansi")
env.reset(seed=args.seed)
rng = np.random.default_rng(args.seed)
returns = dict.fromkeys(env.possible_agents, 0.0)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    returns[agent] += reward
    if terminated or truncated:
        action = None
    else:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
    env.step(action)
print(env.render())
print("returns:", returns, "final info:", info)
