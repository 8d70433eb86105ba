"""Card files: safe YAML loading with line numbers, and a JSON Schema per card kind.

Card instances live in YAML; the ruleset's ``card`` declarations say what a
card of each kind looks like.  The JSON Schema is *derived* from those
declarations, so adding a field to a kind is a one-line change in the ruleset.
Only ``yaml.SafeLoader`` is used, aliases are refused (no alias bombs), and file
size and card count are bounded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import yaml
from liturgy.dsl.diagnostics import Diagnostic, Span, did_you_mean, new_span, remember_source
from liturgy.dsl.files import FileRefused, read_limited
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.frontend.discovery import resolve_pattern
from liturgy.dsl.frontend.parser import parse_effect_text, parse_expr_text
from liturgy.dsl.printable import surrogate_escapes

if TYPE_CHECKING:
    import jsonschema

MAX_CARD_FILE_BYTES = 2_000_000
MAX_CARD_FILES = 200
MAX_CARDS = 10_000
MAX_COPIES = 1_000
BUILTIN_KEYS = ("name", "count", "provisional", "source", "text", "designer_note")


@dataclass(eq=False)
class CardDef:
    """One card definition (``count`` physical copies of it are made per game)."""

    name: str
    kind: str
    start: str
    count: int
    values: dict[str, Any]  # field -> python value, or AST for effect/function fields
    span: Span
    provisional: bool = False
    text: str = ""
    field_spans: dict[str, Span] = field(default_factory=dict)


def schema_for_kind(kind: A.CardKindDecl, enums: dict[str, list[str]]) -> dict[str, Any]:
    """The JSON Schema that one card of ``kind`` must satisfy."""
    props: dict[str, Any] = {
        "name": {"type": "string", "minLength": 1},
        "count": {"type": "integer", "minimum": 1, "maximum": MAX_COPIES},
        "provisional": {"type": "boolean"},
        "source": {"type": "string"},
        "text": {"type": "string"},
        "designer_note": {"type": "string"},
    }
    required = ["name"]
    for f in kind.fields:
        props[f.name] = _schema_for_type(f.type, enums)
        if f.default is None:
            required.append(f.name)
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def _schema_for_type(t: A.TypeExpr, enums: dict[str, list[str]]) -> dict[str, Any]:
    if t.kind == "int":
        return {"type": "integer"}
    if t.kind == "bool":
        return {"type": "boolean"}
    if t.kind in ("text", "effect", "function", "card", "player"):
        return {"type": "string"}
    if t.kind == "set":
        return {"type": "array", "items": {"enum": enums.get(t.arg or "", [])}, "uniqueItems": True}
    if t.kind == "list":
        return {"type": "array", "items": _schema_for_type(t.elem, enums) if t.elem else {}}
    if t.kind == "named" and t.arg in enums:
        return {"enum": enums[t.arg]}
    return {}


def file_schema(kinds: dict[str, A.CardKindDecl], zones: list[str]) -> dict[str, Any]:
    """Schema of a card file's top level; each card is then checked against its kind."""
    return {
        "type": "object",
        "properties": {
            "kind": {"enum": sorted(kinds)},
            "start": {"enum": sorted(zones)},
            "cards": {"type": "array"},
        },
        "required": ["kind", "start", "cards"],
        "additionalProperties": False,
    }


def certainly_valid(schema: dict[str, Any], instance: Any) -> bool:
    """True only if ``instance`` surely satisfies ``schema``; False means "ask jsonschema".

    jsonschema takes about 50 µs a card, most of it bookkeeping for the
    keywords' generality, and would then find nothing wrong with almost every
    card.  This reads the few keywords the card schemas above use, with
    JSON Schema's meaning, and answers True only in the plain cases: an
    integer that is a Python ``int`` (not a ``bool``, not ``1.0``), enums of
    strings, and so on.  Anything else (another keyword, a float, a mixed enum)
    answers False, and jsonschema then validates and words every diagnostic
    exactly as before.  tests/test_card_schema_fast.py checks the agreement.
    """
    kind = type(instance)
    for key, want in schema.items():
        check = _KEYWORD_CHECKS.get(key)
        if check is None or not check(schema, want, kind, instance):
            return False
    return True


# Each keyword check answers "surely satisfied" for one keyword of a schema: (schema, keyword value,
# type(instance), instance) -> bool.  A keyword without an entry is never vouched for.
_KeywordCheck = Callable[[dict[str, Any], Any, type, Any], bool]


def _type_ok(schema: dict[str, Any], want: Any, kind: type, instance: Any) -> bool:
    expected = _JSON_TYPES.get(want) if isinstance(want, str) else None
    return expected is not None and kind is expected


def _enum_ok(schema: dict[str, Any], want: Any, kind: type, instance: Any) -> bool:
    return kind is str and instance in want and all(type(v) is str for v in want)


def _properties_ok(schema: dict[str, Any], want: Any, kind: type, instance: Any) -> bool:
    if kind is not dict:
        return True
    return all(name not in instance or certainly_valid(sub, instance[name]) for name, sub in want.items())


def _required_ok(schema: dict[str, Any], want: Any, kind: type, instance: Any) -> bool:
    return kind is not dict or all(name in instance for name in want)


def _additional_ok(schema: dict[str, Any], want: Any, kind: type, instance: Any) -> bool:
    if want is not False:
        return False
    if kind is not dict:
        return True
    allowed = schema.get("properties", {})
    return all(name in allowed for name in instance)


def _items_ok(schema: dict[str, Any], want: Any, kind: type, instance: Any) -> bool:
    return kind is not list or all(certainly_valid(want, item) for item in instance)


def _unique_ok(schema: dict[str, Any], want: Any, kind: type, instance: Any) -> bool:
    if not want or kind is not list:
        return True
    return all(type(item) is str for item in instance) and len(set(instance)) == len(instance)


def _min_length_ok(schema: dict[str, Any], want: Any, kind: type, instance: Any) -> bool:
    return kind is not str or len(instance) >= want


def _minimum_ok(schema: dict[str, Any], want: Any, kind: type, instance: Any) -> bool:
    if kind is float or type(want) is not int:
        return False
    return kind is not int or instance >= want


def _maximum_ok(schema: dict[str, Any], want: Any, kind: type, instance: Any) -> bool:
    if kind is float or type(want) is not int:
        return False
    return kind is not int or instance <= want


_KEYWORD_CHECKS: dict[str, _KeywordCheck] = {
    "type": _type_ok,
    "enum": _enum_ok,
    "properties": _properties_ok,
    "required": _required_ok,
    "additionalProperties": _additional_ok,
    "items": _items_ok,
    "uniqueItems": _unique_ok,
    "minLength": _min_length_ok,
    "minimum": _minimum_ok,
    "maximum": _maximum_ok,
}


_JSON_TYPES: dict[str, type] = {"object": dict, "array": list, "string": str, "integer": int, "boolean": bool}


class _NoAliasLoader(yaml.SafeLoader):
    """SafeLoader that refuses anchors/aliases, closing the door on alias bombs."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(
                None, None, "YAML aliases are not allowed in card files", event.start_mark
            )
        return super().compose_node(parent, index)


def _mark_span(file: str, node: yaml.Node) -> Span:
    s, e = node.start_mark, node.end_mark
    return new_span(Span, (file, s.line + 1, s.column + 1, e.line + 1, e.column + 1))


class _DuplicateKey(Exception):
    def __init__(self, key: str, node: yaml.Node) -> None:
        super().__init__(key)
        self.key = key
        self.node = node


def _to_python(node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for k, v in node.value:
            # a key is a name as written: YAML 1.1 would read `off:`, `no:` or `y:` as a boolean (and report the
            # field as `False`); a plain scalar key keeps its text
            key = k.value if isinstance(k, yaml.ScalarNode) else str(_to_python(k))
            if key in out:  # YAML forbids it, PyYAML keeps the last one silently
                raise _DuplicateKey(key, k)
            out[key] = _to_python(v)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_to_python(v) for v in node.value]
    return _scalar(node)


_STR_TAG = "tag:yaml.org,2002:str"
# Tags whose SafeConstructor function depends on the scalar's text alone (no constructor state, no cache).
_PURE_TAGS = tuple(f"tag:yaml.org,2002:{t}" for t in ("int", "bool", "null", "float"))
_SHARED_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_PURE_CONSTRUCTORS = {tag: yaml.constructor.SafeConstructor.yaml_constructors[tag] for tag in _PURE_TAGS}


_INT_TAG = "tag:yaml.org,2002:int"
_DECIMAL = re.compile(r"[-+]?(0|[1-9][0-9]{0,18})")  # at most 19 digits: every 64-bit integer, and no more
_DIGITS = re.compile(r"[-+]?[0-9]+")
_OCTAL = re.compile(r"[-+]?0[0-9]+")  # YAML 1.1 reads `017` as 15


class BadNumber(Exception):
    """A YAML integer the cards refuse: a located E402 (outside 64 bits) or E403 (not written in decimal)."""

    def __init__(self, node: yaml.Node, code: str, message: str, hint: str) -> None:
        super().__init__(message)
        self.node, self.code, self.message, self.hint = node, code, message, hint


def _whole_number(node: yaml.ScalarNode) -> int:
    """A YAML integer, read only when it is plain decimal within 64 bits.

    YAML 1.1 (PyYAML's) also reads `0x1F`, `0o17`, `0b101`, `1_000` and base 60 (`1:30` is 90: a time typed in
    a card file silently becomes a number), and any number of digits (thousands of them cost quadratic time,
    and past 4,300 Python refuses them with an unlocated error). Each is refused here, where the node is."""
    text = node.value
    shown = text if len(text) <= 24 else text[:20] + "…"
    if _DIGITS.fullmatch(text) and not _OCTAL.fullmatch(text):
        if _DECIMAL.fullmatch(text) and -(1 << 63) <= (value := int(text)) < (1 << 63):
            return value
    else:
        raise BadNumber(node, "E403", f"`{shown}` is not a decimal integer",
                        "card files take whole numbers in decimal (YAML reads `0x…`, `0o…`, `1_000` and `1:30` as "
                        "numbers too); quote it to make it text")
    raise BadNumber(node, "E402", f"`{shown}` is outside the 64-bit integer range",
                    "whole numbers in card files are between -9223372036854775808 and 9223372036854775807")


def _scalar(node: yaml.Node) -> Any:
    """The Python value of a scalar node, as ``SafeConstructor.construct_object`` makes it.

    Strings (most scalars) are the node's text; ints, bools, nulls and floats
    go straight to their stateless constructor function; anything else gets
    the full constructor, as before.
    """
    tag = node.tag
    if tag == _STR_TAG and isinstance(node, yaml.ScalarNode):
        return node.value
    if tag == _INT_TAG and isinstance(node, yaml.ScalarNode):
        return _whole_number(node)
    pure = _PURE_CONSTRUCTORS.get(tag)
    if pure is not None and isinstance(node, yaml.ScalarNode):
        return pure(_SHARED_CONSTRUCTOR, node)
    constructor = yaml.constructor.SafeConstructor()
    return constructor.construct_object(node, deep=True)


def _child(node: yaml.Node, key: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if getattr(k, "value", None) == key:
                return v  # type: ignore[no-any-return]
    return None


def _path_node(node: yaml.Node, path: list[Any]) -> yaml.Node:
    for step in path:
        nxt: yaml.Node | None
        if isinstance(step, int) and isinstance(node, yaml.SequenceNode) and step < len(node.value):
            nxt = node.value[step]
        else:
            nxt = _child(node, str(step))
        if nxt is None:
            break
        node = nxt
    return node


def _snippet(file_text: str, file_lines: list[str], node: yaml.ScalarNode, value: str) -> tuple[str, int, int, int]:
    """The code of an effect or function scalar, and where it starts: (text, line, column, indent).

    The language treats newlines as spaces, so the *source* text of a block or
    plain scalar means the same as YAML's folded value; parsing the source keeps
    every error position exact.  Quoted scalars are parsed from their value (exact
    unless the text uses escapes).
    """
    line = node.start_mark.line + 1
    col = node.start_mark.column + 1
    if node.style in ("|", ">"):
        body_line = line + 1
        first = file_lines[body_line - 1] if body_line - 1 < len(file_lines) else ""
        indent = len(first) - len(first.lstrip(" "))
        last = node.end_mark.line if node.end_mark.column == 0 else node.end_mark.line + 1
        body = [raw[indent:] for raw in file_lines[body_line - 1:last]]
        return "\n".join(body), body_line, indent + 1, indent
    if node.style in ("'", '"'):
        return value, line, col + 1, col
    return file_text[node.start_mark.index:node.end_mark.index], line, col, 0


def resolve_card_paths(ruleset_path: str, pattern: str, span: Span) -> tuple[list[str], list[Diagnostic]]:
    """Expand a ``cards "…"`` pattern, refusing anything outside the project folder (dsl/frontend/discovery.py:
    bounded, never naming an outside file, never widening to a home folder)."""
    files, diags = resolve_pattern(ruleset_path, pattern, span)
    if len(files) > MAX_CARD_FILES:
        diags.append(Diagnostic("E212", "error", f"too many card files ({len(files)} > {MAX_CARD_FILES})", span))
        files = files[:MAX_CARD_FILES]
    return files, diags


# libyaml composes nodes recursively in C, with no Python recursion limit: deep nesting would overflow the
# C stack. Every level of nesting needs one of these characters, so fewer of them bounds the depth (and so does
# :func:`_depth_bound`, from the longest line and the brackets, for the many `-` and `:` of a large card file).
_NESTING_CHARS = "[{-:?"
_MAX_FAST_NESTING = 2000
_CLoader: Any = getattr(yaml, "CSafeLoader", None)
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE  # what PyYAML's reader refuses (E202 on that path)
# the tag each plain or quoted scalar text resolves to, as SafeLoader's implicit resolvers give it (bounded)
_RESOLVED: dict[tuple[str, tuple[bool, bool]], str] = {}
_MAX_RESOLVED = 8192


if _CLoader is not None:
    class _MemoCLoader(_CLoader):  # type: ignore[misc]
        """libyaml's SafeLoader with the tag of each scalar text remembered: libyaml's composer asks the Python
        resolver about every scalar (over 700,000 in the compatibility corpus's card files, a few texts each,
        `true`, `1`, names), and the answer depends only on the text and how it was written: SafeLoader has no
        path resolvers, and its implicit resolvers are fixed when yaml is imported."""

        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            if kind is not yaml.ScalarNode or self.yaml_path_resolvers:
                return super().resolve(kind, value, implicit)
            key = (value, implicit)
            tag = _RESOLVED.get(key)
            if tag is None:
                tag = super().resolve(kind, value, implicit)
                if len(_RESOLVED) >= _MAX_RESOLVED:
                    _RESOLVED.clear()
                _RESOLVED[key] = tag
            return tag

    _CLoader = _MemoCLoader


def compose_fast(text: str) -> yaml.Node | None:
    """libyaml's node tree of a well-formed ``text`` (about 9x faster than PyYAML's composer), or None: on any
    error, an empty document, nesting deep enough to overflow the C stack, or a character PyYAML's reader
    refuses. None means "compose with PyYAML's pure-Python loader", which words every diagnostic; card files and
    graph files (dsl/checker/graphs.py) both take this path first. Aliases compose to a shared node, as PyYAML's
    SafeLoader composes them."""
    if _CLoader is None or (sum(map(text.count, _NESTING_CHARS)) >= _MAX_FAST_NESTING
                            and _depth_bound(text) >= _MAX_FAST_NESTING):
        return None
    if _NON_PRINTABLE.search(text) is not None:
        return None
    try:
        loader = _CLoader(text)
        try:
            root: yaml.Node | None = loader.get_single_node()
        finally:
            loader.dispose()
    except (yaml.YAMLError, RecursionError, ValueError, TypeError):
        return None
    return root


def _depth_bound(text: str) -> int:
    """An upper bound on the depth of ``text``'s node tree, for files with many `-` and `:` (a card file of a
    few hundred cards has thousands, far more than its depth: Betrayal's haunts.yaml took PyYAML's pure-Python
    composer, about 9x slower, at every check).

    A block collection nested in another starts at a greater column, except a sequence written at its mapping
    key's column (so at most two block levels per column, and a column is less than the longest line, measured
    here between `\n`s, never shorter than YAML's lines); a flow collection holds only flow nodes, and each
    opens with a `[` or `{`, which may also hold a one-pair mapping (`[a: [b: c]]`): two levels per bracket;
    the document is one more."""
    longest = max(map(len, text.split("\n")))
    return 2 * (longest + 1) + 2 * (text.count("[") + text.count("{")) + 1


def _compose_fast(text: str) -> tuple[yaml.Node, Any] | None:
    """Compose and convert with libyaml, or None to take the exact path.

    libyaml gives the same nodes, tags and marks (line, column, character index) as PyYAML's
    pure-Python composer (tests/test_card_yaml_fast.py compares them node by node). It only takes
    well-formed files: on any error, on an alias (libyaml shares the aliased node instead of
    refusing it), on a duplicate key or an empty file it returns None, and the pure-Python path
    then produces exactly the diagnostic it always did.
    """
    root = _COMPOSED.pop(text, None)
    if root is None:
        root = compose_fast(text)
        # an alias is written `*name`: a text without a `*` has none, and its tree need not be walked for one
        if root is None or ("*" in text and _shares_nodes(root)):
            return None
        _remember_composed(text, root)
    else:
        _COMPOSED[text] = root  # the most recently used last
    try:
        return root, _to_python(root)
    except (yaml.YAMLError, _DuplicateKey, RecursionError, ValueError, TypeError):
        return None


# libyaml's node trees of recent well-formed card texts, keyed by the exact text, least recently used first. The
# compatibility corpus's checks load 1,924 card files of 172 distinct texts (a ruleset's versions share most of
# them), and the language server re-checks the same texts at every pause in typing: composing was about 6 % of a
# check. Only the tree is kept: it never leaves this module and is only read here (marks, tags, scalar texts), and
# the Python values a load hands on (to the schema, the card reader and so to callers) are converted from it
# afresh at each load, so no caller can change what another load sees; number and duplicate-key errors come from
# that conversion, so they are reported at each load, located in the file being loaded. A tree takes about 20
# bytes a character of text: the texts kept total at most _COMPOSED_CHARS characters (about 20 MB of nodes).
_COMPOSED: dict[str, yaml.Node] = {}
_COMPOSED_CHARS = 1_000_000


def _remember_composed(text: str, root: yaml.Node) -> None:
    """Keep ``root`` for ``text``, dropping the least recently used trees past the bound (a larger text is not kept)."""
    if len(text) > _COMPOSED_CHARS:
        return
    _COMPOSED[text] = root
    total = sum(map(len, _COMPOSED))
    while total > _COMPOSED_CHARS:
        oldest = next(iter(_COMPOSED))
        del _COMPOSED[oldest]
        total -= len(oldest)


def _shares_nodes(root: yaml.Node) -> bool:
    """True if a node appears twice in the tree: what an alias composes to."""
    seen: set[int] = set()
    todo = [root]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            return True
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                todo += (k, v)
        elif isinstance(node, yaml.SequenceNode):
            todo += node.value
    return False


def _compose_exact(text: str, display: str) -> tuple[yaml.Node, Any] | list[Diagnostic]:
    """Compose with PyYAML's pure-Python loader: the reference behaviour, and every YAML diagnostic."""
    loader: _NoAliasLoader | None = None
    try:
        loader = _NoAliasLoader(text)
        root = loader.get_single_node()
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else 1
        code = "E203" if "alias" in str(err.problem or "") else "E202"
        return [Diagnostic(code, "error", f"YAML: {err.problem or err}", Span.point(display, line, col),
                           hint="YAML anchors and aliases are not allowed" if code == "E203"
                           else "check indentation and quoting on this line")]
    except (yaml.YAMLError, RecursionError, ValueError) as err:
        return [Diagnostic("E202", "error", f"YAML: {err}".splitlines()[0], Span.point(display, 1, 1))]
    finally:
        if loader is not None:
            loader.dispose()
    if root is None:
        return [Diagnostic("E204", "error", "card file is empty", Span.point(display, 1, 1),
                           hint="a card file needs `kind`, `start` and `cards`")]
    try:
        return root, _to_python(root)
    except _DuplicateKey as dup:
        return [Diagnostic("E202", "error", f"YAML: key `{dup.key}` appears twice in one mapping",
                           _mark_span(display, dup.node), hint="remove or rename one of them")]
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as err:
        return [Diagnostic("E202", "error", f"YAML: {err}".splitlines()[0], _mark_span(display, root))]


def load_card_file(
    path: str,
    kinds: dict[str, A.CardKindDecl],
    enums: dict[str, list[str]],
    zones: list[str],
) -> tuple[list[CardDef], list[Diagnostic]]:
    """Load and validate one card file; every problem names the YAML line.

    The file is untrusted: each step (read, decode, compose, the file's schema, the card count) can end the
    load with one located diagnostic; past them, each card is checked on its own so one bad card does not
    hide the others' problems.
    """
    rel = os.path.relpath(path)
    display = path if rel.startswith("..") else rel
    text = _read_card_text(path, display)
    if isinstance(text, list):
        return [], text
    if _MEMO:
        from liturgy.dsl.frontend.layout import shape  # the kinds as declared, wherever their lines are now

        kinds_shape = _SHAPES.get(id(kinds))
        if kinds_shape is None or kinds_shape[0] is not kinds:  # the shape of the kinds once per check, not per file
            kinds_shape = _SHAPES[id(kinds)] = (kinds, shape(list(kinds.values())))
        key = (path, text, kinds_shape[1], repr(sorted(enums.items())), tuple(zones))
        if key not in _MEMO[-1]:
            _MEMO[-1][key] = _load_card_text(path, display, text, kinds, enums, zones)
        return _MEMO[-1][key]
    return _load_card_text(path, display, text, kinds, enums, zones)


def _load_card_text(
    path: str, display: str, text: str, kinds: dict[str, A.CardKindDecl], enums: dict[str, list[str]], zones: list[str]
) -> tuple[list[CardDef], list[Diagnostic]]:
    remember_source(display, text)
    halves = surrogate_escapes(text, display)
    if halves:
        return [], halves
    try:
        fast = _compose_fast(text)
        composed = fast if fast is not None else _compose_exact(text, display)
    except BadNumber as bad:
        return [], [Diagnostic(bad.code, "error", bad.message, _mark_span(display, bad.node), hint=bad.hint)]
    if isinstance(composed, list):
        return [], composed
    root, data = composed
    diags = _file_schema_errors(display, root, data, kinds, zones)
    if diags:
        return [], diags

    kind = kinds[data["kind"]]
    reader = _CardReader(display, text, kind, schema_for_kind(kind, enums))
    cards_node = _child(root, "cards")
    if len(data["cards"]) > MAX_CARDS:
        return [], [Diagnostic("E212", "error", f"too many cards in one file ({len(data['cards'])})",
                               _mark_span(display, root))]
    out: list[CardDef] = []
    for i, entry in enumerate(data["cards"]):
        node = cards_node.value[i] if isinstance(cards_node, yaml.SequenceNode) else root
        card = reader.card(entry, node, data["start"], diags)
        if card is not None:
            out.append(card)
    return out, diags


# For the language server (`liturgy lsp`), which re-checks a ruleset at every pause in typing: card files' texts
# as the editor holds them (read instead of the disk), and the loads of unchanged card files kept between checks.
_UNSAVED: dict[str, str] = {}
_MEMO: list[dict[Any, tuple[list[CardDef], list[Diagnostic]]]] = []
# The memo's key holds the card kinds' shape (their declarations without positions): one program's kinds, the
# same for each of its card files, were walked again for every file (Slay the Spire's 51: about a quarter of a
# re-check's time). Kept while one ``unsaved`` block lasts (one check, during which the program's declarations
# do not change), with the kinds themselves so that an id is never reused for another dict meanwhile.
_SHAPES: dict[int, tuple[dict[str, A.CardKindDecl], Any]] = {}


@contextmanager
def unsaved(texts: dict[str, str], memo: dict[Any, Any] | None = None) -> Iterator[None]:
    """While active, a card file whose absolute path is in ``texts`` is read from there, not from the disk; with
    ``memo``, a card file whose text, card kinds, enums and zones are as at an earlier load is not parsed again."""
    saved = dict(_UNSAVED)
    _UNSAVED.update({os.path.abspath(k): v for k, v in texts.items()})
    if memo is not None:
        _MEMO.append(memo)
    try:
        yield
    finally:
        _UNSAVED.clear()
        _UNSAVED.update(saved)
        if memo is not None:
            _MEMO.pop()
            _SHAPES.clear()


def _read_card_text(path: str, display: str) -> str | list[Diagnostic]:
    """The file's text, or the one diagnostic that says why it cannot be read (missing, too large, not UTF-8)."""
    if _UNSAVED and os.path.abspath(path) in _UNSAVED:
        return _UNSAVED[os.path.abspath(path)]
    try:
        raw = read_limited(path, MAX_CARD_FILE_BYTES)
    except FileRefused as err:
        if err.size is not None:
            return [Diagnostic("E212", "error", f"card file is too large ({err.size} bytes)",
                               Span.point(display, 1, 1), hint=f"the limit is {MAX_CARD_FILE_BYTES} bytes")]
        return [Diagnostic("E201", "error", f"cannot read card file: {err.reason}", Span.point(display, 1, 1))]
    except OSError as err:
        return [Diagnostic("E201", "error", f"cannot read card file: {err.strerror}", Span.point(display, 1, 1))]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return [Diagnostic("E201", "error", f"card file is not UTF-8 (byte {err.start})",
                           Span.point(display, 1, 1), hint="save the file as UTF-8")]


def _file_schema_errors(
    display: str, root: yaml.Node, data: Any, kinds: dict[str, A.CardKindDecl], zones: list[str]
) -> list[Diagnostic]:
    """The file-level problems (`kind`, `start`, `cards`), in document order; jsonschema only when needed."""
    top_schema = file_schema(kinds, zones)
    if certainly_valid(top_schema, data):
        return []
    top = _validator(top_schema)
    return [_schema_diag(display, root, verr, known=["kind", "start", "cards"])
            for verr in sorted(top.iter_errors(data), key=lambda e: list(e.path))]


class _CardReader:
    """Turns the entries of one card file into card definitions.

    One per file, so the jsonschema validator (slow to build) is made at most once, and only when a card is
    not plainly valid.
    """

    def __init__(self, display: str, text: str, kind: A.CardKindDecl, card_schema: dict[str, Any]) -> None:
        self.display = display
        self.text = text
        self.file_lines = text.splitlines()
        self.kind = kind
        self.card_schema = card_schema
        self.field_types = {f.name: f.type for f in kind.fields}
        self.validator: jsonschema.Draft202012Validator | None = None

    def card(self, entry: dict[str, Any], node: yaml.Node, start: str, diags: list[Diagnostic]) -> CardDef | None:
        """The card, or None when it breaks its kind's schema; every problem is appended to ``diags``."""
        errors: list[jsonschema.ValidationError] = []
        if not certainly_valid(self.card_schema, entry):
            self.validator = self.validator or _validator(self.card_schema)
            errors = list(self.validator.iter_errors(entry))
        if errors:
            known = list(BUILTIN_KEYS) + [f.name for f in self.kind.fields]
            diags.extend(_schema_diag(self.display, node, verr, known=known, kind=self.kind.name) for verr in errors)
            return None
        values: dict[str, Any] = {}
        spans: dict[str, Span] = {}
        if _fractional(self, entry, node, diags):
            return None
        for key, value in entry.items():
            if key in BUILTIN_KEYS:
                continue
            vnode = _child(node, key)
            vspan = _mark_span(self.display, vnode) if vnode is not None else _mark_span(self.display, node)
            spans[key] = vspan
            ok, parsed = self.field_value(key, value, vnode, vspan, entry["name"], diags)
            if ok:
                values[key] = parsed
        return CardDef(
            name=entry["name"],
            kind=self.kind.name,
            start=start,
            count=int(entry.get("count", 1)),
            values=values,
            span=_mark_span(self.display, node),
            provisional=bool(entry.get("provisional", False)),
            text=str(entry.get("text", "")),
            field_spans=spans,
        )

    def field_value(
        self, key: str, value: Any, vnode: yaml.Node | None, vspan: Span, card: str, diags: list[Diagnostic]
    ) -> tuple[bool, Any]:
        """(True, the field's Python value or parsed AST), or (False, None) after appending why it has none."""
        ftype = self.field_types[key]
        if ftype.kind not in ("effect", "function"):
            return True, frozenset(value) if ftype.kind == "set" else value
        if not isinstance(vnode, yaml.ScalarNode):
            diags.append(Diagnostic("E209", "error", f"`{key}` of `{card}` must be text", vspan))
            return False, None
        code, line, col, indent = _snippet(self.text, self.file_lines, vnode, str(value))
        parsed: Any
        if ftype.kind == "effect":
            parsed, errs = parse_effect_text(code, self.display, line, col, indent)
        else:
            parsed, errs = parse_expr_text(code, self.display, line, col, indent)
        if errs:
            diags.extend(Diagnostic("E205", "error", f"in `{key}` of `{card}`: {d.message}", d.span, d.hint)
                         for d in errs)
            return False, None
        return True, parsed


def _validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """jsonschema's validator for ``schema``, imported only now: valid card files never need it (the fast answer
    vouches for them), and importing it cost every process that checked a ruleset 60-80 ms of CPU."""
    import jsonschema

    return jsonschema.Draft202012Validator(schema)


def _fractional(reader: _CardReader, entry: dict[str, Any], node: yaml.Node, diags: list[Diagnostic]) -> bool:
    """E401 for each whole-number field (an `int`, a list or set of them, `count`) given a float: JSON Schema
    counts `2.0` and `1.0e+16` as integers, the engine must not (a float in the state breaks saves, digests and
    64-bit arithmetic)."""
    found = False
    for key, value in entry.items():
        ftype = reader.field_types.get(key)
        whole = key == "count" or (ftype is not None and (ftype.kind == "int" or (
            ftype.kind == "list" and ftype.elem is not None and ftype.elem.kind == "int")))
        values = value if isinstance(value, list) else [value]
        if whole and any(isinstance(v, float) for v in values):
            vnode = _child(node, key)
            diags.append(Diagnostic("E401", "error", f"`{key}` of `{entry['name']}` is a whole number, not "
                                    f"{next(v for v in values if isinstance(v, float))!r}",
                                    _mark_span(reader.display, vnode if vnode is not None else node),
                                    hint="write it without a decimal point or exponent, e.g. `2`"))
            found = True
    return found


def _schema_diag(
    file: str, node: yaml.Node, err: jsonschema.ValidationError, known: list[str], kind: str = ""
) -> Diagnostic:
    path = list(err.absolute_path)
    instance: Any = err.instance
    allowed: Any = err.validator_value
    target = _path_node(node, path)
    span = _mark_span(file, target)
    if err.validator == "additionalProperties":
        extra = [k for k in (instance or {}) if k not in known]
        name = extra[0] if extra else "?"
        key_node = None
        if isinstance(target, yaml.MappingNode):
            key_node = next((k for k, _ in target.value if getattr(k, "value", None) == name), None)
        return Diagnostic(
            "E206", "error",
            f"unknown card field `{name}`" + (f" for kind `{kind}`" if kind else ""),
            _mark_span(file, key_node) if key_node is not None else span,
            hint=did_you_mean(name, known) or "allowed: " + ", ".join(known),
        )
    if err.validator == "required":
        return Diagnostic("E207", "error", f"missing required field: {err.message}", span,
                          hint="fields without a default in the card kind must be given")
    if err.validator == "enum" and path == ["kind"] and not kind:  # the file's card kind, not a field named `kind`
        return Diagnostic("E208", "error", f"unknown card kind {instance!r}", span,
                          hint=did_you_mean(str(instance), [str(v) for v in allowed]))
    where = ".".join(str(p) for p in path) or "top level"
    hint = _quote_hint(target, instance, allowed if err.validator in ("type", "enum") else None)
    if err.validator == "enum" and not hint:
        written = target.value if isinstance(target, yaml.ScalarNode) else instance  # `off`, not False
        hint = did_you_mean(str(written), [str(v) for v in allowed]) or (
            "allowed: " + ", ".join(map(str, allowed)))
    return Diagnostic("E209", "error", f"invalid value at `{where}`: {err.message}", span, hint=hint)


def _quote_hint(node: yaml.Node | None, instance: Any, expected: Any) -> str:
    """A hint for text that YAML 1.1 read as something else: `name: no` is false, `kind: off` too, `code: 007` is 7.

    Only for an unquoted scalar where text was wanted (a "string" type, or an enum of text values).
    """
    if not isinstance(node, yaml.ScalarNode) or node.style not in (None, "") or isinstance(instance, str):
        return ""
    wants_text = expected == "string" or (isinstance(expected, list) and (
        "string" in expected or node.value in expected))
    if not wants_text:
        return ""
    read = "null" if instance is None else str(instance).lower() if isinstance(instance, bool) else repr(instance)
    return f'YAML reads the unquoted `{node.value}` as {read}: write "{node.value}" in quotes to mean the text'

