"""Finding the files a `cards "…"` or `graph … "…"` pattern names, without trusting the pattern (issue 18).

A ruleset is untrusted, and its patterns once were globbed as written: `cards "../../../../../../*/*/*/*/*/*"`
walked the whole filesystem for minutes, and E210 named each outside file it refused, so a pattern could list
any folder. A ruleset in `~/rulesets/` also had the home folder as its project root, so it could read (and
quote in diagnostics) the home folder's dotfiles. Here:

- **The project root** is the ruleset's folder, or the parent of the nearest enclosing ``rulesets/`` folder
  (``rulesets/classic/goofspiel.rules`` reads ``cards/classic/…``) — unless that parent is the user's home
  folder, the filesystem root, or a folder above the home folder; then it is the ruleset's own folder.
- **The pattern is resolved by text first**: after `..` steps are applied, its fixed part must lie inside the
  root, or it is refused (E210) without looking at the filesystem at all.
- **The walk is bounded**: the pattern is matched one path segment at a time with ``os.scandir`` (``*``,
  ``?`` and ``[…]`` within a segment; no ``**``), and stops after :data:`MAX_VISITED` directory entries (E212).
- **Nothing outside is named**: a match that leaves the root through a symbolic link is refused with a
  message that names the pattern, never the outside file.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from liturgy.dsl.diagnostics import Diagnostic, Span
from liturgy.dsl.files import note

MAX_VISITED = 20_000  # directory entries one pattern may look at
MAX_FILES = 200  # files one pattern may name (as many as card files a ruleset may load)
_MAGIC = frozenset("*?[")


def project_root(ruleset_path: str) -> Path:
    """The folder a ruleset's card and graph files must live under (see the module docstring)."""
    base = Path(ruleset_path).resolve().parent
    enclosing = next((d.parent for d in (base, *base.parents) if d.name == "rulesets"), None)
    if enclosing is None:
        return base
    try:
        home = Path.home().resolve()
    except (RuntimeError, KeyError, OSError):  # no home folder known: treat nothing as one
        home = None
    too_wide = enclosing == Path(enclosing.anchor) or (home is not None and (enclosing == home or enclosing in
                                                                             home.parents))
    return base if too_wide else enclosing


def resolve_pattern(ruleset_path: str, pattern: str, span: Span) -> tuple[list[str], list[Diagnostic]]:
    """The files ``pattern`` names, relative to the ruleset's folder, all inside its project root."""
    root = project_root(ruleset_path)
    base = Path(ruleset_path).resolve().parent
    if os.path.isabs(pattern) or pattern.startswith("~"):
        return [], [Diagnostic("E210", "error", f"card path `{pattern}` is absolute", span,
                               hint="use a path relative to the ruleset file")]
    if "\x00" in pattern or "**" in pattern:
        return [], [Diagnostic("E210", "error", f"card path `{pattern}` is not a plain pattern", span,
                               hint="use `*`, `?` and `[…]` within one folder name; `**` is not supported")]
    full = os.path.normpath(os.path.join(str(base), pattern))
    fixed = _fixed_part(full)
    if not _inside(Path(fixed), root):
        return [], [Diagnostic("E210", "error", f"card path `{pattern}` leaves the ruleset's project folder",
                               span, hint=f"card files must live under {_shown(root, base)}")]
    found, visited, outside = _walk(full, root)
    diags: list[Diagnostic] = []
    if visited > MAX_VISITED:
        diags.append(Diagnostic("E212", "error", f"card path `{pattern}` looks at more than {MAX_VISITED} "
                                "files and folders", span, hint="name the card files' folder more precisely"))
    if outside:
        diags.append(Diagnostic("E210", "error", f"card path `{pattern}` matches {outside} file(s) outside the "
                                "ruleset's project folder (through a link)", span,
                                hint=f"card files must live under {_shown(root, base)}"))
    if not found and not diags:
        diags.append(Diagnostic("E211", "error", f"no card files match `{pattern}`", span,
                                hint="the pattern is relative to the ruleset file"))
    if len(found) > MAX_FILES:
        diags.append(Diagnostic("E212", "error", f"too many card files ({len(found)} > {MAX_FILES})", span))
        found = found[:MAX_FILES]
    note("pattern", f"{ruleset_path}\0{pattern}", "\0".join(found))
    return found, diags


def _shown(root: Path, base: Path) -> str:
    """The root as a message shows it: relative to the ruleset's folder (never an absolute home path)."""
    rel = os.path.relpath(root, base)
    return "the ruleset's folder" if rel == "." else f"`{rel}` (from the ruleset's folder)"


def _fixed_part(path: str) -> str:
    """The leading segments of ``path`` that hold no wildcard."""
    parts = Path(path).parts
    fixed: list[str] = []
    for part in parts:
        if _MAGIC & set(part):
            break
        fixed.append(part)
    return str(Path(*fixed)) if fixed else path


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _walk(full: str, root: Path) -> tuple[list[str], int, int]:
    """(matching files inside the root, entries looked at, matches outside the root) for pattern ``full``."""
    parts = Path(full).parts
    fixed = Path(_fixed_part(full))
    rest = parts[len(fixed.parts):]
    if not rest:
        return (_keep([str(fixed)], root), 0, _outside([str(fixed)], root)) if fixed.is_file() else ([], 0, 0)
    level = [str(fixed)]
    visited = 0
    for i, segment in enumerate(rest):
        last = i == len(rest) - 1
        nxt: list[str] = []
        for folder in level:
            if _MAGIC & set(segment):
                try:
                    with os.scandir(folder) as entries:
                        for entry in entries:
                            visited += 1
                            if visited > MAX_VISITED:
                                return [], visited, 0
                            hidden = entry.name.startswith(".") and not segment.startswith(".")  # as glob
                            if fnmatch.fnmatchcase(entry.name, segment) and not hidden:
                                nxt.append(entry.path)
                except OSError:
                    continue
            else:
                nxt.append(os.path.join(folder, segment))
        level = [p for p in nxt if (os.path.isfile(p) if last else os.path.isdir(p))]
    level.sort()
    return _keep(level, root), visited, _outside(level, root)


def _keep(paths: list[str], root: Path) -> list[str]:
    return [p for p in paths if _inside(Path(p).resolve(), root)]


def _outside(paths: list[str], root: Path) -> int:
    return sum(1 for p in paths if not _inside(Path(p).resolve(), root))
