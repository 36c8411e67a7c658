"""Per-seat generalized advantage estimation (GAE), as a compiled loop over the rollout.

One policy acts for whichever seat is to move, so a rollout of ``T`` vector steps holds,
per env, several interleaved decision chains: one per seat the learner plays. A seat's
transition earns every reward that seat receives from its action up to its own next
action (or the episode's end: other seats' moves included), and bootstraps from the value
of its own next observation. With one chain per env (every step the same seat, or a
cooperative team credited as one) this is CleanRL's GAE exactly (tested).

Steps where the learner did not act (a league snapshot moved) have ``seat = -1``: their
rewards still flow to the learner's seats, but they are no transition of the learner. A
transition whose seat does not act again within the rollout (its successor is unknown) is
marked invalid and left out of the loss.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel

__all__ = ["seat_advantages"]


@kernel
def _seat_gae(rewards, values, seat, dones, last_value, last_seat, gamma, lam, adv, valid):
    t_len, n, p = rewards.shape
    next_val = np.zeros(p, np.float32)
    next_adv = np.zeros(p, np.float32)
    acc = np.zeros(p, np.float32)
    known = np.zeros(p, np.bool_)
    for i in range(n):
        for k in range(p):
            next_val[k] = 0.0
            next_adv[k] = 0.0
            acc[k] = 0.0
            known[k] = False
        ls = last_seat[i]
        if ls >= 0:
            next_val[ls] = last_value[i]
            known[ls] = True
        for t in range(t_len - 1, -1, -1):
            if dones[t, i]:
                for k in range(p):
                    next_val[k] = 0.0
                    next_adv[k] = 0.0
                    acc[k] = 0.0
                    known[k] = True
            for k in range(p):
                acc[k] += rewards[t, i, k]
            k = seat[t, i]
            if k < 0:
                adv[t, i] = 0.0
                valid[t, i] = False
                continue
            delta = acc[k] + gamma * next_val[k] - values[t, i]
            a = delta + gamma * lam * next_adv[k]
            adv[t, i] = a
            valid[t, i] = known[k]
            next_val[k] = values[t, i]
            next_adv[k] = a
            acc[k] = 0.0
            known[k] = True


def seat_advantages(
    rewards: np.ndarray,
    values: np.ndarray,
    seat: np.ndarray,
    dones: np.ndarray,
    last_value: np.ndarray,
    last_seat: np.ndarray,
    gamma: float,
    lam: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Advantages of every learner transition of a rollout.

    Args:
        rewards: (T, N, P) float32, what each seat received at each vector step.
        values: (T, N) float32, the value of the acting seat's observation.
        seat: (T, N) int64, the learner's decision chain the step belongs to (the acting
            seat; 0 for a cooperative team credited as one), or -1 where the learner did
            not act.
        dones: (T, N) bool, the episode ended with this step.
        last_value: (N,) float32 value of the observation after the rollout.
        last_seat: (N,) int64 chain of that observation (-1: not the learner's).
        gamma, lam: discount and GAE lambda.

    Returns:
        ``(advantages (T, N) float32, valid (T, N) bool)``; valid is False for steps that
        are not learner transitions or whose successor lies beyond the rollout.
    """
    t_len, n = values.shape
    adv = np.empty((t_len, n), np.float32)
    valid = np.empty((t_len, n), np.bool_)
    _seat_gae(
        np.ascontiguousarray(rewards, np.float32),
        np.ascontiguousarray(values, np.float32),
        np.ascontiguousarray(seat, np.int64),
        np.ascontiguousarray(dones, np.bool_),
        np.ascontiguousarray(last_value, np.float32),
        np.ascontiguousarray(last_seat, np.int64),
        np.float32(gamma),
        np.float32(lam),
        adv,
        valid,
    )
    return adv, valid
