#!/usr/bin/env bash
# A Go toolchain for the test assets built from Go modules (nats-server, kube-apiserver, etcd,
# helm): the `go` on PATH when it is 1.21 or newer (it fetches the newer toolchain a module asks
# for itself, with GOTOOLCHAIN=auto), else the official toolchain, fetched once from the Go module
# proxy as the module golang.org/toolchain (what `go` itself does) and cached under ~/.cache/hyphae.
#
# Usage: scripts/go-toolchain.sh     # last stdout line: the folder holding `go`
# Env:   HYPHAE_ASSETS_DIR  cache root (default ~/.cache/hyphae)
#        HYPHAE_GO_VERSION  the toolchain to fetch when none fits (default below)
set -euo pipefail

GO_VERSION="${HYPHAE_GO_VERSION:-1.25.9}"
log() { echo "go-toolchain: $(date -u +%H:%M:%S) $*" >&2; }

if found="$(command -v go)"; then
  minor="$(go env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')"
  if [[ -n "${minor}" && "${minor}" -ge 21 ]]; then
    dirname "${found}"
    exit 0
  fi
  log "$(go env GOVERSION 2>/dev/null || echo 'an unknown go') on PATH is older than 1.21: fetching go${GO_VERSION}"
fi

case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) log "no Go toolchain module for $(uname -m)"; exit 1 ;;
esac
CACHE="${HYPHAE_ASSETS_DIR:-$HOME/.cache/hyphae}"
OUT="${CACHE}/go-${GO_VERSION}"
if [[ "$("${OUT}/bin/go" env GOVERSION 2>/dev/null || true)" == "go${GO_VERSION}" ]]; then
  echo "${OUT}/bin"
  exit 0
fi

proxy="${GOPROXY:-https://proxy.golang.org}"
proxy="${proxy%%,*}"
[[ "${proxy}" == http* ]] || proxy="https://proxy.golang.org"
module="v0.0.1-go${GO_VERSION}.linux-${arch}"
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT
log "fetching go${GO_VERSION} (golang.org/toolchain@${module}, ~65 MB) from ${proxy}"
curl -fsSL --retry 3 -o "${WORK}/go.zip" "${proxy}/golang.org/toolchain/@v/${module}.zip"
python3 -m zipfile -e "${WORK}/go.zip" "${WORK}/x"
root="${WORK}/x/golang.org/toolchain@${module}"
# zip archives drop the executable bit.
chmod +x "${root}/bin/"* "${root}/pkg/tool/"*/*
mkdir -p "${CACHE}"
rm -rf "${OUT}"
mv "${root}" "${OUT}"
log "go${GO_VERSION} in ${OUT}"
echo "${OUT}/bin"
