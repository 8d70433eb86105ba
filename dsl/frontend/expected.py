"""What a syntax error expected, said in words an author reads (E001): `{`, a name, `end`."""

from __future__ import annotations

from lark import Lark

TOKEN_WORDS = {
    "LBRACE": "`{`",
    "RBRACE": "`}`",
    "LPAR": "`(`",
    "RPAR": "`)`",
    "LSQB": "`[`",
    "RSQB": "`]`",
    "COLON": "`:`",
    "COMMA": "`,`",
    "DOT": "`.`",
    "EQUAL": "`=`",
    "NAME": "a name",
    "INT": "a number",
    "STRING": "a quoted string",
    "MORETHAN": "`>`",
    "LESSTHAN": "`<`",
    "PLUS": "`+`",
    "MINUS": "`-`",
    "STAR": "`*`",
    "SLASH": "`/`",
    "PERCENT": "`%`",
    "__ANON": "an operator",
    "$END": "end of file",
}


def describe_expected(names: set[str], lark: Lark) -> str:
    """The tokens a syntax error expected, in words: `{`, a name, `end` (at most eight, then how many more)."""
    words = []
    for name in sorted(names):
        if name in TOKEN_WORDS:
            words.append(TOKEN_WORDS[name])
        elif name.startswith("__ANON"):
            continue
        else:
            pattern = lark.get_terminal(name).pattern
            value = getattr(pattern, "value", name)
            words.append(f"`{value}`" if isinstance(value, str) and value.isprintable() else name.lower())
    words = sorted(set(words))
    if not words:
        return "something else"
    if len(words) > 8:
        return ", ".join(words[:8]) + f" (or {len(words) - 8} more)"
    return ", ".join(words)
