"""Parse ruleset text and card snippets into the AST.

Rulesets and snippets are parsed by the fast LALR driver in
:mod:`liturgy.dsl.frontend.fastparse`, which calls the :class:`_AstBuilder` methods as
it reduces.  Anything unusual goes through Lark's own parser and the same
builder; syntax errors become ``E001`` diagnostics that say what was expected
in words, and parsing resumes so one run reports several mistakes.
"""

from __future__ import annotations

import ast as pyast
import hashlib
import re
from functools import lru_cache
from importlib import resources
from typing import Any

import lark
from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedInput
from liturgy.dsl.constructs.extensions import extend_grammar, generation, grammar_key
from liturgy.dsl.diagnostics import Diagnostic, LiturgyError, Span, new_span, remember_source
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.frontend.extbuild import ExtensionBuilder, flat_block
from liturgy.dsl.frontend.fastparse import FORMAT, Tables, Unsupported, fast_parse, tables_data
from liturgy.dsl.frontend.grammar_cache import grammar_cache_file, load_json, store_json
from liturgy.dsl.frontend.modebuild import ModeBuilder
from liturgy.dsl.frontend.snippetcache import MAX_TEXT, SNIPPETS, freeze, thaw
from liturgy.dsl.frontend.syntaxerrors import keyword_as_name, next_decl_line, syntax_diagnostic

MAX_SYNTAX_ERRORS = 20


@lru_cache(maxsize=2)
def _grammar(key: str = "") -> str:  # key: the registered extensions' (dsl/constructs/extensions.py), "" for none
    text = resources.files("liturgy.dsl.frontend").joinpath("grammar.lark").read_text(encoding="utf-8")
    return extend_grammar(text) if key else text


# Lark's parser options; the fast driver's cached tables are keyed by them too.
_LARK_OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "propagate_positions": True,
    "maybe_placeholders": True,
    "start": ["start", "effect_body", "expr_only"],
}


def _lark(key: str | None = None) -> Lark:
    """The Lark parser of the grammar with the extensions registered now (or those ``key`` names)."""
    return _lark_for(grammar_key() if key is None else key)


@lru_cache(maxsize=2)
def _lark_for(key: str) -> Lark:
    return Lark(_grammar(key), cache=grammar_cache_file(key), **_LARK_OPTIONS)


def _syntax_diag(err: UnexpectedInput, file: str, text: str = "") -> Diagnostic:
    return syntax_diagnostic(err, file, text, _lark())


Pos = tuple[int, int, int, int] | None
"""A node's position as the builder gets it: (line, column, end line, end column), or None if it is empty."""


def _meta_pos(meta: Any) -> Pos:
    """The position of a node Lark built, from its ``meta``."""
    if getattr(meta, "empty", True):
        return None
    return (meta.line, meta.column, meta.end_line, meta.end_column)


def _unquote(tok: Token) -> str:
    text = str(tok)
    if "\\" not in text:  # no escapes: the literal's value is its text between the quotes
        return text[1:-1]
    try:
        value = pyast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text[1:-1]
    return str(value)


class _AstBuilder(ModeBuilder, ExtensionBuilder):
    """Build AST nodes; each method is named after the grammar rule or alias.

    The methods take the node's position (``meta``, a :data:`Pos`) and its
    children; the fast driver (:mod:`liturgy.dsl.frontend.fastparse`) calls them as it
    reduces, and :func:`_tree_to_ast` calls them for trees Lark built.  Spans
    are made in the host file: a card snippet's builder shifts them to where
    the snippet starts in its YAML file (as :meth:`Span.shifted` does), so
    snippet trees need no second pass.
    """

    def __init__(self, file: str, line: int = 1, column: int = 1, indent: int = 0) -> None:
        self.file = file
        self.line0 = line - 1
        self.first_shift = column - 1
        self.indent = indent
        self.shifted = (line, column, indent) != (1, 1, 0)

    def _at(self, line: int, column: int, end_line: int, end_column: int) -> Span:
        if not self.shifted:
            return new_span(Span, (self.file, line, column, end_line, end_column))
        line0 = self.line0
        return new_span(Span, (
            self.file,
            line0 + line,
            column + (self.first_shift if line == 1 else self.indent),
            line0 + end_line,
            end_column + (self.first_shift if end_line == 1 else self.indent),
        ))

    def _s(self, meta: Pos) -> Span:
        if meta is None:
            return self._at(1, 1, 1, 1)
        if not self.shifted:  # the common case, without a second call
            return new_span(Span, (self.file, *meta))
        return self._at(*meta)

    def _ts(self, tok: Token) -> Span:
        line = tok.line or 1
        col = tok.column or 1
        return self._at(line, col, tok.end_line or line, tok.end_column or col + len(tok))

    # ---- types
    def int_type(self, meta: Any, c: list[Any]) -> A.TypeExpr:
        return A.TypeExpr("int", self._s(meta))

    def bool_type(self, meta: Any, c: list[Any]) -> A.TypeExpr:
        return A.TypeExpr("bool", self._s(meta))

    def text_type(self, meta: Any, c: list[Any]) -> A.TypeExpr:
        return A.TypeExpr("text", self._s(meta))

    def player_type(self, meta: Any, c: list[Any]) -> A.TypeExpr:
        return A.TypeExpr("player", self._s(meta))

    def card_type(self, meta: Any, c: list[Any]) -> A.TypeExpr:
        return A.TypeExpr("card", self._s(meta), arg=str(c[0]) if c and c[0] is not None else None)

    def set_type(self, meta: Any, c: list[Any]) -> A.TypeExpr:
        return A.TypeExpr("set", self._s(meta), arg=str(c[0]))

    def list_type(self, meta: Any, c: list[Any]) -> A.TypeExpr:
        return A.TypeExpr("list", self._s(meta), elem=c[0])

    def effect_type(self, meta: Any, c: list[Any]) -> A.TypeExpr:
        return A.TypeExpr("effect", self._s(meta), params=c[0] or [])

    def function_type(self, meta: Any, c: list[Any]) -> A.TypeExpr:
        return A.TypeExpr("function", self._s(meta), params=c[0] or [], ret=c[1])

    def named_type(self, meta: Any, c: list[Any]) -> A.TypeExpr:
        return A.TypeExpr("named", self._s(meta), arg=str(c[0]))

    def param_list(self, meta: Any, c: list[Any]) -> list[A.Param]:
        return [p for p in c if p is not None]

    def param(self, meta: Any, c: list[Any]) -> A.Param:
        return A.Param(str(c[0]), c[1], self._s(meta))

    # ---- expressions
    def int_lit(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.IntLit(self._s(meta), int(c[0]))

    def str_lit(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.StrLit(self._s(meta), _unquote(c[0]))

    def true_lit(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.BoolLit(self._s(meta), True)

    def false_lit(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.BoolLit(self._s(meta), False)

    def none_lit(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.NoneLit(self._s(meta))

    def name(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Name(self._s(meta), str(c[0]))

    def list_lit(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.ListLit(self._s(meta), [x for x in c if x is not None])

    def list_comp(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.ListComp(self._s(meta), c[0], str(c[1]), c[2], c[3])

    def attr(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Attr(self._s(meta), c[0], str(c[1]), self._ts(c[1]))

    def index(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Index(self._s(meta), c[0], c[1])

    def cell(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Cell(self._s(meta), c[0], c[1], c[2])

    def call(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Call(self._s(meta), c[0], [x for x in c[1:] if x is not None])

    def aggregate(self, meta: Any, c: list[Any]) -> A.Expr:
        func = c[0]
        fname = func.id if isinstance(func, A.Name) else ""
        return A.Aggregate(self._s(meta), fname, func.span, c[1], str(c[2]), c[3], c[4], c[5])

    def where_clause(self, meta: Any, c: list[Any]) -> A.Expr:
        return c[0]  # type: ignore[no-any-return]

    by_clause = where_clause

    def neg(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Unary(self._s(meta), "-", c[0])

    def not_(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Unary(self._s(meta), "not", c[0])

    def and_(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Binary(self._s(meta), "and", c[0], c[1])

    def or_(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Binary(self._s(meta), "or", c[0], c[1])

    def compare(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Binary(self._s(meta), c[1], c[0], c[2])

    def arith(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Binary(self._s(meta), c[1], c[0], c[2])

    def _op(self, meta: Any, c: list[Any]) -> str:
        return " ".join(str(t) for t in c)

    comp_op = add_op = mul_op = assign_op = _op

    def cond(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Cond(self._s(meta), c[0], c[1], c[2])

    # ---- statements
    def block(self, meta: Any, c: list[Any]) -> list[A.Stmt]:
        return flat_block(c)  # an extension statement is built as the list of statements it lowers to

    def effect_body(self, meta: Any, c: list[Any]) -> list[A.Stmt]:
        return flat_block(c)

    def expr_only(self, meta: Any, c: list[Any]) -> A.Expr:
        return c[0]  # type: ignore[no-any-return]

    def let_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Let(self._s(meta), str(c[0]), c[1])

    def assign_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Assign(self._s(meta), c[0], c[1], c[2])

    def move_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Move(self._s(meta), c[0], c[1], c[2] or "")

    def place(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def shuffle_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Shuffle(self._s(meta), c[0])

    def reveal_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Reveal(self._s(meta), c[0], c[1])

    def amount_expr(self, meta: Any, c: list[Any]) -> A.Expr:
        return c[0]  # type: ignore[no-any-return]

    def amount_all(self, meta: Any, c: list[Any]) -> None:
        return None

    def transfer_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Transfer(self._s(meta), c[0], c[1], c[2], str(c[3]) if c[3] is not None else None)

    def if_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        branches = [(c[0], c[1])]
        orelse: list[A.Stmt] = []
        for extra in c[2:]:
            if extra is None:
                continue
            kind, payload = extra
            if kind == "elif":
                branches.append(payload)
            else:
                orelse = payload
        return A.If(self._s(meta), branches, orelse)

    def elif_clause(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("elif", (c[0], c[1]))

    def else_clause(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("else", c[0])

    def for_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        # `for x in L where C { … }` is `for x in L { if C { … } }`: every compile path already runs that
        body = c[3] if c[2] is None else [A.If(c[2].span, [(c[2], c[3])], [])]
        return A.For(self._s(meta), str(c[0]), c[1], body)

    def repeat_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.RepeatWhile(self._s(meta), c[0], c[1])

    def break_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Break(self._s(meta))

    def optional(self, meta: Any, c: list[Any]) -> tuple[str | None, Span]:
        # the label of the extra option if the rules name it (`optional "draw"`), else None (`pass`)
        return (None if c[0] is None else _unquote(c[0])), self._s(meta)

    def none_clause(self, meta: Any, c: list[Any]) -> list[A.Stmt]:
        return c[0]  # type: ignore[no-any-return]

    def prompt(self, meta: Any, c: list[Any]) -> A.Prompt:
        return A.Prompt(self._s(meta), _unquote(c[0]), [x for x in c[1:] if x is not None])

    def or_pass(self, meta: Any, c: list[Any]) -> tuple[str, Span]:
        # `or pass ["LABEL"]`: the label of the one option a chooser with nothing to choose is given
        return ("pass" if c[0] is None else _unquote(c[0])), self._s(meta)

    def choose_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        var, source, where, chooser, optional, prompt, body, or_pass, none_body = c
        label, label_span = optional if optional is not None else (None, None)
        node = A.Choose(self._s(meta), str(var), source, where, chooser, optional is not None, body, none_body,
                        label, label_span, prompt)
        if or_pass is not None:  # the checker rewrites it into choices it already knows (dsl/checker/statements.py)
            node.or_pass, node.or_pass_span = or_pass
        return node

    def simul_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        pvar, players, var, source, where, by, prompt, body = c
        return A.Simultaneous(self._s(meta), str(pvar), players, str(var), source, where, body, prompt, by)

    def do_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Do(self._s(meta), c[0])

    def fire_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Fire(self._s(meta), str(c[0]), [x for x in c[1:] if x is not None])

    def end_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.EndGame(self._s(meta))

    def skip_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.SkipTo(self._s(meta), str(c[0]))

    def log_stmt(self, meta: Any, c: list[Any]) -> A.Stmt:
        to = c[0]
        text = _unquote(c[1])
        return A.Log(self._s(meta), to, text, [x for x in c[2:] if x is not None])

    # ---- declarations
    def start(self, meta: Any, c: list[Any]) -> list[A.Decl]:
        return list(c)

    def game_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        g = A.GameDecl(self._s(meta), _unquote(c[0]))
        for kind, value in c[1:]:
            if kind == "players":
                g.min_players, g.max_players = value
            elif kind == "step_limit":
                g.step_limit = value
            elif kind == "seats":
                g.seats = value
            elif kind == "absent":
                g.absent = value
            elif kind == "budget":
                g.budgets[value[0]] = value[1:]
        return g

    def budget_item(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        digits = str(c[1])  # thousands of digits would pass int()'s own limit: E400 says the range instead
        return ("budget", (str(c[0]), int(digits) if len(digits) <= 30 else 10 ** 30, self._s(meta)))

    def players_item(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("players", (int(c[0]), int(c[1])))

    def step_limit_item(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("step_limit", int(c[0]))

    def absent_item(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("absent", (str(c[0]), self._s(meta)))

    def seats_item(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("seats", c[0])

    def seat_dir(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def name_list(self, meta: Any, c: list[Any]) -> list[tuple[str, Span]]:
        return [(str(t), self._ts(t)) for t in c if t is not None]

    def enum_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.EnumDecl(self._s(meta), str(c[0]), c[1])

    def face(self, meta: Any, c: list[Any]) -> tuple[int, bool]:
        return (int(c[0]), False)

    def exploding_face(self, meta: Any, c: list[Any]) -> tuple[int, bool]:
        return (int(c[0]), True)

    def die_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.DieDecl(self._s(meta), str(c[0]), [f for f in c[1:] if f is not None])

    def field_decl(self, meta: Any, c: list[Any]) -> A.FieldDecl:
        modifier, name, ty, default = c
        f = A.FieldDecl(str(name), ty, default, self._s(meta))
        if modifier is not None:  # `back region: Region`: the checker accepts only `back` (E355)
            f.modifier = str(modifier)
        return f

    def card_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.CardKindDecl(self._s(meta), str(c[0]), list(c[1:]))

    def cards_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.CardsDecl(self._s(meta), _unquote(c[0]))

    def graph_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.GraphDecl(self._s(meta), str(c[0]), str(c[1]), str(c[2]), _unquote(c[3]))

    def per_player(self, meta: Any, c: list[Any]) -> str:
        return "player"

    def per_card(self, meta: Any, c: list[Any]) -> str:
        return "card"

    def zone_order(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    visibility = zone_order
    counter_word = zone_order

    def zone_of(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("of", str(c[0]))

    def zone_final(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("final", True)

    def zone_capacity(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("capacity", int(c[0]))

    def vis_group(self, meta: Any, c: list[Any]) -> A.Expr:
        return c[0]  # type: ignore[no-any-return]

    def zone_as(self, meta: Any, c: list[Any]) -> tuple[str, Span]:
        return str(c[0]), self._s(meta)

    def zone_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        name, scope, order, *rest = c
        group = rest.pop() if rest and isinstance(rest[-1], A.Expr) else None
        vis, as_ = "group", None
        if group is None:  # VISIBILITY [as NAME] attributes…: the `as` part is there, or its placeholder
            vis, as_ = rest.pop(0), rest.pop(0)
        attrs: list[tuple[str, Any]] = rest
        z = A.ZoneDecl(self._s(meta), str(name), scope == "player", order, vis,
                       per_card=scope == "card", group=group)
        if as_ is not None:  # `owner as host`: the checker accepts only `host` (E351)
            z.visibility_as, z.as_span = as_
        for kind, value in attrs:
            if kind == "of":
                z.of_kind = value
            elif kind in ("final", "size_hidden"):
                setattr(z, kind, True)
            else:
                z.capacity = value
        return z

    def index_of(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def range(self, meta: Any, c: list[Any]) -> tuple[int, int]:
        return (int(c[0]), int(c[1]))

    def signed(self, meta: Any, c: list[Any]) -> int:
        return int(c[0])

    def negative(self, meta: Any, c: list[Any]) -> int:
        return -int(c[0])

    def reset(self, meta: Any, c: list[Any]) -> bool:
        return True

    def counter_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        word, scope, name, typed, index, rng, default, reset, seen_by = c
        lo, hi = rng if rng else (None, None)
        if word == "flag":
            lo, hi = 0, 1
        return A.CounterDecl(
            self._s(meta), str(name), scope or "global", word == "flag", index, lo, hi, default, bool(reset),
            holds=typed, seen_by=seen_by if isinstance(seen_by, str) else "group" if seen_by else "",
            seen_group=seen_by if isinstance(seen_by, A.Expr) else None,
        )

    def grid_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        name, width, height, cell, seen_by = c
        return A.GridDecl(self._s(meta), str(name), "global", False, None, None, None, None, False,
                          width=int(width), height=int(height), cell=cell,
                          seen_by=seen_by if isinstance(seen_by, str) else "group" if seen_by else "",
                          seen_group=seen_by if isinstance(seen_by, A.Expr) else None)

    def option_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        name, enum, default = c
        return A.CounterDecl(self._s(meta), str(name), "global", False, None, None, None, default, False,
                             option=str(enum))

    def option_int_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        """`option NAME: int LO..HI = N`: a whole-number setting; ``option`` is `int`, which no enum can be named."""
        name, (lo, hi), default = c
        return A.CounterDecl(self._s(meta), str(name), "global", False, None, lo, hi, default, False, option="int")

    def track_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        scope, name, index, *values = c
        vals = [int(v) for v in values if v is not None]
        return A.CounterDecl(
            self._s(meta), str(name), scope or "global", False, index, 0, max(0, len(vals) - 1), None, False, vals
        )

    def pool_global(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("global", (str(c[0]), int(c[1]), self._s(meta)))

    def pool_per_player(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("player", c[0])

    def pool_per_card(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("card", c[0])

    def pool_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        span = self._s(meta)
        pool = str(c[0])
        holders: list[A.CounterDecl] = []
        supply = 0
        for kind, payload in c[1:]:
            if kind == "global":
                hname, init, hspan = payload
                supply += init
                holders.append(
                    A.CounterDecl(hspan, hname, "global", False, None, 0, None, A.IntLit(hspan, init), False, pool=pool)
                )
            else:
                for hname, hspan in payload:
                    holders.append(A.CounterDecl(hspan, hname, kind, False, None, 0, None, None, False, pool=pool))
        return A.PoolDecl(span, pool, holders, supply)

    def window_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.WindowDecl(self._s(meta), str(c[0]), c[1] or [])

    def handler_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.HandlerDecl(self._s(meta), str(c[0]), c[1] or [], c[2])

    def proc_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.ProcDecl(self._s(meta), str(c[0]), c[1] or [], c[2])

    def fn_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.FnDecl(self._s(meta), str(c[0]), c[1] or [], c[2], c[3])

    def fn_expr(self, meta: Any, c: list[Any]) -> A.Expr:
        return c[0]  # type: ignore[no-any-return]

    def fn_let(self, meta: Any, c: list[Any]) -> tuple[str, Span, A.Expr]:
        return str(c[0]), self._ts(c[0]), c[1]

    def fn_block(self, meta: Any, c: list[Any]) -> A.Expr:
        """`{ let a = … let b = … return EXPR }`: nested bindings, the first `let` outermost. Each binding's
        span is the returned expression's, so a result of the wrong type (E140) points at `return`'s value."""
        body: A.Expr = c[-1]
        for name, name_span, value in reversed(c[:-1]):
            body = A.LetIn(c[-1].span, name, name_span, value, body)
        return body

    def setup_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.SetupDecl(self._s(meta), c[0])

    def step_decl(self, meta: Any, c: list[Any]) -> A.StepDecl:
        title = _unquote(c[1]) if c[1] is not None else str(c[0])
        return A.StepDecl(self._s(meta), str(c[0]), title, c[2])

    def round_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.RoundDecl(self._s(meta), list(c))

    def finish_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.FinishDecl(self._s(meta), c[0])

    def score_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.ScoreDecl(self._s(meta), str(c[0]), c[1])

    def tiebreak_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.ScoreDecl(self._s(meta), str(c[0]), c[1], tiebreak=True)

    def winner_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.WinnerDecl(self._s(meta), str(c[0]), c[1])

    def report_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.ReportDecl(self._s(meta), str(c[0]), c[1])

    def invariant_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.InvariantDecl(self._s(meta), _unquote(c[0]), c[2], c[1] or [])

    def display_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.DisplayDecl(self._s(meta), str(c[0]), c[1])

    def show_block(self, meta: Any, c: list[Any]) -> list[A.ShowItem]:
        return list(c)

    def show_line(self, meta: Any, c: list[Any]) -> A.ShowLine:
        return A.ShowLine(self._s(meta), _unquote(c[0]), [x for x in c[1:] if x is not None])

    def show_for(self, meta: Any, c: list[Any]) -> A.ShowFor:
        return A.ShowFor(self._s(meta), str(c[0]), c[1], c[2], c[3])

    def show_if(self, meta: Any, c: list[Any]) -> A.ShowIf:
        return A.ShowIf(self._s(meta), c[0], c[1], c[2] or [])

    def describe_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.DescribeDecl(self._s(meta), str(c[0]), str(c[1]), str(c[2]), _unquote(c[3]),
                              [x for x in c[4:] if x is not None])


    def describe_names_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.DescribeNames(self._s(meta), str(c[0]), [x for x in c[1:] if x is not None])

    def value_name(self, meta: Any, c: list[Any]) -> tuple[str, str, Span]:
        return (str(c[0]), _unquote(c[1]), self._s(meta))


def _tree_to_ast(tree: Any, builder: _AstBuilder) -> Any:
    """Build the AST bottom-up from a tree Lark parsed itself (the fallback path).

    It recurses once per tree level, so absurdly deep nesting raises
    RecursionError, which the caller reports as E003.
    """
    if not isinstance(tree, Tree):
        return tree
    children = [_tree_to_ast(c, builder) for c in tree.children]
    method = getattr(_AstBuilder, tree.data, None)
    if method is None or tree.data.startswith("_"):
        return Tree(tree.data, children, tree.meta)
    return method(builder, _meta_pos(tree.meta), children)


@lru_cache(maxsize=2)
def _tables(key: str = "") -> Tables | None:
    """The fast driver's tables, or None if the grammar needs something it lacks.

    They come from the private cache when it holds them for this grammar, Lark
    and table format (a fresh process then never loads Lark unless it meets a
    syntax error); otherwise they are derived from the Lark parser and cached.
    """
    digest = hashlib.sha256(  # not `key`: Lark's parser below is the one of the extensions' key, not of this digest
        f"{_grammar(key)}\0lark {lark.__version__}\0{sorted(_LARK_OPTIONS.items())}\0format {FORMAT}".encode()
    ).hexdigest()
    name = f"fastparse-{digest[:16]}.json"  # one file per grammar: worktrees with different grammars share the folder
    data = load_json(name, digest)
    if data is not None:
        try:
            return Tables(data, _AstBuilder)
        except (Unsupported, KeyError, TypeError, ValueError, AttributeError, re.error):
            pass  # a damaged cache file: derive the tables again
    try:
        data = tables_data(_lark(key))
        tables = Tables(data, _AstBuilder)
    except Unsupported:  # pragma: no cover - the shipped grammar is supported
        return None
    store_json(name, digest, data)
    return tables


def _parse_once(text: str, file: str, start: str) -> tuple[Any, Diagnostic | None]:
    try:
        return _lark().parse(text, start=start, on_error=keyword_as_name), None
    except UnexpectedInput as err:
        return None, _syntax_diag(err, file, text)
    except RecursionError:
        return None, Diagnostic(
            "E003", "error", "nesting is too deep to parse", Span.point(file, 1, 1),
            hint="split deeply nested expressions into `let` steps",
        )
    except LarkError as err:  # pragma: no cover - defensive: lark internal failure
        return None, Diagnostic("E001", "error", f"could not parse: {err}", Span.point(file, 1, 1))


def _parse(text: str, file: str, start: str, builder: _AstBuilder | None = None) -> tuple[Any, list[Diagnostic]]:
    """Parse; on a syntax error, resume at the next top-level declaration.

    Resuming at declaration boundaries (blank lines keep line numbers right)
    reports independent mistakes in one run without cascades of noise.
    """
    if builder is None:
        builder = _AstBuilder(file)
    tables = _tables(grammar_key())
    if tables is not None:
        fast = fast_parse(tables, text, start, builder)
        if fast is not None:
            return fast, []
    tree, error = _parse_once(text, file, start)
    if error is None:
        try:
            return _tree_to_ast(tree, builder), []
        except RecursionError:
            return None, [
                Diagnostic("E003", "error", "nesting is too deep to parse", Span.point(file, 1, 1),
                           hint="split deeply nested expressions into `let` steps")
            ]
    errors = [error]
    if start != "start":
        return None, errors
    lines = text.split("\n")
    while len(errors) < MAX_SYNTAX_ERRORS:
        resume = next_decl_line(lines, errors[-1].span.line - 1)
        if resume is None:
            break
        rest = "\n" * resume + "\n".join(lines[resume:])
        _, error = _parse_once(rest, file, start)
        if error is None:
            break
        if error.span.line <= errors[-1].span.line:
            break
        errors.append(error)
    return None, errors


def _dedupe(errors: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[int, int]] = set()
    out = []
    for d in errors:
        key = (d.span.line, d.span.column)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def parse_ruleset_text(text: str, file: str) -> tuple[A.Ruleset | None, list[Diagnostic]]:
    remember_source(file, text)
    decls, errors = _parse(text, file, "start")
    if decls is None:
        return None, errors
    return A.Ruleset(file, decls), []


def parse_effect_text(
    text: str, file: str, line: int, column: int, indent: int = 0
) -> tuple[list[A.Stmt] | None, list[Diagnostic]]:
    """Parse a card's effect string; spans are mapped into the host file."""
    return _parse_snippet(text, "<effect>", "effect_body", file, line, column, indent)


def parse_expr_text(
    text: str, file: str, line: int, column: int, indent: int = 0
) -> tuple[A.Expr | None, list[Diagnostic]]:
    return _parse_snippet(text, "<expr>", "expr_only", file, line, column, indent)


def _parse_snippet(
    text: str, label: str, start: str, file: str, line: int, column: int, indent: int
) -> tuple[Any, list[Diagnostic]]:
    """A snippet's tree placed at ``file:line:column``, through the cache of dsl/frontend/snippetcache.py: a text
    seen before is thawed, not parsed again (same tree, same spans, same diagnostics)."""
    key = (start, text, generation()) if SNIPPETS.enabled and len(text) <= MAX_TEXT else None
    entry = SNIPPETS.get(key) if key is not None else None
    if entry is not None:
        tree, errors = (thaw(entry[0], file, line, column, indent) if entry[0] is not None else None), entry[1]
    else:
        tree, errors = _parse(text, label, start, _AstBuilder(file, line, column, indent))
        if key is not None and SNIPPETS.worth_storing(key):  # met often enough: kept for the next sightings
            frozen = freeze(tree, file, line, column, indent) if tree is not None else None
            # too deep (E003) depends on the stack, so it is never kept; nor is a tree that does not freeze
            if not any(d.code == "E003" for d in errors) and (tree is None or frozen is not None):
                SNIPPETS.put(key, frozen, errors)
    if tree is None:
        return None, [_relocate(d, file, line, column, indent) for d in errors]
    return tree, []


def _relocate(d: Diagnostic, file: str, line: int, column: int, indent: int) -> Diagnostic:
    return Diagnostic(d.code, d.severity, d.message, d.span.shifted(file, line, column, indent), d.hint, d.notes)


def parse_or_raise(text: str, file: str) -> A.Ruleset:
    rs, errors = parse_ruleset_text(text, file)
    if rs is None:
        raise LiturgyError(errors)
    return rs


__all__ = ["parse_ruleset_text", "parse_effect_text", "parse_expr_text", "parse_or_raise", "Tree"]
