"""`liturgy fmt` and `liturgy lsp`: the tools for the people who write rules (issue 20).

Registered from :mod:`liturgy.interpreter.tools.cli` by one call, so other subcommands' diffs stay apart.
`lsp` imports pygls only when run: it is the optional `lsp` extra, and the engine never needs it.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import Any

from liturgy.dsl.diagnostics import render_all
from liturgy.dsl.frontend.includes import included_files
from liturgy.dsl.frontend.layout import FormatError, format_text
from liturgy.interpreter.tools.arguments import UsageError


def rules_files(paths: list[str]) -> list[Path]:
    """The `.rules` files named, a folder standing for every `.rules` file under it, and a file for itself and
    every file it includes (sorted, each once)."""
    out: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            out.extend(sorted(path.rglob("*.rules")))
        elif path.is_file():
            out.append(path)
            out.extend(Path(p) for p in included_files(name))
        else:
            raise UsageError(f"{name}: no such file or folder")
    seen: set[Path] = set()
    unique: list[Path] = []
    for p in out:
        if p.resolve() not in seen:
            seen.add(p.resolve())
            unique.append(p)
    return unique


def cmd_fmt(args: argparse.Namespace) -> int:
    """Format in place, or with --check list the files that would change and fail (for CI)."""
    changed: list[Path] = []
    failed = False
    for path in rules_files(args.paths):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            print(f"{path}: cannot read: {err}", file=sys.stderr)
            failed = True
            continue
        try:
            out = format_text(text, str(path))
        except FormatError as err:
            print(render_all(err.diagnostics) if err.diagnostics else str(err), file=sys.stderr)
            failed = True
            continue
        if out == text:
            continue
        changed.append(path)
        if args.check:
            print(f"would reformat {path}")
            if args.diff:
                sys.stdout.writelines(difflib.unified_diff(
                    text.splitlines(keepends=True), out.splitlines(keepends=True), str(path), f"{path} (formatted)"))
        else:
            path.write_text(out, encoding="utf-8")
            print(f"reformatted {path}")
    verb = "would reformat" if args.check else "reformatted"
    print(f"{verb} {len(changed)} file(s)" + ("; some could not be formatted" if failed else ""), file=sys.stderr)
    return 1 if failed or (args.check and changed) else 0


def cmd_lsp(args: argparse.Namespace) -> int:
    """Serve the Language Server Protocol on stdin/stdout (an editor starts this)."""
    try:
        from liturgy.dsl.lsp.server import serve
    except ImportError as err:
        print(f"liturgy: error: the language server needs pygls: pip install 'liturgy[lsp]' ({err})",
              file=sys.stderr)
        return 2
    serve()
    return 0


def register(sub: Any) -> None:
    """Add `fmt` and `lsp` to the CLI's subcommands."""
    f = sub.add_parser("fmt", help="lay out .rules files in the one canonical layout (in place, or --check)")
    f.add_argument("paths", nargs="+", metavar="PATH", help=".rules files, or folders holding them")
    f.add_argument("--check", action="store_true", help="change nothing; fail if a file is not formatted")
    f.add_argument("--diff", action="store_true", help="with --check, print what would change")
    f.set_defaults(func=cmd_fmt)
    ls = sub.add_parser("lsp", help="run the language server on stdio (for editors; needs liturgy[lsp])")
    ls.add_argument("--stdio", action="store_true", help="accepted for editors that pass it; stdio is the default")
    ls.set_defaults(func=cmd_lsp)
