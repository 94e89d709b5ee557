#!/usr/bin/env bash
# Install Debian's chromium for the end-to-end tests (Playwright's own browser download does not
# work here), at the newest build Debian serves: the package lists are refreshed first, security
# archive included, so every machine gets the same build whatever lists its image came with. Does
# nothing more when that build is already installed. Prints the browser's version.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

if ! grep -rqs 'debian-security' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "Attenzione: l'archivio di sicurezza Debian non è tra le sorgenti apt; chromium potrebbe essere una versione vecchia." >&2
fi

if ! $SUDO apt-get update -qq; then
  if [ -x /usr/bin/chromium ]; then
    echo "Attenzione: apt-get update non è riuscito; uso il chromium già installato." >&2
    /usr/bin/chromium --version 2>/dev/null
    exit 0
  fi
  exit 1
fi

installed=$(dpkg-query -W -f='${Version}' chromium 2>/dev/null || true)
candidate=$(apt-cache policy chromium | awk '/Candidate:/ {print $2}')
if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
  echo "chromium non è disponibile dalle sorgenti apt di questa macchina." >&2
  exit 1
fi
if [ "$installed" != "$candidate" ] || [ ! -x /usr/bin/chromium ]; then
  echo "Installo chromium $candidate (Debian) per i test end-to-end..."
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "chromium=$candidate"
fi
/usr/bin/chromium --version 2>/dev/null
