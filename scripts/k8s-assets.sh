#!/usr/bin/env bash
# Build the Kubernetes test assets (kube-apiserver, etcd, helm) from their Go
# modules via the Go module proxy. The only network available in CI is the
# package registries, so release tarballs cannot be downloaded; compiling from
# the proxy is the route that works everywhere. Idempotent: a stamp file
# records the versions built, and a matching stamp makes the script a no-op.
#
# Usage: scripts/k8s-assets.sh            # prints the assets dir on success
# Env:   KUBEBUILDER_ASSETS  use an existing dir with kube-apiserver + etcd
#        HYPHAE_ASSETS_DIR   output dir (default ~/.cache/hyphae/k8s-assets)
#        HYPHAE_K8S_VERSION / HYPHAE_ETCD_VERSION / HYPHAE_HELM_VERSION
set -euo pipefail

if [[ -n "${KUBEBUILDER_ASSETS:-}" && -x "${KUBEBUILDER_ASSETS}/kube-apiserver" && -x "${KUBEBUILDER_ASSETS}/etcd" ]]; then
  echo "${KUBEBUILDER_ASSETS}"
  exit 0
fi

# renovate: datasource=go depName=k8s.io/kubernetes
K8S_VERSION="${HYPHAE_K8S_VERSION:-v1.34.4}"
# renovate: datasource=go depName=go.etcd.io/etcd/server/v3
ETCD_VERSION="${HYPHAE_ETCD_VERSION:-v3.6.8}"
# renovate: datasource=go depName=helm.sh/helm/v3
HELM_VERSION="${HYPHAE_HELM_VERSION:-v3.19.5}"
OUT="${HYPHAE_ASSETS_DIR:-$HOME/.cache/hyphae/k8s-assets}"
STAMP="${OUT}/.stamp"
WANT="kube-apiserver=${K8S_VERSION} etcd=${ETCD_VERSION} helm=${HELM_VERSION}"

if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "${WANT}" && -x "${OUT}/kube-apiserver" && -x "${OUT}/etcd" && -x "${OUT}/helm" ]]; then
  echo "${OUT}"
  exit 0
fi

command -v go >/dev/null 2>&1 || { echo "k8s-assets: go is required to build test assets" >&2; exit 1; }
mkdir -p "${OUT}"
export GOFLAGS="${GOFLAGS:+${GOFLAGS} }-mod=mod"
export CGO_ENABLED=0
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT
log() { echo "k8s-assets: $(date -u +%H:%M:%S) $*" >&2; }

# shellcheck source=scripts/k8s-commands.sh
source "$(dirname "${BASH_SOURCE[0]}")/k8s-commands.sh"

build_etcd() {
  if [[ -x "${OUT}/etcd" && "$("${OUT}/etcd" --version 2>/dev/null || true)" == *"${ETCD_VERSION#v}"* ]]; then
    log "etcd ${ETCD_VERSION} already built"; return
  fi
  log "building etcd ${ETCD_VERSION}"
  local dir="${WORK}/etcd"
  mkdir -p "${dir}"
  # The etcd binary's main lives in the root module go.etcd.io/etcd/v3, whose
  # go.mod replaces its submodules with local paths; a two-line main over
  # server/v3's etcdmain avoids that and is exactly what the root main does.
  cat > "${dir}/go.mod" <<GOMOD
module hyphae.dev/k8s-assets/etcd

go 1.24.0

require go.etcd.io/etcd/server/v3 ${ETCD_VERSION}
GOMOD
  cat > "${dir}/main.go" <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  (
    cd "${dir}"
    go mod tidy
    go build -trimpath -ldflags "-s -w" -o "${OUT}/etcd.tmp" .
  )
  mv "${OUT}/etcd.tmp" "${OUT}/etcd"
  log "etcd done"
}

build_helm() {
  if [[ -x "${OUT}/helm" && "$("${OUT}/helm" version --short 2>/dev/null || true)" == *"${HELM_VERSION}"* ]]; then
    log "helm ${HELM_VERSION} already built"; return
  fi
  log "building helm ${HELM_VERSION}"
  (
    cd "${WORK}"
    GOBIN="${WORK}/bin" go install -trimpath \
      -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}" \
      "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
  )
  mv "${WORK}/bin/helm" "${OUT}/helm"
  log "helm done"
}

build_etcd
build_kubernetes_commands hyphae.dev/k8s-assets/apiserver "${OUT}" "${WORK}" kube-apiserver
build_helm
echo "${WANT}" > "${STAMP}"
log "all assets built in ${OUT}"
echo "${OUT}"
