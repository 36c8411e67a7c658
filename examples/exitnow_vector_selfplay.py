"""Batched random self-play of Exit Now in compiled code; prints steps per second.

python examples/exitnow_vector_selfplay.py --num-envs 256 --steps 800
"""

import argparse
import time

import exitnow_envs

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--num-envs", type=int, default=256)
parser.add_argument("--steps", type=int, default=800, help="vector steps (each steps every env)")
parser.add_argument("--bots", action="store_true", help="let the smart bots choose (in the kernel)")
args = parser.parse_args()

venv = exitnow_envs.vector_env(num_envs=args.num_envs, seed=0, num_humans=3, copy=False)
obs, info = venv.reset()
venv.step(venv.sample_actions())  # compile / load the kernels before timing
episodes = human_wins = 0
start = time.perf_counter()
for _ in range(args.steps):
    if args.bots:
        obs, rewards, terminated, truncated, info = venv.step_bots("smart")
    else:
        obs, rewards, terminated, truncated, info = venv.step(venv.sample_actions())
    episodes += int(terminated.sum())
    human_wins += int((rewards[terminated, -1] < 0).sum())
elapsed = time.perf_counter() - start
print(
    f"{args.steps * args.num_envs / elapsed:,.0f} steps/s, {episodes} episodes, humans escaped in {human_wins}"
)
decoded = exitnow_envs.decode_observation(obs[0])
print("planes", decoded["planes"].shape, "roll", decoded["roll"], "round", decoded["round"])
