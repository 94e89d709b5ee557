#!/usr/bin/env bash
# Install Debian's chromium for the end-to-end tests (Playwright's own browser download does not
# work here). Idempotent: does nothing when /usr/bin/chromium is already there.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

echo "Installo chromium (Debian) per i test end-to-end..."
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium
