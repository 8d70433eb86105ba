// Runs the extension inside a real VS Code (an Extension Development Host) with @vscode/test-electron, then the
// checks in suite.js against the real `liturgy lsp`. Started by test.sh, which installs the runner and puts
// `liturgy` on the PATH VS Code inherits.
//   VSCODE_EXECUTABLE=/usr/bin/code  use an installed VS Code (no download)
//   VSCODE_VERSION=1.95.0            otherwise download this version (default: stable) into .vscode-test/
"use strict";

const path = require("path");
const { runTests } = require("@vscode/test-electron");

async function main() {
  const options = {
    extensionDevelopmentPath: path.resolve(__dirname, ".."),
    extensionTestsPath: path.join(__dirname, "suite.js"),
    // the fixture folder as the workspace; no other extension, no trust prompt
    launchArgs: [path.join(__dirname, "fixture"), "--disable-extensions", "--disable-workspace-trust"],
  };
  if (process.env.VSCODE_EXECUTABLE) {
    options.vscodeExecutablePath = process.env.VSCODE_EXECUTABLE;
  } else {
    options.version = process.env.VSCODE_VERSION || "stable";
  }
  await runTests(options);
}

main().catch((err) => {
  console.error(`the VS Code integration test failed: ${err && err.message ? err.message : err}`);
  process.exit(1);
});
