#!/usr/bin/env bash
# Browser tests (email layout, chart PNGs) drive Debian's Chromium. Install it when missing and we may (root + apt);
# otherwise say how. Runs before `npm test` (pretest), so `npm test` works on a fresh machine of this kind.
# Another package manager run is waited for (up to 5 minutes) instead of failing: the dpkg lock by apt's own
# DPkg::Lock::Timeout (apt >= 1.9.11), the package lists' lock (which `update` does not wait for) by retrying.
set -u
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing chromium for the browser tests (apt-get)…" >&2
  apt() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -qq "$@" 2>&1 >/dev/null; }
  update() {
    for _ in $(seq 60); do
      err=$(apt update) && return 0
      case "$err" in *"Could not get lock"*) sleep 5 ;; *) return 1 ;; esac
    done
    return 1
  }
  update && apt install -y chromium >/dev/null && exit 0
fi
echo "Chromium is required by the browser tests: install it with 'apt-get install chromium' (/usr/bin/chromium)." >&2
exit 1
