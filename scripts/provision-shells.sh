#!/usr/bin/env bash
# The shells the completion tests load pix's scripts into (test/commands/completion/script.test.ts): bash is
# always there; zsh and fish are installed when missing (scripts/apt-install.sh: SKIPPED only without
# apt-get, and then the tests of a shell that is not installed skip).
set -euo pipefail
exec </dev/null
. "$(dirname "$0")/apt-install.sh"

missing=()
for shell in zsh fish; do
  command -v "$shell" >/dev/null 2>&1 || missing+=("$shell")
done
[ ${#missing[@]} -eq 0 ] && exit 0
skip_without_apt provision-shells "install ${missing[*]} with its package manager; their completion tests will be skipped"
apt_install provision-shells "${missing[@]}"
for shell in "${missing[@]}"; do
  command -v "$shell" >/dev/null 2>&1 || { echo "provision-shells: apt-get installed no $shell" >&2; exit 1; }
done
