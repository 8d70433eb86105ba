"""A checked game's whole check written as one function per ruleset and tables: the certificate's written check, then
the declared invariants, with no dispatch between them.

``Game.violations`` ran at every checked decision (Bloodborne's bench loop: about 76 a game) as a generic method:
it looked up the certificate's masks, called the certificate's check (:mod:`.certgen`: a frame), worked out the set
of declared invariants to evaluate from the masks, took that set's plan (a tuple of (number, bit) pairs), and for
each entry unpacked the invariant's (text, function, steps outside) triple and tested the steps (about 190
bytecodes a check before any invariant ran). Here that method's path through a proven certificate is written as
Python for one ruleset's invariants and one table's certificate check: the check's lines (:func:`certgen.lines`),
then the set to evaluate from constants (every invariant's bit, those whose read set is unknown), then each
invariant as an ``if todo & bit:`` block calling its function, its text and its steps outside as constants, in the
invariants' order. Compiled once per distinct text in a process, as the certificate's check is. An invariant the
expression generator wrote a text for is not called: its text is written into its block (:mod:`.invgen`: its
locals renamed apart, its loops over the seats written seat by seat for these tables), a closure keeps its call.

Why the report is ``Game.violations``' report: every line is that method's line with its lookups replaced by what
they return for this ruleset and these tables (the invariants' list, its read-set masks and the written check are
fixed for a game's tables), in the same order: each invariant is evaluated with a fresh environment and a work
budget of its own, a RuleError is reported as "could not evaluate", a false value as a violation, in bit order; the
steps an invariant names are looked up once per check, at the first invariant that names any; the certificate's
``held`` is cleared before the first evaluation and set after the last, and ``s.work`` restored however it ends.
When the certificate is not proven the function returns False (the engine then checks in full, as it did when the
check failed), and it gives way to the engine's method when the record's audit runs or the certificate's check is
no longer the written one (a test wrapping it). tests/test_checkgen.py plays checked games of a small ruleset with
planted corruptions with the written function and without it and compares every check's report.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from types import CodeType
from typing import TYPE_CHECKING, Any

from liturgy.interpreter.runtime import certgen, invgen, seats
from liturgy.interpreter.runtime import invariants as inv
from liturgy.interpreter.runtime.errors import RuleError
from liturgy.interpreter.runtime.state import GameState, Tables

if TYPE_CHECKING:
    from liturgy.interpreter.engine.game import Game

# (game, certificate, state) -> the report (a list), or False when the certificate is not proven
Check = Callable[[Any, inv.Certified, GameState], Any]
Invariants = list[tuple[str, Callable[..., Any], frozenset[str]]]

MAX_INVARIANTS = 64  # past this many declared invariants the written blocks are not worth their text
_CODE: dict[str, CodeType] = {}  # generated text -> its compiled code (the suite builds the same tables many times)


def install(cert: inv.Certified, t: Tables, invs: Invariants, at: dict[int, str]) -> None:
    """Give ``cert`` the whole check written for ``t`` and ``invs`` (:attr:`Certified.fast`) when its certificate
    check is the one :func:`certgen.install` wrote for ``t`` (else it keeps none: the engine's method runs). ``at``
    is the ruleset's table of step names by position (``step_at_pc``), filled as positions are met."""
    made = t.cert_test
    masks = cert.masks
    if made is None or made[2] is None or cert.test is not made[2] or masks is None or masks is not made[0]:
        return
    test = made[2]
    got = t.cert_check
    if got is None or got[0] is not test or got[1] is not invs or got[2] is not at:
        got = t.cert_check = (test, invs, at, _make(t, masks, made[1], test, invs, at))
    cert.fast = got[3]


def _step(g: Game, s: GameState) -> str:
    """The name of the step ``s`` is at (``Game.violations``' lookup: once per ruleset and position)."""
    frames = s.frames
    if frames:
        at = g.ruleset.compiled.step_at_pc
        step = at.get(pc := frames[0][1])
        if step is None:
            step = at[pc] = g.step_name()
        return step
    return "setup"


def _again(g: Game, cert: inv.Certified) -> Any:
    """The engine's own method, for a certificate whose check is no longer the written one (or while the audit runs)."""
    cert.fast = None
    return g.violations()


def _make(t: Tables, masks: inv.Masks, lift: int, test: Callable[..., Any], invs: Invariants,
          at: dict[int, str]) -> Check | None:
    binds: dict[str, Any] = {}
    got = source(t, masks, lift, invs, binds)
    if got is None:
        return None
    text, kinds = got
    code = _CODE.get(text)
    if code is None:
        code = _CODE[text] = compile(text, "<liturgy invariant check>", "exec")
    slot_of, zone_of, _, shift, relevant = masks
    ns: dict[str, Any] = {"_kind": kinds, "_zone_of": zone_of, "_relevant": relevant, "_inv": inv,
                          "_pair": certgen.pairs(zone_of),  # (chkcert, session 27: the moved cards' masks by pair)
                          "_capacity": inv._capacity, "_final": inv._final, "_pending": inv._pending,
                          "_seats": seats, "_OPTIONS": inv._OPTIONS, "_INT": inv._INT, "_written": test,
                          "_again": _again, "_step": _step, "_at": at, "_RuleError": RuleError}
    for k, (text_k, fn, outside) in enumerate(invs):
        ns[f"_f{k}"] = fn
        ns[f"_t{k}"] = text_k
        ns[f"_o{k}"] = outside
    ns["_T"] = t  # (the tables a written-out loop over the seats was unrolled for)
    ns.update(binds)  # the written-out invariants' globals (invgen.py: ``_V`` names, none of the above)
    exec(code, ns)  # noqa: S102 - our own text: names and int constants, nothing a ruleset wrote
    fn_: Check = ns["check"]
    return fn_


def source(t: Tables, masks: inv.Masks, lift: int, invs: Invariants,
           binds: dict[str, Any] | None = None) -> tuple[str, list[int]] | None:
    """The text of the whole check for ``t``, ``masks`` and ``invs`` and the per-slot class list it reads, or None
    where the engine's method stays (module docstring). The invariants :func:`invgen.inline` writes out are written
    in the text, the objects their lines read put in ``binds`` (when given; without it every invariant is a call)."""
    unknown = masks[2]
    if len(invs) > MAX_INVARIANTS or type(unknown) is not int:
        return None
    written = _written_out(invs, t, binds)
    # a loop over the seats written seat by seat reads these tables' seats: the check gives way on any other
    guard = " or s.tables is not _T" if any(got_k.seats for got_k in written.values()) else ""
    escape = [f"    if _inv.AUDIT is not None or self.test is not _written{guard}:", "        return _again(g, self)"]
    got = certgen.lines(t, masks, lift, "def check(g, self, s):", escape)
    if got is None:
        return None
    w, kinds = got
    if any(_OURS.search(line) for line in w if line not in escape):  # a name of the written-out lines in use
        written = {}
    every = (1 << len(invs)) - 1
    add = w.append
    add("    self.out = out")
    add("    held = self.held")
    add("    if held is None:")
    add(f"        todo = {every}")
    add("    else:")
    add(f"        todo = (bits | {unknown} | ~held) & {every}" if unknown & every else
        f"        todo = (bits | ~held) & {every}")
    add("        if not todo:")
    add("            return out")
    add("        self.held = None")
    add(f"    held = {every} ^ todo")
    add("    work = s.work")
    for attr in sorted({a for got_k in written.values() for a in got_k.hoisted}):
        add(f"    {invgen.HOISTED[attr]} = s.{attr}")  # not replaced while the check runs (invgen.py)
    named = sum(1 for _, _, outside in invs if outside) > 1  # more than one names steps: look the step up once
    if named:
        add("    step = None")
    add("    try:")
    for k, (_, _, outside) in enumerate(invs):
        add(f"        if todo & {1 << k}:")
        pad = "            "
        if outside:  # the step's name from the ruleset's table (``_step`` where it has none yet), once a check
            inner = "                " if named else "            "
            if named:
                add("            if step is None:")
            add(f"{inner}fr = s.frames")
            add(f"{inner}step = _at.get(fr[0][1]) if fr else 'setup'")
            add(f"{inner}if step is None:")
            add(f"{inner}    step = _step(g, s)")
            add(f"            if step not in _o{k}:")
            pad += "    "
        mine = written.get(k)
        if mine is None or mine.budget:
            add(f"{pad}s.work = 0")
        add(f"{pad}try:")
        if mine is None:
            add(f"{pad}    ok = _f{k}(s, {{}})")
        else:  # the invariant's own generated lines (invgen.py)
            w += [f"{pad}    {line}" for line in mine.lines]
            add(f"{pad}    ok = {mine.value}")
        add(f"{pad}except _RuleError as err:")
        add(f"{pad}    out.append((_t{k}, f'could not evaluate: {{err}}'))")
        add(f"{pad}else:")
        add(f"{pad}    if ok:")
        add(f"{pad}        held |= {1 << k}")
        add(f"{pad}    else:")
        add(f"{pad}        out.append((_t{k}, ''))")
    if not invs:
        add("        pass")
    add("    finally:")
    add("        s.work = work")
    add("    self.held = held")
    add("    return out")
    return "\n".join(w) + "\n", kinds


_OURS = re.compile(r"\b(_L\d|_V|_T\b|_zs\b|_cz\b|_tz\b|env\b)")  # names the written-out lines use


def _written_out(invs: Invariants, t: Tables, binds: dict[str, Any] | None) -> dict[int, invgen.Inline]:
    """The invariants written out in the check (:func:`invgen.inline`, their loops over the seats unrolled for
    ``t``'s: :func:`invgen.unrolled`) by number, their globals added to ``binds``; none without ``binds``, and an
    invariant whose global name would be bound to two objects keeps its call."""
    if binds is None:
        return {}
    out: dict[int, invgen.Inline] = {}
    for k, (_, fn, _) in enumerate(invs):
        got = invgen.inline(k, fn)
        if got is None or any(binds.get(n, v) is not v for n, v in got.binds.items()):
            continue
        binds.update(got.binds)
        out[k] = invgen.unrolled(got, t.players) or got
    return out
