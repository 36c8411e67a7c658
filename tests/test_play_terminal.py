"""Scripted terminal sessions of ``tabletop play`` (pexpect): a full game per game with
the defaults, the environment's own moves shown, and the specific messages for bad input."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[1]
ENTRY = re.compile(r"(?:^|\s)(\d+): ", re.M)


def spawn(*args: str):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100", "LINES": "40"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "tabletop_core.cli", "play", *args],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=240,
        dimensions=(40, 100),
    )
    return child


def play_full_game(child) -> str:
    """Answer every prompt with the first legal action listed; return the transcript."""
    transcript = []
    while True:
        k = child.expect(["\r\n> ", pexpect.EOF])
        transcript.append(child.before)
        if k == 1:
            break
        block = child.before.rsplit("legal action", 1)[-1]
        first = ENTRY.search(block)
        assert first, block
        child.sendline(first.group(1))
    child.close()
    assert child.exitstatus == 0, "".join(transcript)[-3000:]
    return "".join(transcript).replace("\r\n", "\n")


@pytest.mark.parametrize(
    "game, env_moves",
    [
        (
            "thegame",
            [r"player_1 drew \d cards?", r"game over: .*Score \d+ \(cards left in hands and draw pile\)"],
        ),
        ("exhaust", [r"player_\d cast \S+", r"game over: .* could not act and lost"]),
        ("koikoi", [r"flipped \S+ from the stock", r"drew \S+", r"round 1 over: ", r"game over \("]),
        (
            "exitnow",
            [r"ghost_0 \(smart\): ghost slide", r"ghost g1 rolled \d", r"human_\d rolled \d", r"game over: "],
        ),
    ],
)
def test_full_game_with_defaults_shows_the_environments_moves(game, env_moves):
    out = play_full_game(spawn(game, "--seed", "3"))
    assert f"{game}: you are " in out and "legal action" in out
    for pattern in env_moves:
        assert re.search(pattern, out), (pattern, out[-4000:])
    assert "game over — episode returns:" in out
    assert "Traceback" not in out
