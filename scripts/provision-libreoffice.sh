#!/usr/bin/env bash
# LibreOffice, the oracle of test/e2e/xlsx-libreoffice.test.ts: what pix pays from a workbook must be what
# LibreOffice draws in those cells. The test prints the workbooks with `soffice --headless --convert-to pdf`
# and reads the page back with poppler's pdftotext (the words as drawn: `###`, text cut by a neighbour) and
# pdftoppm (the pixels: text a person cannot see on its fill). This installs the smallest packages that do
# that, libreoffice-calc-nogui (Calc without the GUI toolkits) and poppler-utils, when missing
# (scripts/apt-install.sh: SKIPPED only without apt-get).
set -euo pipefail
exec </dev/null
. "$(dirname "$0")/apt-install.sh"

missing=()
command -v soffice >/dev/null 2>&1 || missing+=(libreoffice-calc-nogui)
{ command -v pdftotext && command -v pdftoppm; } >/dev/null 2>&1 || missing+=(poppler-utils)
[ ${#missing[@]} -eq 0 ] && exit 0
skip_without_apt provision-libreoffice 'install LibreOffice (soffice) and poppler-utils with its package manager; the LibreOffice oracle test will be skipped'
apt_install provision-libreoffice "${missing[@]}"
for tool in soffice pdftotext pdftoppm; do
  command -v "$tool" >/dev/null 2>&1 || { echo "provision-libreoffice: apt-get installed no $tool" >&2; exit 1; }
done
