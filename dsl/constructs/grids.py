"""Grids: the directions and direction sets of the rules language, declared once as compile-time tables.

A direction is a value of type ``direction`` whose run-time form is its name (``"north"``), so logs, saves and
views show it as written. Columns grow to the east and rows to the north: ``board[0, 0]`` is the south-west
corner, which is where a dropped disc lands first. The offsets are data here; the checker, the closures and the
generated code all read these tables, so no pass can disagree about what ``northeast`` means.

The six ``hex`` directions are the neighbours of a cell in axial hex coordinates (column, row): east, west,
north, south, and the two diagonals ``southeast`` (+1, -1) and ``northwest`` (-1, +1).
"""
from __future__ import annotations

from liturgy.dsl.types import Ty

DIRECTION = Ty("direction")

# name -> (column step, row step)
DIRECTIONS: dict[str, tuple[int, int]] = {
    "north": (0, 1),
    "northeast": (1, 1),
    "east": (1, 0),
    "southeast": (1, -1),
    "south": (0, -1),
    "southwest": (-1, -1),
    "west": (-1, 0),
    "northwest": (-1, 1),
}

OPPOSITE: dict[str, str] = {
    name: next(o for o, (oc, orow) in DIRECTIONS.items() if (oc, orow) == (-dc, -dr))
    for name, (dc, dr) in DIRECTIONS.items()
}

# named direction sets: each a list of directions
DIRECTION_SETS: dict[str, tuple[str, ...]] = {
    "orthogonal": ("north", "east", "south", "west"),
    "diagonal": ("northeast", "southeast", "southwest", "northwest"),
    "compass": ("north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"),
    # one direction per line through a cell (a line is a direction and its opposite): for "n in a row"
    "axes": ("east", "north", "northeast", "southeast"),
    "hex": ("east", "north", "northwest", "west", "south", "southeast"),
}

# the most cells one grid may have: a grid is part of every state, clone and save
MAX_GRID_CELLS = 10_000

# what a cell may hold (the kinds of Ty), and the value a fresh cell holds
CELL_KINDS = ("int", "player", "enum")


def cell_start(kind: str) -> int | None:
    """The value of every cell when a game starts: 0 in an int grid, ``none`` in the others."""
    return 0 if kind == "int" else None


def step_x(d: str) -> int:
    """`dx(d)`: how many columns one step in direction d moves (east is +1)."""
    return DIRECTIONS[d][0]


def step_y(d: str) -> int:
    """`dy(d)`: how many rows one step in direction d moves (north is +1)."""
    return DIRECTIONS[d][1]


def opposite(d: str) -> str:
    """`opposite(d)`: the direction that undoes d."""
    return OPPOSITE[d]
