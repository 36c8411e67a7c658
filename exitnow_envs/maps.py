"""Exit Now boards as data: loading, validation, layouts and map building.

Each board side is a plain-text file of 7 lines of 7 characters (legend in
``docs/rules/exitnow.md``: ``.`` floor, ``#`` wall, ``~`` water, ``E`` exit door, ``?``
event-chip place, ``A``/``B``/``C`` door places, ``S`` human start, ``R`` human restart,
``G`` ghost start). The shipped boards live in ``exitnow_envs/boards/``:

============  ==========================================================
kind          files (drawing orientation)
============  ==========================================================
corner        ``corner_entrance`` (S), ``corner_tower`` (G, the Tower/Graveyard),
              ``corner_crypt`` (door A), ``corner_garden``; drawn as the
              TOP-LEFT corner: row 0 and column 0 are the outer walls
edge          ``edge_exit`` (E in its outer wall), ``edge_library`` (R),
              ``edge_chapel`` (door B), ``edge_cellar`` (door C); drawn as the
              TOP edge: row 0 is the outer wall
centre        ``centre_a``, ``centre_b``: the two sides of the centre piece
============  ==========================================================

Placement (rules "The map"): corner slots top-left, top-right, bottom-right,
bottom-left take their board turned 0, 1, 2, 3 quarter turns clockwise; edge slots top,
right, bottom, left likewise; so the outer walls always face outward. A layout is
``corner_order`` (4! ways) x ``edge_order`` (4! ways) = 576 layouts,
index ``24 * corner_index + edge_index`` in the lexicographic order of
``itertools.permutations`` (:func:`layouts`).

Validation (:func:`parse_board`, :class:`BoardSet`) raises ``ValueError`` naming the
board and the problem: wrong size, unknown character, an outer side that is not wall
(``E`` is allowed in an edge board's outer wall), the middle square of an inner side not
passable (the boards connect through those squares in every layout), human-passable
squares not connected, wrong number of event-chip places (2 per outer board, 1 per
centre side), and for the set: exactly one ``S`` and one ``G`` on two different corner
boards, one ``R`` and one ``E`` (on an edge board's outer wall) on outer boards, doors
``A``, ``B``, ``C`` once each on three different outer boards, and nothing special but
``?``, ``.``, ``#``, ``~`` on the centre piece.
"""

from __future__ import annotations

import itertools
from collections import namedtuple
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from .geometry import BOARD, CHAR_KIND, KIND_CHAR, MAP, NUM_LAYOUTS, NUM_PLACES

__all__ = [
    "BoardSet",
    "Layout",
    "parse_board",
    "load_board",
    "default_boards",
    "layouts",
    "layout_index",
    "build_map",
    "BOARD_DIR",
]

BOARD_DIR = Path(__file__).parent / "boards"
CORNER_FILES = ("corner_entrance", "corner_tower", "corner_crypt", "corner_garden")
EDGE_FILES = ("edge_exit", "edge_library", "edge_chapel", "edge_cellar")
CENTRE_FILES = ("centre_a", "centre_b")

# Slots: (block row, block col); slot j of a kind is turned j quarter turns clockwise.
CORNER_SLOTS = ((0, 0), (0, 2), (2, 2), (2, 0))
EDGE_SLOTS = ((0, 1), (1, 2), (2, 1), (1, 0))
CENTRE_SLOT = (1, 1)

_WALL = CHAR_KIND["#"]
_WATER = CHAR_KIND["~"]
_EXIT = CHAR_KIND["E"]
_PLACE = CHAR_KIND["?"]

Layout = namedtuple("Layout", ["index", "corners", "edges"])
Layout.__doc__ = """One of the 576 layouts: ``corners`` are the corner board names in slots
top-left, top-right, bottom-right, bottom-left; ``edges`` the edge board names in slots
top, right, bottom, left."""


def parse_board(text: str, kind: str, name: str = "board") -> np.ndarray:
    """Parse and validate one board side.

    Args:
        text: 7 lines of 7 characters (trailing blank lines and ``\\r`` are ignored).
        kind: ``"corner"``, ``"edge"`` or ``"centre"`` (drawing orientations in the
            module docstring).
        name: used in error messages.

    Returns:
        (7, 7) uint8 array of square kinds (``spec.FLOOR`` ...).

    Raises:
        ValueError: wrong size, unknown character, walls not facing outward, an inner
            side's middle square closed, disconnected squares, wrong number of ``?``.
    """
    if kind not in ("corner", "edge", "centre"):
        raise ValueError(f"{name}: kind must be 'corner', 'edge' or 'centre', got {kind!r}")
    grid = _board_grid(text, name)
    _check_outer_walls(grid, kind, name)
    _check_inner_sides(grid, kind, name)
    _check_exits(grid, kind, name)
    _check_connected(grid, name)
    _check_places_and_pieces(grid, kind, name)
    return grid


def _board_grid(text: str, name: str) -> np.ndarray:
    """The (7, 7) uint8 square kinds of a drawing; ValueError for a wrong size or an
    unknown character."""
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) != BOARD or any(len(ln) != BOARD for ln in lines):
        sizes = [len(ln) for ln in lines]
        raise ValueError(
            f"{name}: a board must be {BOARD} lines of {BOARD} characters, got {len(lines)} lines of lengths {sizes}"
        )
    grid = np.zeros((BOARD, BOARD), np.uint8)
    for r, ln in enumerate(lines):
        for c, ch in enumerate(ln):
            if ch not in CHAR_KIND:
                raise ValueError(
                    f"{name}: unknown character {ch!r} at row {r}, column {c}; "
                    f"allowed: {' '.join(sorted(CHAR_KIND))}"
                )
            grid[r, c] = CHAR_KIND[ch]
    return grid


def _check_outer_walls(grid: np.ndarray, kind: str, name: str) -> None:
    """Walls face outward: a corner's top and left sides and an edge's top side are walls
    (an edge's top may hold the exit door)."""
    outer = []
    if kind in ("corner", "edge"):
        outer += [(0, c) for c in range(BOARD)]
    if kind == "corner":
        outer += [(r, 0) for r in range(BOARD)]
    for r, c in outer:
        ok = grid[r, c] == _WALL or (kind == "edge" and r == 0 and grid[r, c] == _EXIT)
        if not ok:
            raise ValueError(
                f"{name}: walls must face outward: square ({r}, {c}) on the outer side of a {kind} board "
                f"is {KIND_CHAR[int(grid[r, c])]!r}, expected '#'"
                + (" (or 'E' in an edge board's outer wall)" if kind == "edge" else "")
            )


def _check_inner_sides(grid: np.ndarray, kind: str, name: str) -> None:
    """The middle square of each inner side (where boards connect) is passable for humans."""
    m = BOARD // 2
    inner = {"corner": [(m, BOARD - 1), (BOARD - 1, m)], "edge": [(m, 0), (m, BOARD - 1), (BOARD - 1, m)]}
    inner["centre"] = [(0, m), (m, 0), (m, BOARD - 1), (BOARD - 1, m)]
    for r, c in inner[kind]:
        if grid[r, c] in (_WALL, _WATER, _EXIT):
            raise ValueError(
                f"{name}: the middle square ({r}, {c}) of an inner side must be passable for humans "
                f"(boards connect there), got {KIND_CHAR[int(grid[r, c])]!r}"
            )


def _check_exits(grid: np.ndarray, kind: str, name: str) -> None:
    """An exit door lies in an edge board's outer wall, a passable square below it."""
    for r, c in np.argwhere(grid == _EXIT):
        if not (kind == "edge" and r == 0):
            raise ValueError(f"{name}: the exit door 'E' must be in an edge board's outer wall (row 0)")
        if grid[1, c] in (_WALL, _WATER):
            raise ValueError(f"{name}: the exit door at (0, {c}) must have a passable square below it")


def _check_connected(grid: np.ndarray, name: str) -> None:
    """The squares humans may walk form one orthogonally connected region."""
    passable = (grid != _WALL) & (grid != _WATER) & (grid != _EXIT)
    cells = [tuple(x) for x in np.argwhere(passable)]
    if not cells:
        return
    seen = {cells[0]}
    todo = [cells[0]]
    while todo:
        r, c = todo.pop()
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            q = (r + dr, c + dc)
            if 0 <= q[0] < BOARD and 0 <= q[1] < BOARD and passable[q] and q not in seen:
                seen.add(q)
                todo.append(q)
    if len(seen) != len(cells):
        lost = sorted(set(cells) - seen)[0]
        raise ValueError(f"{name}: the squares humans may walk are not all connected (e.g. {lost})")


def _check_places_and_pieces(grid: np.ndarray, kind: str, name: str) -> None:
    """A centre board has one event-chip place ``?`` and only ``. # ~ ?``; the others two
    places."""
    want = 1 if kind == "centre" else 2
    got = int((grid == _PLACE).sum())
    if got != want:
        raise ValueError(f"{name}: a {kind} board needs exactly {want} event-chip places '?', got {got}")
    if kind == "centre":
        special = {int(k) for k in np.unique(grid)} - {CHAR_KIND[x] for x in ".#~?"}
        if special:
            chars = sorted(KIND_CHAR[k] for k in special)
            raise ValueError(f"{name}: the centre piece may only hold . # ~ ?, found {chars}")


def load_board(path: str | Path, kind: str) -> np.ndarray:
    """Read and validate a board file (see :func:`parse_board`).

    Raises:
        ValueError: as :func:`parse_board`; OSError if the file cannot be read.
    """
    p = Path(path)
    return parse_board(p.read_text(encoding="utf-8"), kind, p.name)


def _count(grid: np.ndarray, ch: str) -> int:
    return int((grid == CHAR_KIND[ch]).sum())


@dataclass(frozen=True, eq=False)
class BoardSet:
    """Four corner boards, four edge boards and the centre piece's two sides.

    Args:
        corners: four (7, 7) kind arrays (or board texts) in the corner drawing orientation.
        edges: four edge boards. centre: the centre piece's two sides.
        names: optional names (10, corners then edges then centre sides).

    Raises:
        ValueError: if a board or the set breaks a rule listed in the module docstring.
    """

    corners: tuple
    edges: tuple
    centre: tuple
    names: tuple = field(default=())

    def __post_init__(self):
        names = tuple(self.names) or tuple(
            [f"corner {k}" for k in range(4)] + [f"edge {k}" for k in range(4)] + ["centre 0", "centre 1"]
        )
        if len(names) != 10:
            raise ValueError(f"names must hold 10 names, got {len(names)}")
        if len(self.corners) != 4 or len(self.edges) != 4 or len(self.centre) != 2:
            raise ValueError(
                "a board set needs 4 corner boards, 4 edge boards and 2 centre sides, got "
                f"{len(self.corners)}, {len(self.edges)}, {len(self.centre)}"
            )
        boards = []
        for k, (b, kind) in enumerate(
            [(b, "corner") for b in self.corners]
            + [(b, "edge") for b in self.edges]
            + [(b, "centre") for b in self.centre]
        ):
            if isinstance(b, str):
                g = parse_board(b, kind, names[k])
            else:
                g = np.asarray(b, np.uint8)
                if g.shape != (BOARD, BOARD):
                    raise ValueError(f"{names[k]}: a board must be {BOARD}x{BOARD}, got shape {g.shape}")
                g = parse_board(
                    "\n".join("".join(KIND_CHAR.get(int(x), "!") for x in row) for row in g), kind, names[k]
                )
            boards.append(g)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "corners", tuple(boards[:4]))
        object.__setattr__(self, "edges", tuple(boards[4:8]))
        object.__setattr__(self, "centre", tuple(boards[8:]))
        outer = boards[:8]

        def where(ch):
            return [k for k, g in enumerate(outer) if _count(g, ch) > 0]

        for ch, what in (("S", "human start"), ("G", "ghost start")):
            total = sum(_count(g, ch) for g in outer)
            at = where(ch)
            if total != 1 or at[0] >= 4:
                raise ValueError(
                    f"the board set needs exactly one {what} {ch!r}, on a corner board (found {total})"
                )
        if where("S") == where("G"):
            raise ValueError("the human start 'S' and the ghost start 'G' must be on different corner boards")
        for ch, what in (("R", "human restart"), ("E", "exit door")):
            total = sum(_count(g, ch) for g in outer)
            if total != 1:
                raise ValueError(f"the board set needs exactly one {what} {ch!r} (found {total})")
        if where("E")[0] < 4:
            raise ValueError("the exit door 'E' must be on an edge board")
        door_boards = []
        for ch in "ABC":
            total = sum(_count(g, ch) for g in outer)
            if total != 1:
                raise ValueError(f"the board set needs exactly one door place {ch!r} (found {total})")
            door_boards.append(where(ch)[0])
        if len(set(door_boards)) != 3:
            raise ValueError("doors A, B and C must be on three different boards")

    @classmethod
    def from_dir(cls, directory: str | Path) -> BoardSet:
        """Load the ten files ``corner_*.txt``, ``edge_*.txt``, ``centre_*.txt`` named as the
        shipped ones (see the module docstring) from ``directory``.

        Raises:
            ValueError: on an invalid board or set; OSError on a missing file.
        """
        d = Path(directory)
        corners = tuple(load_board(d / f"{n}.txt", "corner") for n in CORNER_FILES)
        edges = tuple(load_board(d / f"{n}.txt", "edge") for n in EDGE_FILES)
        centre = tuple(load_board(d / f"{n}.txt", "centre") for n in CENTRE_FILES)
        return cls(corners, edges, centre, CORNER_FILES + EDGE_FILES + CENTRE_FILES)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(corners (4,7,7), edges (4,7,7), centre (2,7,7))`` uint8 kind arrays."""
        return (np.stack(self.corners), np.stack(self.edges), np.stack(self.centre))

    def default_layout(self) -> int:
        """Layout index with the ghost-start corner top-left, the human-start corner
        bottom-right (opposite, the centre piece between them), the exit edge on top."""
        g = next(k for k in range(4) if _count(self.corners[k], "G"))
        s = next(k for k in range(4) if _count(self.corners[k], "S"))
        rest = [k for k in range(4) if k not in (g, s)]
        corner_order = (g, rest[0], s, rest[1])
        ex = next(k for k in range(4) if _count(self.edges[k], "E"))
        edge_order = tuple([ex] + [k for k in range(4) if k != ex])
        return layout_index(corner_order, edge_order)


@cache
def default_boards() -> BoardSet:
    """The shipped boards (``exitnow_envs/boards/*.txt``), validated once."""
    return BoardSet.from_dir(BOARD_DIR)


_PERMS = list(itertools.permutations(range(4)))


def layout_index(corner_order, edge_order) -> int:
    """Index 0..575 of the layout putting corner board ``corner_order[j]`` in corner slot j
    and edge board ``edge_order[j]`` in edge slot j.

    Raises:
        ValueError: if an order is not a permutation of 0..3.
    """
    co, eo = tuple(int(x) for x in corner_order), tuple(int(x) for x in edge_order)
    if co not in _PERMS or eo not in _PERMS:
        raise ValueError(f"corner_order and edge_order must be permutations of 0..3, got {co}, {eo}")
    return 24 * _PERMS.index(co) + _PERMS.index(eo)


def layouts(boards: BoardSet | None = None) -> list[Layout]:
    """The 576 layouts (rules: 4! x 4!), in index order, with board names."""
    b = boards or default_boards()
    out = []
    for ci, co in enumerate(_PERMS):
        for ei, eo in enumerate(_PERMS):
            out.append(
                Layout(
                    24 * ci + ei,
                    tuple(b.names[k] for k in co),
                    tuple(b.names[4 + k] for k in eo),
                )
            )
    assert len(out) == NUM_LAYOUTS
    return out


def rot_local(r: int, c: int, k: int) -> tuple[int, int]:
    """Square (r, c) of a 7x7 board after ``k`` quarter turns clockwise."""
    for _ in range(k % 4):
        r, c = c, BOARD - 1 - r
    return r, c


def build_map(boards: BoardSet, layout: int, centre_side: int, centre_rotation: int) -> np.ndarray:
    """The (21, 21) uint8 kind map of a layout (pure Python; the kernels build the same
    in ``rules.build_map_r``).

    Raises:
        ValueError: if ``layout`` is not in 0..575.
    """
    if not 0 <= layout < NUM_LAYOUTS:
        raise ValueError(f"layout must be in 0..575, got {layout}")
    co, eo = _PERMS[layout // 24], _PERMS[layout % 24]
    m = np.zeros((MAP, MAP), np.uint8)

    def put(grid, slot, k):
        br, bc = slot
        for r in range(BOARD):
            for c in range(BOARD):
                rr, cc = rot_local(r, c, k)
                m[br * BOARD + rr, bc * BOARD + cc] = grid[r, c]

    for j in range(4):
        put(boards.corners[co[j]], CORNER_SLOTS[j], j)
        put(boards.edges[eo[j]], EDGE_SLOTS[j], j)
    put(boards.centre[centre_side], CENTRE_SLOT, centre_rotation)
    assert int((m == _PLACE).sum()) == NUM_PLACES
    return m
