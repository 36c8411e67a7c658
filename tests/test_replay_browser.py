"""Replays: the HTML page from ``write_html`` holds every step and view, needs no network,
and a real headless Chromium draws it (Debian's ``chromium`` and ``chromium-driver``,
driven by Selenium); ``tabletop replay`` and ``tabletop render`` from the command line."""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import thegame_env
from tabletop_core.cli import main
from tabletop_core.tools.replay import OMNISCIENT, capture, play_episode, write_gif, write_html


def _payload(page: str) -> dict:
    m = re.search(r'<script id="replay-data"[^>]*data-gzip="1">([^<]*)</script>', page)
    assert m, "no embedded replay data"
    return json.loads(gzip.decompress(base64.b64decode(m.group(1))))


def test_write_html_embeds_every_step_and_view_and_needs_no_network(tmp_path):
    env = thegame_env.raw_env(num_players=2)
    env.reset(seed=4)
    frames = [capture(env)]
    rng = np.random.default_rng(0)
    while not all(env.terminations.values()):
        agent = env.agent_selection
        a = int(rng.choice(env.legal_actions()))
        env.step(a)
        frames.append(capture(env, action=a, agent=agent))
    out = write_html(frames, tmp_path / "game.html", title="random play")
    page = out.read_text()
    assert "<script src" not in page and "<link" not in page and "http" not in page.split("<script")[0]
    for control in (
        'id="first"',
        'id="back"',
        'id="play"',
        'id="next"',
        'id="last"',
        'id="slider"',
        'id="view"',
    ):
        assert control in page
    data = _payload(page)
    assert data["views"] == [OMNISCIENT, "player_0", "player_1"]
    assert len(data["frames"]) == len(frames)
    last = data["frames"][-1]
    assert last["names"] == [frames[-1].caption(v) for v in data["views"]] and last["acting"] is None
    assert last["names"][0] == frames[-1].action_name and last["ids"][0] == frames[-1].action
    assert last["totals"][0] == pytest.approx(sum(f.rewards["player_0"] for f in frames))
    for k, v in zip(last["svg"], data["views"]):
        text = "".join(data["parts"][i] for i in data["svgs"][k])
        assert text == frames[-1].svgs[v]
        ET.fromstring(text)
    assert last["outcome"] == frames[-1].outcome == thegame_env.narrate.end_text(env._state)
    assert all(not f.outcome for f in frames[:-1])
    plain = write_html(frames[:3], tmp_path / "plain.html", compress=False).read_text()
    assert '"views":["omniscient","player_0","player_1"]' in plain
    assert "</script" not in plain.split('id="replay-data"')[1].split("</script>")[0]


@pytest.mark.slow
def test_write_gif_animates_one_view(tmp_path):
    pytest.importorskip("resvg_py")
    from PIL import Image

    frames = play_episode("thegame", "strong", seed=1, num_players=2, views=[OMNISCIENT, "player_1"])[:6]
    out = write_gif(frames, tmp_path / "g.gif", view="player_1")
    with Image.open(out) as im:
        w, h = thegame_env.GAME.svg_size
        assert im.n_frames == 6 and im.size == (w, h + 22)  # the caption strip under the table
    with pytest.raises(ValueError, match="unknown view"):
        write_gif(frames, tmp_path / "h.gif", view="player_0")
    assert main(["replay", "thegame", "--seed", "1", "--out", str(tmp_path / "r.gif")]) == 0


def test_write_html_errors(tmp_path):
    with pytest.raises(ValueError, match="at least one frame"):
        write_html([], tmp_path / "x.html")
    env = thegame_env.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="does not exist"):
        write_html([capture(env)], tmp_path / "missing" / "x.html")
    with pytest.raises(ValueError, match="unknown view"):
        capture(env, views=["player_7"])


def test_play_episode_with_a_policy_seat(tmp_path):
    pkg = thegame_env
    env = pkg.raw_env(num_players=2)
    d, a = env.layout.dim, pkg.GAME.num_actions
    rng = np.random.default_rng(1)
    path = tmp_path / "p.npz"
    np.savez(
        path,
        W0=rng.normal(size=(d, 8)).astype(np.float32),
        b0=np.zeros(8, np.float32),
        W1=rng.normal(size=(8, a)).astype(np.float32),
        b1=np.zeros(a, np.float32),
    )
    frames = play_episode("thegame", f"policy:{path},strong", seed=2, num_players=2, views=[OMNISCIENT])
    assert frames[-1].acting is None and len(frames) > 10
    assert {f.agent for f in frames[1:]} == {"player_0", "player_1"}
    with pytest.raises(ValueError, match="observations"):
        play_episode("thegame", f"policy:{path}", seed=2, num_players=3)


def test_replay_and_render_commands(tmp_path, capsys):
    out = tmp_path / "g.html"
    assert (
        main(["replay", "thegame", "--bots", "strong", "--seed", "3", "--players", "2", "--out", str(out)])
        == 0
    )
    data = _payload(out.read_text())
    assert len(data["frames"]) > 10 and data["frames"][-1]["acting"] is None
    assert main(["replay", "thegame", "--out", str(tmp_path / "g.txt")]) == 2
    assert "html" in capsys.readouterr().err
    for game in ("thegame", "exhaust", "koikoi", "exitnow"):
        svg = tmp_path / f"{game}.svg"
        png = tmp_path / f"{game}.png"
        assert main(["render", game, "--out", str(svg), "--view", "0", "--steps", "3"]) == 0
        root = ET.fromstring(svg.read_text())
        assert root.get("width")
        pytest.importorskip("resvg_py")
        from PIL import Image

        assert main(["render", game, "--out", str(png)]) == 0
        with Image.open(png) as im:
            assert im.size == (int(root.get("width")), int(root.get("height")))
    assert main(["render", "koikoi", "--out", str(tmp_path / "t.jpg")]) == 2
    assert ".svg or .png" in capsys.readouterr().err
    assert main(["render", "koikoi", "--out", str(tmp_path / "no" / "t.png")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["render", "koikoi", "--view", "player_9", "--out", str(tmp_path / "t.svg")]) == 2
    assert "view must be" in capsys.readouterr().err
    assert main(["render", "koikoi", "--on-fire", "--out", str(tmp_path / "t.svg")]) == 2
    assert "unrecognized arguments: --on-fire" in capsys.readouterr().err
    assert main(["replay", "thegame", "--rounds", "2", "--out", str(tmp_path / "t.html")]) == 2
    assert "unrecognized arguments: --rounds" in capsys.readouterr().err


# --- a real browser -------------------------------------------------------------------------
def _chromium():
    """A headless Chromium driven by Selenium with Debian's chromedriver, or a skip."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (test extra)")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        pytest.skip(
            "no chromium/chromedriver on PATH: install Debian's 'chromium' and 'chromium-driver' "
            "(apt-get install chromium chromium-driver) to run the browser test"
        )
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1300,1200",
    ):
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=driver), options=opts)


def test_replay_page_in_headless_chromium(tmp_path):
    from PIL import Image
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    frames = play_episode("koikoi", "strong", seed=5, num_players=2, rounds=1)
    n = len(frames)
    page = write_html(frames, tmp_path / "koikoi.html", title="koikoi replay")
    drv = _chromium()
    try:
        drv.get(page.resolve().as_uri())
        WebDriverWait(drv, 30).until(
            lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1"
        )
        label = drv.find_element(By.ID, "step-label")
        assert label.text == f"step 0 / {n - 1}"
        drv.find_element(By.ID, "next").click()
        assert label.text == f"step 1 / {n - 1}"
        assert frames[1].action_name in drv.find_element(By.ID, "action").text
        drv.find_element(By.ID, "last").click()
        assert label.text == f"step {n - 1} / {n - 1}"
        assert "episode over" in drv.find_element(By.ID, "action").text
        heads = drv.find_elements(By.CSS_SELECTOR, "#rewards thead th")
        assert [h.text for h in heads] == ["agent", "player_0", "player_1"]
        returns = drv.find_elements(By.CSS_SELECTOR, "#rewards tbody tr")[1].find_elements(By.TAG_NAME, "td")
        assert [float(c.text) for c in returns] == pytest.approx(
            [sum(f.rewards[a] for f in frames) for a in ("player_0", "player_1")]
        )
        table = drv.find_element(By.ID, "table")
        assert "omniscient view" in table.get_attribute("innerHTML")
        Select(drv.find_element(By.ID, "view")).select_by_index(1)
        assert "player_0's view" in table.get_attribute("innerHTML")
        assert label.text == f"step {n - 1} / {n - 1}"  # the view changes, the step stays
        shot = Image.open(io.BytesIO(drv.get_screenshot_as_png())).convert("RGB")
        r = table.find_element(By.TAG_NAME, "svg").rect
        assert r["y"] + r["height"] <= shot.size[1]  # the whole table is on screen
        box = np.asarray(
            shot.crop((int(r["x"]), int(r["y"]), int(r["x"] + r["width"]), int(r["y"] + r["height"])))
        )
    finally:
        drv.quit()
    assert box.shape[0] > 300 and box.shape[1] > 300
    page_bg = np.array([0x10, 0x26, 0x1A])
    drawn = np.abs(box.astype(int) - page_bg).sum(axis=2) > 30
    assert drawn.mean() > 0.95  # the table (felt, cards) fills its area
    face = (box > 230).all(axis=2)  # card faces and text
    assert face.sum() > 500
    assert len(np.unique(box.reshape(-1, 3)[::7], axis=0)) > 30  # cards in several colours


def test_example_records_an_agent_episode(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "examples" / "replay_agent_episode.py"
    out = tmp_path / "agent.html"
    proc = subprocess.run(
        [sys.executable, str(script), "--game", "thegame", "--seed", "1", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "wrote" in proc.stdout
    data = _payload(out.read_text())
    assert data["views"] == [OMNISCIENT, "player_0", "player_1"] and len(data["frames"]) > 5
    assert data["frames"][1]["note"].startswith("legal actions:")


@pytest.mark.parametrize(
    "game, options", [("thegame", {"num_players": 2}), ("exhaust", {}), ("koikoi", {"rounds": 1})]
)
def test_the_last_frame_says_how_the_game_ended_in_one_sentence(game, options):
    frames = play_episode(game, None, seed=1, views=[OMNISCIENT], **options)
    outcome = frames[-1].outcome
    assert outcome and "; ;" not in outcome and "!;" not in outcome and "  " not in outcome
    assert "!;" not in frames[-1].svgs[OMNISCIENT] and "; score" not in frames[-1].svgs[OMNISCIENT]
    if game == "thegame":
        assert re.search(
            r"\. Score \d+ \(cards left in hands and draw pile\); the team (wins|loses)", outcome
        )
        assert re.search(r"game over: .*\. Score \d+ \(cards not played\)", frames[-1].svgs[OMNISCIENT])
