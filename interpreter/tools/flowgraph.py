"""`liturgy graph RULESET`: the flow of a ruleset on one page, as Graphviz DOT (or SVG when ``dot`` is installed).

Drawn from the checked program, never from a ruleset's own names: setup, the round's steps in order, finish;
every decision (`choose`, `simultaneously`) listed in the block that asks it; the procedures and card effects run
with `do`; the windows `fire`d and the handlers (`on WINDOW`) that answer them; `skip to` and `end game`.

A procedure that asks nothing, fires nothing and never skips or ends the game is plain computation: it is left
out (``--procs all`` keeps it). When many procedures remain, they are folded into their callers (``--procs fold``,
the default past 25): each step, handler and card effect then lists what its procedures ask and fire. A large
flow is then drawn compact, and ``--focus`` draws one part of it (tools/flowview.py): that is what makes a
2,400-line ruleset readable on a page.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.walk import effect_bodies
from liturgy.dsl.constructs.statements import walk as walk_statements
from liturgy.dsl.diagnostics import LiturgyError
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.loader import check_file
from liturgy.interpreter.tools import arguments as ARGS
from liturgy.interpreter.tools.arguments import UsageError
from liturgy.interpreter.tools.flowview import AUTO_COMPACT, Edge, View, compact, focus

MAX_LINE = 56  # a decision's text in a node is cut here
MAX_DECISIONS_SHOWN = 12  # per node; the rest are counted
AUTO_FOLD = 25  # `--procs auto` folds the procedures into their callers when more than this many would be drawn
CLUSTER_ROW = 4  # blocks side by side in a group of the compact view
DOT_SECONDS = 120  # `dot` gets this long to lay out a graph


@dataclass
class Block:
    """One block of rules that runs as a unit: setup, a step, finish, a procedure, a handler, a card effect."""

    key: str  # the DOT node id
    title: str
    kind: str  # setup step finish proc handler effect
    decisions: list[str] = field(default_factory=list)
    calls: set[str] = field(default_factory=set)  # procedure names
    effects: set[str] = field(default_factory=set)  # "Kind.field"
    fires: set[str] = field(default_factory=set)  # window names
    skips: set[str] = field(default_factory=set)  # step names
    ends: bool = False
    note: str = ""


def _decision_text(s: A.Choose | A.Simultaneous) -> str:
    if s.prompt is not None and s.prompt.text.strip():
        text = s.prompt.text.replace("{}", "…").strip()
    elif isinstance(s, A.Choose) and s.label:
        text = s.label
    else:
        text = f"choose {s.var}"
    if isinstance(s, A.Simultaneous):
        text = "all at once: " + text
    elif s.optional:
        text += " (may pass)"
    return text if len(text) <= MAX_LINE else text[:MAX_LINE - 1] + "…"


def _effect_targets(prog: Program, call: A.Call, name: str) -> list[str]:
    func = call.func
    ty = func.obj.ty if isinstance(func, A.Attr) else None
    kinds = [ty.arg] if ty is not None and ty.arg and ty.arg in prog.kinds else list(prog.kinds)
    return [f"{k}.{name}" for k in kinds if name in prog.field_types.get(k, {})]


def _scan(prog: Program, block: Block, body: list[A.Stmt]) -> None:
    """What ``body`` asks, runs, fires, skips to and ends, nested blocks included, in source order."""
    stmts = sorted(walk_statements(body), key=lambda s: (s.span.line, s.span.column))
    for s in stmts:
        if isinstance(s, A.Choose | A.Simultaneous):
            block.decisions.append(_decision_text(s))
        elif isinstance(s, A.Fire):
            block.fires.add(s.window)
        elif isinstance(s, A.SkipTo):
            block.skips.add(s.step)
        elif isinstance(s, A.EndGame):
            block.ends = True
        elif isinstance(s, A.Do) and isinstance(s.call, A.Call) and s.call.ref is not None:
            ref = s.call.ref
            if ref[0] == "call_proc":
                block.calls.add(ref[1].name)
            elif ref[0] == "call_field":
                block.effects.update(_effect_targets(prog, s.call, ref[1]))


@dataclass
class Flow:
    """The blocks of a program and which of them the picture keeps."""

    title: str
    steps: list[Block]
    setup: Block
    finish: Block
    procs: dict[str, Block]
    handlers: dict[str, list[Block]]
    effects: dict[str, Block]
    windows: list[str]


def build(prog: Program) -> Flow:
    """Every block of ``prog``, scanned."""
    setup = Block("setup", "setup", "setup")
    _scan(prog, setup, prog.setup)
    finish = Block("finish", "finish", "finish")
    _scan(prog, finish, prog.finish)
    steps = []
    for st in prog.steps:
        b = Block(f"step_{st.name}", st.title or st.name, "step")
        if st.title and st.title != st.name:
            b.note = st.name
        _scan(prog, b, st.body)
        steps.append(b)
    procs = {}
    for name, p in prog.procs.items():
        procs[name] = b = Block(f"proc_{name}", name, "proc")
        _scan(prog, b, p.body)
    handlers: dict[str, list[Block]] = {}
    for window, hs in prog.handlers.items():
        for i, h in enumerate(hs):
            b = Block(f"on_{window}_{i}", f"on {window}", "handler")
            _scan(prog, b, h.body)
            handlers.setdefault(window, []).append(b)
    effects: dict[str, Block] = {}
    counts: dict[str, int] = {}
    for card in prog.cards:
        types = prog.field_types.get(card.kind, {})
        for fname, body in zip((k for k, v in card.values.items() if isinstance(v, list) and k in types
                                and types[k].kind == "effect"), effect_bodies(prog, card), strict=True):
            key = f"{card.kind}.{fname}"
            b = effects.setdefault(key, Block(f"effect_{card.kind}_{fname}", f"{key} (card effects)", "effect"))
            counts[key] = counts.get(key, 0) + 1
            _scan(prog, b, body)
    for key, b in effects.items():
        b.note = f"{counts[key]} card(s)"
        b.decisions = list(dict.fromkeys(b.decisions))  # the same question on many cards is shown once
    return Flow(prog.game.title, steps, setup, finish, procs, handlers, effects, list(prog.windows))


def _relevant(flow: Flow) -> set[str]:
    """The procedures and effects that ask, fire, skip, end, or run one that does (a fixed point)."""
    blocks = {**{f"proc:{k}": b for k, b in flow.procs.items()}, **{f"effect:{k}": b for k, b in flow.effects.items()}}
    keep = {k for k, b in blocks.items() if b.decisions or b.fires or b.skips or b.ends}
    changed = True
    while changed:
        changed = False
        for k, b in blocks.items():
            if k not in keep and (any(f"proc:{c}" in keep for c in b.calls)
                                  or any(f"effect:{e}" in keep for e in b.effects)):
                keep.add(k)
                changed = True
    return keep


def _folded(flow: Flow, b: Block) -> Block:
    """``b`` with every procedure it runs (and they run) folded in: their decisions, fires, skips, game ends and
    card effects become ``b``'s own, and ``b`` calls no procedure."""
    out = Block(b.key, b.title, b.kind, list(b.decisions), set(), set(b.effects), set(b.fires), set(b.skips),
                b.ends, b.note)
    seen: set[str] = set()
    todo = sorted(b.calls)
    while todo:
        name = todo.pop(0)
        if name in seen or name not in flow.procs:
            continue
        seen.add(name)
        p = flow.procs[name]
        out.decisions += [d for d in p.decisions if d not in out.decisions]
        out.effects |= p.effects
        out.fires |= p.fires
        out.skips |= p.skips
        out.ends = out.ends or p.ends
        todo += sorted(p.calls)
    return out


def fold(flow: Flow) -> Flow:
    """The flow without procedure nodes: each step, handler and card effect lists what its procedures do."""
    def f(b: Block) -> Block:
        return _folded(flow, b)

    return Flow(flow.title, [f(b) for b in flow.steps], f(flow.setup), f(flow.finish), {},
                {w: [f(h) for h in hs] for w, hs in flow.handlers.items()},
                {k: f(b) for k, b in flow.effects.items()}, flow.windows)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _label(b: Block, extra: list[str] | None = None, small: bool = False) -> str:
    """A block's node label: its title, note and decisions (``small``: the title alone), then ``extra`` lines
    (what the compact view says instead of arrows)."""
    rows = [f"<B>{_html(b.title)}</B>"]
    if b.note and not small:
        rows.append(f'<FONT POINT-SIZE="9" COLOR="#555555">{_html(b.note)}</FONT>')
    counted: dict[str, int] = {}
    for d in [] if small else b.decisions:
        counted[d] = counted.get(d, 0) + 1
    items = list(counted.items())
    for d, n in items[:MAX_DECISIONS_SHOWN]:
        rows.append(f'<FONT POINT-SIZE="10">◆ {_html(d)}{f" ×{n}" if n > 1 else ""}</FONT>')
    if len(items) > MAX_DECISIONS_SHOWN:
        rows.append(f'<FONT POINT-SIZE="10">… {len(items) - MAX_DECISIONS_SHOWN} more decisions</FONT>')
    rows += [_extra(line) for line in extra or []]
    return "<" + '<BR ALIGN="LEFT"/>'.join(rows) + '<BR ALIGN="LEFT"/>>'


def _extra(line: str) -> str:
    colour = "#b22222" if line.startswith("■") else "#555555" if line.startswith("run from") else "#1b6e1b"
    return f'<FONT POINT-SIZE="9" COLOR="{colour}">{_html(_cut(line, MAX_LINE + 20))}</FONT>'


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


STYLE = {
    "setup": 'shape=box style="rounded,filled" fillcolor="#eeeeee"',
    "finish": 'shape=box style="rounded,filled" fillcolor="#eeeeee"',
    "step": 'shape=box style="rounded,filled,bold" fillcolor="#dbe9f7"',
    "proc": 'shape=box style="filled" fillcolor="#f7f7f7"',
    "handler": 'shape=box style="filled" fillcolor="#fde8cf"',
    "effect": 'shape=note style="filled" fillcolor="#e6f4e6"',
}


# What the shapes and arrows mean, drawn in the picture itself so an SVG shared alone still reads.
LEGEND = (
    '  legend [shape=plaintext fontsize=9 label=<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">'
    '<TR><TD COLSPAN="2"><B>legend</B></TD></TR>'
    '<TR><TD BGCOLOR="#dbe9f7">step</TD><TD ALIGN="LEFT">◆ a decision asked there</TD></TR>'
    '<TR><TD BGCOLOR="#f7f7f7">proc</TD><TD ALIGN="LEFT">grey arrow: run with do</TD></TR>'
    '<TR><TD BGCOLOR="#e6f4e6">card effect</TD><TD ALIGN="LEFT">green arrow: do c.effect(…)</TD></TR>'
    '<TR><TD BGCOLOR="#ffd27f">window</TD><TD ALIGN="LEFT">orange: fire; dashed: its handler</TD></TR>'
    '<TR><TD BGCOLOR="#fde8cf">on window</TD><TD ALIGN="LEFT">dotted blue: skip to; red: end game</TD></TR>'
    "</TABLE>>];"
)


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(flow: Flow, procs_mode: str = "auto", view: str = "auto", focus_on: Sequence[str] = (),
           depth: int = 2) -> str:
    """The DOT text of a flow: deterministic (every list sorted or in source order).

    ``procs_mode``: ``show`` draws the procedures that ask, fire, skip or end (or run one that does); ``all``
    draws every procedure; ``fold`` draws none, each caller listing what its procedures do; ``auto`` is ``show``
    up to :data:`AUTO_FOLD` such procedures (or when ``focus_on`` names one), else ``fold``.
    ``view``: ``full`` draws every arrow; ``compact`` groups blocks by the step that runs them and replaces the
    arrows into much-run blocks and to "game over" by lines (tools/flowview.py); ``auto`` is compact past
    :data:`~.flowview.AUTO_COMPACT` arrows. ``focus_on``: names of steps, windows, procedures, card effects
    (``Kind.field``) or card kinds: only what they run, ``depth`` arrows deep, is drawn.
    """
    keep = _relevant(flow)
    if procs_mode == "auto":
        many = sum(k.startswith("proc:") for k in keep) > AUTO_FOLD
        procs_mode = "fold" if many and not _only_procs(flow, focus_on) else "show"
    if procs_mode == "fold":
        flow = fold(flow)
        keep = _relevant(flow)
    all_procs = procs_mode == "all"
    procs = [b for k, b in flow.procs.items() if all_procs or f"proc:{k}" in keep]
    effects = [b for k, b in flow.effects.items() if all_procs or f"effect:{k}" in keep]
    shown = {b.key for b in procs + effects}
    handlers = [h for w in flow.windows for h in flow.handlers.get(w, [])]
    blocks = {b.key: b for b in [flow.setup, *flow.steps, flow.finish, *procs, *effects, *handlers]}
    edges = [e for b in blocks.values() for e in _edges(b, flow, shown)]
    edges += [Edge("window_" + w, h.key, "on") for w in flow.windows for h in flow.handlers.get(w, [])]
    skeleton = [flow.setup.key, *(b.key for b in flow.steps), flow.finish.key]
    names = {**{b.key: b.title for b in blocks.values()}, **{f"window_{w}": w for w in flow.windows},
             **{b.key: k for k, b in flow.effects.items()}, **{b.key: k for k, b in flow.procs.items()}}
    nodes = [*blocks, *(f"window_{w}" for w in flow.windows), "game_over"]
    v = focus(nodes, skeleton, edges, _resolve(flow, focus_on, set(blocks)), depth) if focus_on else \
        View(set(nodes), edges)
    if view == "compact" or view == "auto" and len(v.edges) > AUTO_COMPACT:
        v = compact(v, skeleton, names)
    return _write(flow, blocks, v)


FOCUS_KINDS = ("step", "window", "proc", "effect")


def _only_procs(flow: Flow, wanted: Sequence[str]) -> bool:
    """Whether a ``--focus`` name asks for a procedure (``proc:NAME``, or a name only a procedure has): then the
    procedures are drawn, not folded."""
    for name in wanted:
        kind, _, bare = name.rpartition(":")
        if kind == "proc" or not kind and bare in flow.procs and bare not in flow.windows and \
                all(b.key != f"step_{bare}" for b in flow.steps):
            return True
    return False


def _resolve(flow: Flow, wanted: Sequence[str], drawn: set[str]) -> set[str]:
    """The node ids ``--focus`` names: a step, window, procedure, card effect ``Kind.field`` or card kind, each
    optionally prefixed ``step:``, ``window:``, ``proc:`` or ``effect:`` when several have the name."""
    out: set[str] = set()
    for spec in wanted:
        kind, _, name = spec.rpartition(":")
        if kind and kind not in FOCUS_KINDS:
            raise UsageError(f"--focus {spec}: the prefix is one of {', '.join(k + ':' for k in FOCUS_KINDS)}")
        hits = []
        if kind in ("", "step"):
            hits += [b.key for b in flow.steps if b.key == f"step_{name}"]
            hits += [b.key for b in (flow.setup, flow.finish) if b.key == name]
        if kind in ("", "window") and name in flow.windows:
            hits.append(f"window_{name}")
        if kind in ("", "proc"):
            hits += [b.key for k, b in flow.procs.items() if k == name and b.key in drawn]
        if kind in ("", "effect"):
            hits += [b.key for k, b in flow.effects.items() if name in (k, k.split(".")[0]) and b.key in drawn]
        if not hits:
            steps = ", ".join(b.key[5:] for b in flow.steps[:12])
            raise UsageError(f"--focus {spec}: no step, window, drawn procedure or card effect is called that "
                             f"(steps: {steps}; windows: {', '.join(flow.windows[:12]) or 'none'}; a card effect "
                             "is Kind.field; a procedure that asks, fires and ends nothing is drawn with --procs all)")
        out.update(hits)
    return out


def _write(flow: Flow, blocks: dict[str, Block], v: View) -> str:
    out = [f"digraph {_q(flow.title)} {{",
           f'  graph [rankdir=TB fontname="DejaVu Sans" labelloc=t fontsize=16 label={_q(flow.title + ": flow")} '
           'nodesep=0.25 ranksep=0.6];',
           '  node [fontname="DejaVu Sans" fontsize=11 margin="0.12,0.06"];',
           '  edge [fontname="DejaVu Sans" fontsize=9 color="#666666"];']

    def node(key: str, indent: str = "  ") -> str:
        if key.startswith("window_"):
            w = key[len("window_"):]
            label = _q(w) if key not in v.lines else \
                "<<B>" + _html(w) + '</B><BR ALIGN="LEFT"/>' + '<BR ALIGN="LEFT"/>'.join(
                    _extra(x) for x in v.lines[key]) + '<BR ALIGN="LEFT"/>>'
            return f'{indent}{_q(key)} [shape=hexagon style=filled fillcolor="#ffd27f" label={label}];'
        b = blocks[key]
        return f"{indent}{_q(key)} [{STYLE[b.kind]} label={_label(b, v.lines.get(key), key in v.small)}];"

    out.append(LEGEND)
    out.append(node(flow.setup.key))
    out.append('  subgraph cluster_round {\n    label="round" style="rounded,dashed" color="#1f77b4" fontsize=12;')
    out += [node(b.key, "    ") for b in flow.steps]
    out.append("  }")
    out.append(node(flow.finish.key))
    if "game_over" in v.keep:
        out.append('  game_over [shape=doubleoctagon style=filled fillcolor="#f7d4d4" label="game over"];')
    skeleton = {flow.setup.key, flow.finish.key, *(b.key for b in flow.steps), "game_over"}
    clustered = {n for members in v.clusters.values() for n in members}
    for i, (title, members) in enumerate(v.clusters.items()):
        out.append(f'  subgraph cluster_phase_{i} {{\n    label={_q(title)} style="rounded,dotted" color="#888888" '
                   'fontsize=11 fontcolor="#555555";')
        out += [node(n, "    ") for n in members]
        # a big group is stacked in rows of CLUSTER_ROW (invisible arrows), not drawn as one very wide row
        out += [f"    {_q(a)} -> {_q(b)} [style=invis];" for a, b in zip(members, members[CLUSTER_ROW:], strict=False)]
        out.append("  }")
    out += [node(n) for n in [*blocks, *(f"window_{w}" for w in flow.windows)]
            if n in v.keep and n not in skeleton and n not in clustered]
    chain = [flow.setup, *flow.steps]
    for a, b in zip(chain, chain[1:], strict=False):
        out.append(f'  {_q(a.key)} -> {_q(b.key)} [color="#1f77b4" penwidth=2.2 weight=10];')
    if flow.steps:
        out.append(f'  {_q(flow.steps[-1].key)} -> {_q(flow.steps[0].key)} [color="#1f77b4" penwidth=1.5 '
                   'style=dashed constraint=false label="next round"];')
    if "game_over" in v.keep:
        out.append(f'  game_over -> {_q(flow.finish.key)} [color="#b22222"];')
    out += [f"  {_q(e.src)} -> {'game_over' if e.dst == 'game_over' else _q(e.dst)}{EDGE_STYLE[e.kind]};"
            for e in v.edges]
    out.append("}")
    return "\n".join(out) + "\n"


EDGE_STYLE = {
    "call": "", "effect": ' [color="#2ca02c"]', "fire": ' [color="#c77c00" penwidth=1.6 label="fire"]',
    "skip": ' [style=dotted color="#1f77b4" label="skip to" constraint=false]',
    "end": ' [color="#b22222" style=dashed constraint=false]', "on": ' [style=dashed color="#c77c00" label="on"]',
}


def _edges(b: Block, flow: Flow, shown: set[str]) -> list[Edge]:
    out = []
    for c in sorted(b.calls):
        target = f"proc_{c}"
        if target in shown:
            out.append(Edge(b.key, target, "call"))
    for e in sorted(b.effects):
        key = flow.effects[e].key if e in flow.effects else ""
        if key in shown:
            out.append(Edge(b.key, key, "effect"))
    out += [Edge(b.key, "window_" + w, "fire") for w in sorted(b.fires)]
    out += [Edge(b.key, "step_" + s, "skip") for s in sorted(b.skips)]
    if b.ends:
        out.append(Edge(b.key, "game_over", "end"))
    return out


def render_svg(dot_text: str) -> str:
    """The SVG Graphviz draws of ``dot_text``; raises ValueError when ``dot`` is missing or fails."""
    exe = shutil.which("dot")
    if exe is None:
        raise UsageError("drawing SVG needs Graphviz's `dot` program (e.g. apt-get install graphviz); "
                         "write DOT instead with --out FILE.dot")
    try:
        done = subprocess.run([exe, "-Tsvg"], input=dot_text, capture_output=True, text=True, timeout=DOT_SECONDS,
                              check=False)
    except subprocess.TimeoutExpired as err:
        raise ValueError(f"`dot` took more than {DOT_SECONDS} s to lay out the graph") from err
    if done.returncode != 0:
        raise ValueError(f"`dot` failed: {done.stderr.strip()[:500]}")
    return done.stdout


def add_parser(sub: Any) -> None:
    """Register `graph` on the CLI's subcommands."""
    g = sub.add_parser("graph", help="draw a ruleset's flow: steps, decisions, windows and their handlers")
    g.add_argument("ruleset")
    g.add_argument("--out", help="FILE.dot (DOT text) or FILE.svg (drawn by Graphviz's dot); default: DOT on stdout")
    g.add_argument("--procs", choices=["auto", "show", "fold", "all"], default="auto",
                   help="show: draw the procedures that ask, fire, skip or end the game; fold: list what they do in "
                   "their callers instead; all: draw every procedure; auto (default): show, or fold when more than "
                   f"{AUTO_FOLD} would be drawn")
    g.add_argument("--view", choices=["auto", "full", "compact"], default="auto",
                   help="full: every arrow; compact: blocks grouped by the step that runs them, no arrows into "
                   "blocks run from many places or to game over (lines say so); auto (default): compact past "
                   f"{AUTO_COMPACT} arrows")
    g.add_argument("--focus", action="append", default=[], metavar="NAME",
                   help="draw only what this step, window, procedure, card effect (Kind.field) or card kind runs, "
                   "and who runs it (repeatable)")
    g.add_argument("--depth", type=ARGS.whole(1, 50), default=2, metavar="N",
                   help="with --focus: how many arrows deep to follow (default 2)")
    g.set_defaults(func=cmd_graph)


def cmd_graph(args: argparse.Namespace) -> int:
    program, diags = check_file(args.ruleset)
    if program is None:
        raise LiturgyError([d for d in diags if d.is_error] or diags)
    text = to_dot(build(program), args.procs, args.view, args.focus, args.depth)
    if not args.out:
        print(text, end="")
        return 0
    if args.out.endswith(".svg"):
        text = render_svg(text)
    elif not args.out.endswith(".dot") and not args.out.endswith(".gv"):
        raise UsageError(f"--out {args.out}: name a .dot (or .gv) or an .svg file")
    try:
        with open(args.out, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    except OSError as err:
        raise UsageError(f"--out {args.out}: {err.strerror or err}") from err
    print(f"wrote {args.out}")
    return 0


__all__ = ["Block", "Flow", "add_parser", "build", "cmd_graph", "render_svg", "to_dot"]
