"""Record an agent's episode and watch it in the browser (one self-contained HTML file).

Any policy that maps an observation to an action works; here a masked random agent stands
in for a trained one (swap ``act`` for your network). Every step is captured from every
point of view (the omniscient table and each seat's own view), then written with a
slider, play buttons, the action taken and the rewards at each step::

    python examples/replay_agent_episode.py --game koikoi --seed 3 --out koikoi.html

The same pictures as arrays (e.g. for a video or TensorBoard):
``env = koikoi_env.raw_env(render_mode="rgb_array"); env.render_seat = 0; env.render()``
gives an ``(H, W, 3)`` uint8 frame of seat 0's view (``pip install 'tabletop-rl[render]'``).
"""

from __future__ import annotations

import argparse
import importlib

import numpy as np

from tabletop_core.contract.catalog import game_names, load_game
from tabletop_core.tools.replay import capture, write_html


def act(observation: dict, rng: np.random.Generator) -> int:
    """The agent: a uniformly random legal action (replace with your policy)."""
    return int(rng.choice(np.flatnonzero(observation["action_mask"])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=game_names(), default="thegame")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="replay.html")
    parser.add_argument("--max-steps", type=int, default=2000, help="stop recording after this many steps")
    args = parser.parse_args()

    env = importlib.import_module(load_game(args.game).package).env()
    rng = np.random.default_rng(args.seed)
    env.reset(seed=args.seed)
    frames = [capture(env)]
    for agent in env.agent_iter(max_iter=args.max_steps):
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            break
        action = act(observation, rng)
        env.step(action)
        frames.append(
            capture(
                env,
                action=action,
                agent=agent,
                note=f"legal actions: {int(observation['action_mask'].sum())}",
            )
        )
    path = write_html(frames, args.out, title=f"{args.game}: random agent, seed {args.seed}")
    print(f"wrote {path}: {len(frames)} steps, views {list(frames[0].svgs)}")


if __name__ == "__main__":
    main()
