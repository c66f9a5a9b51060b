#!/usr/bin/env bash
# Installs Hyphae on a local Kubernetes (kind, k3d or minikube) from this checkout, before any
# release is published: builds the hyphae image (Dockerfile) and the PostgreSQL image
# (images/postgres/Containerfile) with whichever builder you have (docker, podman, nerdctl or
# buildah), loads both into the cluster, then `helm upgrade --install`s charts/hyphae with those
# images and a mesh, and waits for it to be Ready. The NATS image comes from Docker Hub as usual.
#
# Usage: scripts/install-from-checkout.sh [--dry-run] [--builder B] [--cluster C] [--cluster-name N]
#                                         [--namespace NS] [--release R] [-- extra helm flags…]
#   --dry-run       print the commands it would run, run none of them
#   --builder       docker | podman | nerdctl | buildah (default: the first of those on PATH)
#   --cluster       kind | k3d | minikube (default: from kubectl's current context, else the
#                   one tool of the three on PATH)
#   --cluster-name  the kind/k3d cluster or minikube profile (default: from the context)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

DRY_RUN=0
BUILDER=""
CLUSTER=""
CLUSTER_NAME=""
NAMESPACE="hyphae"
RELEASE="hyphae"
HELM_EXTRA=()

die() {
  echo "install-from-checkout: $*" >&2
  exit 1
}

while [ "$#" -gt 0 ]; do
  case "$1" in
    --dry-run) DRY_RUN=1 ;;
    --builder) BUILDER="${2:?--builder needs a value}"; shift ;;
    --cluster) CLUSTER="${2:?--cluster needs a value}"; shift ;;
    --cluster-name) CLUSTER_NAME="${2:?--cluster-name needs a value}"; shift ;;
    --namespace) NAMESPACE="${2:?--namespace needs a value}"; shift ;;
    --release) RELEASE="${2:?--release needs a value}"; shift ;;
    --) shift; HELM_EXTRA=("$@"); break ;;
    -h | --help) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done

# Prints a command, then runs it unless --dry-run.
run() {
  printf '+'
  printf ' %q' "$@"
  printf '\n'
  if [ "${DRY_RUN}" -eq 0 ]; then "$@"; fi
}

have() { command -v "$1" >/dev/null 2>&1; }

if [ -z "${BUILDER}" ]; then
  for candidate in docker podman nerdctl buildah; do
    if have "${candidate}"; then BUILDER="${candidate}"; break; fi
  done
  [ -n "${BUILDER}" ] || die "no image builder found: install one of docker, podman, nerdctl or buildah (or pass --builder)"
fi
case "${BUILDER}" in docker | podman | nerdctl | buildah) ;; *) die "--builder must be docker, podman, nerdctl or buildah" ;; esac
have "${BUILDER}" || die "${BUILDER} is not on PATH"

CONTEXT=""
if have kubectl; then CONTEXT="$(kubectl config current-context 2>/dev/null || true)"; fi
if [ -z "${CLUSTER}" ]; then
  case "${CONTEXT}" in
    kind-*) CLUSTER=kind ;;
    k3d-*) CLUSTER=k3d ;;
    minikube) CLUSTER=minikube ;;
    *)
      found=()
      for candidate in kind k3d minikube; do
        if have "${candidate}"; then found+=("${candidate}"); fi
      done
      [ "${#found[@]}" -eq 1 ] || die "cannot tell the cluster from kubectl's context '${CONTEXT}' (found: ${found[*]:-none of kind, k3d, minikube}); pass --cluster kind|k3d|minikube"
      CLUSTER="${found[0]}"
      ;;
  esac
fi
case "${CLUSTER}" in kind | k3d | minikube) ;; *) die "--cluster must be kind, k3d or minikube" ;; esac
have "${CLUSTER}" || die "${CLUSTER} is not on PATH"
if [ -z "${CLUSTER_NAME}" ]; then
  case "${CLUSTER}:${CONTEXT}" in
    kind:kind-*) CLUSTER_NAME="${CONTEXT#kind-}" ;;
    k3d:k3d-*) CLUSTER_NAME="${CONTEXT#k3d-}" ;;
    kind:*) CLUSTER_NAME=kind ;;
    k3d:*) CLUSTER_NAME=k3s-default ;;
    minikube:*) CLUSTER_NAME=minikube ;;
  esac
fi
have helm || die "helm is not on PATH (https://helm.sh/docs/intro/install/)"

VERSION="$(sed -n 's/^  "version": "\([^"]*\)".*/\1/p' package.json | head -n 1)"
[ -n "${VERSION}" ] || die "no version in package.json"
REVISION="$(git rev-parse --short HEAD 2>/dev/null || date -u +%Y%m%d%H%M%S)"
# A tag of its own per commit: a node that cached an older local build never runs it by mistake.
TAG="${VERSION}-local.${REVISION}"
HYPHAE_IMAGE="hyphae.local/hyphae:${TAG}"
POSTGRES_IMAGE="hyphae.local/postgres:${TAG}"
ARCHIVES="$(mktemp -d)"
trap 'rm -rf "${ARCHIVES}"' EXIT

echo "install-from-checkout: builder ${BUILDER}, cluster ${CLUSTER} (${CLUSTER_NAME}), images tagged ${TAG}" >&2

build() { # image, containerfile, context
  if [ "${BUILDER}" = buildah ]; then
    run buildah bud -f "$2" -t "$1" "$3"
  else
    run "${BUILDER}" build -f "$2" -t "$1" "$3"
  fi
}

save() { # image, archive
  if [ "${BUILDER}" = buildah ]; then
    run buildah push "$1" "docker-archive:$2:$1"
  else
    run "${BUILDER}" save -o "$2" "$1"
  fi
}

load() { # archive
  case "${CLUSTER}" in
    kind) run kind load image-archive "$1" --name "${CLUSTER_NAME}" ;;
    k3d) run k3d image import "$1" --cluster "${CLUSTER_NAME}" ;;
    minikube) run minikube image load "$1" --profile "${CLUSTER_NAME}" ;;
  esac
}

build "${HYPHAE_IMAGE}" Dockerfile .
build "${POSTGRES_IMAGE}" images/postgres/Containerfile images/postgres
save "${HYPHAE_IMAGE}" "${ARCHIVES}/hyphae.tar"
save "${POSTGRES_IMAGE}" "${ARCHIVES}/postgres.tar"
load "${ARCHIVES}/hyphae.tar"
load "${ARCHIVES}/postgres.tar"

# --set-string: a tag of digits alone would otherwise reach the chart as a number.
run helm upgrade --install "${RELEASE}" charts/hyphae --namespace "${NAMESPACE}" --create-namespace \
  --set image.repository=hyphae.local/hyphae --set-string image.tag="${TAG}" --set image.pullPolicy=IfNotPresent \
  --set mesh.enabled=true --set-string mesh.postgres.image="${POSTGRES_IMAGE}" \
  ${HELM_EXTRA[@]+"${HELM_EXTRA[@]}"}
run kubectl --namespace "${NAMESPACE}" wait "hyphaemesh/${RELEASE}" --for=condition=Ready --timeout=10m
echo "install-from-checkout: done. The admin key: kubectl -n ${NAMESPACE} get secret ${RELEASE}-admin-key -o jsonpath='{.data.admin-key}' | base64 -d" >&2
