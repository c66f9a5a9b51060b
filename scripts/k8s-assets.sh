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

K8S_VERSION="${HYPHAE_K8S_VERSION:-v1.34.4}"
ETCD_VERSION="${HYPHAE_ETCD_VERSION:-v3.6.8}"
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

# Staging modules are published as k8s.io/<name> v0.<minor>.<patch>.
STAGING_VERSION="v0.${K8S_VERSION#v1.}"

build_apiserver() {
  if [[ -x "${OUT}/kube-apiserver" && "$("${OUT}/kube-apiserver" --version 2>/dev/null || true)" == *"${K8S_VERSION}"* ]]; then
    log "kube-apiserver ${K8S_VERSION} already built"; return
  fi
  log "building kube-apiserver ${K8S_VERSION}"
  local dir="${WORK}/apiserver"
  mkdir -p "${dir}"
  # k8s.io/kubernetes replaces every staging repo with ./staging/...; those
  # replaces do not apply to a dependent module, so a scratch module must map
  # each staging repo to its published version itself.
  local gomod
  gomod="$(go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  local staging
  staging="$(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "${gomod}")"
  {
    echo "module hyphae.dev/k8s-assets/apiserver"
    echo
    echo "go 1.24.0"
    echo
    echo "require k8s.io/kubernetes ${K8S_VERSION}"
    echo
    echo "replace ("
    for m in ${staging}; do echo "	${m} => ${m} ${STAGING_VERSION}"; done
    echo ")"
  } > "${dir}/go.mod"
  cat > "${dir}/tools.go" <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
  (
    cd "${dir}"
    go mod tidy -e >/dev/null 2>&1 || true
    go get "k8s.io/kubernetes/cmd/kube-apiserver@${K8S_VERSION}"
    go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=${K8S_VERSION} -X k8s.io/client-go/pkg/version.gitVersion=${K8S_VERSION}" \
      -o "${OUT}/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  )
  mv "${OUT}/kube-apiserver.tmp" "${OUT}/kube-apiserver"
  log "kube-apiserver done"
}

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
build_apiserver
build_helm
echo "${WANT}" > "${STAMP}"
log "all assets built in ${OUT}"
echo "${OUT}"
