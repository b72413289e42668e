#!/usr/bin/env bash
# Installs what Shoal needs on a fresh Debian/Ubuntu machine. Safe to run again.
#   scripts/setup.sh          npm packages + the local ASR engine (pocketsphinx)
#   scripts/setup.sh --test   also Chromium and Firefox ESR (browser tests), sox, PostgreSQL and Redis (fleet tests)
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=false
for arg in "$@"; do
  case "$arg" in
    --test) want_test=true ;;
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) echo "setup: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
fail() { printf 'setup: FAILED: %s\n' "$*" >&2; exit 1; }

# Node
command -v node >/dev/null || fail "Node.js >= 20.19 is required (https://nodejs.org)."
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
  || fail "Node.js >= 20.19 is required, found $(node --version)."

# Debian packages
packages=(pocketsphinx pocketsphinx-en-us)
$want_test && packages+=(chromium firefox-esr sox postgresql redis-server)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then
  say "Debian packages present: ${packages[*]}"
elif command -v apt-get >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  say "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq || fail "apt-get update failed (network or permissions?)"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || fail "apt-get install ${missing[*]} failed"
else
  say "WARNING: no apt-get here; install ${missing[*]} yourself. Without pocketsphinx, ASR answers 503."
fi

# better-sqlite3 compiles SQLite (a minute or more) when it cannot download its prebuilt binary (no access to
# GitHub): the binary compiled once is kept here, and the next setup on this machine (another clone, a CI run)
# installs it from here instead.
prebuilds="${XDG_CACHE_HOME:-$HOME/.cache}/shoal/prebuilds"
keep_sqlite_binary() {
  local binary=node_modules/better-sqlite3/build/Release/better_sqlite3.node name
  [ -f "$binary" ] || return 0
  name=$(node -p '`better-sqlite3-v${require("./node_modules/better-sqlite3/package.json").version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`')
  [ -f "$prebuilds/$name" ] && return 0
  mkdir -p "$prebuilds" && tar -czf "$prebuilds/$name" -C node_modules/better-sqlite3 build/Release/better_sqlite3.node \
    || say "WARNING: could not keep the compiled SQLite binding in $prebuilds"
}

# npm packages (lockfile exact; install scripts allowed only for the packages in package.json allowScripts)
if [ -f node_modules/.package-lock.json ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then
  say "npm packages up to date"
else
  say "installing npm packages"
  # onnxruntime-node's install script only downloads GPU (CUDA) binaries, which Shoal does not use: npm 11 does
  # not run it (package.json allowScripts), and this skips it on npm 10, which runs every install script.
  ONNXRUNTIME_NODE_INSTALL=skip npm_config_better_sqlite3_local_prebuilds="$prebuilds" \
    npm ci --prefer-offline --no-audit --no-fund --loglevel=error || fail "npm ci failed"
  keep_sqlite_binary
fi
say "ready"
