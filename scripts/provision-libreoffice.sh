#!/usr/bin/env bash
# LibreOffice, the oracle of test/e2e/xlsx-libreoffice.test.ts: what pix pays from a workbook must be what
# LibreOffice shows in those cells. The test needs only `soffice --headless --convert-to csv`, so this installs
# the smallest package that does that, libreoffice-calc-nogui (Calc without the GUI toolkits), when missing
# (scripts/apt-install.sh: SKIPPED only without apt-get).
set -euo pipefail
exec </dev/null
. "$(dirname "$0")/apt-install.sh"

command -v soffice >/dev/null 2>&1 && exit 0
skip_without_apt provision-libreoffice 'install LibreOffice (soffice) with its package manager; the LibreOffice oracle test will be skipped'
apt_install provision-libreoffice libreoffice-calc-nogui
command -v soffice >/dev/null 2>&1 || { echo 'provision-libreoffice: apt-get installed no soffice' >&2; exit 1; }
