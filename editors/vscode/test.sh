#!/bin/sh
# Run the extension inside a real VS Code against the real `liturgy lsp` (editors/vscode/test/suite.js).
# Needs: Node.js 18+; `liturgy` with the lsp extra on PATH (or LITURGY=/path/to/liturgy); the npm registry; and
# either VS Code installed (VSCODE_EXECUTABLE=/path/to/code) or access to update.code.visualstudio.com, from which
# @vscode/test-electron downloads VS Code into .vscode-test/. Without a display, xvfb-run is used when present.
#     sh editors/vscode/test.sh
set -eu
cd "$(dirname "$0")"
LITURGY="${LITURGY:-$(command -v liturgy || true)}"
if [ -z "$LITURGY" ]; then
  echo "liturgy is not on PATH: activate the virtual environment with liturgy[lsp], or set LITURGY" >&2
  exit 2
fi
PATH="$(dirname "$LITURGY"):$PATH"
export PATH
npm install --no-audit --no-fund
npm install --no-audit --no-fund --no-save @vscode/test-electron@2
if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null 2>&1; then
  exec xvfb-run -a node test/runTest.js
fi
exec node test/runTest.js
