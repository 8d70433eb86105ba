// The checks run inside VS Code with the extension loaded (see runTest.js): VS Code reads the manifest, gives
// .rules files the `liturgy` language, the real vscode-languageclient starts `liturgy lsp` and speaks to it.
// JavaScript strings are UTF-16, as VS Code's positions are: `line.indexOf(...)` is the expected character even
// after the emoji in the fixture.
"use strict";

const assert = require("assert");
const path = require("path");
const vscode = require("vscode");

async function waitFor(probe, what, ms = 60000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) {
      return value;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function positionOf(doc, needle, offset = 0) {
  for (let n = 0; n < doc.lineCount; n++) {
    const at = doc.lineAt(n).text.indexOf(needle);
    if (at >= 0) {
      return new vscode.Position(n, at + offset);
    }
  }
  throw new Error(`${needle} is not in ${doc.uri.fsPath}`);
}

function text(hovers) {
  return hovers.flatMap((h) => h.contents.map((c) => (typeof c === "string" ? c : c.value))).join("\n");
}

async function run() {
  const folder = vscode.workspace.workspaceFolders[0].uri.fsPath;
  const uri = vscode.Uri.file(path.join(folder, "emoji.rules"));
  const doc = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(doc);
  assert.strictEqual(doc.languageId, "liturgy", "the manifest gives .rules files the liturgy language");

  // hover and go to definition on `bonus` after the emoji (the server answers once it has checked the file)
  const use = positionOf(doc, "bonus(p) +", 1);
  const hover = await waitFor(async () => {
    const hs = await vscode.commands.executeCommand("vscode.executeHoverProvider", uri, use);
    return hs && text(hs).includes("fn bonus") ? hs : null;
  }, "a hover from liturgy lsp");
  assert.ok(text(hover).includes("fn bonus(p: player) -> int"), text(hover));
  const defs = await vscode.commands.executeCommand("vscode.executeDefinitionProvider", uri, use);
  const decl = positionOf(doc, "bonus(p: player)");
  const target = defs[0].range || defs[0].targetRange;
  assert.ok(target.start.isEqual(decl), `definition at ${JSON.stringify(target.start)}`);
  const symbols = await vscode.commands.executeCommand("vscode.executeDocumentSymbolProvider", uri);
  assert.ok(symbols.some((s) => s.name === "bonus"), "the outline lists bonus");

  // an edit after the emoji (sent incrementally): the diagnostic underlines exactly the misspelt name
  const start = positionOf(doc, "bonus(p) +");
  await editor.edit((e) => e.replace(new vscode.Range(start.translate(0, 4), start.translate(0, 5)), "x"));
  const diags = await waitFor(() => {
    const d = vscode.languages.getDiagnostics(uri).filter((x) => x.source === "liturgy");
    return d.length ? d : null;
  }, "diagnostics after the edit");
  assert.ok(diags[0].message.includes("bonux"), diags[0].message);
  assert.ok(/^E\d+$/.test(String(diags[0].code && diags[0].code.value ? diags[0].code.value : diags[0].code)));
  assert.ok(diags[0].range.start.isEqual(start), `diagnostic at ${JSON.stringify(diags[0].range.start)}`);
  assert.ok(diags[0].range.end.isEqual(start.translate(0, 5)));
  await vscode.commands.executeCommand("workbench.action.files.revert");
  console.log("liturgy VS Code integration test: all checks passed");
}

module.exports = { run };
