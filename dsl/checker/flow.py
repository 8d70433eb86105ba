"""Information flow (W075–W078): a hidden card's field must not reach what other players see without a `reveal`.

The engine redacts card *names* in everything a player sees. A card's *fields* are plain values: once read, a
face-down card's rank is a number like any other, and a log line, a public counter, an option label or the
filter of another player's choice shows it to whoever reads them. This analysis follows those values through
each block, in order:

- a card is *secret* when it comes from a zone some player cannot see (every zone but a `public` one: `hidden`,
  `owner`, `secret`, `visible to` a group) — a loop or choice over such a zone, `top(deck)`, a local bound to one
  — or was moved into such a zone since. `reveal c` and a move into a public zone make it open again, for the
  statements that follow in that block;
- a value is *tainted* when it reads a field of a secret card (``c.rank``, ``sum(c.rank for c in p.hand)``), a
  counter or grid cell declared `hidden`, `visible to owner` (another player's) or `visible to` a group, or a
  local holding such a value; assigning it to a counter that is itself hidden is no sink;
- sinks: a counter assigned a tainted value (W075: counters are public); a `log` line (to everyone) with a
  tainted argument (W076), and so does a `report` (the result every player reads at the end); a choice's
  prompt or options computed from a tainted value (W077: the labels and the prompt are what the chooser reads; a
  `display` `show` line of hidden cards the viewer does not hold is the same, W077); a choice's `where` filter
  reading a card hidden from the chooser (W078: how many options there are, and which, tells the chooser about
  it). A zone `owner`'s cards read by the owner's own choice or display
  (``p.hand`` in ``choose … by p``) are the chooser's to see.

A `log to P` line is read by P: its arguments may read only what P may see (P's own zones, zones `visible to`
a group P is `log to`'d as, cards `reveal`ed `to` P before; W076). A hidden card or a tainted value passed as an
argument is followed into the procedure, handler or function it is passed to: the parameter is then secret (or
tainted) in that body, and a sink it reaches there is reported at the argument, naming the body's line (W075–W078
by the sink). A body is followed once per parameter and kind; a body that calls itself is not followed again.

It is a check of the common shapes, not a proof: a value returned by a procedure through a counter, a card's own
effect fields (`c.effect()`), and `describe` text are not followed, a function's own reads of hidden zones (not
through its parameters) are not either, and what the rules reveal is judged by the statements before the read in
the same block. `liturgy fuzz` tests the same property by running the game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, is_dataclass
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A

Warn = Callable[..., None]
_Finding = tuple[str, str, str, Span]  # code, message, hint, where


class _Env:
    """What a block knows: locals naming secret cards, locals holding tainted values (both by name), and zones
    whose cards have been revealed (`reveal p.table`) since the block began. ``owners``: a secret local taken
    from one player's own zones (`bottom(players[0].trail)`) names that player, who may see it."""

    def __init__(self, secret: set[str] | None = None, tainted: set[str] | None = None,
                 revealed: set[str] | None = None, owners: dict[str, str] | None = None,
                 groups: set[str] | None = None, shown: dict[str, frozenset[str]] | None = None) -> None:
        self.secret = set(secret or ())
        self.groups = set(groups or ())  # groups the viewer is known to be in (`if p in heroes() { … }`)
        self.tainted = set(tainted or ())
        self.revealed = set(revealed or ())
        self.owners = dict(owners or {})
        # who else may read a secret or tainted local, or a zone, by name: `reveal c to p` (as texts)
        self.shown = dict(shown or {})
        self.opened: set[str] = set()  # card locals revealed to everyone: a later move out of sight hides nothing

    def child(self) -> _Env:
        inner = _Env(self.secret, self.tainted, self.revealed, self.owners, self.groups, self.shown)
        inner.opened = set(self.opened)
        return inner

    def readable(self, name: str, viewer: str | None) -> bool:
        """Whether ``viewer`` may read the secret or tainted local (or zone) ``name``: its owner, or shown it."""
        return viewer is not None and (self.owners.get(name) == viewer or viewer in self.shown.get(name, ()))


def _zone_of(e: Any) -> A.ZoneDecl | None:
    ref = getattr(e, "ref", None)
    if ref is not None and ref[0] in ("zone", "pzone", "czone"):
        decl: A.ZoneDecl = ref[1]
        return decl
    return None


# the fields of each expression class that can hold expressions, in declaration order (what `dataclasses.fields`
# gives, without building its tuple again for every node: it was a sixth of the flow analysis)
_SKIPPED_FIELDS = frozenset(("span", "ty", "ref", "func_span", "name_span"))
_EXPR_FIELDS: dict[type, tuple[str, ...]] = {}


def _expr_fields(cls: type) -> tuple[str, ...]:
    names = _EXPR_FIELDS.get(cls)
    if names is None:
        names = _EXPR_FIELDS[cls] = tuple(f.name for f in fields(cls) if f.name not in _SKIPPED_FIELDS) \
            if is_dataclass(cls) else ()
    return names


def _nodes(e: Any) -> list[Any]:
    """Every expression node inside ``e`` (itself included)."""
    out: list[Any] = []
    stack = [e]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if isinstance(node, list | tuple):
            stack.extend(node)
            continue
        if not isinstance(node, A.Expr):
            continue
        out.append(node)
        stack.extend([getattr(node, name) for name in _expr_fields(type(node))])
    return out


class FlowChecker:
    """Runs the analysis over every block of a checked program and reports through ``warn``."""

    def __init__(self, prog: Program, warn: Warn) -> None:
        self.prog = prog
        self.warn = warn
        self.reported: set[tuple[str, int, int]] = set()
        self.later: set[str] = set()  # cards the rest of the current block opens before anyone decides
        # while a called body is followed: its findings, to be reported at the call's argument instead
        self.collecting: list[_Finding] | None = None
        self.following: set[Any] = set()  # bodies being followed now (a body that calls itself stops there)
        self.memo: dict[Any, Any] = {}
        # an argument found hidden through a function's parameter: what to add to the message reported there
        self.via: dict[tuple[str, int, int], str] = {}
        self.values: set[tuple[str, int, int]] = set()  # where a hidden counter or cell was found read

    # ------------------------------------------------------------ expressions
    def _hidden_zone(self, e: Any, viewer: str | None, env: _Env | None = None) -> bool:
        """Whether ``e`` names a zone some player (or, with ``viewer``, that player) cannot see."""
        z = _zone_of(e)
        if z is None or z.visibility == "public" or (env is not None and z.name in env.revealed):
            return False
        if z.visibility == "group" and isinstance(z.group, A.Name) and z.group.ref == ("builtin", "players"):
            return False  # `visible to players`: open to every player
        if z.visibility == "group" and env is not None and _group_text(z.group) in env.groups:
            return False  # inside `if viewer in GROUP`: the viewer is one of those who see it
        if env is not None and viewer is not None and viewer in env.shown.get("zone " + _text(e), ()):
            return False  # `reveal p.hand to q`: q may read it
        # the viewer's own hand is the viewer's to see
        return not (viewer is not None and z.visibility == "owner" and isinstance(e, A.Attr)
                    and _text(e.obj) == viewer)

    def secret(self, e: Any, env: _Env, viewer: str | None = None) -> bool:
        """Whether the card (or cards) ``e`` denotes may be hidden from some player (or from ``viewer``)."""
        for node in _nodes(e):
            if self._hidden_zone(node, viewer, env):
                return True
            if isinstance(node, A.Name) and node.ref is not None and node.ref[0] == "local" and node.id in env.secret \
                    and not env.readable(node.id, viewer):
                return True
        return False

    def hidden_value(self, node: Any, env: _Env, viewer: str | None) -> bool:
        """Whether ``node`` reads a counter or grid cell some player (or ``viewer``) may not see: declared `hidden`,
        `visible to owner` (another player's, or a cell of such a grid) or `visible to` a group (outside an `if`
        that puts the viewer in it)."""
        ref = getattr(node, "ref", None)
        if not isinstance(node, A.Name | A.Attr | A.Cell) or ref is None \
                or ref[0] not in ("counter", "pcounter", "ccounter", "gridcell"):
            return False
        decl = ref[1]
        if not decl.seen_by:
            return False
        if decl.seen_by == "owner" and isinstance(node, A.Attr) and viewer is not None and _text(node.obj) == viewer:
            return False  # the viewer's own value
        if decl.seen_by == "group" and _group_text(decl.seen_group) in env.groups:
            return False
        self.values.add((node.span.file, node.span.line, node.span.column))
        return True

    def tainted(self, e: Any, env: _Env, viewer: str | None = None) -> A.Expr | None:
        """The first read of a hidden card's field inside ``e`` (or of a local holding one, or of a hidden value:
        :meth:`hidden_value`), else None."""
        for node in _nodes(e):
            if self.hidden_value(node, env, viewer):
                return node  # type: ignore[no-any-return]
            if isinstance(node, A.Name) and node.ref is not None and node.ref[0] == "local" \
                    and node.id in env.tainted and not env.readable(node.id, viewer):
                return node
            if isinstance(node, A.Call):
                through = self._tainted_call(node, env, viewer)
                if through is not None:
                    return through
            if isinstance(node, A.Attr) and node.ref is not None and node.ref[0] == "field" \
                    and self._card_secret(node.obj, env, viewer):
                return node
            if isinstance(node, A.Aggregate | A.ListComp) and self.secret(node.iterable, env, viewer):
                inner = env.child()
                inner.secret.add(node.var)
                found = self.tainted([node.elem, node.where], inner, viewer)
                if found is not None:
                    return found
        return None

    def _card_secret(self, obj: Any, env: _Env, viewer: str | None) -> bool:
        return self.secret(obj, env, viewer)

    # ------------------------------------------------------------ statements
    def block(self, stmts: list[A.Stmt], env: _Env) -> None:
        for i, st in enumerate(stmts):
            self.later = _opened_later(self, stmts[i + 1:], env)
            self.stmt(st, env)

    def stmt(self, st: A.Stmt, env: _Env) -> None:
        """One statement, by the handler :data:`FLOW_STMTS` keeps for its kind; a kind without one is an error,
        never skipped: a statement the leak analysis does not know could carry a secret past it."""
        handler = FLOW_STMTS.get(type(st))
        if handler is None:
            raise AssertionError(f"the leak analysis (dsl/checker/flow.py) has no rule for {type(st).__name__}: "
                                 "add one to FLOW_STMTS")
        handler(self, st, env)

    def _let(self, st: A.Let, env: _Env) -> None:
        self._bind(st.name, st.value, env)

    def _assign(self, st: A.Assign, env: _Env) -> None:
        target = st.target
        if isinstance(target, A.Name) and target.ref is not None and target.ref[0] == "local":
            self._bind(target.id, st.value, env, keep=st.op != "=")
            return
        # a counter is seen at the next decision: a card the block opens before then may be read
        seen = env.child()
        seen.secret -= self.later
        found = self.tainted(st.value, seen)
        ref = getattr(target, "ref", None)
        if isinstance(target, A.Index):  # `p.garden[x] = …`: the indexed counter's own declaration
            ref = getattr(target.obj, "ref", None) if ref is not None and ref[0] == "icounter" else ref
        hidden_target = ref is not None and len(ref) > 1 and bool(getattr(ref[1], "seen_by", ""))
        if found is not None and ref is not None and ref[0] in ("counter", "pcounter", "icounter") \
                and not hidden_target:
            self._report("W075", found.span,
                         f"a field of a card some player cannot see flows into counter `{_text(target)}`, "
                         f"which every player sees", "reveal the card first (`reveal c`), or keep the "
                         "value out of public counters")

    def _move(self, st: A.Move, env: _Env) -> None:
        dest = st.dest
        names = [n.id for n in _nodes(st.what) if isinstance(n, A.Name) and n.ref is not None
                 and n.ref[0] == "local" and _card_typed(n)]
        if self._hidden_zone(dest, None, env) or self.secret(dest, _Env()):
            env.secret.update(n for n in names if n not in env.opened)
        elif _zone_of(dest) is not None:
            env.secret.difference_update(names)

    def _reveal(self, st: A.Reveal, env: _Env) -> None:
        target = st.target
        if st.to is None:
            env.secret.difference_update(n.id for n in _nodes(st.target) if isinstance(n, A.Name))
            env.opened.update(n.id for n in _nodes(st.target) if isinstance(n, A.Name))
            if isinstance(target, A.Attr | A.Name) and _zone_of(target) is not None:
                env.revealed.add(_zone_of(target).name)  # type: ignore[union-attr]
        else:
            self._shown_to(target, self._audience(st.to, env)[0], env)

    def _if(self, st: A.If, env: _Env) -> None:
        for _, body in st.branches:
            self.block(body, env.child())
        self.block(st.orelse, env.child())

    def _for(self, st: A.For, env: _Env) -> None:
        inner = env.child()
        self._bind(st.var, st.iterable, inner, loop=True)
        self.block(st.body, inner)
        env.revealed |= inner.revealed  # `for p in players { reveal p.table }` opens every table

    def _repeat(self, st: A.RepeatWhile, env: _Env) -> None:
        self.block(st.body, env.child())

    def _choose(self, st: A.Choose, env: _Env) -> None:
        self._choice(st.var, st.source, st.where, st.prompt, self._who(st.chooser), st.span, env)
        inner = env.child()
        self._bind(st.var, st.source, inner, loop=True)
        self.block(st.body, inner)
        if st.none_body is not None:
            self.block(st.none_body, env.child())

    def _simultaneous(self, st: A.Simultaneous, env: _Env) -> None:
        chooser = self._who(st.by) if st.by is not None else st.player_var
        self._choice(st.var, st.source, st.where, st.prompt, chooser, st.span, env)
        inner = env.child()
        self._bind(st.var, st.source, inner, loop=True)
        self.block(st.body, inner)

    def _do(self, st: A.Do, env: _Env) -> None:
        """`do` of a procedure: its body, followed with these arguments. A card's effect (`do c.effect(…)`) is
        checked where the effect is declared (each card's body, with its own parameters), not per call."""
        if isinstance(st.call, A.Call) and st.call.ref is not None and st.call.ref[0] == "call_proc":
            proc = st.call.ref[1]
            self._follow(("proc", proc.name), proc.params, proc.body, st.call.args, env)

    def _fire(self, st: A.Fire, env: _Env) -> None:
        for k, handler in enumerate(self.prog.handlers.get(st.window, ())):
            self._follow(("on", st.window, k), handler.params, handler.body, st.args, env)

    def _transfer(self, st: A.Transfer, env: _Env) -> None:
        """The amount lands in pool holders, which every player sees: as an assignment to a counter (W075). The
        name it binds (`as got`) holds what moved, so it carries what the amount carries."""
        if st.amount is None:
            return
        seen = env.child()
        seen.secret -= self.later
        found = self.tainted(st.amount, seen)
        if found is not None:
            self._report("W075", found.span,
                         f"a field of a card some player cannot see decides how much `transfer` moves to "
                         f"`{_text(st.dest)}`, which every player sees", "reveal the card first (`reveal c`), or "
                         "keep the value out of public counters")
        if st.bind is not None:
            self._bind(st.bind, st.amount, env)

    def _nothing(self, st: A.Stmt, env: _Env) -> None:
        """A statement that shows nothing to anyone and binds nothing a later statement could show."""

    def _log(self, st: A.Log, env: _Env) -> None:
        """A log line without `to` is read by everyone; `log to P` by P only: its arguments may read what P sees."""
        viewer, inside = self._audience(st.to, env)
        for arg in st.args:
            found = self.tainted(arg, inside, viewer)
            if found is None:
                continue
            if st.to is None:
                self._report("W076", found.span, "a field of a card some player cannot see is written in a "
                             "log line every player reads", "`reveal` the card before logging its field, or "
                             "`log to` the players who may see it")
            else:
                self._report("W076", found.span, f"a field of a card `{_text(st.to)}` cannot see is written in a "
                             f"log line to `{_text(st.to)}`", "`reveal` the card to them first (`reveal c to "
                             "…`), or log the field only to players who may see the card")
            break

    def _audience(self, to: A.Expr | None, env: _Env) -> tuple[str | None, _Env]:
        """Who reads a `log to` line or is shown a `reveal … to` (as the text that names them: a player, or a
        group of players, who are then known to be in that group), and the environment to read in. None: all."""
        if to is None:
            return None, env
        ty = to.ty
        if ty is not None and ty.kind == "list":
            text = _group_text(to)
            if "…" in text:
                return f"⟨a group at {to.span.line}:{to.span.column}⟩", env
            inside = env.child()
            inside.groups.add(text)
            return text, inside
        text = self._who(to)
        return (f"⟨a player at {to.span.line}:{to.span.column}⟩" if "…" in text else text), env

    def _shown_to(self, target: A.Expr, viewer: str | None, env: _Env) -> None:
        """`reveal c to P` (or a zone): P may read it from now on in this block."""
        if viewer is None or viewer.startswith("⟨"):
            return
        for n in _nodes(target):
            if isinstance(n, A.Name) and n.ref is not None and n.ref[0] == "local":
                env.shown[n.id] = env.shown.get(n.id, frozenset()) | {viewer}
        if _zone_of(target) is not None:
            key = "zone " + _text(target)
            env.shown[key] = env.shown.get(key, frozenset()) | {viewer}

    # ------------------------------------------------------------ calls
    def _callee(self, params: list[A.Param], args: list[A.Expr], i: int, how: str, env: _Env,
                viewer: str | None) -> tuple[_Env, str | None]:
        """The environment a called body starts in when argument ``i`` is hidden (``how``: "secret" or "tainted"),
        and the caller's viewer as the body names it (the parameter it is passed as). A player the caller knows
        may read the argument (its owner, or shown it) keeps that right under its parameter's name."""
        inner = _Env()
        name = params[i].name
        (inner.secret if how == "secret" else inner.tainted).add(name)
        by_text = {self._who(a): q.name for q, a in zip(params, args, strict=False)}
        arg = args[i]
        owner = env.owners.get(arg.id) if isinstance(arg, A.Name) else self._sole_owner(arg)
        if owner is not None and owner in by_text:
            inner.owners[name] = by_text[owner]
        shown = env.shown.get(arg.id, frozenset()) if isinstance(arg, A.Name) else frozenset()
        if shown & by_text.keys():
            inner.shown[name] = frozenset(by_text[t] for t in shown if t in by_text)
        if viewer is None:
            return inner, None
        return inner, by_text.get(viewer, "⟨the caller's viewer⟩")

    def _hidden_how(self, arg: A.Expr, env: _Env, viewer: str | None = None) -> str | None:
        if _card_typed(arg) or (arg.ty is not None and arg.ty.kind == "zone"):
            return "secret" if self.secret(arg, env, viewer) else None
        return "tainted" if self.tainted(arg, env, viewer) is not None else None

    def _follow(self, key: tuple[Any, ...], params: list[A.Param], body: list[A.Stmt], args: list[A.Expr],
                env: _Env) -> None:
        """A procedure or handler called with hidden arguments: follow each into the body, and report what it
        reaches there (beyond what the body does with any arguments) at the argument."""
        for i, (param, arg) in enumerate(zip(params, args, strict=False)):
            how = self._hidden_how(arg, env)
            if how is None:
                continue
            inner, _ = self._callee(params, args, i, how, env, None)
            memo_key = (key, i, how, frozenset(inner.owners.items()), frozenset(inner.shown.items()))
            found = self.memo.get(memo_key)
            if found is None:
                if memo_key in self.following:
                    continue  # a body that calls itself: followed once
                self.following.add(memo_key)
                base = {(f[0], f[3].line, f[3].column) for f in self._collect(body, _Env(), key)}
                found = [f for f in self._collect(body, inner) if (f[0], f[3].line, f[3].column) not in base]
                self.following.discard(memo_key)
                self.memo[memo_key] = found
            for code, message, hint, span in found:
                self._report(code, arg.span, f"{message}, through parameter `{param.name}` of `{key[1]}` "
                             f"(line {span.line})", hint)

    def _collect(self, body: list[A.Stmt], env: _Env, memo: Any = None) -> list[_Finding]:
        """What analysing ``body`` in ``env`` would report (memoised under ``memo``), without reporting it."""
        if memo is not None and ("base", memo) in self.memo:
            out: list[_Finding] = self.memo[("base", memo)]
            return out
        saved, later = self.collecting, self.later
        self.collecting = []
        try:
            self.block(body, env)
            out = self.collecting
        finally:
            self.collecting, self.later = saved, later
        if memo is not None:
            self.memo[("base", memo)] = out
        return out

    def _tainted_call(self, call: A.Call, env: _Env, viewer: str | None) -> A.Expr | None:
        """A call of a function whose body reads a field of a card hidden from ``viewer``: through a hidden card
        passed as an argument (the argument is returned, to report there), else None."""
        ref = call.ref
        if ref is None or ref[0] != "call_fn":
            return None
        fn = ref[1]
        for i, (_, arg) in enumerate(zip(fn.params, call.args, strict=False)):
            if self._hidden_how(arg, env, viewer) != "secret":
                continue  # a tainted argument is found where it is read, in the call's own arguments
            inner, inner_viewer = self._callee(fn.params, call.args, i, "secret", env, viewer)
            memo_key = ("fn", fn.name, i, inner_viewer, frozenset(inner.owners.items()),
                        frozenset(inner.shown.items()))
            found = self.memo.get(memo_key)
            if found is None:
                if memo_key in self.following:
                    continue
                self.following.add(memo_key)
                found = self.tainted(fn.body, inner, inner_viewer) is not None \
                    and self.tainted(fn.body, _Env(), inner_viewer) is None
                self.following.discard(memo_key)
                self.memo[memo_key] = found
            if found:
                self.via[(arg.span.file, arg.span.line, arg.span.column)] = (
                    f", through parameter `{fn.params[i].name}` of `{fn.name}` (line {fn.span.line})")
                return arg
        return None

    def _bind(self, name: str, value: A.Expr, env: _Env, loop: bool = False, keep: bool = False) -> None:
        """A local now holds ``value`` (or, with ``loop``, its items): secret card(s), tainted, or neither."""
        if not keep:
            env.secret.discard(name)
            env.tainted.discard(name)
            env.owners.pop(name, None)
            env.shown.pop(name, None)
            env.opened.discard(name)
        # players shown what the value is made of (`reveal c to p`) may read it too
        names = {n.id for n in _nodes(value) if isinstance(n, A.Name) and n.ref is not None and n.ref[0] == "local"}
        shown_to = {v for n in names for v in env.shown.get(n, ())}
        ty = value.ty
        holds_cards = ty is not None and (ty.kind in ("card", "zone") or (
            ty.kind == "list" and ty.elem is not None and ty.elem.kind == "card"))
        if holds_cards and self.secret(value, env):
            env.secret.add(name)
            self._readers(name, value, shown_to, env, self.secret)
            owner = self._sole_owner(value)
            if owner is not None and (not keep or env.owners.get(name, owner) == owner):
                env.owners[name] = owner
            else:
                env.owners.pop(name, None)
        elif self.tainted(value, env) is not None:
            env.tainted.add(name)
            self._readers(name, value, shown_to, env, self.tainted)
            # tainted only by one player's own cards: that player may still read it
            candidates = {env.owners[n.id] for n in _nodes(value) if isinstance(n, A.Name) and n.id in env.owners}
            candidates |= {o for o in [self._sole_owner(value)] if o is not None}
            if len(candidates) == 1 and self.tainted(value, env, next(iter(candidates))) is None:
                env.owners[name] = next(iter(candidates))

    @staticmethod
    def _readers(name: str, value: A.Expr, candidates: set[str], env: _Env, hidden: Callable[..., Any]) -> None:
        """Of the players shown parts of ``value``, those who may read all of it may read local ``name``."""
        readers = frozenset(v for v in candidates if not hidden(value, env, v))
        if readers:
            env.shown[name] = readers

    def _choice(self, var: str, source: A.Expr, where: A.Expr | None, prompt: A.Prompt | None, chooser: str,
                span: Span, env: _Env) -> None:
        ty = source.ty
        cards = ty is not None and (ty.kind == "zone" or (ty.kind == "list" and ty.elem is not None
                                                          and ty.elem.kind == "card"))
        found = None if cards else self.tainted(source, env, chooser)
        if found is not None:
            self._report("W077", found.span, "the options of this choice are computed from a field of a card the "
                         "chooser cannot see: their labels show it", "reveal the card first, or offer options "
                         "that do not depend on it")
        if prompt is not None:
            for arg in prompt.args:
                found = self.tainted(arg, env, chooser)
                if found is not None:
                    self._report("W077", found.span, "a field of a card the chooser cannot see is written in the "
                                 "choice's prompt", "reveal the card first, or leave the field out of the prompt")
                    break
        if where is not None:
            inner = env.child()
            inner.secret.discard(var)
            inner.tainted.discard(var)
            if cards and self.secret(source, env, chooser):
                inner.secret.add(var)
            found = self.tainted(where, inner, chooser)
            if found is not None:
                self._report("W078", found.span, f"the `where` filter of {chooser}'s choice reads a field of a "
                             "card that player cannot see: which options are offered tells it", "reveal the card "
                             "first, or filter by what the chooser can see")

    def display(self, decl: A.DisplayDecl) -> None:
        """`show` lines of a `display(p)`: only cards the viewer ``p`` may see may be read."""
        self._show(decl.body, _Env(), decl.var)

    def _show(self, items: list[A.ShowItem], env: _Env, viewer: str) -> None:
        for item in items:
            if isinstance(item, A.ShowLine):
                for arg in item.args:
                    found = self.tainted(arg, env, viewer)
                    if found is not None:
                        self._report("W077", found.span, "a `show` line reads a field of a card the viewer "
                                     "cannot see", "show only the viewer's own or revealed cards' fields")
                        break
            elif isinstance(item, A.ShowFor):
                inner = env.child()
                inner.secret.discard(item.var)
                if self.secret(item.source, env, viewer):
                    inner.secret.add(item.var)
                self._show(item.body, inner, viewer)
            else:
                inside = env.child()
                inside.groups |= _memberships(item.cond, viewer)
                self._show(item.body, inside, viewer)
                self._show(item.orelse, env.child(), viewer)

    def _sole_owner(self, e: Any) -> str | None:
        """The player whose own (owner-visible) zones are the only hidden zones ``e`` reads, as text, else None."""
        owners = set()
        for node in _nodes(e):
            z = _zone_of(node)
            if z is None or not self._hidden_zone(node, None):
                continue
            if z.visibility != "owner" or not isinstance(node, A.Attr):
                return None
            owners.add(_text(node.obj))
        return owners.pop() if len(owners) == 1 and "…" not in owners else None

    def _who(self, e: Any) -> str:
        """The chooser as text; a call of a `fn` without parameters (`dp()` for `players[0]`) stands for its body,
        so a player's own zone is recognised as theirs whichever way the rules name that player."""
        if isinstance(e, A.Call) and not e.args and isinstance(e.func, A.Name):
            fn = self.prog.fns.get(e.func.id)
            if fn is not None and not fn.params:
                return _text(fn.body)
        return _text(e)

    def _report(self, code: str, span: Span, message: str, hint: str) -> None:
        message += self.via.get((span.file, span.line, span.column), "")
        if (span.file, span.line, span.column) in self.values:  # a hidden value, not a card's field
            message = message.replace("a field of a card", "a hidden value").replace("field", "value")
            hint = ("the rules tell a `hidden` or `visible to owner` value only by what they show: `log to` the "
                    "players who may see it, or leave it out")
        if self.collecting is not None:
            self.collecting.append((code, message, hint, span))
            return
        key = (span.file, span.line, span.column)
        if key in self.reported:
            return
        self.reported.add(key)
        self.warn(code, message, span, hint=hint)


# The leak analysis's rule for every statement kind (tests/test_registry.py checks it covers the registry).
# `_nothing` is spelled out per kind, with the reason it is safe:
#   Shuffle, Break, EndGame, SkipTo: no value flows anywhere;
#   ModeSwitch: turns rules on or off (a mode's own statements are checked where they are declared);
#   GraphLink: links or unlinks graph nodes, which every player sees (graphs are public).
FLOW_STMTS: dict[type[A.Stmt], Callable[[FlowChecker, Any, _Env], None]] = {
    A.Let: FlowChecker._let, A.Assign: FlowChecker._assign, A.Move: FlowChecker._move,
    A.Reveal: FlowChecker._reveal, A.If: FlowChecker._if, A.For: FlowChecker._for,
    A.RepeatWhile: FlowChecker._repeat, A.Choose: FlowChecker._choose, A.Simultaneous: FlowChecker._simultaneous,
    A.Log: FlowChecker._log, A.Do: FlowChecker._do, A.Fire: FlowChecker._fire,
    A.Shuffle: FlowChecker._nothing, A.Break: FlowChecker._nothing, A.EndGame: FlowChecker._nothing,
    A.SkipTo: FlowChecker._nothing, A.Transfer: FlowChecker._transfer, A.ModeSwitch: FlowChecker._nothing,
    A.GraphLink: FlowChecker._nothing,
}


def _opened_later(fc: FlowChecker, rest: list[A.Stmt], env: _Env) -> set[str]:
    """Card locals that ``rest`` reveals or moves into a public zone before any choice, call or trigger (where a
    player could look at the counters in between)."""
    out: set[str] = set()
    for st in rest:
        if isinstance(st, A.Choose | A.Simultaneous | A.Do | A.Fire):
            break
        if isinstance(st, A.Reveal) and st.to is None:
            out |= {n.id for n in _nodes(st.target) if isinstance(n, A.Name) and _card_typed(n)}
        elif isinstance(st, A.Move) and _zone_of(st.dest) is not None and not fc._hidden_zone(st.dest, None, env):
            out |= {n.id for n in _nodes(st.what) if isinstance(n, A.Name) and _card_typed(n)}
    return out


def _card_typed(e: A.Expr) -> bool:
    """A card or a list of cards (a player variable inside `p.hand` is neither)."""
    ty = e.ty
    return ty is not None and (ty.kind == "card" or (ty.kind == "list" and ty.elem is not None
                                                     and ty.elem.kind == "card"))


def _group_text(e: Any) -> str:
    """A group expression as text: `heroes()` for a call without arguments, else as `_text`."""
    return _text(e)


def _memberships(cond: Any, viewer: str) -> set[str]:
    """The groups a condition proves the viewer is in: `viewer in G`, possibly inside `and`s."""
    if isinstance(cond, A.Binary) and cond.op == "and":
        return _memberships(cond.left, viewer) | _memberships(cond.right, viewer)
    if isinstance(cond, A.Binary) and cond.op == "in" and _text(cond.left) == viewer:
        return {_group_text(cond.right)}
    return set()


def _text(e: Any) -> str:
    """A short source-like text for a simple expression (a name, `p.stake`), to name it in messages."""
    if isinstance(e, A.Name):
        return e.id
    if isinstance(e, A.Attr):
        return f"{_text(e.obj)}.{e.name}"
    if isinstance(e, A.Index):
        return f"{_text(e.obj)}[{_text(e.index)}]"
    if isinstance(e, A.IntLit):
        return str(e.value)
    if isinstance(e, A.Call) and isinstance(e.func, A.Name):
        return f"{e.func.id}({', '.join(_text(a) for a in e.args)})"
    return "…"


def check_flow(prog: Program, warn: Warn) -> None:
    """W075–W078 over every step, setup, procedure, handler and the display of ``prog``."""
    fc = FlowChecker(prog, warn)
    bodies: list[list[A.Stmt]] = [prog.setup, prog.finish, *(s.body for s in prog.steps),
                                  *(p.body for p in prog.procs.values()),
                                  *(h.body for hs in prog.handlers.values() for h in hs)]
    for body in bodies:
        fc.block(body, _Env())
    if prog.display is not None:
        fc.display(prog.display)
    for r in prog.reports:  # the result is every player's once the game ends: a sink like a public log line
        found = fc.tainted(r.expr, _Env())
        if found is not None:
            fc._report("W076", found.span, f"a field of a card some player cannot see is put in the game's result "
                       f"(`report {r.name}`), which every player reads", "report what the game makes public at its "
                       "end, such as a count (`size(z)`); this check does not see a `reveal` made in `finish`")
