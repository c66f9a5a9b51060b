#!/usr/bin/env bash
# nats-server for the gossip and embedding-worker tests and benches. The one on PATH (Debian's
# package) when there is one; otherwise built once from its Go module through the Go module proxy
# and cached under ~/.cache/hyphae, where the tests find it (no root needed). Idempotent.
#
# Usage: scripts/nats-server-assets.sh     # last stdout line: the folder holding nats-server
# Env:   NATS_SERVER_BIN              use this binary
#        HYPHAE_ASSETS_DIR            cache root (default ~/.cache/hyphae)
#        HYPHAE_NATS_SERVER_VERSION   the module version to build (default below)
set -euo pipefail

# renovate: datasource=go depName=github.com/nats-io/nats-server/v2
VERSION="${HYPHAE_NATS_SERVER_VERSION:-v2.11.17}"
log() { echo "nats-server-assets: $(date -u +%H:%M:%S) $*" >&2; }

if [[ -n "${NATS_SERVER_BIN:-}" ]]; then
  "${NATS_SERVER_BIN}" --version >/dev/null || { log "NATS_SERVER_BIN=${NATS_SERVER_BIN} does not run"; exit 1; }
  dirname "${NATS_SERVER_BIN}"
  exit 0
fi
if found="$(command -v nats-server)" && nats-server --version >/dev/null 2>&1; then
  log "using ${found} ($(nats-server --version))"
  dirname "${found}"
  exit 0
fi

CACHE="${HYPHAE_ASSETS_DIR:-$HOME/.cache/hyphae}"
OUT="${CACHE}/nats-server-${VERSION}"
if [[ "$("${OUT}/nats-server" --version 2>/dev/null || true)" == *"${VERSION#v}"* ]]; then
  echo "${OUT}"
  exit 0
fi

command -v go >/dev/null 2>&1 || {
  log "nats-server is not on PATH and go is not installed to build it: install Go (https://go.dev/dl), or nats-server (apt-get install nats-server)"
  exit 1
}
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT
log "building nats-server ${VERSION} from github.com/nats-io/nats-server/v2 (a few minutes on a cold Go cache)"
(
  cd "${WORK}"
  GOBIN="${WORK}/bin" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "github.com/nats-io/nats-server/v2@${VERSION}"
)
mkdir -p "${OUT}"
mv "${WORK}/bin/nats-server" "${OUT}/nats-server.tmp"
mv "${OUT}/nats-server.tmp" "${OUT}/nats-server"
log "nats-server ${VERSION} in ${OUT}"
echo "${OUT}"
