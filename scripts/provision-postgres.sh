#!/usr/bin/env bash
# The PostgreSQL server the shared ledger's tests start a throwaway cluster of (test/helpers/postgres.ts:
# initdb and pg_ctl in a temporary folder, on a free loopback port, as the `postgres` user when run as root).
# Installed when missing (scripts/apt-install.sh: SKIPPED only without apt-get; the package's own cluster is
# not the tests', they make theirs).
set -euo pipefail
exec </dev/null
. "$(dirname "$0")/apt-install.sh"

found() {
  { compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; } &&
    command -v psql >/dev/null 2>&1
}
found && exit 0
skip_without_apt provision-postgres 'install PostgreSQL (initdb, pg_ctl, psql) with its package manager; the shared ledger tests will be skipped'
apt_install provision-postgres postgresql postgresql-client
found || { echo 'provision-postgres: apt-get installed no initdb or psql' >&2; exit 1; }
