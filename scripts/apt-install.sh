# Sourced by the provision scripts (.ci/run): what the tests need, installed from the system's packages.
# Only a system without apt-get is SKIPPED (said on stderr, exit 0: the tests that need the package then
# skip); with apt-get, anything that stops the install (no root and no password-less sudo, no package lists,
# a failed install) fails the run, since those tests would otherwise quietly stop running. Never waits for
# input (apt-get -y, sudo -n, stdin from /dev/null).

# skip_without_apt WHO WHAT: exits 0 with WHO's SKIPPED line when there is no apt-get.
skip_without_apt() {
  command -v apt-get >/dev/null 2>&1 && return 0
  echo "$1: SKIPPED: no apt-get on this system: $2" >&2
  exit 0
}

# apt_install WHO PACKAGE...: installs the packages as root or through password-less sudo; exits 1 saying
# why when it cannot.
apt_install() {
  local who=$1
  shift
  local as_root=()
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      as_root=(sudo -n)
    else
      echo "$who: installing $* needs root (or password-less sudo)" >&2
      exit 1
    fi
  fi
  # Another apt on the machine holds its lock for a while: wait for it rather than fail at once.
  local install=(env DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends
    -o DPkg::Lock::Timeout=300 "$@")
  echo "$who: installing $* (apt-get)" >&2
  # A fresh image may have no package lists yet: fetch them once, then try again.
  "${install[@]}" >/dev/null 2>&1 ||
    { "${as_root[@]}" apt-get update -q -o DPkg::Lock::Timeout=300 >/dev/null && "${install[@]}" >/dev/null; } ||
    { echo "$who: apt-get install $* failed" >&2; exit 1; }
}
