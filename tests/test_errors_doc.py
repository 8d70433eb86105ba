"""``docs/errors.md`` is executable: every example must produce exactly its code.

Each ``## E101: …`` section of the catalogue holds one example made of fenced
blocks whose info string carries attributes::

    ```rules expect=E101                  the ruleset (written as game.rules)
    ```rules file=game.rules expect=E206  the same, with an explicit file name
    ```yaml file=cards.yaml               a card file next to the ruleset
    ```rules file=parts/x.rules           a file the ruleset includes (no expect=)

Attributes handled here (and documented at the top of the catalogue):

* ``expect=CODE``     the code the example must produce, and nothing else;
* ``file=NAME``       file name inside the example folder (default
  ``game.rules`` for ``rules`` blocks, ``cards.yaml`` for ``yaml`` blocks);
* ``encoding=NAME``   write the block in this encoding instead of UTF-8;
* ``generate=missing``  do not write the file at all (the ruleset is checked anyway);
* ``generate=deep``   replace ``DEEP`` with an expression nested 2,000 levels deep;
* ``generate=pad``    append comment lines until the file is over the size limit.

The ``text`` block that starts with ``$ liturgy check`` is the pasted output;
its diagnostic header lines must match what the checker reports now, so the
catalogue cannot drift from the code.  Finally, the set of codes in the sources
and the set of documented codes must be equal.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from liturgy.dsl.diagnostics import Diagnostic, render_all
from liturgy.dsl.frontend.cards import MAX_CARD_FILE_BYTES
from liturgy.dsl.loader import MAX_RULESET_BYTES, check_file

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "errors.md"
SOURCE_DIRS = (ROOT / "dsl", ROOT / "interpreter")

CODE_IN_SOURCE = re.compile(r'"([EW][0-9]{3})"')  # same as: grep -rnoE '"[EW][0-9]{3}"' dsl interpreter
SECTION_HEADING = re.compile(r"^## ([EW][0-9]{3}): (\S.*)$")
OUTPUT_HEADER = re.compile(r"^(\S+):(\d+):(\d+): (error|warning)\[([EW][0-9]{3})\]: (.*)$")

DEFAULT_NAMES = {"rules": "game.rules", "yaml": "cards.yaml"}
KNOWN_ATTRIBUTES = {"expect", "file", "encoding", "generate"}
DEEP_NESTING = 2_000
PAD_LINE = "#" + "-" * 98 + "\n"  # 100 bytes


@dataclass
class Block:
    lang: str
    attrs: dict[str, str]
    text: str


@dataclass
class Section:
    code: str
    title: str
    blocks: list[Block] = field(default_factory=list)

    @property
    def example(self) -> list[Block]:
        return [b for b in self.blocks if "expect" in b.attrs or "file" in b.attrs]

    @property
    def outputs(self) -> list[Block]:
        return [b for b in self.blocks if b.lang == "text" and b.text.startswith("$ liturgy check")]

    @property
    def expected(self) -> str:
        values = {b.attrs["expect"] for b in self.example if "expect" in b.attrs}
        assert len(values) == 1, f"{self.code}: the example needs exactly one expect=CODE, found {values}"
        return values.pop()


def _info(info: str) -> tuple[str, dict[str, str]]:
    words = shlex.split(info)
    if not words:
        return "", {}
    attrs = {}
    for w in words[1:]:
        key, _, value = w.partition("=")
        attrs[key] = value
    return words[0], attrs


def parse_doc(text: str) -> list[Section]:
    """Split the catalogue into code sections, with the fenced blocks of each.

    Headings are recognised only outside fences (rulesets use ``#`` comments);
    any other ``#`` or ``##`` heading closes the current section.
    """
    sections: list[Section] = []
    current: Section | None = None
    fence: tuple[str, dict[str, str]] | None = None
    body: list[str] = []
    for line in text.splitlines():
        if fence is not None:
            if line.strip() == "```":
                if current is not None:
                    current.blocks.append(Block(fence[0], fence[1], "\n".join(body) + "\n"))
                fence, body = None, []
            else:
                body.append(line)
            continue
        if line.startswith("```"):
            fence = _info(line[3:].strip())
            continue
        m = SECTION_HEADING.match(line)
        if m:
            current = Section(m.group(1), m.group(2).strip())
            sections.append(current)
        elif line.startswith("# ") or line.startswith("## "):
            current = None
    assert fence is None, "unclosed code fence in docs/errors.md"
    return sections


def materialise(section: Section, folder: Path) -> str:
    """Write the section's example into ``folder``; return the ruleset's file name."""
    ruleset = None
    for block in section.example:
        name = block.attrs.get("file") or DEFAULT_NAMES.get(block.lang)
        assert name, f"{section.code}: a `{block.lang}` block needs file=NAME"
        if block.lang == "rules" and "expect" in block.attrs:  # other `rules` blocks are files it includes
            assert ruleset is None, f"{section.code}: more than one ruleset block"
            ruleset = name
        generate = block.attrs.get("generate", "")
        assert generate in ("", "missing", "deep", "pad"), f"{section.code}: unknown generate={generate}"
        if generate == "missing":
            continue
        text = block.text
        if generate == "deep":
            assert "DEEP" in text, f"{section.code}: generate=deep needs a DEEP placeholder"
            text = text.replace("DEEP", "-" * DEEP_NESTING + "1")
        data = text.encode(block.attrs.get("encoding") or "utf-8")
        if generate == "pad":
            limit = MAX_RULESET_BYTES if block.lang == "rules" else MAX_CARD_FILE_BYTES
            lines = (limit - len(data)) // len(PAD_LINE) + 1
            data += (PAD_LINE * lines).encode("ascii")
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    assert ruleset is not None, f"{section.code}: the example has no ```rules block"
    return ruleset


def header(d: Diagnostic) -> str:
    """The first line `liturgy check` prints, with the directory dropped from the path."""
    s = d.span
    return f"{os.path.basename(s.file)}:{s.line}:{s.column}: {d.severity}[{d.code}]: {d.message}"


def documented_headers(output: Block) -> list[str]:
    out = []
    for line in output.text.splitlines():
        m = OUTPUT_HEADER.match(line)
        if m:
            out.append(
                f"{os.path.basename(m.group(1))}:{m.group(2)}:{m.group(3)}: {m.group(4)}[{m.group(5)}]: {m.group(6)}"
            )
    return out


def source_codes() -> set[str]:
    codes: set[str] = set()
    for folder in SOURCE_DIRS:
        for path in folder.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                codes |= set(CODE_IN_SOURCE.findall(path.read_text(encoding="utf-8", errors="ignore")))
    return codes


SECTIONS = parse_doc(DOC.read_text(encoding="utf-8"))


def test_catalogue_has_sections() -> None:
    assert len(SECTIONS) > 0
    codes = [s.code for s in SECTIONS]
    assert len(codes) == len(set(codes)), "a code has two sections"
    assert codes == sorted(codes), "sections are in code order"


def test_every_source_code_is_documented_and_vice_versa() -> None:
    in_source = source_codes()
    documented = {s.code for s in SECTIONS}
    assert in_source, "no codes found in the sources"
    assert sorted(in_source - documented) == [], "codes in the sources without a section in docs/errors.md"
    assert sorted(documented - in_source) == [], "sections in docs/errors.md for codes the sources never emit"


@pytest.mark.parametrize("section", SECTIONS, ids=lambda s: s.code)
def test_section_is_well_formed(section: Section) -> None:
    assert section.expected == section.code
    for block in section.example:
        assert block.lang in DEFAULT_NAMES, f"{section.code}: unknown example language `{block.lang}`"
        unknown = set(block.attrs) - KNOWN_ATTRIBUTES
        assert not unknown, f"{section.code}: unknown attributes {sorted(unknown)}"
    assert len(section.outputs) == 1, f"{section.code}: paste one `$ liturgy check` output block"


@pytest.mark.parametrize("section", SECTIONS, ids=lambda s: s.code)
def test_example_produces_exactly_its_code(section: Section, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # check a relative path, as the pasted output does
    ruleset = materialise(section, tmp_path)
    program, diags = check_file(ruleset)
    shown = render_all(diags)
    assert {d.code for d in diags} == {section.code}, shown
    if section.code.startswith("W"):
        assert all(d.severity == "warning" for d in diags), shown
        assert program is not None, "warnings must never stop a ruleset from loading"
    else:
        assert all(d.severity == "error" for d in diags), shown
        assert program is None
    assert documented_headers(section.outputs[0]) == [header(d) for d in diags], (
        f"{section.code}: the pasted output is stale; the checker now says:\n{shown}"
    )
