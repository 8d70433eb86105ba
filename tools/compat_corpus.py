"""Collect the compatibility corpus (tests/compat/) from this repository's git history.

Every version of every `.rules` file that ever shipped (rulesets/) or appeared in docs/ (in any commit of
the history of the checked-out branch, `git log HEAD`: another branch's unmerged work never shipped) is one
entry, with the card files (and, for a ruleset in several files, the files it includes) it read at the commit
that introduced that version; a file that another includes is a part, not an entry of its own.
tests/test_compat.py checks and plays each one with today's language: all must pass, or fail with a documented
migration error (docs/compatibility.md).

Files are stored once each, under their git blob id (tests/compat/blobs/), so the corpus costs the repository
no new objects: they are the very blobs its history already holds. Run from the repository root:

    python tools/compat_corpus.py                # rewrites tests/compat/corpus.json and blobs/ (stale blobs removed)
    python tools/compat_corpus.py --mark-plays   # only chooses again which versions play a game

Every version is checked by the test; a game is played (compile and one seeded game) for the oldest version of
each distinct set of language features (``features``: node kinds, built-ins, kinds of names) and for the newest
version of every file: two versions using the same features exercise the compiler and engine alike, and
compiling was two thirds of the test's CPU.

A version whose introducing commit lacks its card files (the first Bloodborne ruleset came one commit before
its cards) takes them from the first later commit that has them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "compat"
SOURCES = ("rulesets", "docs")  # where shipped rulesets and documentation examples live
CARD_TREES = ("cards", "docs/examples/cards")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def git_bytes(*args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True).stdout


def rules_paths() -> list[str]:
    """Every `.rules` path under rulesets/ or docs/ in any commit."""
    out = git("log", "HEAD", "--name-only", "--format=", "--", *(f"{s}/*.rules" for s in SOURCES))
    return sorted({p for p in out.split() if p.endswith(".rules")})


def versions(path: str) -> list[tuple[str, str]]:
    """(introducing commit, blob id) of each distinct version of ``path``, oldest first."""
    seen: dict[str, str] = {}
    for commit in git("log", "HEAD", "--reverse", "--format=%H", "--", path).split():
        blob = git("rev-parse", "-q", "--verify", f"{commit}:{path}").strip() if _exists(commit, path) else ""
        if blob and blob not in seen:
            seen[blob] = commit
    return [(c, b) for b, c in seen.items()]


def _exists(commit: str, path: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", f"{commit}:{path}"], cwd=ROOT, capture_output=True).returncode == 0


def _materialize(commit: str, path: str, blob: str, into: Path) -> None:
    for tree in CARD_TREES:
        if _exists(commit, tree):
            for name in git("ls-tree", "-r", "--name-only", commit, "--", tree).split():
                dest = into / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(git_bytes("show", f"{commit}:{name}"))
    folder = os.path.dirname(path)  # the files a version may include: every `.rules` file under its folder
    for name in git("ls-tree", "-r", "--name-only", commit, "--", folder).split() if folder else []:
        if name.endswith(".rules") and name != path:
            dest = into / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(git_bytes("show", f"{commit}:{name}"))
    dest = into / path
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(git_bytes("cat-file", "blob", blob))


def is_part(commit: str, path: str, blob: str) -> bool:
    """Whether this version is a part of a ruleset in several files (another `.rules` file of its commit
    includes it): the corpus keeps the main file, with its parts among the files it reads."""
    from liturgy.dsl.frontend.includes import main_rulesets

    top = path.split("/", 1)[0]  # the main file may lie folders above its parts: every `.rules` of the tree
    with tempfile.TemporaryDirectory() as tmp:
        for name in git("ls-tree", "-r", "--name-only", commit, "--", top).split():
            if name.endswith(".rules"):
                dest = Path(tmp) / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(git_bytes("show", f"{commit}:{name}"))
        found = [str(p) for p in sorted(Path(tmp).rglob("*.rules"))]
        return str(Path(tmp) / path) not in main_rulesets(found)


def card_files(commit: str, path: str, blob: str) -> tuple[dict[str, str], list[str], str]:
    """The card files this version reads ({path: blob id}), the codes of today's errors, and the commit the
    card files come from (``commit``, or a later one when ``commit`` lacks them)."""
    from liturgy.dsl.loader import check_file

    later = git("rev-list", "--reverse", "--ancestry-path", f"{commit}..HEAD").split()[:5]
    for source in [commit, *later]:
        with tempfile.TemporaryDirectory() as tmp:
            _materialize(source, path, blob, Path(tmp))
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                program, diags = check_file(path)
            finally:
                os.chdir(cwd)
            errors = sorted({d.code for d in diags if d.is_error})
            if "E211" in errors:
                continue
            read = _read_cards(program, diags, path, Path(tmp))
            files = {name: git("rev-parse", f"{source}:{name}").strip() for name in read}
            return files, errors, source
    raise SystemExit(f"no card files for {path} at {commit[:10]}")


def _read_cards(program: object, diags: list[object], path: str, tmp: Path) -> list[str]:
    """Card files read: the program's list, or (when the check failed) every file a diagnostic points into
    plus every card file the ruleset's `cards` lines could name (all of the commit's card trees)."""
    files = [*getattr(program, "rule_files", [])[1:], *getattr(program, "card_files", [])]
    if files or program is not None:  # checked: exactly what it read (a game without cards reads none)
        return sorted(os.path.relpath(f, tmp) if os.path.isabs(f) else os.path.normpath(f) for f in files)
    return sorted(str(p.relative_to(tmp)) for t in CARD_TREES for p in (tmp / t).rglob("*") if p.is_file())


def features(program: object) -> frozenset[str]:
    """What of the language a checked program uses: its syntax-tree node kinds, the built-ins it calls, and the
    kinds of names and declarations it resolves to. Two versions with the same features exercise the compiler
    and the engine alike; the test plays a game for one version of each (``play``) and checks every version."""
    from dataclasses import fields, is_dataclass

    from liturgy.dsl.frontend import ast as A

    out: set[str] = set()
    seen: set[int] = set()
    stack: list[object] = [program]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if is_dataclass(node) and not isinstance(node, type):
            out.add(type(node).__name__)
            if isinstance(node, A.Call) and isinstance(node.func, A.Name) and node.func.ref \
                    and node.func.ref[0] == "builtin":
                out.add("builtin:" + node.func.id)
            ref = getattr(node, "ref", None)
            if isinstance(ref, tuple) and ref and isinstance(ref[0], str):
                out.add("ref:" + ref[0])
            for f in fields(node):
                value = getattr(node, f.name)
                if f.name in ("span", "ty", "ref"):
                    continue
                if isinstance(value, str) and f.name in ("op", "kind", "how", "scope", "seen_by", "where", "order"):
                    out.add(f"{type(node).__name__}.{f.name}={value}")
                stack.append(value)
        elif isinstance(node, list | tuple):
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
    return frozenset(out)


def mark_plays(entries: list[dict[str, object]]) -> None:
    """Set ``play`` on the oldest version of each distinct feature set (:func:`features`), and on the newest
    version of every file (what ships or documents today always plays)."""
    import tempfile

    from liturgy.dsl.loader import check_file

    played: set[frozenset[str]] = set()
    newest = {str(e["path"]): e for e in entries}
    for e in entries:
        with tempfile.TemporaryDirectory() as tmp:
            for rel, blob in [(str(e["path"]), str(e["blob"])), *dict(e["files"]).items()]:  # type: ignore[call-overload]
                dest = Path(tmp) / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes((OUT / "blobs" / blob).read_bytes())
            program, _ = check_file(str(Path(tmp) / str(e["path"])))
        used = features(program) if program is not None else None
        e["play"] = used is not None and (used not in played or newest[str(e["path"])] is e)
        if used is not None:
            played.add(used)


def main() -> int:
    if sys.argv[1:] == ["--mark-plays"]:  # only choose again which versions play (after a language change)
        entries: list[dict[str, object]] = json.loads((OUT / "corpus.json").read_text(encoding="utf-8"))
        mark_plays(entries)
        (OUT / "corpus.json").write_text(json.dumps(entries, indent=1) + "\n", encoding="utf-8")
        return 0
    entries = []
    blobs = OUT / "blobs"
    blobs.mkdir(parents=True, exist_ok=True)
    for path in rules_paths():
        for n, (commit, blob) in enumerate([(c, b) for c, b in versions(path) if not is_part(c, path, b)], 1):
            files, errors, source = card_files(commit, path, blob)
            for b in [blob, *files.values()]:
                target = blobs / b
                if not target.exists():
                    target.write_bytes(git_bytes("cat-file", "blob", b))
            entries.append({"id": f"{path}@{n}", "commit": commit, "cards_from": source, "path": path,
                            "blob": blob, "files": files, "errors": errors})
            print(f"{path}@{n} {commit[:10]} {errors or 'ok'}", file=sys.stderr)
    mark_plays(entries)
    (OUT / "corpus.json").write_text(json.dumps(entries, indent=1) + "\n", encoding="utf-8")
    used = {b for e in entries for b in [e["blob"], *e["files"].values()]}
    for stale in blobs.iterdir():  # a file no entry reads any more (an entry that now reads fewer card files)
        if stale.name not in used:
            stale.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
