"""Exhaust with PettingZoo's AEC loop: random legal actions, then the final table.

Run: python examples/exhaust_random_play.py --players 4 --mode standard --seed 0
     python examples/exhaust_random_play.py --mode solo --npc-deck-size 15
"""

from __future__ import annotations

import argparse

import exhaust_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=None, help="2..5 (solo: omit)")
    parser.add_argument("--mode", choices=["standard", "long", "solo"], default="standard")
    parser.add_argument("--npc-deck-size", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = exhaust_env.env(
        num_players=args.players, mode=args.mode, npc_deck_size=args.npc_deck_size, render_mode="ansi"
    )
    env.reset(seed=args.seed)
    for agent in env.possible_agents:
        env.action_space(agent).seed(args.seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        returns[agent] += reward
        if termination or truncation:
            action = None
        else:
            action = env.action_space(agent).sample(observation["action_mask"])
            steps += 1
        env.step(action)
    print(env.unwrapped.render())
    print(f"{steps} agent steps; returns: {returns}")


if __name__ == "__main__":
    main()
