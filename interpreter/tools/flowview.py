"""Views of a `liturgy graph` flow that stay readable on a large ruleset: a focus, and the compact layout.

Drawn whole, Slay the Spire's flow has about a hundred arrows: every step runs several card effects, a few effects
(`Card.on_trigger`, `Relic.whenever`) are run from a dozen places, and twenty blocks can end the game. Two tools:

* **Focus** (``--focus NAME --depth N``): only what the named steps, windows, procedures or card effects run, N
  arrows deep, and who runs them (one arrow back). The round's steps stay as context, drawn small when not in
  focus.
* **Compact** (``--view compact``, chosen by ``auto`` past :data:`AUTO_COMPACT` arrows):

  - each procedure, card effect, window and handler sits in a box named after the step (or setup, finish) that
    runs it, or in "run from several steps" when more than one does: the picture reads phase by phase;
  - a block run (or a window fired) from :data:`HUB` or more places gets no arrows in: its callers list it on a
    line ("→ Card.on_trigger, Relic.whenever") and it says from how many places it runs;
  - only the round's steps keep their arrow to "game over"; any other block that can end the game says so on a
    line.

The views change only which arrows are drawn and where nodes sit, never what a block does: every decision, effect,
window and game end is still named in some node.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

AUTO_COMPACT = 60  # `--view auto` draws compact past this many arrows
HUB = 4  # a block run from this many places loses its incoming arrows (compact view)


@dataclass(frozen=True)
class Edge:
    """An arrow: ``kind`` is call, effect, fire, on (window to handler), skip or end (to "game over")."""

    src: str
    dst: str
    kind: str


@dataclass
class View:
    """What the DOT writer draws: nodes kept, arrows, extra label lines per node, clusters, small steps."""

    keep: set[str]
    edges: list[Edge]
    lines: dict[str, list[str]] = field(default_factory=dict)  # node -> extra label lines (compact view)
    clusters: dict[str, list[str]] = field(default_factory=dict)  # cluster title -> nodes, in drawing order
    small: set[str] = field(default_factory=set)  # steps drawn as context only (title, no decisions)


def focus(nodes: list[str], skeleton: list[str], edges: list[Edge], starts: set[str], depth: int) -> View:
    """The part of the flow ``starts`` runs within ``depth`` arrows (a window's handlers come with it), plus the
    blocks that run a start (one arrow back). Steps are always drawn; those outside it small."""
    out: dict[str, list[Edge]] = {}
    into: dict[str, list[Edge]] = {}
    for e in edges:
        out.setdefault(e.src, []).append(e)
        into.setdefault(e.dst, []).append(e)
    keep = set(starts)
    frontier = sorted(starts)
    for _ in range(depth):
        nxt: list[str] = []
        for n in frontier:
            for e in out.get(n, []):
                for m in _with_handlers(e.dst, out):
                    if m not in keep:
                        keep.add(m)
                        nxt.append(m)
        frontier = nxt
    keep |= {e.src for n in starts for e in into.get(n, []) if e.kind in ("call", "effect", "fire")}
    if any(e.dst == "game_over" and e.src in keep for e in edges):
        keep.add("game_over")
    drawn = keep | set(skeleton)
    small = {s for s in skeleton if s not in keep}
    # arrows among the blocks in focus, and into them from the steps in focus; a context step's own arrows would
    # bring back the crowd the focus removed
    kept = [e for e in edges if e.src in keep and e.dst in drawn]
    return View({n for n in nodes if n in drawn}, kept, small=small)


def _with_handlers(node: str, out: dict[str, list[Edge]]) -> Iterable[str]:
    yield node
    if node.startswith("window_"):
        yield from (e.dst for e in out.get(node, []) if e.kind == "on")


def compact(view: View, skeleton: list[str], names: dict[str, str]) -> View:
    """``view`` in the compact layout (see the module's doc). ``names`` gives each node's name for the lines that
    replace arrows (``Card.on_trigger``, a window's name)."""
    edges = list(view.edges)
    lines: dict[str, list[str]] = {n: list(ls) for n, ls in view.lines.items()}
    callers: dict[str, set[str]] = {}
    for e in edges:
        if e.kind in ("call", "effect", "fire"):
            callers.setdefault(e.dst, set()).add(e.src)
    hubs = {n for n, cs in callers.items() if len(cs) >= HUB}
    runs: dict[str, list[str]] = {}
    for e in edges:
        if e.dst in hubs and e.kind in ("call", "effect", "fire"):
            runs.setdefault(e.src, []).append(("fires " if e.kind == "fire" else "→ ") + names.get(e.dst, e.dst))
    for n in sorted(runs):
        lines.setdefault(n, []).append(", ".join(sorted(set(runs[n]))))
    for n in sorted(hubs):
        lines.setdefault(n, []).append(f"run from {len(callers[n])} places (arrows left out)")
    steps = set(skeleton)
    for e in edges:
        if e.kind == "end" and e.src not in steps:
            lines.setdefault(e.src, []).append("■ can end the game")
    edges = [e for e in edges if not (e.dst in hubs and e.kind in ("call", "effect", "fire"))
             and not (e.kind == "end" and e.src not in steps)]
    keep = set(view.keep)
    if not any(e.dst == "game_over" for e in edges):
        keep.discard("game_over")
    return View(keep, edges, lines, phases(view.keep, skeleton, view.edges, names), view.small)


def phases(keep: set[str], skeleton: list[str], edges: list[Edge], names: dict[str, str]) -> dict[str, list[str]]:
    """Each drawn block outside the skeleton, grouped by the skeleton block that runs it (through any chain of
    calls, effects, fires and handlers), or under "run from several steps"."""
    out: dict[str, list[Edge]] = {}
    for e in edges:
        if e.kind in ("call", "effect", "fire", "on"):
            out.setdefault(e.src, []).append(e)
    owner: dict[str, str] = {}
    for root in skeleton:
        seen = {root}
        todo = [root]
        while todo:
            n = todo.pop()
            for e in out.get(n, []):
                if e.dst not in seen and e.dst not in skeleton:
                    seen.add(e.dst)
                    todo.append(e.dst)
        for n in seen - {root}:
            owner[n] = root if owner.get(n, root) == root else ""
    clusters: dict[str, list[str]] = {}
    for root in [*skeleton, ""]:
        members = sorted(n for n, r in owner.items() if r == root and n in keep)
        if members:
            clusters["run from several steps" if not root else f"run from {names.get(root, root)}"] = members
    return clusters


__all__ = ["AUTO_COMPACT", "HUB", "Edge", "View", "compact", "focus", "phases"]
