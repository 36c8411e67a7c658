"""Play one game of Shikokushi Koikoi with random legal actions through the AEC env."""

import numpy as np

import koikoi_env

env = koikoi_env.env(num_players=4, rounds=8, render_mode="ansi")
env.reset(seed=42)
rng = np.random.default_rng(0)
print(env.render())
returns = dict.fromkeys(env.possible_agents, 0.0)
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    returns[agent] += reward
    if termination or truncation:
        action = None
    else:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
    env.step(action)
print(env.render())
print("returns (final chips - 25):", returns)
