"""Rulesets in several files: `include "part.rules"` read in place, so the checker sees one program.

Why in the front end only: the checker, the compiler, codegen and every tool downstream keep seeing one
:class:`~liturgy.dsl.frontend.ast.Ruleset` whose declarations are in the order a reader meets them (each
``include`` line replaced by the included file's declarations). Only spans remember which file a declaration
came from, so diagnostics and runtime errors say ``part.rules:12:5``.

The rules (docs/language.md, "Rulesets in several files"):

- Every path in any file of a ruleset (``include``, ``cards``, ``graph … from``) is relative to the folder of the
  *main* file, the one given to ``liturgy``: a declaration means the same whichever file it sits in, so moving
  text between files never changes it.
- An included path is untrusted: it must be relative, name a ``.rules`` file, and stay inside the main file's
  folder, also through symbolic links (E213). A missing or unreadable file is E214, a cycle E215, a file included
  twice E216. All are located at the ``include`` line.
- Name clashes between files are the checker's E103, which names the first declaration's file and line.

The *resolved text* (:attr:`Sources.resolved`) is the main file with each include line replaced by the included
file's resolved text. The save fingerprint hashes it (dsl/loader.py), so a ruleset with no include keeps the
fingerprint it always had, and a ruleset split by cutting whole lines into part files and writing
``include "part.rules"`` in their place keeps it too: saves made before the split still load.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from liturgy.dsl.diagnostics import Diagnostic, Span
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.frontend.parser import parse_ruleset_text

MAX_RULE_FILES = 200  # files one ruleset may be made of (as many as card files)

# Reads one file of the ruleset: its text, or the diagnostics saying why not (located at ``span``).
Reader = Callable[[str, Span], tuple[str | None, list[Diagnostic]]]


@dataclass
class Sources:
    """The files a ruleset was read from: the main file first, then each included one in the order met."""

    main: str
    files: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    resolved: str = ""  # the main text with every include line replaced by the included file's resolved text

    @property
    def parts(self) -> list[str]:
        """The included files (every file but the main one)."""
        return self.files[1:]


def include_target(main: str, written: str) -> str:
    """The path an ``include`` names, as diagnostics and spans show it: joined to the main file's folder."""
    return os.path.normpath(os.path.join(os.path.dirname(main), written))


def refusal(main: str, written: str) -> str | None:
    """Why ``include "written"`` is refused (E213), or None: an untrusted path stays a ``.rules`` file inside
    the main file's folder, by its text and after following symbolic links."""
    if not written or "\x00" in written or os.path.isabs(written) or written.startswith("~") or "\\" in written:
        return "is not a relative path with `/` between folders"
    if not written.endswith(".rules"):
        return "does not name a `.rules` file"
    folder = os.path.abspath(os.path.dirname(main) or ".")
    target = os.path.abspath(os.path.join(folder, written))
    if os.path.commonpath([folder, target]) != folder:
        return "leaves the main file's folder"
    real_folder = os.path.realpath(folder)
    real = os.path.realpath(target)
    if os.path.commonpath([real_folder, real]) != real_folder:
        return "leaves the main file's folder through a link"
    return None


class _Resolver:
    """One resolution: the files read so far, the stack of includes being read (for cycles), diagnostics."""

    def __init__(self, main: str, read: Reader) -> None:
        self.sources = Sources(main)
        self.read = read
        self.diags: list[Diagnostic] = []
        self.first_include: dict[str, Span] = {}  # a file's real path -> the include line that first named it

    def expand(self, path: str, text: str, stack: list[str]) -> tuple[list[A.Decl] | None, str]:
        """The declarations and resolved text of ``path`` (whose text is ``text``), includes expanded."""
        self.sources.files.append(path)
        self.sources.texts[path] = text
        rs, errors = parse_ruleset_text(text, path)
        if rs is None:
            self.diags.extend(errors)
            return None, text
        if not any(isinstance(d, A.IncludeDecl) for d in rs.decls):
            return rs.decls, text
        decls: list[A.Decl] = []
        pieces: list[tuple[A.IncludeDecl, str]] = []
        ok = True
        for d in rs.decls:
            if not isinstance(d, A.IncludeDecl):
                decls.append(d)
                continue
            inner, inner_text = self._include(d, stack)
            if inner is None:
                ok = False
                continue
            decls.extend(inner)
            pieces.append((d, inner_text))
        return (decls if ok else None), _splice(text, pieces)

    def _include(self, d: A.IncludeDecl, stack: list[str]) -> tuple[list[A.Decl] | None, str]:
        main = self.sources.main
        why = refusal(main, d.path)
        if why is not None:
            self._err("E213", f"`include \"{d.path}\"` {why}", d.span,
                      "an included file is a `.rules` file in the main file's folder or below it, named relative "
                      "to the main file")
            return None, ""
        target = include_target(main, d.path)
        real = os.path.realpath(target)
        if real in stack:
            chain = " → ".join([*(self._shown(p) for p in stack[stack.index(real):]), self._shown(real)])
            self._err("E215", f"`include \"{d.path}\"` makes a cycle: {chain}", d.span,
                      "a file cannot include itself, directly or through other files")
            return None, ""
        if real in self.first_include:
            first = self.first_include[real]
            self._err("E216", f"`{d.path}` is included twice", d.span,
                      f"it is already included at {first.file}:{first.line}; include each file once")
            return None, ""
        self.first_include[real] = d.span
        if len(self.sources.files) >= MAX_RULE_FILES:
            self._err("E212", f"too many ruleset files (more than {MAX_RULE_FILES})", d.span, "")
            return None, ""
        text, errors = self.read(target, d.span)
        if text is None:
            self.diags.extend(errors)
            return None, ""
        return self.expand(target, text, [*stack, real])

    def _shown(self, real: str) -> str:
        """A file of the cycle as an include line names it: relative to the main file's folder."""
        return os.path.relpath(real, os.path.realpath(os.path.dirname(self.sources.main) or "."))

    def _err(self, code: str, message: str, span: Span, hint: str) -> None:
        self.diags.append(Diagnostic(code, "error", message, span, hint=hint))


def _offsets(text: str) -> list[int]:
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def _splice(text: str, pieces: list[tuple[A.IncludeDecl, str]]) -> str:
    """``text`` with each include replaced by its file's resolved text. An include alone on its line replaces the
    whole line, newline included, so cutting lines into a file and including it gives back the same text."""
    if not pieces:
        return text
    starts = _offsets(text)
    out: list[str] = []
    at = 0
    for d, inner in pieces:
        s = d.span
        begin = starts[s.line - 1] + s.column - 1
        end = starts[s.end_line - 1] + s.end_column - 1
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        rest_blank = not text[end:line_end].strip()
        if rest_blank and not text[starts[s.line - 1]:begin].strip():
            begin = starts[s.line - 1]
            end = min(line_end + 1, len(text))
            if not inner.endswith("\n") and end > line_end:
                inner += "\n"
        out.append(text[at:begin])
        out.append(inner)
        at = end
    out.append(text[at:])
    return "".join(out)


def resolve(main: str, text: str, read: Reader) -> tuple[A.Ruleset | None, list[Diagnostic], Sources]:
    """Parse ``main`` (whose text is ``text``) and every file it includes into one ruleset.

    The ruleset is None when any file failed to parse or to be included; the diagnostics then say where.
    """
    resolver = _Resolver(main, read)
    decls, resolved = resolver.expand(main, text, [os.path.realpath(main)])
    resolver.sources.resolved = resolved
    if decls is None or resolver.diags:
        return None, resolver.diags, resolver.sources
    return A.Ruleset(main, decls), [], resolver.sources


_INCLUDE_LINE = re.compile(r'^[ \t]*include[ \t]+"([^"\n]*)"', re.M)


def included_files(main: str) -> list[str]:
    """Every file ``main`` includes, directly or not, found by reading the include lines' text only (no parse):
    for tools that must handle a ruleset's files without checking it (`fmt`, finding the rulesets in a folder).
    Refused, missing and unreadable paths are left out; the check reports them."""
    found: list[str] = []
    seen = {os.path.realpath(main)}
    queue = [main]
    while queue and len(found) < MAX_RULE_FILES:
        try:
            with open(queue.pop(0), encoding="utf-8") as f:
                text = f.read(4_000_000)
        except (OSError, UnicodeDecodeError):
            continue
        for written in _INCLUDE_LINE.findall(text):
            target = include_target(main, written)
            real = os.path.realpath(target)
            if refusal(main, written) is None and real not in seen and os.path.isfile(target):
                seen.add(real)
                found.append(target)
                queue.append(target)
    return found


def main_rulesets(paths: list[str]) -> list[str]:
    """``paths`` without the files another of them includes: the rulesets themselves, not their parts (a part
    alone has no `game` and would not check)."""
    parts = {os.path.realpath(p) for main in paths for p in included_files(main)}
    return [p for p in paths if os.path.realpath(p) not in parts]


__all__ = ["MAX_RULE_FILES", "Reader", "Sources", "include_target", "included_files", "main_rulesets", "refusal",
           "resolve"]
