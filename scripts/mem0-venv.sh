#!/usr/bin/env bash
# The Python virtual environment of `npm run bench mem0`: PyPI's mem0ai (the memory layer the bench
# compares Hyphae with) and what it depends on, installed with pip from the registry into a venv
# under ~/.cache/hyphae, once. Idempotent: a stamp names the version; a second caller waits on a lock.
#
# Usage: scripts/mem0-venv.sh        # last stdout line: the venv's python
# Env:   HYPHAE_BENCH_PYTHON  the interpreter the venv is made from (default: python3.11, else python3 ≥ 3.10)
#        HYPHAE_ASSETS_DIR    cache root (default ~/.cache/hyphae)
set -euo pipefail

MEM0_VERSION="2.2.1"
log() { echo "mem0-venv: $(date -u +%H:%M:%S) $*" >&2; }

CACHE="${HYPHAE_ASSETS_DIR:-$HOME/.cache/hyphae}"
VENV="${CACHE}/mem0ai-${MEM0_VERSION}-venv"
STAMP="${VENV}/.stamp"
WANT="mem0ai==${MEM0_VERSION}"

pick_python() {
  if [[ -n "${HYPHAE_BENCH_PYTHON:-}" ]]; then echo "${HYPHAE_BENCH_PYTHON}"; return; fi
  local candidate
  for candidate in python3.11 python3.12 python3; do
    if command -v "${candidate}" >/dev/null 2>&1 && "${candidate}" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
      echo "${candidate}"
      return
    fi
  done
  log "no Python ≥ 3.10 with the venv module found (set HYPHAE_BENCH_PYTHON)"
  exit 1
}

mkdir -p "${CACHE}"
exec 9>"${CACHE}/mem0-venv.lock"
flock 9
if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "${WANT}" && -x "${VENV}/bin/python" ]]; then
  echo "${VENV}/bin/python"
  exit 0
fi

PYTHON="$(pick_python)"
log "creating ${VENV} with $("${PYTHON}" --version 2>&1) and installing ${WANT}"
rm -rf "${VENV}"
"${PYTHON}" -m venv "${VENV}"
"${VENV}/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${WANT}" >&2
# Import it once: a broken install fails here, not in the middle of a bench.
MEM0_TELEMETRY=False MEM0_DIR="$(mktemp -d)" "${VENV}/bin/python" -c 'import mem0; from mem0 import Memory' >&2
echo "${WANT}" >"${STAMP}"
log "ready"
echo "${VENV}/bin/python"
