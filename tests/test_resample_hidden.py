"""``resample_hidden`` in every game, in the style of OpenSpiel's ``ResampleInfostateTest``:
on random play over every option set the resampled state is valid, loads with
``set_state`` and shows the seat the same observation (and mask, when it acts); every
hidden slot really varies over seeds; a hidden slot is uniform (chi-square) on a small
case; the same seed gives the same dict and the input is untouched; bad inputs raise
clear errors."""

from __future__ import annotations

import copy
import math
import pickle
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exhaust_env
import exitnow_envs
import koikoi_env
import thegame_env
from tabletop_core.kernel.rng import sample_legal, seed_word
from tabletop_core.tools.testing import option_grid

# --- the games: a package, and the hidden slots of a record from a seat's view ----------


def _thegame_slots(e, seat):
    """(field, index) of each card ``seat`` cannot see: the other hands and the draw pile."""
    out = []
    for p in range(int(e["cfg_players"])):
        if p != seat:
            out += [("hand", (p, k)) for k in range(int(e["hand_size"][p]))]
    out += [("deck", (j,)) for j in range(int(e["deck_pos"]), 98)]
    return out


def _koikoi_slots(e, seat):
    """(field, index) of each place ``seat`` cannot see: the stock's positions, and (as
    ``loc`` of the unseen cards) which hidden place each unseen card is in."""
    from koikoi_env.rules import unseen_by

    out = [("deck", (j,)) for j in range(int(e["deck_pos"]), 88)]
    out += [("loc", (c,)) for c in range(88) if unseen_by(int(e["loc"][c]), seat)]
    return out


def _exhaust_slots(e, seat):
    """The replenishment and NPC decks' slots, and each other hand's count of each kind
    it could hold (a kind unseen by ``seat``), as (field, index)."""
    seen = e["hand"][seat].astype(int) + e["played"].astype(int)
    solo = int(e["cfg_mode"]) == 2
    if solo:
        seen = seen + e["hand"][1]
    out = [("repl", (j,)) for j in range(int(e["repl_n"]))]
    out += [("npc_deck", (j,)) for j in range(int(e["npc_n"]))]
    for p in range(int(e["cfg_seats"])):
        if p != seat and not (solo and p == 1) and e["hand_n"][p] > 0:
            out += [("hand", (p, k)) for k in range(60) if seen[k] == 0]
    return out


def _exitnow_slots(e, seat):
    """The event deck's slots, and for every other human holding items and the confiscated
    pile, each item kind count (only where ``seat`` does not see every copy of the kind)."""
    humans = int(e["cfg_humans"])
    out = [("deck", (j,)) for j in range(int(e["deck_n"]))]
    seen = e["used"].astype(int) + (e["items"][seat] if seat < humans else 0)
    kinds = [i for i in range(5) if seen[i] < 2]
    if len(kinds) > 1:
        for h in range(humans):
            if h != seat and e["items"][h].sum() > 0:
                out += [("items", (h, i)) for i in kinds]
        if e["confiscated"].sum() > 0:
            out += [("confiscated", (i,)) for i in kinds]
    return out


GAMES = {
    "thegame": (thegame_env, _thegame_slots),
    "koikoi": (koikoi_env, _koikoi_slots),
    "exhaust": (exhaust_env, _exhaust_slots),
    "exitnow": (exitnow_envs, _exitnow_slots),
}
PACKAGES = {name: pkg for name, (pkg, _) in GAMES.items()}


def _grid():
    return [(name, opts) for name, pkg in PACKAGES.items() for opts in option_grid(pkg.GAME)]


def _id(case):
    name, opts = case
    return name + ("-" + "-".join(f"{k}={v}" for k, v in opts.items()) if opts else "")


def _play(env, rng, steps):
    """Play up to ``steps`` random legal actions in the AEC ``env``; False once it ended."""
    for _ in range(steps):
        legal = env.legal_actions()
        if len(legal) == 0:
            return False
        mask = np.zeros(env.game.num_actions, np.int8)
        mask[legal] = 1
        env.step(int(sample_legal(rng, 0, mask)))
    return len(env.legal_actions()) > 0


def _check_view(pkg, opts, env, seat, seed):
    """``seat``'s view of ``env`` survives a determinization with ``seed``."""
    saved = env.get_state()
    new = pkg.resample_hidden(saved, seat, seed)
    other = pkg.raw_env(**opts)
    other.set_state(new)  # runs the game's validate_state
    agent = env.possible_agents[seat]
    a, b = env.observe(agent), other.observe(agent)
    np.testing.assert_array_equal(a["observation"], b["observation"], err_msg=f"seat {seat} observation")
    if agent == env.agent_selection and len(env.legal_actions()):
        np.testing.assert_array_equal(a["action_mask"], b["action_mask"], err_msg=f"seat {seat} mask")
    assert other.agent_selection == env.agent_selection
    return new


# --- (a) the seat's view is unchanged, the state valid, on random play over every option --
@pytest.mark.parametrize("case", _grid(), ids=_id)
def test_view_unchanged_on_random_play(case):
    name, opts = case
    pkg = PACKAGES[name]
    for game in range(2):
        env = pkg.raw_env(**opts)
        env.reset(seed=1000 + game)
        rng = np.array([seed_word(game)], np.uint64)
        n = len(env.possible_agents)
        checks = 0
        alive = True
        while alive and checks < 12:
            for seat in range(n):
                _check_view(pkg, opts, env, seat, seed=checks * 7 + seat)
            checks += 1
            alive = _play(env, rng, 1 + int(rng[0] % np.uint64(9)))
        for seat in range(n):  # and at the end
            _check_view(pkg, opts, env, seat, seed=99)


@pytest.mark.parametrize("name", list(GAMES))
def test_vector_env_every_env_resampled(name):
    pkg = PACKAGES[name]
    venv = pkg.vector_env(3)
    rng = np.array([seed_word(3 + i) for i in range(3)], np.uint64)
    acts = np.zeros(3, np.int64)
    obs, info = venv.reset(seed=5)
    for _ in range(5):
        for i in range(3):
            acts[i] = sample_legal(rng, i, info["action_mask"][i])
        obs, _, _, _, info = venv.step(acts)
    saved = venv.get_state()
    game = pkg.GAME
    d = game.observation_layout(game.make_options()).dim
    for seat in range(len(game.agents(game.make_options()))):
        new = pkg.resample_hidden(saved, seat, 17)
        other = pkg.vector_env(3)
        other.set_state(new)
        for i in range(3):
            a, b = np.empty(d, np.float32), np.empty(d, np.float32)
            game.observe(saved["state"], i, seat, a)
            game.observe(other.state, i, seat, b)
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(new["sample_rng"], saved["sample_rng"])


# --- (b) every hidden slot really varies ------------------------------------------------
def _mid_game(pkg, steps, seed=3, **opts):
    env = pkg.raw_env(**opts)
    env.reset(seed=seed)
    _play(env, np.array([seed_word(seed)], np.uint64), steps)
    return env


@pytest.mark.parametrize("name", list(GAMES))
def test_every_hidden_slot_varies(name):
    pkg, slots = GAMES[name]
    env = _mid_game(pkg, 6)
    saved = env.get_state()
    for seat in range(len(env.possible_agents)):
        news = [pkg.resample_hidden(saved, seat, s)["state"][0] for s in range(50)]
        hidden = slots(saved["state"][0], seat)
        assert hidden, "a mid-game position hides something from every seat"
        for field, idx in hidden:
            values = {int(np.asarray(r[field])[idx]) for r in news}
            assert len(values) > 1, f"{name} seat {seat}: {field}{idx} never changes"
        rngs = {int(r["rng"]) for r in news}
        assert len(rngs) == 50, "the State's generator word is drawn again"


def test_exitnow_items_vary_and_phases_hold():
    """Positions where other humans hold items, and where a human other than the seat
    decides on an item or a Cross: the items vary, the phase's item stays in hand."""
    from exitnow_envs.spec import I_CROSS, I_DOUBLE, I_MOVE7, Phase

    varied = phased = 0
    for game in range(6):
        env = exitnow_envs.raw_env(num_humans=3)
        env.reset(seed=game)
        rng = np.array([seed_word(game)], np.uint64)
        while _play(env, rng, 1) and (varied < 5 or phased < 2):
            saved = env.get_state()
            e = saved["state"][0]
            cur, ph = int(e["current"]), int(e["phase"])
            seat = 3  # the ghost player sees no item
            held = [h for h in range(3) if e["items"][h].sum() > 0]
            if ph in (Phase.ITEM, Phase.CROSS) and cur < 3:
                phased += 1
                for s in range(20):
                    r = exitnow_envs.resample_hidden(saved, seat, s)["state"][0]
                    if ph == Phase.ITEM:
                        assert r["items"][cur, I_DOUBLE] + r["items"][cur, I_MOVE7] > 0
                    else:
                        assert r["items"][cur, I_CROSS] > 0
            elif held and varied < 5:
                news = {
                    exitnow_envs.resample_hidden(saved, seat, s)["state"][0]["items"].tobytes()
                    for s in range(30)
                }
                varied += len(news) > 1
    assert varied >= 5 and phased >= 1, (varied, phased)


# --- (c) uniformity on a small case -----------------------------------------------------
def _chi2_critical(df: int, p: float = 0.001) -> float:
    """The upper ``p`` quantile of chi-square with ``df`` degrees of freedom
    (Wilson-Hilferty; z = 3.0902 for p = 0.001)."""
    z = 3.0902 if p == 0.001 else None
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + z * math.sqrt(h)) ** 3


def _assert_uniform(values, support, label):
    counts = Counter(values)
    assert set(counts) <= set(support), f"{label}: values outside {sorted(support)}"
    n = len(values)
    expected = n / len(support)
    chi2 = sum((counts.get(v, 0) - expected) ** 2 / expected for v in support)
    crit = _chi2_critical(len(support) - 1)
    assert chi2 < crit, f"{label}: chi-square {chi2:.1f} >= {crit:.1f} over {len(support)} values"


def test_thegame_uniform():
    env = _mid_game(thegame_env, 0, num_players=2)  # the deal: seat 0 sees its 7 cards
    saved = env.get_state()
    e = saved["state"][0]
    mine = set(e["hand"][0, :7].tolist())
    support = [c for c in range(2, 100) if c not in mine]
    draws = []
    for s in range(2000):
        r = thegame_env.resample_hidden(saved, 0, s)["state"][0]
        draws.append(int(r["hand"][1, 0]))
    _assert_uniform(draws, support, "thegame hand[1, 0]")


def test_koikoi_uniform():
    env = _mid_game(koikoi_env, 0, num_players=2)  # the deal: seat 0 sees its hand and the field
    saved = env.get_state()
    e = saved["state"][0]
    from koikoi_env.rules import unseen_by

    support = [c for c in range(88) if unseen_by(int(e["loc"][c]), 0)]
    assert len(support) == 88 - 16
    draws = [int(koikoi_env.resample_hidden(saved, 0, s)["state"][0]["deck"][87]) for s in range(2000)]
    _assert_uniform(draws, support, "koikoi bottom of the stock")


def test_exhaust_uniform():
    env = _mid_game(exhaust_env, 0, num_players=2)  # the deal: seat 0 sees its 15 cards
    saved = env.get_state()
    mine = saved["state"][0]["hand"][0]
    copies = 4 - int(mine[60])  # 49 unseen cards: these copies and the number cards not held
    support = [k for k in range(60) if mine[k] == 0]
    assert len(support) + copies == 64 - 15
    draws = [int(exhaust_env.resample_hidden(saved, 0, s)["state"][0]["repl"][0]) for s in range(2000)]
    number_draws = [d for d in draws if d < 60]
    assert abs(len(number_draws) / len(draws) - len(support) / 49) < 0.05
    _assert_uniform(number_draws, support, "exhaust replenishment top")


def test_exitnow_uniform():
    env = _mid_game(exitnow_envs, 0, num_humans=2)  # the start: nobody holds an item
    saved = env.get_state()
    draws = [int(exitnow_envs.resample_hidden(saved, 2, s)["state"][0]["deck"][16]) for s in range(2000)]
    full = [0, 0, 1, 2, 3, 4, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10]  # spec.DECK: the bottom card's law
    counts = Counter(draws)
    n = len(draws)
    chi2 = sum((counts.get(c, 0) - n * full.count(c) / 17) ** 2 / (n * full.count(c) / 17) for c in set(full))
    assert chi2 < _chi2_critical(len(set(full)) - 1), chi2


# --- (d) determinism, the input untouched -----------------------------------------------
@pytest.mark.parametrize("name", list(GAMES))
def test_deterministic_and_input_untouched(name):
    pkg = PACKAGES[name]
    env = _mid_game(pkg, 5)
    saved = env.get_state()
    before = pickle.dumps(saved)
    a = pkg.resample_hidden(saved, 0, 123)
    b = pkg.resample_hidden(copy.deepcopy(saved), 0, 123)
    assert pickle.dumps(saved) == before
    assert a["state"].tobytes() == b["state"].tobytes()
    assert a is not saved and a["state"] is not saved["state"]
    c = pkg.resample_hidden(saved, 0, 124)
    assert c["state"].tobytes() != a["state"].tobytes()
    agent = env.possible_agents[0]
    assert pkg.resample_hidden(saved, agent, 123)["state"].tobytes() == a["state"].tobytes()


# --- (e) clear errors -------------------------------------------------------------------
@pytest.mark.parametrize("name", list(GAMES))
def test_bad_inputs(name):
    pkg = PACKAGES[name]
    env = _mid_game(pkg, 2)
    saved = env.get_state()
    n = len(env.possible_agents)
    for seat in (-1, n, "nobody", 1.0, True, None):
        with pytest.raises(ValueError, match="seat"):
            pkg.resample_hidden(saved, seat, 0)
    for seed in (None, 1.5, "0", True):
        with pytest.raises(ValueError, match="seed"):
            pkg.resample_hidden(saved, 0, seed)
    for bad in (None, [], {"game": "x", "state": saved["state"]}, {"game": saved["game"]}):
        with pytest.raises(ValueError, match="get_state"):
            pkg.resample_hidden(bad, 0, 0)
    for other, opkg in PACKAGES.items():
        if other != name:
            with pytest.raises(ValueError):
                pkg.resample_hidden(_mid_game(opkg, 1).get_state(), 0, 0)
    broken = copy.deepcopy(saved)
    broken["state"]["current"] = 77
    with pytest.raises(ValueError, match="current"):
        pkg.resample_hidden(broken, 0, 0)


@pytest.mark.parametrize("name", list(GAMES))
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=-(2**70), max_value=2**70), seat=st.integers(min_value=-3, max_value=8))
def test_any_int_seed_and_seat(name, seed, seat):
    pkg = PACKAGES[name]
    env = _mid_game(pkg, 3)
    saved = env.get_state()
    n = len(env.possible_agents)
    if not 0 <= seat < n:
        with pytest.raises(ValueError, match="seat"):
            pkg.resample_hidden(saved, seat, seed % 2**64)
    elif not 0 <= seed < 2**64:  # the project's seed range, as reset() and --seed refuse
        with pytest.raises(ValueError, match="seed"):
            pkg.resample_hidden(saved, seat, seed)
    else:
        _check_view(pkg, {}, env, seat, seed)
