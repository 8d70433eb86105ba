// The client half of the Liturgy extension: starts `liturgy lsp` (the server is the Python package) and hands it
// .rules files and, unless turned off, YAML card files. Everything language-aware happens in the server.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("liturgy");
  const [command, ...args] = config.get("command", ["liturgy", "lsp"]);
  const selector = [{ scheme: "file", language: "liturgy" }];
  if (config.get("cardFiles", true)) {
    selector.push({ scheme: "file", language: "yaml" });
  }
  client = new LanguageClient(
    "liturgy",
    "Liturgy",
    { run: { command, args, transport: TransportKind.stdio }, debug: { command, args, transport: TransportKind.stdio } },
    { documentSelector: selector }
  );
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start().catch((err) => {
    vscode.window.showErrorMessage(
      `Liturgy: could not start "${[command, ...args].join(" ")}" (pip install 'liturgy[lsp]', or set liturgy.command): ${err}`
    );
  });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
