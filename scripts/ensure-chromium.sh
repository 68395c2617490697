#!/usr/bin/env bash
# The browser tests (tests/web, marked `browser`) drive Debian's chromium through Playwright;
# the browser is never downloaded by Playwright. Install the package when it is missing.
set -euo pipefail
CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: installing Debian's chromium for the browser tests" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
  exit 0
fi
echo "ensure-chromium: $CHROMIUM is missing and this user cannot install it." >&2
echo "  Install it with: sudo apt-get install -y chromium" >&2
echo "  (the browser tests in tests/web fail without it; they are never skipped)" >&2
exit 1
