"""A `fn` body's `let` (``{ let NAME = VALUE … return BODY }``, one :class:`~A.LetIn` per `let`) as generated code.

A chain of `let`s is written with each name a Python local: at the root of a generated function as
statements (``c_3 = i % 8`` … ``return …``), inside a larger expression as assignment expressions
(``(c_3 := i % 8, r_4 := i // 8, …)[-1]``). The names are substituted like an inlined `fn`'s parameters
(``comp.subst`` maps each to :func:`~.helpers._never`, ``gen.subst_src`` to its local), so a closure or
nested generated function that would read one of them through ``env`` is noticed (``gen.unsafe``) and the
text is thrown away. Only then is a `let` written as before: one small generated function that does exactly
what :func:`~liturgy.interpreter.compiler.conveniences.let_in` does, the value bound in ``env`` while the
body runs and the caller's binding of the same name put back afterwards, even when the body stops the game.
Both ways compute the same values in the same order; ``env`` is never written on the first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen.helpers import _never
from liturgy.interpreter.codegen.hoist import Hoist, function_text
from liturgy.interpreter.codegen.source import Refused

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen
    from liturgy.interpreter.compiler.code import ExprFn


def _local_name(gen: ExprGen, name: str) -> str:
    """A fresh Python local for rule variable ``name``: its name and a number (``c_12``), never a keyword,
    a builtin or a generated helper (those are ``_`` then letters then digits, with no ``_`` before the digits)."""
    gen.count += 1
    return f"{name}_{gen.count}"


def let_chain(gen: ExprGen, e: A.LetIn) -> tuple[list[tuple[str, str]], str] | None:
    """The chain of `let`s at ``e`` with real locals: ``([(local, value source), …], body source)``, or None when
    something in it would read a `let`'s name from ``env`` (then nothing of this attempt is used)."""
    comp = gen.comp
    before = gen.unsafe
    saved = comp.subst, gen.subst_src, gen.subst_owner, comp.subst_names
    saved_ranges = gen.var_ranges
    binds: list[tuple[str, str]] = []
    body: A.Expr = e
    try:
        while isinstance(body, A.LetIn):
            value = gen.src(body.value)  # before the name is bound: `let x = x + 1` reads the outer `x`
            name = body.name
            local = _local_name(gen, name)
            gen.plain.add(local)  # read plainly, as the closures' ``env[name]``
            outer = gen.subst_src if gen.subst_owner is comp.subst else {}
            comp.subst = {**{k: f for k, f in comp.subst.items() if k != name}, name: _never}
            gen.subst_src = {**{k: v for k, v in outer.items() if k != name}, name: local}
            gen.subst_owner = comp.subst
            comp.subst_names = {k: v for k, v in comp.subst_names.items() if k != name}
            gen.bind_range(name, local, gen.int_range(body.value) if _is_int(body.value) else None)
            binds.append((local, value))
            body = body.body
        text = gen.src(body)
    finally:
        comp.subst, gen.subst_src, gen.subst_owner, comp.subst_names = saved
        gen.var_ranges = saved_ranges
    if gen.unsafe != before:
        gen.unsafe = before
        return None
    return binds, text


def assign_lines(gen: ExprGen, prefix: str, value: str) -> list[str]:
    """The statements of ``<prefix><value>`` (``prefix``: assignment targets such as ``_v = ``), where a chain of
    `let`s that is the whole value is written as one statement per `let`, then the body: the same evaluations
    in the same order as the assignment expressions (``(c := …, r := …, body)[-1]``), without building and
    indexing a tuple (a `fn` with six `let`s called in a loop spent a fifth of its time on that)."""
    parts = gen.let_forms.get(value)
    if parts is None:
        return [f"{prefix}{value}"]
    binds, body = parts
    lines = [line for local, bound in binds for line in assign_lines(gen, f"{local} = ", bound)]
    return lines + assign_lines(gen, prefix, body)


def _is_int(e: A.Expr) -> bool:
    return e.ty is not None and e.ty.kind == "int"


def let_source(gen: ExprGen, e: A.LetIn) -> str:
    """Source for ``e`` inside an expression: assignment expressions, else a call of its generated function."""
    chain = let_chain(gen, e)
    if chain is not None:
        binds, body = chain
        text = "(" + "".join(f"{local} := {value}, " for local, value in binds) + f"{body})[-1]"
        gen.let_forms[text] = (binds, body)  # a statement writing it alone may write the parts (assign_lines)
        return text
    gen._note_call(e)
    return f"{gen.const(_env_let_function(gen, e))}(s, env)"


def let_function(gen: ExprGen, e: A.LetIn) -> ExprFn:
    """``f(s, env)`` for ``e``: the chain's names as Python locals, else bound in ``env`` as the closures bind them."""
    hoist = Hoist(gen)
    with gen.fresh(hoist):
        chain = let_chain(gen, e)
    if chain is not None:
        binds, body = chain
        fname = gen._name("_l")
        lines = [*(f"{local} = {value}" for local, value in binds), f"return {body}"]
        try:
            made: ExprFn = gen.sources.load(gen.ns, fname, "expr",
                                            function_text(f"def {fname}(s, env):", hoist, lines), e.span)
            return made
        except Refused:
            pass
    return _env_let_function(gen, e)


def _env_let_function(gen: ExprGen, e: A.LetIn) -> ExprFn:
    """``f(s, env)`` for ``e``: the `let`'s name bound in ``env`` while the body runs, as the closures bind it."""
    comp = gen.comp
    name = e.name
    hoist = Hoist(gen, frozenset({name}))  # the name is bound inside the function: never loaded at its top
    with gen.fresh(hoist):
        value = gen.src(e.value)  # before the name is bound: `let x = x + 1` reads the parameter `x`
        saved = comp.subst, gen.subst_src, gen.subst_owner, comp.subst_names
        if name in comp.subst:  # the `let` hides an inlined parameter of that name in the body
            comp.subst = {k: v for k, v in comp.subst.items() if k != name}
            gen.subst_src = {k: v for k, v in gen.subst_src.items() if k != name}
            gen.subst_owner = comp.subst if saved[2] is saved[0] else None
            comp.subst_names = {k: v for k, v in comp.subst_names.items() if k != name}
        try:
            body = gen.src(e.body)
        finally:
            comp.subst, gen.subst_src, gen.subst_owner, comp.subst_names = saved
    v = repr(name)
    fname = gen._name("_l")
    lines = [f"_old = env.get({v}, _MISSING)", f"env[{v}] = {value}", "try:", f"    return {body}", "finally:",
             "    if _old is _MISSING:", f"        env.pop({v}, None)", "    else:", f"        env[{v}] = _old"]
    try:
        fn: ExprFn = gen.sources.load(gen.ns, fname, "expr", function_text(f"def {fname}(s, env):", hoist, lines),
                                      e.span)
    except Refused:
        return comp.expr_closure(e)
    return fn


def free_locals(e: A.Expr) -> set[str]:
    """The local variables ``e`` reads (not those its own aggregates bind, nor a called `fn`'s)."""
    if isinstance(e, A.Name):
        return {e.id} if e.ref is not None and e.ref[:1] == ("local",) else set()
    if isinstance(e, A.Aggregate | A.ListComp):
        inner = free_locals(e.elem) | (free_locals(e.where) if e.where is not None else set())
        if isinstance(e, A.Aggregate) and e.key is not None:
            inner |= free_locals(e.key)
        return free_locals(e.iterable) | (inner - {e.var})
    if isinstance(e, A.LetIn):
        return free_locals(e.value) | (free_locals(e.body) - {e.name})
    out: set[str] = set()
    for value in vars(e).values():
        if isinstance(value, A.Expr):
            out |= free_locals(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, A.Expr):
                    out |= free_locals(item)
    return out
