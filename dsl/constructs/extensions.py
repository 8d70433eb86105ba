"""Constructs registered with their own syntax and meaning: one registry entry is the whole construct.

An extension statement or expression declares, in one :class:`~.lowering.Extension`, the word that starts it,
the rest of its grammar (Lark notation over ``expr``, ``block``, ``NAME`` and ``STRING``), how its node is built
from what that grammar matched, and its meaning as a **lowering** into the core constructs. The parser builds
the node and lowers it at once (dsl/frontend/extbuild.py), so the checker, the leak analysis, the closure
compiler, the generated code, the step machine, `fuse`, the formatter and the language server all treat it
through the constructs it lowers to: no pass needs a handler of its own, and none can skip it. Errors in what
an author wrote are reported at the spans the lowering copies from the author's text.

An entry with an ``extension`` in the shipped tables (dsl/constructs/statements.py, expressions.py) is part of
the language; :func:`registered` adds some for a while (tests, tools) and withdraws them. The grammar is the
file's plus every registered extension's rule, and the parser keys its cached grammar and tables by
:func:`grammar_key`, so a registration is seen by the next parse and forgotten after it is withdrawn.
tests/test_extensions.py registers a throwaway `swap a, b` statement and `unless C then A else B` expression
this way and plays them in every compile mode; docs/language.md ("Adding a construct") is the guide.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from importlib import resources
from typing import Any

from liturgy.dsl.constructs import expressions as E
from liturgy.dsl.constructs import statements as S
from liturgy.dsl.constructs.lowering import Extension

_WORD = re.compile(r"[a-z][a-z0-9_]*")  # a keyword: a lower-case word


_changes = [0]  # registrations and withdrawals so far: the key is computed again only after one


def grammar_key() -> str:
    """What the grammar depends on beyond its file: the registered extensions (empty when there are none).
    Called on every parse (card effects are parsed one by one), so it is remembered between changes."""
    return _key(_changes[0])


def generation() -> int:
    """How many registrations and withdrawals there have been: what the parser's builder makes may change at each
    (a new lowering under the same grammar), so caches of parsed trees (dsl/frontend/snippetcache.py) key by it."""
    return _changes[0]


@lru_cache(maxsize=4)
def _key(changes: int) -> str:
    rules = _rules()
    return hashlib.sha256(rules.encode()).hexdigest()[:16] if rules else ""


def _extensions(kind: str) -> list[Extension]:
    table: Any = S.STATEMENTS if kind == "stmt" else E.EXPRESSIONS
    return [c.extension for c in table.values() if c.extension is not None]


def _rules() -> str:
    lines: list[str] = []
    for kind in ("stmt", "expr"):
        exts = _extensions(kind)
        if exts:
            alts = "\n    | ".join(f"{x.terminal} {x.rule}" for x in exts)
            lines.append(f"extension_{kind}: {alts}")
            lines += [f'{x.terminal}: "{x.keyword}"' for x in exts]
    return "\n".join(lines)


def extend_grammar(text: str) -> str:
    """The grammar with every registered extension: statements beside `link`, expressions beside `if … then`."""
    rules = _rules()
    if not rules:
        return text
    if _extensions("stmt"):
        text = text.replace("     | unlink_stmt\n", "     | unlink_stmt\n     | extension_stmt\n", 1)
    if _extensions("expr"):
        text = text.replace("?cond_expr: or_expr\n", "?cond_expr: or_expr\n          | extension_expr\n", 1)
    return text + "\n" + rules + "\n"


@lru_cache(maxsize=1)
def _core_words() -> frozenset[str]:
    """The words the grammar file quotes (`move`, `if`…): an extension may not start with one (LALR conflicts)."""
    text = resources.files("liturgy.dsl.frontend").joinpath("grammar.lark").read_text(encoding="utf-8")
    return frozenset(re.findall(r'"([a-z_]+)"', text))


def find(keyword: str, kind: str) -> tuple[type, Extension]:
    """The registered extension a keyword starts (the parser's builder calls this)."""
    table: Any = S.STATEMENTS if kind == "stmt" else E.EXPRESSIONS
    for node, c in table.items():
        if c.extension is not None and c.extension.keyword == keyword:
            return node, c.extension
    raise KeyError(keyword)  # pragma: no cover - the grammar holds only registered keywords


@contextmanager
def registered(*entries: S.StmtConstruct | E.ExprConstruct) -> Iterator[None]:
    """Register extension constructs for the duration of a ``with`` block (tests, tools); withdrawn after."""
    taken = set(_core_words()) | {x.keyword for kind in ("stmt", "expr") for x in _extensions(kind)}
    for c in entries:
        x = c.extension
        if x is None or not _WORD.fullmatch(x.keyword):
            raise ValueError(f"{c.node.__name__}: an extension needs a lower-case keyword")
        if x.keyword in taken:
            raise ValueError(f"{c.node.__name__}: `{x.keyword}` is already a word of the language")
        taken.add(x.keyword)
    done: list[S.StmtConstruct | E.ExprConstruct] = []
    try:
        for c in entries:
            if isinstance(c, S.StmtConstruct):
                S.register(c)
            else:
                E.register(c)
            done.append(c)
            _changes[0] += 1
        yield
    finally:
        for c in done:
            if isinstance(c, S.StmtConstruct):
                S.unregister(c.node)
            else:
                E.unregister(c.node)
            _changes[0] += 1
