"""The search guided by a trained policy (``search:...:blueprint=B:top=K:own=policy``,
``tabletop_core.contract.search.search_values_guided``) and the compiled forward pass it
asks (``tabletop_core.kernel.mlp``): the one-row pass agrees with the batch pass and with a
readable numpy reference, the settings do what they say, and bad settings are refused."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_core.agents.policy import MLPPolicy
from tabletop_core.contract.catalog import load_game
from tabletop_core.contract.search import (
    batch_search_values,
    guide_params,
    search_id,
    search_params,
)
from tabletop_core.kernel.mlp import greedy_actions, legal_logits, net_action, net_scratch
from tabletop_core.tools.arena import run_match
from tests.test_search import _positions

BASELINES = {
    "exhaust": "exhaust_env/baselines/baseline.npz",
    "thegame": "thegame_env/baselines/baseline.npz",
    "exitnow": "exitnow_envs/baselines/humans.npz",
}
TRAINED_FOR = {"exhaust": {"num_players": 4}, "thegame": {"num_players": 2}, "exitnow": {"num_humans": 3}}


def _reference_logits(pol: MLPPolicy, obs: np.ndarray) -> np.ndarray:
    """The policy's logits of one observation (D,), written out in numpy."""
    x = obs.astype(np.float64) * (1.0 if pol.scale is None else pol.scale)
    for k, (w, b) in enumerate(pol.layers):
        x = x @ w + b
        if k < len(pol.layers) - 1:
            x = np.maximum(x, 0.0) if pol.activation == "relu" else np.tanh(x)
    for (offset, size), gain in zip(pol.action_inputs, pol.action_gain):
        x[:size] += gain * obs[offset : offset + size]
    return x


@pytest.mark.parametrize("name", list(BASELINES))
def test_one_row_forward_matches_the_batch_and_the_reference(name):
    pol = MLPPolicy.load(BASELINES[name])
    net = pol.packed().args
    rng = np.random.default_rng(5)
    obs = (rng.random((24, pol.obs_dim)) < 0.08).astype(np.float32)
    mask = (rng.random((24, pol.num_actions)) < 0.2).astype(np.int8)
    mask[:, 3] = 1
    batch = np.empty(24, np.int64)
    greedy_actions(obs, mask, *net, batch)
    buf = net_scratch(obs[:1], net)
    logits = np.empty(pol.num_actions, np.float32)
    for i in range(24):
        one = net_action(obs[i : i + 1], mask[i : i + 1], net, buf)
        assert one == batch[i], (name, i)
        legal_logits(obs[i : i + 1], mask[i : i + 1], net, buf, logits)
        legal = mask[i] == 1
        assert np.all(np.isneginf(logits[~legal]))
        np.testing.assert_allclose(logits[legal], _reference_logits(pol, obs[i])[legal], rtol=2e-4, atol=2e-4)
        assert int(np.argmax(logits)) == one


def _searches(game, s, bot: int, net, blueprint: int = -1):
    """The search's action, values and advanced generator word for the position ``s``."""
    rng = np.array([2024], np.uint64)
    out = np.empty(1, np.int64)
    q = np.empty((1, game.num_actions), np.float64)
    noise = np.empty(1, np.float64)
    batch_search_values(
        s, np.zeros(1, np.int64), np.uint64(bot), rng, np.array([blueprint]), out, q, noise, net
    )
    return int(out[0]), q[0], int(rng[0])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["exhaust", "thegame"])
def test_guided_settings_do_what_they_say(name):
    """With neither ``top`` nor ``own`` the policy changes nothing: the same actions, values
    and draws as the plain search. ``top=K`` searches only the policy's K best legal actions
    and the default move; ``own=policy`` changes what the rollouts return (the policy
    plays the seat's own moves); every decision is legal, repeatable and leaves the
    position as it was."""
    game, positions = _positions(name, 6, seed=4, options=TRAINED_FOR[name])
    pol = MLPPolicy.load(BASELINES[name])
    net = pol.packed().args
    budget, rollout_bot, z = search_params(int(game.bot_ids(["search:rollouts=24"], 1)[0]))
    plain = search_id(budget, rollout_bot, z)
    changed = 0
    for k, (s, mask) in enumerate(positions):
        before = s.copy()
        a, q, w = _searches(game, s, plain, None)
        assert _searches(game, s, plain, net)[0] == a and _searches(game, s, plain, net)[2] == w
        np.testing.assert_array_equal(_searches(game, s, plain, net)[1], q)
        for top in (1, 2):
            guided = search_id(budget, rollout_bot, z, top=top)
            assert guide_params(guided) == (top, False)
            b, qb, _ = _searches(game, s, guided, net, blueprint=int(np.flatnonzero(mask)[-1]))
            searched = np.flatnonzero(~np.isnan(qb))
            assert mask[b] == 1 and b in searched
            assert len(searched) <= top + 1, (k, top, searched)
        own = search_id(budget, rollout_bot, z, own=True)
        c, qc, _ = _searches(game, s, own, net)
        assert mask[c] == 1 and _searches(game, s, own, net)[0] == c
        changed += not np.array_equal(np.nan_to_num(qc), np.nan_to_num(q))
        assert s.tobytes() == before.tobytes()
    assert changed >= 1, "own=policy should change the rollouts' returns"


def test_guided_names_and_errors():
    from tabletop_core.agents.seats import SearchPolicy, search_blueprint, seat_policy

    game = load_game("exhaust")
    opts = {"num_players": 4}
    pol = seat_policy(game, "search:rollouts=8:blueprint=baseline:top=3:own=policy", 0, opts)
    assert isinstance(pol, SearchPolicy) and guide_params(pol.bot_id) == (3, True)
    assert search_params(pol.bot_id)[0] == 8 and pol.net() is not None
    assert seat_policy(game, "search:rollouts=8:blueprint=baseline", 0, opts).net() is None
    assert search_blueprint("search:top=3:blueprint=baseline:own=policy:z=2") == ("search:z=2", "baseline")
    for bad, words in [
        ("search:blueprint=baseline:top=x", "top must be an int"),
        ("search:blueprint=baseline:top=300", "top must be in 0..255"),
        ("search:blueprint=baseline:own=me", "own must be one of bot, policy"),
    ]:
        with pytest.raises(ValueError, match=words):
            seat_policy(game, bad, 0, opts)
    for bad in ("search:top=3", "search:own=policy"):
        with pytest.raises(
            ValueError, match=r"(top|own)= asks a trained policy; name one with blueprint=baseline"
        ):
            game.bot_ids([bad], 1)
    with pytest.raises(ValueError, match="top must be in"):
        search_id(8, 0, top=256)


@pytest.mark.slow
def test_a_guided_match_does_not_depend_on_batching():
    game = load_game("exhaust")
    lineup = ["search:rollouts=6:blueprint=baseline:top=3:own=policy", "npc", "npc", "npc"]
    r = run_match(game, lineup, 3, seed=0, num_players=4)
    one = run_match(game, lineup, 3, seed=0, chunk=1, num_players=4)
    assert np.array_equal(r.returns, one.returns) and r.bots[0] == lineup[0]
