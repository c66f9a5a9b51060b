#!/usr/bin/env bash
# The binaries of a single-node Kubernetes for scripts/local-cluster.sh: kubelet,
# kube-controller-manager, kube-scheduler, kube-proxy and kubectl (k8s.io/kubernetes), CoreDNS
# and a static pause binary, all compiled from their Go modules through the Go module proxy (the
# only route to them here: release downloads are not reachable). kube-apiserver, etcd and helm
# come from scripts/k8s-assets.sh and are linked in, so the folder holds the whole node.
# Idempotent: a stamp records the versions; a matching stamp makes the script a no-op.
#
# Usage: scripts/k8s-node-assets.sh        # last stdout line: the folder
# Env:   HYPHAE_ASSETS_DIR  cache root (default ~/.cache/hyphae)
#        HYPHAE_K8S_VERSION / HYPHAE_COREDNS_VERSION
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# renovate: datasource=go depName=k8s.io/kubernetes
K8S_VERSION="${HYPHAE_K8S_VERSION:-v1.34.4}"
# renovate: datasource=go depName=github.com/coredns/coredns
COREDNS_VERSION="${HYPHAE_COREDNS_VERSION:-v1.14.7}"
PAUSE_REVISION=1
CACHE="${HYPHAE_ASSETS_DIR:-$HOME/.cache/hyphae}"
OUT="${CACHE}/k8s-node-${K8S_VERSION}"
STAMP="${OUT}/.stamp"
WANT="kubernetes=${K8S_VERSION} coredns=${COREDNS_VERSION} pause=${PAUSE_REVISION}"
NODE_BINS=(kubelet kube-controller-manager kube-scheduler kube-proxy kubectl)
log() { echo "k8s-node-assets: $(date -u +%H:%M:%S) $*" >&2; }

# The control plane's apiserver, etcd and helm (same versions as the envtest-style tiers).
api_assets="$(HYPHAE_K8S_VERSION="${K8S_VERSION}" HYPHAE_ASSETS_DIR="${CACHE}/k8s-assets" bash scripts/k8s-assets.sh | tail -n 1)"

complete() {
  local b
  for b in "${NODE_BINS[@]}" coredns pause; do [[ -x "${OUT}/${b}" ]] || return 1; done
  [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "${WANT}" ]]
}

link_api_assets() {
  local b
  for b in kube-apiserver etcd helm; do ln -sfn "${api_assets}/${b}" "${OUT}/${b}"; done
}

if complete; then
  link_api_assets
  echo "${OUT}"
  exit 0
fi

command -v go >/dev/null 2>&1 || { log "go is required to build the node binaries"; exit 1; }
mkdir -p "${OUT}"
export GOFLAGS="${GOFLAGS:+${GOFLAGS} }-mod=mod"
export CGO_ENABLED=0
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT
# shellcheck source=scripts/k8s-commands.sh
source scripts/k8s-commands.sh

build_coredns() {
  if [[ -x "${OUT}/coredns" && "$("${OUT}/coredns" -version 2>/dev/null || true)" == *"${COREDNS_VERSION#v}"* ]]; then
    log "coredns ${COREDNS_VERSION} already built"; return
  fi
  log "building coredns ${COREDNS_VERSION}"
  (
    cd "${WORK}"
    GOBIN="${WORK}/bin" go install -trimpath -ldflags "-s -w" "github.com/coredns/coredns@${COREDNS_VERSION}"
  )
  mv "${WORK}/bin/coredns" "${OUT}/coredns"
}

# The pod sandbox's process: holds the namespaces, reaps orphans, exits on SIGTERM/SIGINT.
build_pause() {
  [[ -x "${OUT}/pause" && -f "${STAMP}" && "$(cat "${STAMP}")" == *"pause=${PAUSE_REVISION}"* ]] && return
  log "building pause"
  local dir="${WORK}/pause"
  mkdir -p "${dir}"
  printf 'module hyphae.dev/pause\n\ngo 1.22\n' > "${dir}/go.mod"
  cat > "${dir}/main.go" <<'GO'
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sigs {
		if s == syscall.SIGCHLD {
			for {
				var ws syscall.WaitStatus
				pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
			continue
		}
		os.Exit(0)
	}
}
GO
  (cd "${dir}" && go build -trimpath -ldflags "-s -w" -o "${OUT}/pause.tmp" .)
  mv "${OUT}/pause.tmp" "${OUT}/pause"
}

build_kubernetes_commands hyphae.dev/k8s-node-assets "${OUT}" "${WORK}" "${NODE_BINS[@]}"
build_coredns
build_pause
link_api_assets
echo "${WANT}" > "${STAMP}"
log "node binaries in ${OUT}"
echo "${OUT}"
