"""`tabletop train` (tabletop_core/train/): per-seat advantages, masked sampling, clear
errors before training, the bit-identical first update, the league, and a smoke run whose
policy `tabletop match` plays."""

from __future__ import annotations

import json
import types

import numpy as np
import pytest
from interrupts import ctrl_c_after

torch = pytest.importorskip("torch")

from tabletop_core import cli  # noqa: E402
from tabletop_core.kernel.rng import seed_word  # noqa: E402
from tabletop_core.train import TrainConfig  # noqa: E402
from tabletop_core.train.advantages import seat_advantages  # noqa: E402
from tabletop_core.train.opponents import League, parse_opponents  # noqa: E402
from tabletop_core.train.sample import masked_sample  # noqa: E402


# --- per-seat GAE ---------------------------------------------------------------------------
def test_one_seat_advantages_are_cleanrl_gae():
    rng = np.random.default_rng(0)
    t_len, b, gamma, lam = 12, 3, 0.9, 0.8
    rewards = rng.normal(size=(t_len, b, 1)).astype(np.float32)
    values = rng.normal(size=(t_len, b)).astype(np.float32)
    dones = rng.random((t_len, b)) < 0.2
    last_value = rng.normal(size=b).astype(np.float32)
    seat = np.zeros((t_len, b), np.int64)
    adv, valid = seat_advantages(rewards, values, seat, dones, last_value, np.zeros(b, np.int64), gamma, lam)
    ref = np.zeros((t_len, b))
    gae = np.zeros(b)
    for t in range(t_len - 1, -1, -1):
        nxt = last_value if t == t_len - 1 else values[t + 1]
        nonterm = 1.0 - dones[t]
        delta = rewards[t, :, 0] + gamma * nxt * nonterm - values[t]
        gae = delta + gamma * lam * nonterm * gae
        ref[t] = gae
    np.testing.assert_allclose(adv, ref, rtol=1e-5, atol=1e-5)
    assert valid.all()


def test_two_seat_chains_and_snapshot_steps():
    # seat 0 acts at t=0, 2; seat 1 at t=1, 3; rewards of seat 0 arrive at every step
    r = np.zeros((4, 1, 2), np.float32)
    r[:, 0, 0] = [1, 2, 3, 4]
    z = np.zeros((4, 1), np.float32)
    adv, valid = seat_advantages(
        r, z, np.array([[0], [1], [0], [1]]), np.zeros((4, 1), bool), z[0], np.array([0]), 1.0, 1.0
    )
    # seat 0's first transition earns the rewards of t=0 and t=1 (its own and seat 1's
    # move), plus, with lambda = 1, its next transition's advantage (3 + 4)
    assert adv[0, 0] == pytest.approx(1 + 2 + 3 + 4) and adv[2, 0] == pytest.approx(3 + 4)
    assert adv[1, 0] == 0.0  # seat 1 receives nothing
    assert valid[:, 0].tolist() == [True, True, True, False]  # seat 1's t=3 successor is unknown
    # a league snapshot acting at t=1 (seat -1): no transition, its step's rewards flow on
    adv, valid = seat_advantages(
        r, z, np.array([[0], [-1], [0], [-1]]), np.zeros((4, 1), bool), z[0], np.array([0]), 1.0, 1.0
    )
    assert valid[:, 0].tolist() == [True, False, True, False] and adv[1, 0] == 0.0
    assert adv[0, 0] == pytest.approx(10.0)


# --- masked sampling -----------------------------------------------------------------------
def test_masked_sample_draws_the_masked_softmax():
    n = 40_000
    logits = np.tile(np.array([1.0, 5.0, 0.0, -1.0, 9.0], np.float32), (n, 1))
    mask = np.zeros((n, 5), np.int8)
    mask[:, [0, 2, 3]] = 1
    rng = np.array([seed_word(i) for i in range(n)], np.uint64)
    actions, logp = np.empty(n, np.int64), np.empty(n, np.float32)
    masked_sample(logits, mask, rng, actions, logp)
    p = np.exp([1.0, 0.0, -1.0])
    p /= p.sum()
    freq = np.bincount(actions, minlength=5) / n
    assert freq[1] == 0 and freq[4] == 0  # never an illegal action
    np.testing.assert_allclose(freq[[0, 2, 3]], p, atol=0.01)
    np.testing.assert_allclose(logp, np.log(p)[np.searchsorted([0, 2, 3], actions)], rtol=1e-5)


def test_masked_sample_reads_bfloat16_bits_in_place():
    """The fused network's bfloat16 logits, passed as their int16 bits (a strided view of
    the head's output), give the draws of the same logits converted to float32."""
    n, a = 2000, 57
    g = torch.Generator().manual_seed(0)
    head = torch.randn((n, a + 1), generator=g).to(torch.bfloat16)  # last column: the value
    mask = (torch.rand((n, a), generator=g) < 0.3).numpy()
    mask[:, 7] = True  # every row has a legal action
    rng = np.array([seed_word(i) for i in range(n)], np.uint64)
    got = np.empty(n, np.int64), np.empty(n, np.float32)
    want = np.empty(n, np.int64), np.empty(n, np.float32)
    masked_sample(head[:, :-1].view(torch.int16).numpy(), mask, rng.copy(), *got)
    masked_sample(np.ascontiguousarray(head[:, :-1].float().numpy()), mask, rng.copy(), *want)
    assert mask[np.arange(n), got[0]].all()
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_sample_adds_the_term_at_the_legal_actions():
    """The rollout's sampler: bfloat16 logits read in place plus the action pieces' term
    (N, E) at the legal actions gives the draws of the float32 logits with the term added
    to the first E columns (what ``Agent.forward`` returns), the generator words advanced
    the same."""
    n, a, e = 999, 57, 40
    g = torch.Generator().manual_seed(1)
    head = torch.randn((n, a + 1), generator=g).to(torch.bfloat16)
    term = torch.randn((n, e), generator=g)
    mask = (torch.rand((n, a), generator=g) < 0.3).numpy()
    mask[:, 50] = True
    rng = np.array([seed_word(i) for i in range(n)], np.uint64)
    full = torch.cat([head[:, :e].float() + term, head[:, e:-1].float()], 1)
    got = np.empty(n, np.int64), np.empty(n, np.float32)
    want = np.empty(n, np.int64), np.empty(n, np.float32)
    rng_got, rng_want = rng.copy(), rng.copy()
    masked_sample(head[:, :-1].view(torch.int16).numpy(), mask, rng_got, *got, term.numpy())
    masked_sample(np.ascontiguousarray(full.numpy()), mask, rng_want, *want)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(rng_got, rng_want)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_fused_network_matches_the_plain_one(activation):
    """The fused bfloat16 CPU path (oneDNN linear + activation, legal-logits head) computes
    what the plain modules compute in float32: outputs and every gradient within bf16
    rounding."""
    from tabletop_core.train.model import Agent, fused_available

    if not fused_available():
        pytest.skip("this CPU / torch build has no oneDNN bfloat16 linear")
    torch.manual_seed(0)
    n, d, a = 512, 37, 23
    fused = Agent(d, a, (64, 48), activation).fuse()
    plain = Agent(d, a, (64, 48), activation)
    plain.load_state_dict(fused.state_dict())
    assert fused.fused and not plain.fused
    x = torch.rand(n, d)
    index = torch.randint(0, a, (n, 5))
    logits, value = fused(x)
    ref_logits, ref_value = plain(x)
    torch.testing.assert_close(logits.float(), ref_logits, atol=0.02, rtol=0.02)
    torch.testing.assert_close(value.float(), ref_value, atol=0.02, rtol=0.02)
    weight = torch.randn(n, 5)
    for net in (fused, plain):
        g, v = net.legal_forward(x, index)
        ((g * weight).sum() + (v - 3.0).square().sum()).backward()  # no cancelling sum in dv
    # relu's gate flips where bf16 rounding moves a pre-activation across 0: a looser bound
    bound = 0.02 if activation == "tanh" else 0.05
    for (name, p), q in zip(fused.named_parameters(), plain.parameters()):
        rel = float((p.grad - q.grad).norm() / q.grad.norm())
        assert rel < bound, f"{name}: gradient off by {rel:.3f}"


# --- clear errors before training -----------------------------------------------------------
def _train(tmp_path, *args: str) -> int:
    return cli.main(["train", *args, "--out", str(tmp_path / "run"), "--no-progress"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nogame", "--steps", "10"], "nogame"),
        (["thegame", "--players", "9", "--steps", "10"], "players"),
        (["thegame", "--steps", "10", "--no-such-option", "1"], ("no_such_option", "no-such-option")),
        (["thegame", "--steps", "10", "--opponents", "greedy"], "cooperative"),
        (["koikoi", "--steps", "10", "--opponents", "self,champion"], "unknown entry 'champion'"),
        (["koikoi", "--steps", "10", "--opponents", "self:0.8,league:x"], "not a number"),
        (["koikoi", "--steps", "10", "--opponents", "self:0.8,league:0.7,random"], "sum to"),
        (["koikoi", "--steps", "10", "--eval-opponents", "nobody"], "unknown bot 'nobody'"),
        (["koikoi", "--steps", "10", "--opponents", "strong+greedy"], "names 2 bots"),
        (["koikoi", "--steps", "10", "--opponents", "strong+champion+random"], "unknown entry"),
        (["thegame"], "budget"),
        (["thegame", "--steps", "10", "--minibatch", "0"], "--minibatch"),
        (["thegame", "--steps", "10", "--activation", "gelu"], "--activation"),
        (["thegame", "--steps", "10", "--optimizer", "sgd"], "--optimizer"),
        (["thegame", "--steps", "10", "--seats", "0"], "cooperative"),
        (["koikoi", "--steps", "10", "--seats", "0+1+2+3"], "1..3 of the 4 seats"),
        (["koikoi", "--steps", "10", "--seats", "0,7"], "seat must be in 0..3"),
        (["koikoi", "--steps", "10", "--seats", "0+0"], "named twice"),
        (["koikoi", "--steps", "10", "--imitate", "champion"], "--imitate: unknown bot 'champion'"),
        (["koikoi", "--steps", "10", "--imitate", "strong", "--imitate-samples", "0"], "--imitate-samples"),
        (["koikoi", "--steps", "10", "--imitate-rounds", "2"], "need the bot that labels them"),
        (["koikoi", "--steps", "10", "--imitate", "strong", "--imitate-rounds", "-1"], "--imitate-rounds"),
    ],
)
def test_bad_options_fail_before_training(tmp_path, capsys, args, message):
    assert _train(tmp_path, *args) == 2
    err = capsys.readouterr().err
    assert any(m in err for m in ((message,) if isinstance(message, str) else message)), err
    assert not (tmp_path / "run" / "log.jsonl").exists()


def test_policy_file_for_another_game_or_options(tmp_path, capsys):
    from tabletop_core.train.model import Agent

    koikoi = tmp_path / "koikoi.npz"
    import koikoi_env

    dim = koikoi_env.GAME.observation_layout(koikoi_env.Options(num_players=2)).dim
    np.savez(koikoi, **Agent(dim, koikoi_env.GAME.num_actions).policy_weights())
    assert _train(tmp_path, "thegame", "--players", "2", "--steps", "10", "--init-policy", str(koikoi)) == 2
    assert "another game or other options" in capsys.readouterr().err
    # The Game for 3 players has a longer observation than for 2
    import thegame_env

    three = tmp_path / "three.npz"
    dim3 = thegame_env.GAME.observation_layout(thegame_env.Options(num_players=3)).dim
    np.savez(three, **Agent(dim3, thegame_env.GAME.num_actions).policy_weights())
    assert _train(tmp_path, "thegame", "--players", "2", "--steps", "10", "--init-policy", str(three)) == 2
    assert "another game or other options" in capsys.readouterr().err
    assert _train(tmp_path, "thegame", "--steps", "10", "--init-policy", str(tmp_path / "none.npz")) == 2
    assert "does not exist" in capsys.readouterr().err


def test_opponent_mix_parsing():
    import koikoi_env

    g = koikoi_env.GAME
    assert parse_opponents("self:0.5,league,greedy", g) == [("self", 0.5), ("league", 0.25), ("greedy", 0.25)]
    assert parse_opponents("strong", g) == [("strong", 1.0)]
    with pytest.raises(ValueError, match="twice"):
        parse_opponents("self,self", g)
    assert parse_opponents("self:0.5, strong + greedy + random", g) == [
        ("self", 0.5),
        ("strong+greedy+random", 0.5),
    ]


def test_lineup_opponents_sit_in_seat_order():
    """``--opponents strong+greedy+random --seats 0``: the bots sit in seats 1, 2, 3 in that
    order; with the learner in seat 2 they take seats 0, 1, 3."""
    import koikoi_env
    from tabletop_core.train import Trainer

    g = koikoi_env.GAME
    want = g.bot_ids(["strong", "greedy", "random"], 3)
    for seats, others in (("0", (1, 2, 3)), ("2", (0, 1, 3))):
        tr = Trainer(
            _small(game="koikoi", options={}, opponents="strong+greedy+random", seats=seats, num_envs=8)
        )
        (group,) = tr.groups
        assert group.core.seats == (int(seats),)
        assert [int(group.core.bot_ids[k]) for k in others] == [int(x) for x in want]


# --- reproducibility ------------------------------------------------------------------------
def _small(**kw) -> TrainConfig:
    base = dict(
        game="thegame", options={"num_players": 2}, steps=10**6, num_envs=64, rollout=8, minibatch=128
    )
    base.update(kw)
    return TrainConfig(**base)


def _first_update(cfg: TrainConfig):
    from tabletop_core.train import Trainer

    tr = Trainer(cfg)
    tr.collect()
    stats = tr.update(cfg.lr)
    return {k: v.clone() for k, v in tr.agent.state_dict().items()}, tr.act_buf.clone(), stats


@pytest.mark.parametrize(
    "cores, load, threads",
    [(2, 0.0, 2), (2, 0.99, 2), (2, 1.0, 1), (2, 7.5, 1), (16, 1.4, 15), (16, 0.2, 16)],
)
def test_default_threads_take_the_idle_cores(monkeypatch, cores, load, threads):
    from tabletop_core.train import trainer

    monkeypatch.setattr(trainer, "available_cores", lambda: cores)
    monkeypatch.setattr(trainer.os, "getloadavg", lambda: (load, load, load))
    assert trainer.default_threads() == threads


def test_default_threads_without_a_load_average_take_every_core(monkeypatch):
    from tabletop_core.train import trainer

    def no_load():
        raise OSError("no load average here")

    monkeypatch.setattr(trainer, "available_cores", lambda: 4)
    monkeypatch.setattr(trainer.os, "getloadavg", no_load)
    assert trainer.default_threads() == 4


@pytest.mark.parametrize(
    "unit, setting, game, bf16",
    [
        ("amx", "auto", "exitnow", True),
        ("amx", "auto", "thegame", True),
        ("avx512", "auto", "thegame", True),
        ("avx512", "auto", "exitnow", False),  # the sparse first layer skips ~9x the FLOPs
        ("avx512", "on", "exitnow", True),
        ("amx", "off", "thegame", False),
        (None, "auto", "thegame", False),
    ],
)
def test_bf16_auto_follows_the_cpu_unit_and_the_observation(monkeypatch, unit, setting, game, bf16):
    from tabletop_core.train import trainer
    from tabletop_core.train.model import fused_available

    monkeypatch.setattr(trainer, "cpu_bf16_unit", lambda: unit)
    tr = trainer.Trainer(_small(game=game, options={}, bf16=setting))
    assert tr.bf16 is bf16
    # fused where this torch and CPU run oneDNN's bfloat16 linear (not on an AVX2-only CPU)
    assert tr.agent.fused is (bf16 and fused_available()) and tr.legal_dots is not bf16
    assert tr.agent.sparse_input is not bf16


def test_cpu_bf16_unit_reads_the_flags(monkeypatch):
    import builtins
    import io

    from tabletop_core.train import config

    real_open = builtins.open
    for flags, unit in [
        ("avx2 avx512_bf16 amx_bf16 amx_tile", "amx"),
        ("avx512f avx512_bf16", "avx512"),
        ("avx2", None),
    ]:
        monkeypatch.setattr(
            builtins,
            "open",
            lambda path, *a, _f=flags, **k: (
                io.StringIO(f"flags\t: {_f}\n") if path == "/proc/cpuinfo" else real_open(path, *a, **k)
            ),
        )
        assert config.cpu_bf16_unit() == unit
        assert config.bf16_supported() is (unit is not None)


def test_the_updates_listing_is_the_rollouts_steps_listings_stacked():
    """On the sparse float32 path each rollout step's inference listing is kept, and the
    update's listing, stacked from them, lists the rollout storage exactly as a new
    listing would (Exit Now: with its common row)."""
    from tabletop_core.train import Trainer
    from tabletop_core.train.sparse import SparseRows

    tr = Trainer(_small(game="exitnow", options={}, bf16="off"))
    assert tr.agent.sparse_input
    tr.collect()
    assert all(s is not None and s.shape == (tr.num_envs, tr.obs_dim) for s in tr.step_listings)
    obs = tr.obs_buf.view(-1, tr.obs_dim)
    stacked, fresh = tr._rollout_listing(obs), SparseRows(obs.numpy(), 1, common_row=True)
    assert len(fresh.common_cols) > 0
    assert np.array_equal(stacked.common_cols, fresh.common_cols)
    assert np.array_equal(stacked.common_vals, fresh.common_vals)
    assert np.array_equal(stacked.start, fresh.start) and np.array_equal(stacked.count, fresh.count)
    for i in range(0, obs.shape[0], 7):
        entries = slice(fresh.start[i], fresh.start[i] + fresh.count[i])
        assert np.array_equal(stacked.cols[entries], fresh.cols[entries])
        assert np.array_equal(stacked.vals[entries], fresh.vals[entries])
    tr.update(tr.cfg.lr)


@pytest.mark.parametrize(
    "obs_dim, actions, hidden", [(606, 393, (256, 256)), (37, 5, (16,)), (9, 4, (3, 7, 2))]
)
def test_flop_counts_match_torchs_count_of_the_products(obs_dim, actions, hidden):
    """The MFU's FLOPs: a forward pass as torch's FLOP counter counts an MLP of the same
    shapes, and an update sample's forward and backward pass with no gradient for the
    observations (the first layer computes its weight gradient only)."""
    from torch.utils.flop_counter import FlopCounterMode

    from tabletop_core.train.model import model_flops_per_sample

    widths = [obs_dim, *hidden]
    layers: list[torch.nn.Module] = []
    for a, b in zip(widths[:-1], widths[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.Tanh()]
    net = torch.nn.Sequential(*layers, torch.nn.Linear(widths[-1], actions + 1))
    x = torch.randn(8, obs_dim)
    with FlopCounterMode(display=False) as forward:
        net(x)
    with FlopCounterMode(display=False) as update:
        net(x).square().sum().backward()
    assert forward.get_total_flops() == 8 * model_flops_per_sample(obs_dim, actions, hidden)
    assert update.get_total_flops() == 8 * model_flops_per_sample(obs_dim, actions, hidden, update=True)


def test_float32_legal_head_matches_the_modules():
    """On a CPU the plain float32 network's update takes the logits at the legal actions
    through one (A + 1)-row head and builds the head's gradient in a kept buffer; values
    and every parameter's gradient match the actor and critic modules with torch's gather,
    repeated index columns (legal_index's padding) included."""
    from tabletop_core.train.model import Agent

    torch.manual_seed(0)
    agent = Agent(30, 12)
    obs = torch.randn(64, 30)
    index = torch.randint(0, 12, (64, 5))
    index[:, -1] = index[:, 0]  # padding repeats a column
    g_logits, g_value = torch.randn(64, 5), torch.randn(64)
    grads = []
    for legal in (
        agent.legal_forward,
        lambda o, i: (
            agent.actor(agent._features(o)).gather(1, i),
            agent.critic(agent._features(o)).squeeze(-1),
        ),
    ):
        agent.zero_grad()
        logits, value = legal(obs, index)
        ((logits * g_logits).sum() + (value * g_value).sum()).backward()
        grads.append(
            ((logits.detach(), value.detach()), {k: p.grad.clone() for k, p in agent.named_parameters()})
        )
    (out_a, grad_a), (out_b, grad_b) = grads
    for x, y in zip(out_a, out_b):
        torch.testing.assert_close(x, y, rtol=1e-5, atol=1e-5)
    for k in grad_a:
        torch.testing.assert_close(grad_a[k], grad_b[k], rtol=1e-5, atol=1e-5)


def test_first_update_is_bit_identical_on_a_rerun():
    # the thread count pinned: left to the load average it can differ between the two runs,
    # and torch's float32 sums then differ in their last bits
    a, acts_a, sa = _first_update(_small(seed=3, threads=2))
    b, acts_b, sb = _first_update(_small(seed=3, threads=2))
    assert torch.equal(acts_a, acts_b)
    for k in a:
        assert torch.equal(a[k], b[k]), k
    assert sa == sb
    c, acts_c, _ = _first_update(_small(seed=4, threads=2))
    assert not torch.equal(acts_a, acts_c)


def test_critic_warmup_trains_only_the_value_head():
    from tabletop_core.train import Trainer

    tr = Trainer(_small(seed=5, critic_warmup=1))
    before = {k: v.clone() for k, v in tr.agent.state_dict().items()}
    tr.collect()
    stats = tr.update(1e-2)
    after = tr.agent.state_dict()
    for k in before:
        changed = not torch.equal(before[k], after[k])
        assert changed == k.startswith("critic."), k
    assert stats["v_loss"] > 0 and stats["pg_loss"] == 0.0


def test_baseline_opponents_play_their_seats():
    """``--opponents baseline``: those envs hold the shipped baseline in the seats the
    learner does not, and its moves are legal."""
    from tabletop_core.train import Trainer
    from tabletop_core.train.trainer import BASELINE

    tr = Trainer(_small(game="koikoi", options={}, opponents="self:0.5,baseline:0.5", num_envs=64, seed=2))
    sp = tr.selfplay
    assert (sp.opp == BASELINE).sum() == 32
    tr.collect()
    seat = tr.seat_buf  # -1 where the baseline acted
    assert (seat == -1).any() and (seat >= 0).any()
    acted = tr.mask_buf.gather(2, tr.act_buf.unsqueeze(2)).squeeze(2)
    assert acted.all()  # every action, the baseline's included, was legal


# --- the league -----------------------------------------------------------------------------
def test_league_pool_keeps_the_newest():
    league = League(2)
    rng = np.random.default_rng(0)
    assert (league.sample(rng, 5) == -1).all()  # empty pool: self-play
    sd = {"w": torch.zeros(2)}
    for u in (1, 2, 3):
        league.add(u, sd)
    assert league.pool == [1, 2]
    league.release(np.array([0, -1]))  # snapshot 0 left the pool but env 0 still plays it
    assert 0 in league.snapshots
    league.release(np.array([-1]))
    assert 0 not in league.snapshots and set(league.sample(rng, 50)) <= {1, 2}


@pytest.mark.slow
def test_league_envs_play_past_snapshots():
    from tabletop_core.train import Trainer

    cfg = TrainConfig(
        game="koikoi",
        options={"num_players": 2, "rounds": 1},
        steps=10**6,
        num_envs=96,
        rollout=16,
        minibatch=256,
        opponents="self:0.25,league:0.5,random:0.25",
        league_every=1,
        league_size=3,
        seed=1,
    )
    tr = Trainer(cfg)
    assert [type(g).__name__ for g in tr.groups] == ["_SelfPlayGroup", "_BotGroup", "_BotGroup"]
    snapshot_moves = 0
    for _ in range(6):
        tr.collect()
        snapshot_moves += int((tr.seat_buf < 0).sum())
        tr.update(cfg.lr)
        tr.snapshot_if_due()
    sp = tr.selfplay
    drawn = {k: v for k, v in tr.league.drawn.items() if v > 0}
    assert len(drawn) >= 2  # several past snapshots were drawn at resets
    assert snapshot_moves > 0  # and they played their seats
    in_use = sp.opp[sp.league & (sp.opp >= 0)]
    assert in_use.size > 0
    # every snapshot in play is a past learner: taken at an earlier update, with other weights
    for sid in np.unique(in_use):
        update, state = tr.league.snapshots[int(sid)]
        assert update < tr.update_idx
        assert not torch.equal(state["actor.weight"], tr.agent.state_dict()["actor.weight"])
    assert (sp.opp[~sp.league] == -1).all()  # self-play envs never get a snapshot


# --- progress -----------------------------------------------------------------------------------
def test_progress_names_the_games_measure_and_the_time_left():
    """The progress text shows the last evaluation's return with the game's first measure
    (The Game: score, cards left), and off a terminal the time left at the pace so far."""
    from types import SimpleNamespace

    from tabletop_core.train.loop import _Budget, _progress_info, _time_left

    ev = {"mean": 40.0, "stats": {"score": {"mean": 58.04, "low": 57.0, "high": 59.0}, "win": {"rate": 0.0}}}
    tr = SimpleNamespace(global_step=25_000, train_seconds=30.0)
    text = _progress_info(tr, 1000.0, 38.5, ev, None)
    assert "eval 40.0 (score 58.0)" in text and "return 38.5" in text and "left" not in text
    budget = _Budget(seconds=None, steps=100_000)  # a quarter done in 30 s: 90 s left
    assert _time_left(budget, tr) == pytest.approx(90.0)
    assert "about 1.5 min left" in _progress_info(tr, 1000.0, 38.5, ev, 90.0)
    assert "(" not in _progress_info(tr, 1000.0, 38.5, {"mean": 1.0}, None)  # a game without measures


def test_competitive_evaluation_is_against_its_opponents():
    """Koikoi's start line names the evaluation's opponents (a competitive game)."""
    from tabletop_core.cli.train import start_line

    line = start_line(
        TrainConfig(game="koikoi", options={"num_players": 2}, steps=10, eval_opponents="greedy")
    )
    assert "fixed deals against greedy" in line and "copies of itself" not in line


# --- end to end -----------------------------------------------------------------------------
@pytest.mark.slow
def test_smoke_run_writes_a_policy_that_match_plays(tmp_path, capsys):
    out = tmp_path / "run"
    common = ["--players", "2", "--num-envs", "256", "--rollout", "8", "--minibatch", "512"]
    common += ["--eval-games", "20", "--final-games", "20", "--out", str(out), "--no-progress"]
    assert cli.main(["train", "thegame", "--steps", "8000", "--seed", "0", *common]) == 0
    for name in ("policy.npz", "checkpoint.pt", "log.jsonl", "curve.png", "summary.json"):
        assert (out / name).exists(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps"] >= 8000 and set(summary["levels"]) == {"random", "greedy", "strong"}
    # The Game's own measure beside the return: cards left, for the policy and every bot
    lines = capsys.readouterr().out.splitlines()
    assert "with copies of itself in every seat" in lines[0] and "against random" not in lines[0]
    score = summary["final_eval"]["stats"]["score"]
    assert 0 <= score["low"] <= score["mean"] <= score["high"] <= 98
    assert all("score" in d["stats"] for d in summary["levels"].values())
    assert f"(score {score['mean']:.1f}" in lines[-1] and "with copies of itself" in lines[-1]
    assert "final" in summary["ratings"]
    kinds = {json.loads(line)["kind"] for line in (out / "log.jsonl").read_text().splitlines()}
    assert kinds == {"config", "levels", "eval", "update", "final"}
    capsys.readouterr()
    policy = f"policy:{out / 'policy.npz'}"
    assert (
        cli.main(
            ["match", "thegame", "--players", "2", "--bots", f"{policy},{policy}", "--games", "30", "--json"]
        )
        == 0
    )
    match = json.loads(capsys.readouterr().out)
    assert match["games"] == 30 and match["bots"] == ["policy", "policy"]
    assert 0 <= match["seats"][0]["mean_return"]["mean"] <= 98
    # --resume continues the run: more steps, the update counter goes on
    before = summary["updates"]
    assert cli.main(["train", "thegame", "--steps", "16000", "--resume", *common]) == 0
    after = json.loads((out / "summary.json").read_text())
    assert after["updates"] > before and after["steps"] >= 16000
    # a checkpoint of The Game for 2 players does not resume a 3-player run
    common3 = [c if c != "2" else "3" for c in common]
    assert cli.main(["train", "thegame", "--steps", "20000", "--resume", *common3]) == 2
    assert "another game or other options" in capsys.readouterr().err
    # a truncated checkpoint, or a torch file that is not one, gets a clear error
    ck = out / "checkpoint.pt"
    whole = ck.read_bytes()
    ck.write_bytes(whole[:5000])
    assert cli.main(["train", "thegame", "--steps", "20000", "--resume", *common]) == 2
    assert "is not a readable checkpoint" in capsys.readouterr().err
    torch.save({"model": {}}, ck)
    assert cli.main(["train", "thegame", "--steps", "20000", "--resume", *common]) == 2
    assert (
        "is not a tabletop train checkpoint (missing game, options, config, optim)" in capsys.readouterr().err
    )
    ck.write_bytes(whole)
    assert not list(out.glob("*.partial"))  # every save renamed its file into place


def test_an_update_stopped_midway_still_counts_its_time():
    """Ctrl-C inside a rollout: the steps it collected are counted, so is the time they
    took (the summary's steps/s was steps over the updates' time alone, and a run stopped
    in its first rollout printed trillions of steps/s)."""
    import time

    from tabletop_core.train.loop import _update

    def collect():
        trainer.global_step += 1000
        time.sleep(0.05)
        raise KeyboardInterrupt

    trainer = types.SimpleNamespace(global_step=0, train_seconds=0.0, collect=collect)
    with pytest.raises(KeyboardInterrupt):
        _update(None, trainer, None, 1e-3)
    assert trainer.global_step == 1000 and trainer.train_seconds >= 0.05


def test_a_save_stopped_midway_leaves_the_previous_files_whole(tmp_path):
    """The run folder's checkpoint and policy are written beside and renamed into place:
    a write that stops midway (a kill, a full disk, a second Ctrl-C) leaves the previous
    file as it was."""
    from tabletop_core.train.loop import _replace_whole

    path = tmp_path / "checkpoint.pt"
    _replace_whole(str(path), lambda f: torch.save({"step": 1}, f))

    def stopped(f):
        f.write(b"half a checkpoint")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _replace_whole(str(path), stopped)
    assert torch.load(path) == {"step": 1}
    _replace_whole(str(path), lambda f: torch.save({"step": 2}, f))
    assert torch.load(path) == {"step": 2} and not (tmp_path / "checkpoint.pt.partial").exists()


def test_behaviour_cloning_learns_the_bots_moves():
    """A few thousand of the greedy bot's decisions make the actor pick the bot's action
    far more often than a uniform choice over the legal ones does."""
    import thegame_env
    from tabletop_core.train.imitate import behaviour_cloning, collect_demos
    from tabletop_core.train.model import Agent

    game = thegame_env.GAME
    d = game.observation_layout(game.make_options()).dim
    torch.manual_seed(0)
    agent = Agent(d, game.num_actions, (64,))
    xs, ms, acts = collect_demos(game, {}, "greedy", 4000, seed=3, num_envs=64)
    assert xs.shape == (4000, d) and ms[torch.arange(4000), acts].all()  # the bot plays legal moves
    chance = float((1.0 / ms.sum(dim=1)).mean())
    stats = behaviour_cloning(agent, game, {}, "greedy", 4000, 8, seed=3, minibatch=256)
    assert stats["accuracy"] > max(0.6, 2 * chance), stats


def test_demonstrations_keep_only_the_learners_seats():
    """``--imitate`` with ``--seats 3`` clones Exit Now's ghost alone: every kept decision
    is the ghost seat's, and they are the ghost's decisions of the same games an
    every-seat collection walks through, in order."""
    import exitnow_envs
    from tabletop_core.train.imitate import collect_demos

    game = exitnow_envs.GAME
    layout = game.observation_layout(game.make_options())
    everyone = collect_demos(game, {}, "smart", 600, seed=4, num_envs=8)
    ghost = collect_demos(game, {}, "smart", 40, seed=4, num_envs=8, seats=[3])
    humans = collect_demos(game, {}, "smart", 100, seed=4, num_envs=8, seats=[0, 1, 2])

    def seat_of(xs):  # the "seat" one-hot: human slots 0..4, then the ghost's
        return layout.decode(xs.float().numpy())["seat"].argmax(axis=-1)

    ghost_slot = layout.decode(everyone[0][0].float().numpy())["seat"].shape[-1] - 1
    assert (seat_of(ghost[0]) == ghost_slot).all()
    assert (seat_of(humans[0]) < 3).all()
    assert ghost[1][torch.arange(40), ghost[2]].all()  # the bot's choices are legal
    # the ghost rows of the every-seat collection, in order, are the ghost-only rows
    rows = np.flatnonzero(seat_of(everyone[0]) == ghost_slot)
    assert rows.size >= 40, rows.size
    for got, full in zip(ghost, everyone, strict=True):
        assert torch.equal(got, full[rows[:40]])
    with pytest.raises(ValueError, match="no seat"):
        collect_demos(game, {}, "smart", 10, seed=4, num_envs=8, seats=[4])


def test_dagger_rounds_label_the_actors_own_positions():
    """DAgger: the positions come from games the actor plays (its seats of a ``--seats``
    choice or every seat), each labelled with the bot's legal choice there; a round
    trained on them raises the actor's agreement with the bot on its own positions."""
    import thegame_env
    from tabletop_core.train.imitate import behaviour_cloning, collect_dagger
    from tabletop_core.train.model import Agent

    game = thegame_env.GAME
    d = game.observation_layout(game.make_options()).dim
    torch.manual_seed(0)
    agent = Agent(d, game.num_actions, (64,))
    xs, ms, acts, before = collect_dagger(
        agent, game, {}, "greedy", 3000, seed=5, seat_groups=[], num_envs=64
    )
    assert xs.shape == (3000, d) and ms[torch.arange(3000), acts].all()  # the bot's labels are legal
    stats = behaviour_cloning(
        agent, game, {}, "greedy", 3000, 6, seed=5, minibatch=256, rounds=1, clone_first=False
    )
    assert stats["rounds"] == 1
    _, _, _, after = collect_dagger(agent, game, {}, "greedy", 3000, seed=6, seat_groups=[], num_envs=64)
    assert after > before + 0.1, (before, after)  # 0.31 -> 0.45 with this seed


def test_bot_actions_are_the_bots_choices_without_playing_them():
    """``batch_bot_actions`` gives what ``step_bots`` then plays (same generators), and
    changes neither the State nor anything else than the bots' generators."""
    import exitnow_envs

    game = exitnow_envs.GAME
    venv = exitnow_envs.vector_env(32)
    venv.reset(seed=4)
    ids = game.bot_ids("smart", venv.num_players)
    for _ in range(40):
        before = venv.state.copy()
        rng = venv._bot_rng.copy()
        chosen = np.empty(32, np.int64)
        game.batch_bot_actions(venv.state, ids, rng, venv._mask, chosen)
        assert venv.state.tobytes() == before.tobytes()
        _, _, _, _, info = venv.step_bots("smart")
        np.testing.assert_array_equal(chosen, info["actions"])
        np.testing.assert_array_equal(rng, venv._bot_rng)


def test_team_seats_hold_several_seats_beside_a_bot():
    """``--seats 0+1+2``: in Exit Now the learner holds the three human seats and the ghost
    bot plays seat 3, so the learner is to act at every step and only ever as a human."""
    import exitnow_envs
    from tabletop_core.envs.single_agent import LearnerCore

    core = LearnerCore(exitnow_envs.GAME, 8, (0, 1, 2), "ghost", {})
    assert core.learners == 0b0111
    core.reset(list(range(8)))
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(300):
        assert (core.cur <= 2).all()
        seen |= set(core.cur.tolist())
        legal = [np.flatnonzero(m) for m in core.mask]
        core.step(np.array([rng.choice(x) for x in legal]), autoreset=True)
    assert seen == {0, 1, 2}


def test_bots_at_the_same_level_share_one_curve_label():
    from tabletop_core.train.plot import level_labels

    levels = {"random": {"mean": -1.0}, "smart": {"mean": -0.6887}, "human": {"mean": -0.6887}}
    assert level_labels(levels) == [(-1.0, "random bot -1"), (-0.6887, "smart = human bots -0.689")]


def test_curve_of_a_cloning_run_has_the_cloning_panel(tmp_path):
    """``plot_curve``: a log with cloning epochs and DAgger rounds gets a second panel
    (a wider picture); a log of PPO alone keeps one."""
    import matplotlib.image

    from tabletop_core.train.plot import plot_curve

    ppo = [
        {"kind": "config", "config": {"game": "koikoi", "options": {}, "seed": 1}},
        {"kind": "levels", "levels": {"greedy": {"mean": 11.0}, "strong": {"mean": 13.0}}},
        {"kind": "eval", "step": 0, "mean": 11.5, "low": 10.5, "high": 12.5},
        {"kind": "eval", "step": 65536, "mean": 11.9, "low": 10.9, "high": 12.9, "final": True},
    ]
    cloning = [
        {"kind": "imitate", "bot": "strong", "round": r, "epoch": e, "accuracy": 0.7 + 0.02 * (3 * r + e)}
        for r in range(2)
        for e in range(1, 4)
    ] + [{"kind": "dagger", "bot": "strong", "round": 1, "agreement": 0.75}]
    widths = []
    for name, records in (("ppo", ppo), ("clone", cloning + ppo)):
        log = tmp_path / f"{name}.jsonl"
        log.write_text("".join(json.dumps(r) + "\n" for r in records))
        plot_curve(str(log), str(tmp_path / f"{name}.png"))
        widths.append(matplotlib.image.imread(str(tmp_path / f"{name}.png")).shape[1])
    assert widths == [640, 960]


# --- the compiled PPO loss ----------------------------------------------------------------------
@pytest.mark.parametrize("seed,k", [(0, 29), (1, 1), (2, 7), (3, 64)])
def test_compiled_ppo_loss_and_gradient_match_torch(seed, k):
    """:func:`ppo_loss_grad` against autograd through the reference loss
    (:func:`~tabletop_core.train.ppo.ppo_loss`), on a minibatch drawn from a larger rollout,
    with padded legal lists and ratios inside and outside the clip."""
    from tabletop_core.train.loss import ppo_loss_grad
    from tabletop_core.train.model import NEG
    from tabletop_core.train.ppo import ppo_loss

    rng = np.random.default_rng(seed)
    m, n = 700, 256
    logits = rng.normal(0, 2, (n, k)).astype(np.float32)
    lbias = np.where(rng.random((m, k)) < 0.4, np.float32(NEG), np.float32(0.0)).astype(np.float32)
    lbias[:, 0] = 0.0
    lpos = np.zeros(m, np.int64)
    for r in range(m):
        lpos[r] = rng.choice(np.flatnonzero(lbias[r] == 0.0))
    idx = rng.choice(m, n, replace=False).astype(np.int64)
    old_logp = (np.log(1.0 / k) + rng.normal(0, 0.5, m)).astype(np.float32)
    adv, ret = rng.normal(0, 3, m).astype(np.float32), rng.normal(0, 1, m).astype(np.float32)
    value = rng.normal(0, 1, n).astype(np.float32)
    clip, vf, ent = 0.2, 0.5, 0.01

    g_logits, g_value, out = np.empty_like(logits), np.empty_like(value), np.empty(5)
    ppo_loss_grad(logits, idx, lbias, lpos, old_logp, adv, ret, value, clip, vf, ent, g_logits, g_value, out)

    tz, tv = torch.from_numpy(logits.copy()).requires_grad_(), torch.from_numpy(value.copy()).requires_grad_()
    loss, parts = ppo_loss(
        tz + torch.from_numpy(lbias[idx]),
        tv,
        torch.from_numpy(lpos[idx]),
        torch.from_numpy(old_logp[idx]),
        torch.from_numpy(adv[idx]),
        torch.from_numpy(ret[idx]),
        clip,
        vf,
        ent,
    )
    loss.backward()
    np.testing.assert_allclose(out, parts.numpy(), rtol=2e-5, atol=1e-6)
    scale = np.abs(tz.grad.numpy()).max()
    np.testing.assert_allclose(g_logits, tz.grad.numpy(), rtol=0, atol=2e-5 * scale)
    np.testing.assert_allclose(g_value, tv.grad.numpy(), rtol=1e-6, atol=1e-9)
    assert np.all(g_logits[lbias[idx] != 0.0] == 0.0)  # nothing flows into the padding
    assert 0.0 < out[4] < 1.0  # some ratios were clipped, some were not


def test_muon_step_is_an_orthogonalised_momentum_step():
    """Muon's first step moves a weight matrix by -lr * 0.2 * sqrt(max dim) times a matrix
    whose singular values are all near 1, in the direction of the gradient's U V^T."""
    from tabletop_core.train.muon import Muon, orthogonalize

    gen = torch.Generator().manual_seed(0)
    w = torch.nn.Parameter(torch.randn(64, 40, generator=gen))
    w.grad = torch.randn(64, 40, generator=gen)
    before = w.detach().clone()
    Muon([w], lr=1e-2, momentum=0.9).step()
    step = (before - w.detach()) / (1e-2 * 0.2 * 64**0.5)
    s = torch.linalg.svdvals(step)
    assert float(s.min()) > 0.6 and float(s.max()) < 1.3, s
    u, _, vh = torch.linalg.svd(w.grad * 1.9, full_matrices=False)  # Nesterov: g + 0.9 g
    assert float((step * (u @ vh)).sum() / (u @ vh).pow(2).sum()) > 0.8
    np.testing.assert_allclose(step.numpy(), orthogonalize(w.grad * 1.9).numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="2-D"):
        Muon([torch.nn.Parameter(torch.zeros(3))])
    with pytest.raises(ValueError, match="momentum"):
        Muon([w], momentum=1.0)


def test_muon_run_is_reproducible_and_resumes_only_as_muon():
    """--optimizer muon: the hidden layers' weights are Muon's and every other parameter
    Adam's; the first update is bit-identical on a rerun and moves every parameter; a
    checkpoint resumes with Muon's momentum and is refused by an Adam run."""
    from tabletop_core.train import Trainer
    from tabletop_core.train.config import ConfigError

    a, acts_a, sa = _first_update(_small(seed=3, optimizer="muon"))
    b, acts_b, sb = _first_update(_small(seed=3, optimizer="muon"))
    adam, _, _ = _first_update(_small(seed=3))
    assert torch.equal(acts_a, acts_b) and sa == sb
    for k in a:
        assert torch.equal(a[k], b[k]), k
    assert not torch.equal(a["trunk.0.weight"], adam["trunk.0.weight"])
    tr = Trainer(_small(seed=3, optimizer="muon"))
    hidden = {id(m.weight) for m in tr.agent.trunk if isinstance(m, torch.nn.Linear)}
    assert {id(p) for p in tr.muon.param_groups[0]["params"]} == hidden
    assert not hidden & {id(p) for p in tr.optim.param_groups[0]["params"]}
    assert len(hidden) + len(tr.optim.param_groups[0]["params"]) == len(list(tr.agent.parameters()))
    tr.collect()
    tr.update(1e-3)
    ck = tr.checkpoint()
    again = Trainer(_small(seed=3, optimizer="muon"))
    again.load_checkpoint(ck)
    for p, q in zip(tr.muon.param_groups[0]["params"], again.muon.param_groups[0]["params"]):
        assert torch.equal(tr.muon.state[p]["momentum_buffer"], again.muon.state[q]["momentum_buffer"])
    with pytest.raises(ConfigError, match="--optimizer muon"):
        Trainer(_small(seed=3)).load_checkpoint(ck)


@pytest.mark.parametrize("optimizer", ["adam", "muon"])
def test_compiled_update_step_matches_the_torch_step(optimizer):
    """The trainer's CPU step (compiled loss) and its torch step, from the same weights on
    the same minibatch: the same statistics and the same weights after the step."""
    from tabletop_core.train import Trainer

    a, b = (Trainer(_small(seed=6, bf16="off", optimizer=optimizer)) for _ in range(2))
    for tr in (a, b):
        tr.collect()
    batch_a, batch_b = a._read_once(a._rollout_batch()), b._rollout_batch()  # in place, copied
    idx = torch.randperm(batch_a.size, generator=torch.Generator().manual_seed(0))[:128]
    sa = a._ppo_step_compiled(batch_a, idx)
    sb = b._ppo_step_torch(batch_b, idx)
    # the first step's pg loss is the mean of normalised advantages (ratio 1): 0 up to rounding
    np.testing.assert_allclose(sa, sb, rtol=1e-5, atol=1e-6)
    for (name, pa), pb in zip(a.agent.state_dict().items(), b.agent.state_dict().values()):
        np.testing.assert_allclose(pa.numpy(), pb.numpy(), rtol=0, atol=1e-6, err_msg=name)


def _fused_trainer(game: str, seed: int = 6):
    from tabletop_core.train import Trainer
    from tabletop_core.train.fused import FusedStep

    options = {"num_players": 2} if game == "thegame" else {}
    tr = Trainer(_small(game=game, options=options, seed=seed, bf16="on"))
    if not isinstance(tr.cpu_step, FusedStep):
        pytest.skip("this CPU / torch build has no oneDNN bfloat16 linear")
    tr.collect()
    return tr


@pytest.mark.parametrize("game", ["thegame", "koikoi"])
def test_fused_step_gradients_are_autograds(game):
    """The fused CPU step written out (no autograd) computes the autograd path's products:
    the same statistics, the weights' gradients to the bit, the biases' within bfloat16
    rounding (summed in float32 where autograd rounded the sum to bfloat16), and Koikoi's
    action-piece gains."""
    tr = _fused_trainer(game)
    batch = tr._read_once(tr._rollout_batch())
    idx = torch.randperm(batch.size, generator=torch.Generator().manual_seed(0))[:128]
    grads, stats = tr.cpu_step.gradients(batch, idx, tr.cfg.clip, tr.cfg.vf_coef, tr.cfg.ent_coef)
    want = tr._autograd_gradients(batch, idx)
    np.testing.assert_allclose(stats, want, rtol=1e-6, atol=1e-7)
    named = dict(tr.agent.named_parameters())
    assert set(grads) == {id(p) for p in named.values()}
    for name, p in named.items():
        got = grads[id(p)]
        assert got.shape == p.shape, name
        if name.endswith("weight"):
            assert got.dtype == torch.bfloat16, name
            assert torch.equal(got.float(), p.grad), name
        else:
            torch.testing.assert_close(got, p.grad, rtol=1e-2, atol=1e-3 * float(p.grad.abs().max()))


def _plain_trainer(game: str, activation: str = "tanh", sparse: bool = True, seed: int = 6):
    from tabletop_core.train import Trainer
    from tabletop_core.train.plain import PlainStep

    options = {"num_players": 2} if game == "thegame" else {}
    tr = Trainer(_small(game=game, options=options, seed=seed, bf16="off", activation=activation))
    assert isinstance(tr.cpu_step, PlainStep)
    if not sparse:
        tr.agent.sparse_input = False
    assert tr.agent.sparse_input == sparse  # both games' first observations are mostly zeros
    tr.collect()
    return tr


@pytest.mark.parametrize(
    "game, activation, sparse",
    [
        ("thegame", "tanh", True),
        ("thegame", "relu", True),
        ("thegame", "tanh", False),
        ("koikoi", "tanh", True),
    ],
)
def test_plain_step_gradients_are_autograds(game, activation, sparse):
    """The float32 CPU step written out (no autograd) computes the autograd path's passes:
    the same statistics and every weight's and bias's gradient to the bit (the first layer
    sparse or dense, tanh or relu), the action pieces' gains within rounding (summed in
    another order); The Game and Koikoi (three pieces)."""
    tr = _plain_trainer(game, activation, sparse)
    batch = tr._read_once(tr._rollout_batch())
    idx = torch.randperm(batch.size, generator=torch.Generator().manual_seed(0))[:128]
    grads, stats = tr.cpu_step.gradients(batch, idx, tr.cfg.clip, tr.cfg.vf_coef, tr.cfg.ent_coef)
    nonzeros = int(tr.agent.input_nonzeros[0])
    want = tr._autograd_gradients(batch, idx)
    assert int(tr.agent.input_nonzeros[0]) == nonzeros  # what the trainer's FLOP count reads
    assert np.array_equal(stats, want)
    named = dict(tr.agent.named_parameters())
    assert set(grads) == {id(p) for p in named.values()}
    for name, p in named.items():
        got = grads[id(p)]
        assert got.shape == p.shape and got.stride() == p.stride(), name
        if name == "action_gain":
            torch.testing.assert_close(got, p.grad, rtol=1e-4, atol=1e-6)
        else:
            assert torch.equal(got, p.grad), name


def test_plain_step_is_the_autograd_step():
    """:meth:`PlainStep.step` over two minibatches (Adam's arrays listed once) leaves the
    parameters where the autograd step (``_ppo_step_compiled``) leaves them, and a
    parameter the step does not know is refused by name."""
    a, b = _plain_trainer("thegame"), _plain_trainer("thegame")
    batch_a, batch_b = (tr._read_once(tr._rollout_batch()) for tr in (a, b))
    cfg = a.cfg
    for seed in range(2):
        idx = torch.randperm(batch_a.size, generator=torch.Generator().manual_seed(seed))[:128]
        sa = a.cpu_step.step(batch_a, idx, a.optim, cfg.clip, cfg.vf_coef, cfg.ent_coef, cfg.max_grad_norm)
        sb = b._ppo_step_compiled(batch_b, idx)
        np.testing.assert_allclose(sa, sb, rtol=1e-6, atol=1e-7)
        for (name, pa), pb in zip(a.agent.named_parameters(), b.agent.parameters()):
            torch.testing.assert_close(pa, pb, rtol=1e-6, atol=1e-7, msg=name)
    stranger = torch.optim.Adam([torch.nn.Parameter(torch.zeros(3))])
    with pytest.raises(ValueError, match="have no kept gradient"):
        a.cpu_step.step(batch_a, idx, stranger, cfg.clip, cfg.vf_coef, cfg.ent_coef, cfg.max_grad_norm)


@pytest.mark.parametrize("seconds", [0, -1.0, float("nan"), float("inf")])
def test_train_bench_refuses_a_window_of_no_time(seconds):
    """``iter_train_bench`` (``benchmarks/train.py --seconds``) names a window that is not a
    finite number above 0, before building a trainer, instead of dividing by zero after
    a window of no update (or never ending one)."""
    from tabletop_core.train.bench import iter_train_bench
    from tabletop_core.train.config import ConfigError

    with pytest.raises(ConfigError, match="seconds must be a finite number above 0"):
        next(iter_train_bench("thegame", seconds=seconds, sb3=False, threads=1))


def test_paired_mfu_is_the_median_of_each_rounds_ratio(monkeypatch):
    """``mfu_paired`` divides each round's FLOPs per second of inference and update by the
    matmuls' mean rate timed right after that round, for as long as the round computed, and
    takes the median over the rounds: a slow matmul window lowers only its own round."""
    from tabletop_core.train import bench

    class Stub:
        cfg = types.SimpleNamespace(lr=1e-3)

        def __init__(self):
            self.flops = {"inference": 0.0, "update": 0.0}
            self.seconds = {"inference": 0.0, "update": 0.0, "env": 0.0, "plumbing": 0.0}
            self.rounds = 0

        def collect(self):
            self.flops["inference"] += 1e9
            self.seconds["inference"] += 0.05

        def update(self, lr):
            self.rounds += 1
            self.flops["update"] += 3e9 * self.rounds
            self.seconds["update"] += 0.15 * self.rounds

    peaks = iter([100.0, 10.0, 50.0, 100.0, 20.0, 100.0, 40.0, 25.0, 80.0])
    asked = []

    def mean_gflops(mats, flops, seconds):
        asked.append(seconds)
        return next(peaks)

    monkeypatch.setattr(bench, "_mean_gflops", mean_gflops)
    stub = Stub()
    rec = bench._paired_mfu(stub, [(8, 4, 4)], "float32", 1)
    assert stub.rounds == bench.PAIRED_ROUNDS == 9
    rates = [(1 + 3 * r) / (0.05 + 0.15 * r) for r in range(1, 10)]
    ratios = [rate / p for rate, p in zip(rates, [100, 10, 50, 100, 20, 100, 40, 25, 80])]
    assert rec["mfu_paired"] == pytest.approx(float(np.median(ratios)))
    assert rec["model_gflops_paired"] == pytest.approx(float(np.median(rates)))
    assert rec["matmul_gflops_paired"] == 50.0
    assert asked == pytest.approx([min(1.0, 0.05 + 0.15 * r) for r in range(1, 10)])


def test_paired_mfu_keeps_the_rounds_done_when_ctrl_c_stops_them(monkeypatch):
    """A Ctrl-C in the paired rounds ends them: the figures are the medians of the rounds
    done and ``paired_rounds`` says how many."""
    from tabletop_core.train import bench

    class Stub:
        cfg = types.SimpleNamespace(lr=1e-3)
        flops = {"inference": 0.0, "update": 0.0}
        seconds = {"inference": 0.0, "update": 0.0}

        def collect(self):
            pass

        def update(self, lr):
            self.flops["update"] += 2e9
            self.seconds["update"] += 0.2

    monkeypatch.setattr(bench, "_mean_gflops", ctrl_c_after([10.0, 40.0]))
    rec = bench._paired_mfu(Stub(), [(8, 4, 4)], "float32", 1)
    assert rec["paired_rounds"] == 2
    assert rec["mfu_paired"] == pytest.approx((1.0 + 0.25) / 2)
    assert rec["matmul_gflops_paired"] == 25.0 and rec["model_gflops_paired"] == pytest.approx(10.0)


def test_train_bench_yields_each_record_before_a_ctrl_c_in_a_later_part(monkeypatch):
    """``iter_train_bench`` (what ``benchmarks/train.py`` and ``tabletop bench --train``
    print) yields the "matmul" and "train" records of a finished window before a Ctrl-C in
    the paired rounds stops it, then raises KeyboardInterrupt; MaskablePPO is not run."""
    from tabletop_core.train import bench

    def no_sb3(*args, **kwargs):
        raise AssertionError("the sb3 measurement ran after a Ctrl-C")

    monkeypatch.setattr(bench, "_mean_gflops", ctrl_c_after([]))
    monkeypatch.setattr(bench, "_sb3_steps_per_s", no_sb3)
    monkeypatch.setattr(bench, "matmul_gflops", lambda shapes, dtype, threads, seconds=1.0: 50.0)
    got = []
    with pytest.raises(KeyboardInterrupt):
        for rec in bench.iter_train_bench("thegame", {"num_players": 2}, seconds=0.01, threads=1):
            got.append(rec)
    assert [r["bench"] for r in got] == ["matmul", "train"]
    assert got[1]["steps"] > 0 and got[1]["mfu"] > 0
    assert got[1]["paired_rounds"] == 0 and got[1]["mfu_paired"] is None


def test_mean_gflops_times_a_whole_window():
    """``_mean_gflops`` runs the matmuls for at least the window asked and gives their FLOPs
    over the window's time."""
    import time as _time

    from tabletop_core.train import bench

    mats, flops = bench._matmuls([(16, 8, 4)], "float32", 1)
    assert flops == 2 * 16 * 8 * 4
    t0 = _time.perf_counter()
    rate = bench._mean_gflops(mats, flops, 0.05)
    assert _time.perf_counter() - t0 >= 0.05
    assert rate > 0


@pytest.mark.parametrize("pieces", [0, 1, 3])
def test_legal_head_is_the_torch_gather_and_piece_sum(pieces):
    """:func:`legal_head` reads a minibatch's legal logits, values and action pieces' term
    from the head's bfloat16 output as torch's gather, float32 copy and :func:`piece_sum`
    do, to the bit; :func:`gain_grads` is the gains' contraction of the legal logits'
    gradient with the pieces' entries."""
    from tabletop_core.train.fused import legal_head
    from tabletop_core.train.head import gain_grads
    from tabletop_core.train.model import piece_sum

    gen = torch.Generator().manual_seed(pieces)
    m, n, k, a = 300, 64, 7, 40
    out = torch.randn((n, a + 1), generator=gen).to(torch.bfloat16)
    index = torch.randint(0, a, (m, k), generator=gen)
    idx = torch.randperm(m, generator=gen)[:n]
    values = torch.randn((m, pieces, k), generator=gen)
    gains = torch.randn(pieces, generator=gen)
    lidx, logits, value = torch.empty((n, k), dtype=torch.int64), torch.empty((n, k)), torch.empty(n)
    args = (values.numpy(), idx.numpy(), gains.numpy(), lidx.numpy(), logits.numpy(), value.numpy())
    legal_head(out.view(torch.int16).numpy(), index.numpy(), idx.numpy(), *args)
    want = out[:, :-1].gather(1, index[idx]).float()
    if pieces:
        want += piece_sum(values[idx], gains)
    assert torch.equal(lidx, index[idx])
    assert torch.equal(logits, want)
    assert torch.equal(value, out[:, -1].float())
    g = torch.randn((n, k), generator=gen)
    got = torch.empty(pieces)
    gain_grads(g.numpy(), values.numpy(), idx.numpy(), 0.5, got.numpy())
    torch.testing.assert_close(got, 0.5 * torch.einsum("nk,njk->j", g, values[idx]), rtol=1e-5, atol=1e-5)


def test_fused_step_takes_adams_step_and_writes_the_shadows():
    """:meth:`FusedStep.step` is :func:`compiled_step` on its gradients (read in bfloat16 in
    place), and leaves the weights' bfloat16 shadows equal to the new weights rounded."""
    from tabletop_core.train.adam import compiled_step

    a, b = _fused_trainer("thegame"), _fused_trainer("thegame")
    batch_a, batch_b = (tr._read_once(tr._rollout_batch()) for tr in (a, b))
    idx = torch.randperm(batch_a.size, generator=torch.Generator().manual_seed(1))[:128]
    cfg = a.cfg
    for _ in range(2):  # the second step starts from the shadows the first wrote
        sa = a.cpu_step.step(batch_a, idx, a.optim, cfg.clip, cfg.vf_coef, cfg.ent_coef, cfg.max_grad_norm)
        grads, sb = b.cpu_step.gradients(batch_b, idx, cfg.clip, cfg.vf_coef, cfg.ent_coef)
        for p in b.agent.parameters():
            p.grad = grads[id(p)].float()
        compiled_step(b.optim, cfg.max_grad_norm)
        b.cpu_step.refresh()
        np.testing.assert_allclose(sa, sb, rtol=1e-6, atol=1e-7)
        for (name, pa), pb in zip(a.agent.named_parameters(), b.agent.parameters()):
            torch.testing.assert_close(pa, pb, rtol=1e-6, atol=1e-7, msg=name)
    shadow = a.cpu_step._shadow
    for name, p in a.agent.named_parameters():
        if id(p) in shadow:
            assert torch.equal(shadow[id(p)], p.detach().to(torch.bfloat16)), name


def test_compiled_step_refuses_gradients_unlike_the_parameters():
    from tabletop_core.train.adam import compiled_step

    net = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(net.parameters())
    good = [torch.zeros(2, 3), torch.zeros(2)]
    with pytest.raises(ValueError, match=r"grads\[0\] must be \(2, 3\)"):
        compiled_step(opt, 1.0, [torch.zeros(3, 2), torch.zeros(2)])
    with pytest.raises(ValueError, match="2 tensors for 2 parameters|1 tensors for 2 parameters"):
        compiled_step(opt, 1.0, good[:1])
    with pytest.raises(ValueError, match=r"shadows\[1\] .* torch.bfloat16"):
        compiled_step(opt, 1.0, good, [None, torch.zeros(2)])
    with pytest.raises(ValueError, match=r"grads\[1\]"):
        compiled_step(opt, 1.0, [good[0], torch.zeros(2, dtype=torch.float64)])


def test_compiled_clip_and_adam_match_torch():
    """:func:`compiled_step` against ``clip_grad_norm_`` then ``Adam(fused=True).step()``
    over steps whose gradients are clipped and steps whose are not, and it keeps Adam's
    state as torch does (a checkpoint reads the same)."""
    from torch import nn

    from tabletop_core.train.adam import compiled_step

    def make():
        torch.manual_seed(0)
        return nn.Sequential(nn.Linear(20, 32), nn.Tanh(), nn.Linear(32, 7))

    a, b = make(), make()
    oa = torch.optim.Adam(a.parameters(), lr=1e-2, eps=1e-5, fused=True)
    ob = torch.optim.Adam(b.parameters(), lr=1e-2, eps=1e-5, fused=True)
    x = torch.randn(64, 20)
    for step in range(6):
        for net in (a, b):
            for p in net.parameters():
                p.grad = None
            (net(x) ** 2).mean().mul(100.0 if step % 2 else 0.01).backward()
        norm_a = float(nn.utils.clip_grad_norm_(a.parameters(), 0.5))
        oa.step()
        norm_b = compiled_step(ob, 0.5)
        assert norm_b == pytest.approx(norm_a, rel=1e-5)
        for pa, pb in zip(a.parameters(), b.parameters()):
            np.testing.assert_allclose(pb.detach().numpy(), pa.detach().numpy(), rtol=0, atol=1e-6)
    for sa, sb in zip(oa.state_dict()["state"].values(), ob.state_dict()["state"].values()):
        assert float(sb["step"]) == float(sa["step"]) == 6
        np.testing.assert_allclose(sb["exp_avg_sq"].numpy(), sa["exp_avg_sq"].numpy(), rtol=1e-4, atol=1e-12)
    # b's first weight stored transposed from here on (Agent.sparse_input), its moments
    # still laid out as before (a checkpoint written before): the same steps as torch's
    b[0].weight.data = b[0].weight.data.t().contiguous().t()
    for _ in range(3):
        for net in (a, b):
            for p in net.parameters():
                p.grad = None
            (net(x) ** 2).mean().backward()
        nn.utils.clip_grad_norm_(a.parameters(), 0.5)
        oa.step()
        compiled_step(ob, 0.5)
        for pa, pb in zip(a.parameters(), b.parameters()):
            np.testing.assert_allclose(pb.detach().numpy(), pa.detach().numpy(), rtol=0, atol=1e-6)
    assert b[0].weight.t().is_contiguous()
    assert ob.state[b[0].weight]["exp_avg"].stride() == b[0].weight.stride()
    with pytest.raises(ValueError, match="weight decay"):
        compiled_step(torch.optim.Adam(a.parameters(), weight_decay=0.1), 0.5)
    b[0].weight.grad = None
    with pytest.raises(ValueError, match="gradient for every parameter"):
        compiled_step(ob, 0.5)


def test_relu_policy_round_trips_and_plays_as_trained(tmp_path):
    """``--activation relu``: the policy file says so, :class:`MLPPolicy` plays what the
    network computes, a tanh run refuses it as ``--init-policy``, and a bad activation in
    a file is named."""
    from tabletop_core.agents.policy import MLPPolicy
    from tabletop_core.contract.catalog import load_game
    from tabletop_core.train import Trainer
    from tabletop_core.train.config import ConfigError, load_init_policy

    tr = Trainer(_small(seed=8, activation="relu", bf16="off"))
    assert isinstance(tr.agent.trunk[1], torch.nn.ReLU)
    pol = MLPPolicy(tr.agent.policy_weights())
    assert pol.activation == "relu"
    path = str(tmp_path / "relu.npz")
    pol.save(path)
    back = MLPPolicy.load(path)
    assert back.activation == "relu"
    obs = np.random.default_rng(0).random((16, pol.obs_dim)).astype(np.float32)
    with torch.no_grad():
        logits, _ = tr.agent(torch.from_numpy(obs))
    mask = np.ones((16, pol.num_actions), np.int8)
    np.testing.assert_array_equal(back(obs, mask), logits.argmax(1).numpy())
    game = load_game("thegame")
    with pytest.raises(ConfigError, match="activation is relu"):
        load_init_policy(path, game, tr.options, (256, 256), "tanh")
    weights = dict(np.load(path))
    weights["activation"] = np.array("swish")
    with pytest.raises(ValueError, match="'swish' is not one of tanh, relu"):
        MLPPolicy(weights)
