#!/usr/bin/env bash
# The shells the completion tests load pix's scripts into (test/commands/completion/script.test.ts): bash is always
# there; zsh and fish are installed from the system's packages when missing (Debian/Ubuntu: apt-get, as root
# or through password-less sudo). The tests skip a shell only when it is not installed.
#
# When a shell cannot be installed (no apt-get, no root, no network for the package lists) this says so on
# stderr, in CI too, and carries on: the tests for that shell skip, and vitest's summary counts them as
# skipped. It never fails the run, and never waits for input (apt-get -y, sudo -n, stdin from /dev/null).
set -euo pipefail
exec </dev/null

missing=()
for shell in zsh fish; do
  command -v "$shell" >/dev/null 2>&1 || missing+=("$shell")
done
[ ${#missing[@]} -eq 0 ] && exit 0

cannot() {
  echo "provision-shells: SKIPPED: ${missing[*]} not installed ($1); their completion tests will be skipped" >&2
  exit 0
}

command -v apt-get >/dev/null 2>&1 || cannot 'no apt-get on this system: install them with its package manager'
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  cannot 'installing needs root (or password-less sudo)'
fi

install() {
  # Another apt on the machine holds its lock for a while: wait for it rather than fail at once.
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends \
    -o DPkg::Lock::Timeout=120 "${missing[@]}"
}
echo "provision-shells: installing ${missing[*]} (apt-get)" >&2
# A fresh image may have no package lists yet: fetch them once, then try again.
install >/dev/null 2>&1 || { "${as_root[@]}" apt-get update -q -o DPkg::Lock::Timeout=120 >/dev/null && install >/dev/null; } ||
  cannot 'apt-get install failed'
for shell in "${missing[@]}"; do
  command -v "$shell" >/dev/null 2>&1 || cannot "apt-get installed no $shell"
done
