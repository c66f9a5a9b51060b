#!/usr/bin/env bash
# Build `promtool` and `prometheus` from the Go module github.com/prometheus/prometheus through the
# Go module proxy (release tarballs cannot be downloaded here), cached outside the repository.
# Idempotent: a stamp of the version built makes later runs a no-op. Only Kubernetes service
# discovery is compiled in (build tags remove_all_sd,enable_kubernetes_sd; static and file
# discovery are always there), which is all the monitoring tests use and a fraction of the build.
# The web UI's assets are not embedded: the HTTP API, which the tests use, is complete without them.
#
# Usage: scripts/prometheus-assets.sh       # last line of stdout: the folder holding both binaries
# Env:   HYPHAE_PROMETHEUS_VERSION (default v0.316.0, i.e. Prometheus 3.16.0)
#        HYPHAE_PROMETHEUS_DIR      output folder (default ${HYPHAE_CACHE_DIR:-~/.cache/hyphae}/prometheus-<version>)
# A build compiles for minutes: run it under the shared lock (flock /tmp/hyphae-heavy.lock …).
set -euo pipefail

# renovate: datasource=go depName=github.com/prometheus/prometheus
VERSION="${HYPHAE_PROMETHEUS_VERSION:-v0.316.0}"
OUT="${HYPHAE_PROMETHEUS_DIR:-${HYPHAE_CACHE_DIR:-$HOME/.cache/hyphae}/prometheus-${VERSION}}"
STAMP="${OUT}/.stamp"
TAGS="remove_all_sd,enable_kubernetes_sd"
WANT="prometheus=${VERSION} tags=${TAGS}"

if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "${WANT}" && -x "${OUT}/promtool" && -x "${OUT}/prometheus" ]]; then
  echo "${OUT}"
  exit 0
fi

command -v go >/dev/null 2>&1 || { echo "prometheus-assets: go is required to build promtool and prometheus" >&2; exit 1; }
log() { echo "prometheus-assets: $(date -u +%H:%M:%S) $*" >&2; }
mkdir -p "${OUT}"
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT
export CGO_ENABLED=0

# Module v0.3MM.P is Prometheus 3.MM.P; the version package reports it as the release would.
minor_patch="${VERSION#v0.}"
release="3.$(( ${minor_patch%%.*} - 300 )).${minor_patch#*.}"
ldflags="-s -w -X github.com/prometheus/common/version.Version=${release} -X github.com/prometheus/common/version.Branch=module -X github.com/prometheus/common/version.Revision=${VERSION}"

log "building promtool and prometheus ${VERSION} (Prometheus ${release})"
(
  cd "${WORK}"
  GOBIN="${WORK}/bin" GOFLAGS="${GOFLAGS:+${GOFLAGS} }-mod=mod" go install -trimpath -tags "${TAGS}" -ldflags "${ldflags}" \
    "github.com/prometheus/prometheus/cmd/promtool@${VERSION}" \
    "github.com/prometheus/prometheus/cmd/prometheus@${VERSION}"
)
mv "${WORK}/bin/promtool" "${OUT}/promtool"
mv "${WORK}/bin/prometheus" "${OUT}/prometheus"
"${OUT}/promtool" --version >&2
echo "${WANT}" > "${STAMP}"
log "built in ${OUT}"
echo "${OUT}"
