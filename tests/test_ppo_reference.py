"""Each faster update path of the trainer against the reference (``tabletop_core.train.ppo``).

From the same weights and the same minibatch of a real rollout, every path the trainer
runs must give :func:`~tabletop_core.train.ppo.ppo_step`'s update: the same loss
statistics and the same parameters after one step (float32 paths: within 1e-5 of the
parameters' scale, float32 rounding through Adam's first step), or for the bfloat16 path
gradients within bfloat16's rounding (relative error of each gradient under 3 %).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_core.train import ppo  # noqa: E402
from tabletop_core.train.config import TrainConfig  # noqa: E402
from tabletop_core.train.model import Agent  # noqa: E402
from tabletop_core.train.muon import Muon  # noqa: E402

STAT_RTOL, STAT_ATOL = 1e-4, 1e-6
PARAM_ATOL = 1e-5


def _trainer(game: str = "thegame", **kw):
    from tabletop_core.train import Trainer

    options = {"num_players": 2} if game == "thegame" else {}
    base = dict(game=game, options=options, steps=10**6, num_envs=64, rollout=8, minibatch=128, seed=6)
    tr = Trainer(TrainConfig(**{**base, **kw}))
    tr.collect()
    return tr


def _reference(tr):
    """A float32 copy of ``tr``'s agent (plain modules) and its optimizers, as the trainer
    builds them (Adam; with ``--optimizer muon`` Muon for the hidden weights)."""
    a = tr.agent
    ref = Agent(a.obs_dim, a.num_actions, a.hidden, a.activation, a.action_inputs)
    ref.load_state_dict({k: v.float() for k, v in a.state_dict().items()})
    params = list(ref.parameters())
    opts: list[torch.optim.Optimizer] = []
    if tr.cfg.optimizer == "muon":
        hidden = [m.weight for m in ref.trunk if isinstance(m, torch.nn.Linear)]
        opts.append(Muon(hidden, lr=tr.cfg.lr))
        params = [p for p in params if all(p is not w for w in hidden)]
    return ref, [torch.optim.Adam(params, lr=tr.cfg.lr, eps=1e-5), *opts]


def _minibatch(tr, batch, idx) -> ppo.Batch:
    """The reference's minibatch for samples ``idx`` of the trainer's batch: the full
    observations and masks of the same rollout rows, the actions taken."""
    rows = idx if batch.sample_rows is None else batch.sample_rows.index_select(0, idx)
    a = tr.num_actions
    return ppo.Batch(
        tr.obs_buf.view(-1, tr.obs_dim).index_select(0, rows).float(),
        tr.mask_buf.view(-1, a).index_select(0, rows),
        tr.act_buf.view(-1).index_select(0, rows),
        batch.old_logp.index_select(0, idx),
        batch.advs.index_select(0, idx),
        batch.rets.index_select(0, idx),
    )


def _fixed(tr):
    batch = tr._read_once(tr._rollout_batch())
    idx = torch.randperm(batch.size, generator=torch.Generator().manual_seed(0))[:128]
    return batch, idx


def _assert_same_update(tr, ref, got_stats, want_stats) -> None:
    np.testing.assert_allclose(got_stats, want_stats, rtol=STAT_RTOL, atol=STAT_ATOL)
    for (name, p), q in zip(tr.agent.named_parameters(), ref.parameters()):
        scale = max(float(q.detach().abs().max()), 1.0)
        torch.testing.assert_close(p.detach().float(), q.detach(), rtol=0, atol=PARAM_ATOL * scale, msg=name)


@pytest.mark.parametrize("game", ["thegame", "koikoi"])
def test_plain_step_is_the_reference_update(game):
    """PlainStep (CPU float32, Adam: the default without a bfloat16 unit)."""
    from tabletop_core.train.plain import PlainStep

    tr = _trainer(game, bf16="off")
    assert isinstance(tr.cpu_step, PlainStep)
    batch, idx = _fixed(tr)
    ref, opts = _reference(tr)
    want = ppo.ppo_step(ref, opts, _minibatch(tr, batch, idx), tr.cfg)
    cfg = tr.cfg
    got = tr.cpu_step.step(batch, idx, tr.optim, cfg.clip, cfg.vf_coef, cfg.ent_coef, cfg.max_grad_norm)
    _assert_same_update(tr, ref, got, want)


@pytest.mark.parametrize("optimizer", ["adam", "muon"])
def test_compiled_step_is_the_reference_update(optimizer):
    """The compiled loss with autograd's backward (CPU with --optimizer muon; Adam where
    bfloat16 has no fused linear)."""
    tr = _trainer(bf16="off", optimizer=optimizer)
    batch, idx = _fixed(tr)
    ref, opts = _reference(tr)
    want = ppo.ppo_step(ref, opts, _minibatch(tr, batch, idx), tr.cfg)
    _assert_same_update(tr, ref, tr._ppo_step_compiled(batch, idx), want)


def test_torch_step_is_the_reference_update():
    """The torch step over the legal columns (the GPU path), run here on the CPU."""
    tr = _trainer(bf16="off")
    batch, idx = _fixed(tr)
    ref, opts = _reference(tr)
    want = ppo.ppo_step(ref, opts, _minibatch(tr, batch, idx), tr.cfg)
    _assert_same_update(tr, ref, tr._ppo_step_torch(batch, idx), want)


@pytest.mark.parametrize("game", ["thegame", "koikoi"])
def test_fused_step_has_the_reference_gradients(game):
    """FusedStep (CPU bfloat16, Adam: the default with a bfloat16 unit): its loss
    statistics and gradients against the float32 reference's, within bfloat16 rounding."""
    from tabletop_core.train.fused import FusedStep

    tr = _trainer(game, bf16="on")
    if not isinstance(tr.cpu_step, FusedStep):
        pytest.skip("this CPU / torch build has no oneDNN bfloat16 linear")
    batch, idx = _fixed(tr)
    ref, _ = _reference(tr)
    mb = _minibatch(tr, batch, idx)
    logits, value = ref(mb.obs)
    cfg = tr.cfg
    loss, want = ppo.ppo_loss(
        ppo.masked_logits(logits, mb.mask), value, mb.actions, mb.logp, mb.advantages, mb.returns,
        cfg.clip, cfg.vf_coef, cfg.ent_coef,
    )  # fmt: skip
    loss.backward()
    grads, got = tr.cpu_step.gradients(batch, idx, cfg.clip, cfg.vf_coef, cfg.ent_coef)
    np.testing.assert_allclose(got, want.numpy(), rtol=3e-2, atol=2e-3)
    for (name, p), q in zip(tr.agent.named_parameters(), ref.parameters()):
        g, w = grads[id(p)].float(), q.grad
        assert float((g - w).norm()) <= 0.03 * float(w.norm()) + 1e-7, name


def test_reference_trains():
    """The reference's self-play loop runs (two updates of The Game) and logs finite
    statistics (its loss against the compiled one: ``tests/test_train.py``)."""
    cfg = TrainConfig(options={"num_players": 2}, steps=2 * 64 * 8, num_envs=64, rollout=8, minibatch=128)
    agent, records = ppo.train(cfg, log=lambda rec: None)
    assert [r["step"] for r in records] == [512, 1024]
    assert all(np.isfinite([r[k] for k in ppo.STATS]).all() for r in records)
    assert isinstance(agent, Agent)
