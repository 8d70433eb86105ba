"""A `fn` body's `let` (``{ let NAME = VALUE … return BODY }``, one :class:`~A.LetIn` per `let`) as generated code.

Until this module, a `let` was left to the closure compiler, and with it the whole body under it: Fury of
Dracula's `where()`, `drac()`, `double_backs(here)`, `wolf_moves(here)` and `dracula_options()` ran as a
tree of closures on every Dracula decision (a sixth of its random-playout time). Here each `let` becomes one
small generated function that does exactly what :func:`~liturgy.interpreter.compiler.conveniences.let_in`
does: the value computed once and bound in ``env`` (closures and loops called from the body read it there),
the body returned, and the caller's binding of the same name (if any) put back afterwards, even when the body
stops the game. The value and body are written as generated text like any other expression.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen.source import Refused

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen
    from liturgy.interpreter.compiler.code import ExprFn


def let_source(gen: ExprGen, e: A.LetIn) -> str:
    """Source calling the generated function of ``e`` (a separate Python function: see ExprGen._note_call)."""
    gen._note_call(e)
    return f"{gen.const(let_function(gen, e))}(s, env)"


def let_function(gen: ExprGen, e: A.LetIn) -> ExprFn:
    """``f(s, env)`` for ``e``: the `let`'s name bound in ``env`` while the body runs, as the closures bind it."""
    from liturgy.interpreter.codegen.exprgen import Hoist, _function_text  # exprgen imports this module

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
        fn: ExprFn = gen.sources.load(gen.ns, fname, "expr", _function_text(f"def {fname}(s, env):", hoist, lines),
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
