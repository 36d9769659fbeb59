#!/usr/bin/env bash
# Browser tests (email layout, chart PNGs) drive Debian's Chromium. Install it when missing and we may (root + apt);
# otherwise say how. Runs before `npm test` (pretest), so `npm test` works on a fresh machine of this kind.
set -u
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing chromium for the browser tests (apt-get)…" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 && exit 0
fi
echo "Chromium is required by the browser tests: install it with 'apt-get install chromium' (/usr/bin/chromium)." >&2
exit 1
