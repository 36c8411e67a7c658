"""A fifth game, Leduc hold'em (``tests/contract_game``), written only against the public
game contract, passes everything the four shipped games pass: PettingZoo's checks, the
shared conformance suite, scripted hands with known payoffs, random play over every
option, a differential test against a slow pure-Python Leduc, the CLI's match and
render, and hidden information in every view.

The game is listed in the catalog the way any game outside this distribution would be,
by :func:`tabletop_core.contract.catalog.register_game` (``_catalog`` below); its folder
is the only place it is written.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test as pz_api_test
from pettingzoo.test import seed_test

from tabletop_core.contract.catalog import register_game
from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.testing import (
    api_test,
    assert_aec_matches_vector,
    assert_state_roundtrip,
    check_spaces_and_a_whole_game,
    option_grid,
)
from tests import contract_game as leduc
from tests.contract_game.game import rank_of
from tests.contract_game.rules import CALL, FOLD, RAISE

GRID = option_grid(leduc.GAME)


@pytest.fixture(autouse=True, scope="module")
def _catalog():
    """List the game in the catalog (as its entry point would) for this module's tests, and
    take it out again, so later tests see the installed games only."""
    from tabletop_core.contract import catalog

    register_game("leduc", "tests.contract_game.game:GAME")
    yield
    catalog._REGISTERED.pop("leduc", None)


# --- the contract's conformance -------------------------------------------------------------
def test_option_grid_takes_every_option_to_each_value():
    assert {} in GRID and {"max_raises": 1} in GRID and {"max_raises": 4} in GRID
    assert {"start_player": 1} in GRID and {"reward": "win"} in GRID


def test_api_test_over_every_option():
    """``tabletop_core.tools.testing.api_test``: PettingZoo's api_test and seed_test on env and
    raw_env, spaces, a whole random game, save/restore, AEC ≡ vector."""
    assert api_test("leduc", cycles=20, steps=120) == len(GRID)


def test_conformance_pieces_one_by_one():
    """The same pieces called directly (what a game not in the catalog would run)."""
    opts = {"max_raises": 3}
    pz_api_test(leduc.env(**opts), num_cycles=10)
    pz_api_test(leduc.raw_env(**opts), num_cycles=10)
    seed_test(lambda: leduc.env(**opts), num_cycles=10)
    check_spaces_and_a_whole_game(leduc, leduc.GAME, opts)
    saved = assert_state_roundtrip(leduc.raw_env(**opts), warmup=3, steps=4)
    with pytest.raises(ValueError, match="other game options"):
        leduc.raw_env(max_raises=2).set_state(saved)
    assert assert_aec_matches_vector(leduc, opts, num_envs=4, steps=100) > 0


def test_the_declaration_is_what_only_the_game_knows():
    """The core derives the rest: the env ids, the action count from the hooks, the bot
    glue, the face, and the zero-sum check of ended hands' returns."""
    game = leduc.GAME
    assert leduc.ENV_ID == game.ENV_ID == "tabletop/" + game.name + "-v1"
    assert game.env_id == "leduc_v1" and game.num_actions == 3
    assert game.observation_layout(None).dim == 13 and game.players_option == "num_players"
    assert game.hooks.bot_move is None  # the core's glue: random_move, else mask + bot_action
    assert game.resample_hidden is None and game.bot_choices == ("random", "strong")
    assert set(leduc.__all__) >= {"GAME", "env", "raw_env", "vector_env", "ENV_ID", "decode_observation"}
    ok = game.return_identity(np.array([[3.0, -3.0], [3.0, -2.0]]), np.zeros(2), None)
    assert ok.tolist() == [True, False]
    assert game.render_view(game.new_state(1, game.make_options()), None, 0).startswith("Leduc")


def test_game_is_importable_from_the_package_top():
    """``from contract_game import GAME`` with ``tests/`` on ``sys.path`` (a benchmark's
    import), in a fresh process beside nothing else."""
    import os
    import pathlib
    import subprocess
    import sys

    tests = pathlib.Path(__file__).resolve().parent
    code = "from contract_game import GAME; print(GAME.name, GAME.package, GAME.num_actions)"
    env = {**os.environ, "PYTHONPATH": f"{tests}{os.pathsep}{tests.parent}"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["leduc", "contract_game", "3"]


# --- scripted hands with known payoffs ----------------------------------------------------
def _cards(env, seed):
    """The private cards and the public card of the hand dealt with ``seed`` (the public
    card does not depend on round 0's actions: found by checking round 0 through)."""
    env.reset(seed=seed)
    priv = env.get_state()["state"]["private"][0].tolist()
    env.step(CALL)
    env.step(CALL)
    return priv, int(env.get_state()["state"]["public"][0])


def _seed_where(env, want):
    for seed in range(500):
        priv, pub = _cards(env, seed)
        if want([rank_of(c) for c in priv], rank_of(pub)):
            return seed
    raise AssertionError("no such deal in 500 seeds")


def test_check_down_and_the_pair_wins():
    env = leduc.raw_env()
    seed = _seed_where(env, lambda r, pub: r[1] == pub and r[0] != pub)  # seat 1 pairs
    env.reset(seed=seed)
    for a in (CALL, CALL, CALL):
        env.step(a)
    assert not any(env.terminations.values())
    env.step(CALL)
    assert [env.rewards[a] for a in env.possible_agents] == [-1.0, 1.0]  # the antes change hands
    assert env.infos["player_1"] == {"status": "showdown", "winner": 1, "won": True, "chips": 1}


def test_a_fold_gives_the_pot_to_the_other_seat():
    env = leduc.raw_env(start_player=1)
    env.reset(seed=0)
    assert env.agent_selection == "player_1"
    assert list(env.legal_actions()) == [CALL, RAISE]  # nothing to fold to
    env.step(RAISE)  # player_1 bets 2
    assert list(env.legal_actions()) == [FOLD, CALL, RAISE]
    env.step(RAISE)  # player_0 re-raises to 5
    assert list(env.legal_actions()) == [FOLD, CALL]  # max_raises 2 reached
    env.step(FOLD)  # player_1 gives up its 3
    assert [env.rewards[a] for a in env.possible_agents] == [3.0, -3.0]
    assert env.infos["player_0"]["status"] == "folded"


def test_raise_call_to_a_showdown_with_a_split_pot():
    env = leduc.raw_env(reward="chips")
    seed = _seed_where(env, lambda r, pub: r[0] == r[1])  # same rank: no pair possible
    env.reset(seed=seed)
    for a in (RAISE, CALL, RAISE, RAISE):  # 3 each after round 0; round 1: 7, 11
        env.step(a)
    env.step(CALL)
    assert env.get_state()["state"]["contrib"][0].tolist() == [11, 11]
    assert [env.rewards[a] for a in env.possible_agents] == [0.0, 0.0]
    assert env.infos["player_0"]["status"] == "showdown" and env.infos["player_0"]["winner"] == -1


def test_the_higher_card_wins_without_a_pair_and_reward_win_pays_one():
    env = leduc.raw_env(reward="win")
    seed = _seed_where(env, lambda r, pub: r[0] > r[1] and pub not in r)
    env.reset(seed=seed)
    for a in (RAISE, RAISE, CALL, RAISE, CALL):
        env.step(a)
    assert [env.rewards[a] for a in env.possible_agents] == [1.0, -1.0]


# --- a slow pure-Python Leduc, and the vector env against it ----------------------------------
_M = (1 << 64) - 1


def _randint(w: int, n: int) -> tuple[int, int]:
    """SplitMix64 then Lemire on the high 32 bits: the documented draw of ``tabletop_core.kernel.rng``."""
    w = (w + 0x9E3779B97F4A7C15) & _M
    z = ((w ^ (w >> 30)) * 0xBF58476D1CE4E5B9) & _M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M
    z ^= z >> 31
    return w, ((z >> 32) * n) >> 32


class RefLeduc:
    """Leduc hold'em from the rules text, one hand after another on one generator word.
    Shares only the chance convention with the kernels (two draws for the private cards,
    the second skipping the first; one draw among the four unseen cards in id order for
    the public card)."""

    BET = (2, 4)

    def __init__(self, seed: int, max_raises=2, start_player=0, reward="chips"):
        self.w = int(seed_word(seed))
        self.max_raises, self.start, self.reward = max_raises, start_player, reward
        self.deal()

    def draw(self, n: int) -> int:
        self.w, k = _randint(self.w, n)
        return k

    def deal(self):
        a = self.draw(6)
        b = self.draw(5)
        self.cards = [a, b if b < a else b + 1]
        self.public = None
        self.round, self.history, self.pot = 0, "", [1, 1]
        self.to_act, self.done = self.start, False

    def legal(self) -> list[int]:
        me, you = self.to_act, 1 - self.to_act
        out = [FOLD] if self.pot[me] < self.pot[you] else []
        out.append(CALL)
        if self.history.count("r") < self.max_raises:
            out.append(RAISE)
        return out

    def step(self, a: int) -> list[float]:
        assert a in self.legal()
        me, you = self.to_act, 1 - self.to_act
        if a == FOLD:
            return self.finish(winner=you)
        if a == RAISE:
            self.pot[me] = self.pot[you] + self.BET[self.round]
            self.history += "r"
        else:
            self.pot[me] = self.pot[you]
            self.history += "c"
            if len(self.history) >= 2:  # check-check or a called raise
                if self.round == 1:
                    return self.showdown()
                unseen = [c for c in range(6) if c not in self.cards]
                self.public = unseen[self.draw(4)]
                self.round, self.history, self.to_act = 1, "", self.start
                return [0.0, 0.0]
        self.to_act = you
        return [0.0, 0.0]

    def showdown(self) -> list[float]:
        ranks = [c // 2 for c in self.cards]
        pub = self.public // 2
        pairs = [r == pub for r in ranks]
        if pairs[0] != pairs[1]:
            return self.finish(winner=0 if pairs[0] else 1)
        if ranks[0] == ranks[1]:
            return self.finish(winner=None)
        return self.finish(winner=0 if ranks[0] > ranks[1] else 1)

    def finish(self, winner) -> list[float]:
        self.done = True
        if winner is None:
            return [0.0, 0.0]
        amount = 1.0 if self.reward == "win" else float(self.pot[1 - winner])
        return [amount if s == winner else -amount for s in range(2)]


@pytest.mark.parametrize("opts", GRID, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_vector_env_matches_the_python_reference(opts):
    n, seed = 16, 1000
    venv = leduc.vector_env(n, **opts)
    obs, info = venv.reset(seed=seed)
    refs = [RefLeduc(seed + i, **opts) for i in range(n)]
    rng = np.random.default_rng(5)
    hands = 0
    for _ in range(300):
        actions = np.zeros(n, np.int64)
        for i, ref in enumerate(refs):
            mask = info["action_mask"][i]
            assert np.flatnonzero(mask).tolist() == ref.legal(), (i, ref.history)
            assert info["current_player"][i] == ref.to_act
            seen = leduc.decode_observation(obs[i])
            assert seen["own_card"].argmax() == ref.cards[ref.to_act] // 2
            assert seen["public_card"].sum() == (ref.public is not None)
            assert seen["contrib"].tolist() == [ref.pot[ref.to_act], ref.pot[1 - ref.to_act]]
            actions[i] = rng.choice(ref.legal())
        obs, rewards, term, trunc, info = venv.step(actions)
        assert not trunc.any()
        np.testing.assert_array_equal(rewards.sum(axis=1), 0)  # zero-sum
        for i, ref in enumerate(refs):
            np.testing.assert_array_equal(rewards[i], ref.step(int(actions[i])))
            assert bool(term[i]) == ref.done
            if ref.done:
                hands += 1
                ref.deal()  # the env autoresets on the same generator word
    leduc.GAME.validate_state(venv.get_state())
    assert hands > 100


def test_random_and_bot_play_over_every_option_keep_the_state_valid():
    for opts in GRID:
        venv = leduc.vector_env(64, seed=3, **opts)
        venv.reset()
        ended = 0
        for k in range(60):
            obs, rew, term, trunc, info = (
                venv.step(venv.sample_actions()) if k % 2 else venv.step_bots("strong")
            )
            assert (obs >= 0).all() and (obs <= 1).all()
            np.testing.assert_array_equal(rew.sum(axis=1), 0)
            assert np.abs(rew).max() <= leduc.GAME.reward_range[1]
            ended += int(term.sum())
            leduc.GAME.validate_state(venv.get_state())
        assert ended > 0, opts


def test_bots_strong_beats_random():
    from tabletop_core.tools.arena import run_match

    res = run_match(leduc.GAME, "strong,random", 4000, seed=1)
    mean = res.returns.mean(axis=0)
    assert mean[0] > 0.3 and mean[1] == -mean[0]


def test_validate_state_rejects_impossible_hands():
    env = leduc.raw_env()
    env.reset(seed=2)
    saved = env.get_state()
    bad = {**saved, "state": saved["state"].copy()}
    bad["state"]["private"][0] = (4, 4)
    with pytest.raises(ValueError, match="private"):
        env.set_state(bad)
    bad = {**saved, "state": saved["state"].copy()}
    bad["state"]["public"][0] = 0
    with pytest.raises(ValueError, match="public"):
        env.set_state(bad)


# --- the CLI ------------------------------------------------------------------------------
def test_tabletop_match_and_render(tmp_path, capsys):
    from tabletop_core.cli import main

    assert (
        main(["match", "leduc", "--bots", "strong,random", "--games", "500", "--json", "--max-raises", "3"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "leduc" and out["games"] == 500 and out["options"]["max_raises"] == 3
    assert set(out["stats"]) == {"showdown", "split", "pot"}
    for view in ("omniscient", "0", "player_1"):
        path = tmp_path / f"t{view}.svg"
        assert main(["render", "leduc", "--out", str(path), "--view", view, "--steps", "2"]) == 0
        text = path.read_text()
        assert text.startswith("<svg") and f'width="{leduc.GAME.svg_size[0]}"' in text
    env = leduc.raw_env(render_mode="ansi")
    env.reset(seed=4)
    assert "Leduc hold'em" in env.render()
    env = leduc.raw_env(render_mode="svg")
    env.reset(seed=4)
    assert env.render().startswith("<svg")


# --- hidden information -----------------------------------------------------------------------
def test_views_hide_the_opponents_card():
    from tests.contract_game.game import card_name

    env = leduc.raw_env()
    for seed in range(30):
        env.reset(seed=seed)
        st = env.get_state()["state"]
        c0, c1 = (card_name(int(c)) for c in st["private"][0])
        for seat, mine, theirs in ((0, c0, c1), (1, c1, c0)):
            text = leduc.GAME.render_view(st, env.options, seat)
            line = [ln for ln in text.splitlines() if f"player_{1 - seat}:" in ln][0]
            assert "??" in line and theirs not in line and mine in text
            svg = leduc.GAME.render_svg(st, env.options, seat)
            assert f">{theirs}<" not in svg and f">{mine}<" in svg
        # the observation of a seat does not change with the other seat's card
        other = env.get_state()
        other["state"] = st.copy()
        spare = [c for c in range(6) if c not in st["private"][0]][0]
        other["state"]["private"][0, 1] = spare
        before = env.observe("player_0")["observation"]
        env.set_state(other)
        np.testing.assert_array_equal(env.observe("player_0")["observation"], before)
