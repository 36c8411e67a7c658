"""Exit Now boards as data: loading, validation errors, the 576 layouts, the map built by
the kernels, and map swaps / centre rotations keeping the walls outward."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import exitnow_envs
from exitnow_envs import maps, rules
from exitnow_envs.maps import BoardSet, build_map, default_boards, layouts, parse_board
from exitnow_envs.spec import CHAR_KIND, EXIT, GHOST_START, KIND_CHAR, PLACE, START, WALL, Options
from exitnow_envs.state import new_state
from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.testing import at

GOOD_CORNER = "#######\n#.....#\n#.#?#..\n#.#....\n#......\n#?##.#.\n#......\n"
GOOD_EDGE = "#######\n.......\n.#.#...\n...#?..\n.#...#.\n..?.#..\n.#.....\n"
GOOD_CENTRE = ".......\n.#...#.\n.......\n...?...\n.......\n.#...#.\n.......\n"


def _text(grid) -> list[str]:
    return ["".join(KIND_CHAR[int(x)] for x in row) for row in grid]


def _set_char(text: str, r: int, c: int, ch: str) -> str:
    rows = text.strip("\n").split("\n")
    rows[r] = rows[r][:c] + ch + rows[r][c + 1 :]
    return "\n".join(rows)


def test_shipped_boards_are_valid_and_named():
    b = default_boards()
    assert b.names[:4] == ("corner_entrance", "corner_tower", "corner_crypt", "corner_garden")
    assert (b.corners[0] == START).sum() == 1 and (b.corners[1] == GHOST_START).sum() == 1
    assert (b.edges[0] == EXIT).sum() == 1
    total = sum(int((g == PLACE).sum()) for g in b.corners + b.edges + b.centre[:1])
    assert total == 17


def test_there_are_576_distinct_layouts_and_the_default_one():
    ls = layouts()
    assert len(ls) == 576 and [x.index for x in ls] == list(range(576))
    assert len({(x.corners, x.edges) for x in ls}) == 576
    b = default_boards()
    d = ls[b.default_layout()]
    # Entrance and Tower/Graveyard in opposite corners (slots 0 and 2), exit edge on top
    assert {d.corners[0], d.corners[2]} == {"corner_entrance", "corner_tower"}
    assert d.edges[0] == "edge_exit"
    m = build_map(b, d.index, 0, 0)
    (sr, sc), (gr, gc) = np.argwhere(m == START)[0], np.argwhere(m == GHOST_START)[0]
    assert abs(int(sr) - int(gr)) >= 14 and abs(int(sc) - int(gc)) >= 14


def _kernel_map(layout, side, rot, boards=None):
    o = Options(layout=layout, centre_side=side, centre_rotation=rot, boards=boards)
    s = new_state(1, o)
    at(rules.build_map_r, s, 0)
    return s


def test_kernel_builds_the_same_map_as_the_python_builder_for_every_layout():
    b = default_boards()
    for lay in range(576):
        side, rot = lay % 2, (lay // 2) % 4
        s = _kernel_map(lay, side, rot)
        expect = build_map(b, lay, side, rot)
        assert np.array_equal(s["cell"][0], expect), lay
        # outer ring: walls, one exit door
        ring = np.concatenate([expect[0], expect[-1], expect[:, 0], expect[:, -1]])
        assert set(ring.tolist()) <= {WALL, EXIT} and (ring == EXIT).sum() == 1
        # event chips and place numbers
        assert (s["chip"][0] == 1).sum() == 17
        assert sorted(s["place"][0][s["place"][0] >= 0].tolist()) == list(range(17))


def test_random_layout_comes_from_the_seed():
    seen = set()
    for seed in range(40):
        o = Options(layout="random", centre_side="random", centre_rotation="random")
        s = new_state(1, o)
        s["rng"][0] = seed_word(seed)
        at(rules.deal_r, s, 0)
        t = new_state(1, o)
        t["rng"][0] = seed_word(seed)
        at(rules.deal_r, t, 0)
        assert np.array_equal(s, t)
        seen.add((int(s["layout"][0]), int(s["slot_board"][0, 4]), int(s["slot_rot"][0, 4])))
    assert len(seen) > 30


@pytest.mark.parametrize("kind", [0, 1])
def test_map_swap_gives_the_layout_with_the_two_boards_exchanged(kind):
    b = default_boards()
    perms = list(itertools.permutations(range(4)))
    for lay in (0, 192, 575):
        for a, c in itertools.combinations(range(4), 2):
            s = _kernel_map(lay, 1, 3)
            at(rules.map_swap_r, s, 0, kind, a, c)
            co, eo = list(perms[lay // 24]), list(perms[lay % 24])
            order = co if kind == 0 else eo
            order[a], order[c] = order[c], order[a]
            expect = build_map(b, maps.layout_index(co, eo), 1, 3)
            assert np.array_equal(s["cell"][0], expect)
            # every place keeps its number and its chip, the walls still face outward
            assert sorted(s["place"][0][s["chip"][0] == 1].tolist()) == list(range(17))
            m = s["cell"][0]
            ring = np.concatenate([m[0], m[-1], m[:, 0], m[:, -1]])
            assert set(ring.tolist()) <= {WALL, EXIT}


def test_centre_rotation_turns_the_centre_clockwise():
    b = default_boards()
    s = _kernel_map(5, 0, 0)
    for k in range(1, 5):
        at(rules.centre_rotation_r, s, 0)
        assert np.array_equal(s["cell"][0], build_map(b, 5, 0, k % 4))
        assert s["slot_rot"][0, 4] == k % 4


# --- validation errors --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,kind,match",
    [
        (GOOD_CORNER.replace("#......\n", "#.....\n", 1), "corner", "7 lines of 7"),
        ("\n".join(GOOD_CORNER.split("\n")[:6]), "corner", "7 lines of 7"),
        (_set_char(GOOD_CORNER, 2, 2, "x"), "corner", "unknown character 'x'"),
        (_set_char(GOOD_CORNER, 0, 3, "."), "corner", "walls must face outward"),
        (_set_char(GOOD_CORNER, 4, 0, "."), "corner", "walls must face outward"),
        (_set_char(GOOD_EDGE, 0, 5, "."), "edge", "walls must face outward"),
        (_set_char(GOOD_CORNER, 0, 3, "E"), "corner", "walls must face outward"),
        (_set_char(GOOD_CORNER, 6, 3, "#"), "corner", "middle square"),
        (_set_char(GOOD_EDGE, 3, 0, "~"), "edge", "middle square"),
        (_set_char(GOOD_CENTRE, 0, 3, "#"), "centre", "middle square"),
        (_set_char(GOOD_CORNER, 2, 3, "."), "corner", "exactly 2 event-chip places"),
        (_set_char(GOOD_CENTRE, 1, 1, "?"), "centre", "exactly 1 event-chip place"),
        (_set_char(GOOD_CENTRE, 1, 2, "S"), "centre", "centre piece may only hold"),
        (_set_char(GOOD_CORNER, 3, 3, "E"), "corner", "exit door"),
        (
            _set_char(_set_char(_set_char(GOOD_CORNER, 5, 4, "#"), 6, 5, "#"), 5, 6, "#"),
            "corner",
            "not all connected",
        ),
    ],
)
def test_bad_boards_are_rejected_with_a_clear_message(text, kind, match):
    with pytest.raises(ValueError, match=match):
        parse_board(text, kind, "my_board")


def test_good_sample_boards_parse():
    assert parse_board(GOOD_CORNER, "corner").shape == (7, 7)
    assert parse_board(GOOD_EDGE, "edge")[3, 4] == CHAR_KIND["?"]
    assert parse_board(GOOD_CENTRE, "centre").dtype == np.uint8
    with pytest.raises(ValueError, match="kind"):
        parse_board(GOOD_CENTRE, "middle")


def _shipped_texts():
    b = default_boards()
    return (
        ["\n".join(_text(g)) for g in b.corners],
        ["\n".join(_text(g)) for g in b.edges],
        ["\n".join(_text(g)) for g in b.centre],
    )


def test_board_set_rules():
    corners, edges, centre = _shipped_texts()
    BoardSet(tuple(corners), tuple(edges), tuple(centre))  # the shipped texts are fine
    with pytest.raises(ValueError, match="4 corner boards"):
        BoardSet(tuple(corners[:3]), tuple(edges), tuple(centre))
    with pytest.raises(ValueError, match="7x7"):
        BoardSet((np.zeros((6, 6)),) + tuple(corners[1:]), tuple(edges), tuple(centre))


@pytest.mark.parametrize(
    "part, index, old, new, match",
    [
        (0, 0, "S", ".", "human start"),
        (0, 1, "G", ".", "ghost start"),
        (1, 0, "E", "#", "exit door"),
        (0, 2, "A", "B", "door place"),
        (1, 1, "R", ".", "restart"),
    ],
)
def test_board_set_rejects_a_set_without_a_needed_square(part, index, old, new, match):
    """``part`` 0 is the corners, 1 the edges; board ``index`` of it has ``old`` redrawn as ``new``."""
    texts = list(_shipped_texts())
    texts[part] = list(texts[part])
    texts[part][index] = texts[part][index].replace(old, new)
    with pytest.raises(ValueError, match=match):
        BoardSet(*(tuple(t) for t in texts))


def test_user_boards_are_played(tmp_path):
    corners, edges, centre = _shipped_texts()
    # a user redraws the centre piece's first side and loads the set from files
    centre[0] = "\n".join(_text(parse_board(GOOD_CENTRE, "centre")))
    names = maps.CORNER_FILES + maps.EDGE_FILES + maps.CENTRE_FILES
    for name, text in zip(names, corners + edges + centre):
        (tmp_path / f"{name}.txt").write_text(text + "\n")
    mine = BoardSet.from_dir(tmp_path)
    e = exitnow_envs.raw_env(boards=mine, centre_side=0)
    e.reset(seed=0)
    cell = e.get_state()["state"]["cell"][0]
    assert _text(cell[7:14, 7:14]) == _text(parse_board(GOOD_CENTRE, "centre"))
    (tmp_path / "edge_cellar.txt").write_text("#######\n" * 6)
    with pytest.raises(ValueError, match="edge_cellar"):
        BoardSet.from_dir(tmp_path)
