"""Editor support (issue 20, item 2): the VS Code extension's files are consistent and its grammar is current.

The `.vsix` itself is built by editors/vscode/build.sh (npm and the registry, so not in every CI run); set
LITURGY_BUILD_VSIX=1 to build it here too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from liturgy.dsl import constructs
from liturgy.dsl.frontend.parser import _lark
from liturgy.dsl.frontend.reserved import grammar_words

ROOT = Path(__file__).resolve().parents[1]
VSCODE = ROOT / "editors" / "vscode"
sys.path.insert(0, str(ROOT / "tools"))
import textmate  # noqa: E402 - tools/ is not a package


def test_textmate_grammar_is_generated_from_the_current_language() -> None:
    assert textmate.main(["--check"]) == 0, "run: python tools/textmate.py"


def test_the_grammar_colours_every_keyword_and_builtin() -> None:
    patterns = json.loads((VSCODE / "syntaxes" / "liturgy.tmLanguage.json").read_text())["patterns"]
    regexes = [re.compile(p["match"]) for p in patterns if "match" in p and "name" in p]
    for word in grammar_words(_lark().terminals):
        assert any(r.fullmatch(word) for r in regexes), f"keyword {word} is not highlighted"
    for name in constructs.BUILTINS:
        assert any(r.match(f"{name}(") for r in regexes), f"built-in {name} is not highlighted"
    comment = next(r for p, r in zip([p for p in patterns if "match" in p and "name" in p], regexes, strict=True)
                   if p["name"].startswith("comment"))
    assert comment.search('x = 1  # note').group() == "# note"


def test_extension_manifest_points_at_its_files() -> None:
    manifest = json.loads((VSCODE / "package.json").read_text())
    language = manifest["contributes"]["languages"][0]
    assert language["id"] == "liturgy" and ".rules" in language["extensions"]
    assert (VSCODE / language["configuration"]).is_file()
    json.loads((VSCODE / language["configuration"]).read_text())
    grammar = manifest["contributes"]["grammars"][0]
    assert grammar["language"] == "liturgy" and (VSCODE / grammar["path"]).is_file()
    assert (VSCODE / manifest["main"]).is_file()
    assert manifest["contributes"]["configuration"]["properties"]["liturgy.command"]["default"] == ["liturgy", "lsp"]
    assert "vscode-languageclient" in manifest["dependencies"]
    script = (VSCODE / manifest["main"]).read_text()
    assert 'config.get("command", ["liturgy", "lsp"])' in script


def test_node_modules_and_vsix_are_not_committed() -> None:
    ignored = (VSCODE / ".gitignore").read_text().split()
    assert "node_modules/" in ignored and "*.vsix" in ignored


@pytest.mark.skipif(os.environ.get("LITURGY_BUILD_VSIX") != "1" or shutil.which("npx") is None,
                    reason="builds with npm from the registry: set LITURGY_BUILD_VSIX=1")
def test_the_vsix_builds() -> None:  # pragma: no cover - opt-in
    env = {**os.environ, "PYTHON": sys.executable}
    subprocess.run(["sh", str(VSCODE / "build.sh")], check=True, env=env, timeout=900)
    assert list(VSCODE.glob("liturgy-rules-*.vsix"))


_ACTIVATE = r"""
const Module = require("module");
const original = Module._load;
let made = null;
Module._load = function (request, parent, isMain) {
  if (request === "vscode") {
    return { workspace: { getConfiguration: () => ({ get: (key, dflt) => dflt }) },
             window: { showErrorMessage: (m) => console.error(m) } };
  }
  if (request === "vscode-languageclient/node") {
    return { TransportKind: { stdio: 0 }, LanguageClient: class {
      constructor(id, name, server, client) { made = { id, name, server, client }; }
      start() { return Promise.resolve(); }
      stop() { return Promise.resolve(); } } };
  }
  return original.apply(this, arguments);
};
const ext = require(process.argv[1]);
const context = { subscriptions: [] };
Promise.resolve(ext.activate(context)).then(() => {
  console.log(JSON.stringify({ made, disposables: context.subscriptions.length }));
});
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
def test_the_client_starts_liturgy_lsp_for_rules_and_card_files() -> None:
    """extension.js run by Node with VS Code's API stubbed: the client it makes starts `liturgy lsp` on stdio for
    `.rules` files and YAML card files."""
    out = subprocess.run(["node", "-e", _ACTIVATE, str(VSCODE / "extension.js")], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    result = json.loads(out)
    made = result["made"]
    assert made["server"]["run"] == {"command": "liturgy", "args": ["lsp"], "transport": 0}
    languages = {s["language"] for s in made["client"]["documentSelector"]}
    assert languages == {"liturgy", "yaml"}
    assert result["disposables"] == 1


def test_the_integration_test_is_ready_to_run_in_a_real_vs_code() -> None:
    """editors/vscode/test.sh runs the extension in a real VS Code (opt-in below): its fixture checks clean, its
    scripts parse, and neither it nor VS Code's download goes into the .vsix."""
    from liturgy.interpreter.engine import load_ruleset

    fixture = VSCODE / "test" / "fixture" / "emoji.rules"
    assert load_ruleset(str(fixture)).name == "Emoji"
    assert any(ord(ch) > 0xFFFF for ch in fixture.read_text(encoding="utf-8"))  # positions differ in UTF-16
    ignored = (VSCODE / ".vscodeignore").read_text().split()
    assert {"test/**", "test.sh", ".vscode-test/**"} <= set(ignored)
    if shutil.which("node") is not None:
        for script in ("runTest.js", "suite.js"):
            subprocess.run(["node", "--check", str(VSCODE / "test" / script)], check=True, timeout=60)


@pytest.mark.skipif(os.environ.get("LITURGY_VSCODE_TEST") != "1",
                    reason="downloads VS Code (or uses VSCODE_EXECUTABLE): set LITURGY_VSCODE_TEST=1")
def test_the_extension_in_a_real_vs_code() -> None:  # pragma: no cover - opt-in
    liturgy = Path(sys.executable).parent / "liturgy"
    env = {**os.environ, "LITURGY": str(liturgy)}
    done = subprocess.run(["sh", str(VSCODE / "test.sh")], env=env, timeout=1800, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
