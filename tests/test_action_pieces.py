"""Action pieces: observation entries that describe one action each, whose learned
multiple the network adds to that action's logit (``tabletop_core.train.model``)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_core.agents.policy import MLPPolicy  # noqa: E402
from tabletop_core.contract.encoders import ObservationLayout  # noqa: E402
from tabletop_core.train.model import ACTION_GAIN_SCALE, Agent  # noqa: E402

D, A = 30, 12
PIECES = ((5, 8), (18, 12))  # the second covers every action, the first the first 8


def _agent(seed: int = 0) -> Agent:
    torch.manual_seed(seed)
    agent = Agent(D, A, (16,), action_inputs=PIECES)
    with torch.no_grad():
        agent.action_gain.copy_(torch.tensor([0.3, -0.2]))
        agent.actor.weight.normal_()  # logits of both signs, not near-uniform
    return agent


def _obs(n: int, seed: int) -> torch.Tensor:
    return torch.from_numpy(np.random.default_rng(seed).random((n, D), dtype=np.float32))


def test_the_term_adds_each_piece_to_its_actions_logits():
    agent = _agent()
    obs = _obs(5, 1)
    plain = agent.actor(agent._features(obs))
    logits, _ = agent(obs)
    g = ACTION_GAIN_SCALE * np.array([0.3, -0.2], np.float32)
    want = plain.detach().numpy().copy()
    x = obs.numpy()
    want[:, :8] += g[0] * x[:, 5:13]
    want[:, :12] += g[1] * x[:, 18:30]
    np.testing.assert_allclose(logits.detach().numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("sparse", [False, True])
def test_legal_forward_keeps_the_whole_heads_logits_and_trains_the_gains(sparse):
    """The update's head (only the legal logits, :class:`_LegalDots`) agrees with the
    whole head at every kept index, and the gains get a gradient."""
    agent = _agent()
    agent.sparse_input = sparse
    obs = _obs(7, 2)
    index = torch.from_numpy(np.random.default_rng(3).integers(0, A, (7, 4)))
    logits, value = agent.legal_forward(obs, index)
    whole, whole_value = agent(obs)
    np.testing.assert_allclose(logits.detach(), whole.gather(1, index).detach(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(value.detach(), whole_value.detach(), rtol=1e-5, atol=1e-5)
    (logits.sum() + value.sum()).backward()
    assert agent.action_gain.grad is not None and (agent.action_gain.grad != 0).all()


def test_the_policy_file_plays_what_the_network_computes(tmp_path):
    agent = _agent()
    obs = _obs(64, 4)
    mask = np.random.default_rng(5).random((64, A)) < 0.5
    mask[:, 0] = True
    logits, _ = agent(obs)
    want = np.where(mask, logits.detach().numpy(), -np.inf).argmax(1)
    policy = MLPPolicy(agent.policy_weights())
    assert policy.action_inputs == PIECES
    np.testing.assert_array_equal(policy(obs.numpy(), mask), want)
    policy.save(str(tmp_path / "p.npz"))
    loaded = MLPPolicy.load(str(tmp_path / "p.npz"))
    assert loaded.action_inputs == PIECES
    np.testing.assert_array_equal(loaded.action_gain, policy.action_gain)
    np.testing.assert_array_equal(loaded(obs.numpy(), mask), want)


def test_added_pieces_move_the_action_pieces_with_the_others():
    """A piece added before an action piece shifts it; the policy still plays the same."""
    old = ObservationLayout([("a", (3,)), ("fit", (4,), 100, "count"), ("b", (2,))])
    new = ObservationLayout([("a", (3,)), ("extra", (5,)), ("fit", (4,), 100, "count"), ("b", (2,))])
    rng = np.random.default_rng(6)
    weights = {"W0": rng.standard_normal((old.dim, 4)), "b0": np.zeros(4), "W1": rng.standard_normal((4, 6))}
    weights |= {"b1": np.zeros(6), "action_inputs": np.array([[3, 4]]), "action_gain": np.array([2.0])}
    policy = MLPPolicy(weights)
    moved = policy.with_added_pieces(new, ["extra"])
    assert moved.action_inputs == ((8, 4),)
    x_old = rng.random((20, old.dim)).astype(np.float32)
    x_new = np.zeros((20, new.dim), np.float32)
    x_new[:, :3], x_new[:, 8:] = x_old[:, :3], x_old[:, 3:]
    mask = np.ones((20, 6), bool)
    np.testing.assert_array_equal(moved(x_new, mask), policy(x_old, mask))


@pytest.mark.parametrize(
    "weights, message",
    [
        ({"action_inputs": np.array([[5, 8]])}, "action_inputs .* and action_gain"),
        ({"action_inputs": np.array([[5, 8]]), "action_gain": np.ones(2)}, "1 action pieces and 2 gains"),
        ({"action_inputs": np.array([[25, 8]]), "action_gain": np.ones(1)}, "must lie in the 30 entries"),
        ({"action_inputs": np.array([[0, 13]]), "action_gain": np.ones(1)}, "cover 1 to 12 actions"),
        ({"action_inputs": np.array([[5.5, 8]]), "action_gain": np.ones(1)}, "not integers"),
        (
            {"action_inputs": np.array([[5, 8, 1]]), "action_gain": np.ones(1)},
            "action_inputs .* and action_gain",
        ),
    ],
)
def test_bad_action_pieces_in_a_policy_file_are_refused(weights, message):
    base = {"W0": np.zeros((D, 4)), "b0": np.zeros(4), "W1": np.zeros((4, A)), "b1": np.zeros(A)}
    with pytest.raises(ValueError, match=message):
        MLPPolicy(base | weights)


@pytest.mark.parametrize("pieces", [((25, 8),), ((-1, 3),), ((0, 13),), ((0, 0),)])
def test_bad_action_pieces_in_a_network_are_refused(pieces):
    with pytest.raises(ValueError, match="action piece at observation entries"):
        Agent(D, A, (8,), action_inputs=pieces)
