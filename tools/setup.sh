#!/usr/bin/env bash
# Installs everything pt2c needs on a fresh Debian 12 machine (as root), then builds it.
# Idempotent: packages already present and an up-to-date virtual environment are kept.
#
#   tools/setup.sh            install + build
#   tools/setup.sh --no-build install only
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/lib/paths.sh

log() { echo "pt2c setup: $*" >&2; }

install_debian_packages() {
  local wanted missing=()
  wanted=$(grep -v '^\s*#' tools/apt-packages.txt | grep -v '^\s*$')
  for p in $wanted; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "Debian packages: all present"
    return
  fi
  log "Debian packages: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The project's Python (current torch from PyPI), pinned by tools/requirements.lock.
# It lives outside the checkout so that fresh clones (CI) reuse it; a stamp holding the
# lock file's hash says whether it is current.
install_venv() {
  local stamp="$PT2C_VENV/.pt2c-lock-sha256" want
  want=$(sha256sum tools/requirements.lock | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    log "Python environment: $PT2C_VENV is current"
    return
  fi
  log "Python environment: installing tools/requirements.lock into $PT2C_VENV (torch is large: minutes)"
  [ -x "$PT2C_VENV/bin/python" ] || python3 -m venv "$PT2C_VENV"
  "$PT2C_VENV/bin/pip" install -q --disable-pip-version-check -r tools/requirements.lock
  echo "$want" > "$stamp"
}

# .bazelrc's --disk_cache: every checkout's action results, reused by fresh clones. A cache
# past 8 GiB is dropped whole (the next build refills what it needs) rather than grow forever.
trim_build_cache() {
  local cache="$HOME/.cache/pt2c/bazel-disk" kib
  [ -d "$cache" ] || return 0
  kib=$(du -sk "$cache" | cut -f1)
  if [ "$kib" -gt $((8 * 1024 * 1024)) ]; then
    log "build cache: $((kib / 1024)) MiB in $cache, over 8 GiB: dropping it"
    rm -rf "$cache"
  fi
}

build() {
  trim_build_cache
  log "building (bazel build //...)"
  local logfile
  logfile=$(mktemp)
  if ! bazel build //... > "$logfile" 2>&1; then
    grep -E "ERROR|error:" "$logfile" | head -n 40 >&2
    log "build failed; full log: $logfile"
    exit 1
  fi
  rm -f "$logfile"
}

install_debian_packages
install_venv
[ "${1:-}" = "--no-build" ] || build
log "done"
