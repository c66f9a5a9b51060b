#!/usr/bin/env bash
# Debian's Chromium for the web console's browser tests (test/console): prints its path on the last
# line. Already installed: nothing to do. As root: `apt-get install chromium`. Otherwise it says what
# to run; playwright's own browser download is never used.
set -euo pipefail
if [[ -n "${HYPHAE_CHROMIUM:-}" && -x "${HYPHAE_CHROMIUM}" ]]; then echo "${HYPHAE_CHROMIUM}"; exit 0; fi
if path="$(command -v chromium 2>/dev/null)"; then echo "${path}"; exit 0; fi
if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "chromium: installing Debian's chromium (apt-get)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  command -v chromium
  exit 0
fi
echo "chromium: not found; as root run: apt-get install chromium (or set HYPHAE_CHROMIUM to a Chromium binary)" >&2
exit 1
