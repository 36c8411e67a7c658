"""The Game with PettingZoo's AEC loop: random legal actions, then the final table.

Run: python examples/thegame_random_play.py --players 3 --seed 0
"""

from __future__ import annotations

import argparse

import thegame_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--on-fire", action="store_true")
    args = parser.parse_args()

    env = thegame_env.env(num_players=args.players, on_fire=args.on_fire, render_mode="ansi")
    env.reset(seed=args.seed)
    for agent in env.observation_spaces:
        env.action_space(agent).seed(args.seed)
    total = 0.0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        total += reward
        if termination or truncation:
            action = None
        else:
            action = env.action_space(agent).sample(observation["action_mask"])
        env.step(action)
    print(env.unwrapped.render())
    print(f"cards placed: {total / args.players:.0f}, final info: {info}")


if __name__ == "__main__":
    main()
