#!/usr/bin/env bash
# The PostgreSQL server the shared ledger's tests start a throwaway cluster of (test/helpers/postgres.ts:
# initdb and pg_ctl in a temporary folder, on a free loopback port, as the `postgres` user when run as root).
# Installed from the system's packages when missing (Debian/Ubuntu: apt-get, as root or through password-less
# sudo). Only a system without apt-get is SKIPPED (said on stderr; the PostgreSQL tests then skip); with
# apt-get, a failed install fails the run: the ledger's tests must not quietly stop running.
set -euo pipefail
exec </dev/null

found() {
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1
}
found && command -v psql >/dev/null 2>&1 && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo 'provision-postgres: SKIPPED: PostgreSQL is not installed and there is no apt-get: install its server (initdb, pg_ctl, psql) with the package manager; the shared ledger tests will be skipped' >&2
  exit 0
fi
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo 'provision-postgres: installing PostgreSQL needs root (or password-less sudo)' >&2
  exit 1
fi

install() {
  # The package's own cluster is not the tests' (they make theirs); another apt's lock is waited for.
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends \
    -o DPkg::Lock::Timeout=120 postgresql postgresql-client
}
echo 'provision-postgres: installing postgresql (apt-get)' >&2
# A fresh image may have no package lists yet: fetch them once, then try again.
install >/dev/null 2>&1 || { "${as_root[@]}" apt-get update -q -o DPkg::Lock::Timeout=120 >/dev/null && install >/dev/null; }
found || { echo 'provision-postgres: apt-get installed no initdb' >&2; exit 1; }
