"""The ``tabletop`` command line at its edges: each mistake a newcomer can make ends in one
clear message and exit status 2 (130 when interrupted), never a traceback."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_core import cli


def run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_huge_games_is_refused_before_allocating(capsys):
    code, out, err = run(capsys, "match", "thegame", "--bots", "random", "--games", "100000000000")
    assert code == 2
    assert "at most 100,000,000" in err and "Traceback" not in err + out


@pytest.mark.parametrize("seed", ["-1", "18446744073709551616", "99999999999999999999999", "1.5"])
def test_out_of_range_seed_is_refused(capsys, seed):
    code, out, err = run(capsys, "match", "thegame", "--bots", "random", "--games", "3", "--seed", seed)
    assert code == 2
    assert "0 <= SEED < 2**64" in err and "Traceback" not in err


def test_seed_plus_games_must_stay_below_2_64(capsys):
    code, _, err = run(
        capsys, "match", "thegame", "--bots", "random", "--games", "10", "--seed", str(2**64 - 5)
    )
    assert code == 2 and "below 2**64" in err and "seed + 9" in err
    code, out, _ = run(
        capsys, "match", "thegame", "--bots", "random", "--games", "5", "--seed", str(2**64 - 5), "--json"
    )
    assert code == 0


def test_envs_refuse_seeds_outside_the_generator_word():
    import thegame_env

    env = thegame_env.raw_env()
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match="2\\*\\*64"):
            env.reset(seed=bad)
    env.reset(seed=2**64 - 1)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        thegame_env.vector_env(num_envs=4, seed=2**64 - 2)
    venv = thegame_env.vector_env(num_envs=4)
    with pytest.raises(ValueError, match="0 or more"):
        venv.reset(seed=-1)
    with pytest.raises(ValueError, match="0 or more"):
        venv.reset(seed=[0, 1, -2, 3])
    obs, _ = venv.reset(seed=np.uint64(2**64 - 4))
    assert obs.shape[0] == 4
