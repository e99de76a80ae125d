#!/usr/bin/env bash
# LibreOffice, the oracle of test/e2e/xlsx-libreoffice.test.ts: what pix pays from a workbook must be what
# LibreOffice shows in those cells. The test needs only `soffice --headless --convert-to csv`, so this installs
# the smallest package that does that, libreoffice-calc-nogui (Calc without the GUI toolkits), from the
# system's packages (Debian/Ubuntu: apt-get, as root or through password-less sudo).
#
# Only a system without apt-get is skipped (`SKIPPED: …` on stderr, exit 0): the test then skips with its own
# SKIPPED line. Anything else that stops the install (no root, no sudo, no package lists, a failed install)
# fails the run, since the oracle test would then be skipped where it could have run. Never waits for input
# (apt-get -y, sudo -n, stdin from /dev/null).
set -euo pipefail
exec </dev/null

command -v soffice >/dev/null 2>&1 && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "provision-libreoffice: SKIPPED: no apt-get on this system: install LibreOffice (soffice) with its package manager; the LibreOffice oracle test will be skipped" >&2
  exit 0
fi
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "provision-libreoffice: installing libreoffice-calc-nogui needs root (or password-less sudo)" >&2
  exit 1
fi

install() {
  # Another apt on the machine holds its lock for a while: wait for it rather than fail at once.
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends \
    -o DPkg::Lock::Timeout=300 libreoffice-calc-nogui
}
echo "provision-libreoffice: installing libreoffice-calc-nogui (apt-get)" >&2
# A fresh image may have no package lists yet: fetch them once, then try again.
install >/dev/null 2>&1 || { "${as_root[@]}" apt-get update -q -o DPkg::Lock::Timeout=300 >/dev/null && install >/dev/null; }
command -v soffice >/dev/null 2>&1 || { echo "provision-libreoffice: apt-get installed no soffice" >&2; exit 1; }
