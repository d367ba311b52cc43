#!/usr/bin/env bash
# Installs what MicroRemed needs on a Debian machine, only what is missing, then builds it:
#   - Debian's ansible (with the kubernetes.core collection) and python3-kubernetes
#   - bubblewrap, the sandbox playbooks run in
#   - a kubectl, only where none is installed (Debian's kubernetes-client conflicts with an
#     existing kubectl package, so an existing kubectl is kept)
#   - chromium, for the HTML report test (skipped with MICROREMED_SKIP_BROWSER=1)
#   - the npm dependencies, and the TypeScript build
# Safe to run again: it does nothing that is already done.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*"; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

need=()
command -v ansible-playbook >/dev/null 2>&1 || need+=(ansible)
/usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1 || need+=(python3-kubernetes)
command -v kubectl >/dev/null 2>&1 || need+=(kubernetes-client)
# the sandbox playbooks run in (run refuses without it unless --sandbox none)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
if [ "${MICROREMED_SKIP_BROWSER:-0}" != "1" ] && ! command -v chromium >/dev/null 2>&1; then need+=(chromium); fi

if [ ${#need[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    say "missing: ${need[*]}; this script installs them with apt-get (Debian/Ubuntu). Install them by hand on other systems."
    exit 1
  fi
  say "installing ${need[*]} (apt-get)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! ansible-galaxy collection list kubernetes.core 2>/dev/null | grep -q kubernetes.core; then
  say "ansible has no kubernetes.core collection; Debian's 'ansible' package ships it: apt-get install ansible"
  exit 1
fi

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  say "Node.js 20 or newer is needed (found ${node_major}); install it from your distribution or nodejs.org"
  exit 1
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm dependencies"
  npm ci --no-audit --no-fund --loglevel=error
fi
say "building"
npm run --silent build
say "ready: kubectl $(kubectl version --client 2>/dev/null | head -1 | sed 's/Client Version: //'), $(ansible --version | head -1), node $(node --version)"
