#!/bin/sh
# Build the VS Code extension into liturgy-rules-<version>.vsix with the standard packager (@vscode/vsce).
# Needs Node.js 18+ and network access to the npm registry. Run from anywhere:
#     sh editors/vscode/build.sh
# Install the result with:  code --install-extension editors/vscode/liturgy-rules-0.1.0.vsix
set -eu
cd "$(dirname "$0")"
"${PYTHON:-python3}" ../../tools/textmate.py --check
npm install --no-audit --no-fund --omit=dev
npx --yes @vscode/vsce@3 package --allow-missing-repository --skip-license
ls -l ./*.vsix
