#!/bin/sh
# Entrypoint of the mesh's PostgreSQL image (images/postgres/Containerfile). It keeps the
# official postgres image's contract, so the operator's managed StatefulSet runs either image
# unchanged: POSTGRES_USER (superuser, default postgres), POSTGRES_PASSWORD (required),
# POSTGRES_DB (default: the user), PGDATA; TCP logins need the password (scram-sha-256), the
# local socket trusts its own pod. A first start initialises PGDATA; later starts reuse it.
set -eu

if [ "${1:-}" != postgres ]; then exec "$@"; fi
shift
: "${PGDATA:?PGDATA must be set}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  # Initialise beside PGDATA and rename when complete, so a pod killed half-way through never
  # leaves a data directory without its database. A mount point cannot be renamed: init in place.
  target="$PGDATA.init"
  if ! rmdir "$PGDATA" 2>/dev/null && [ -d "$PGDATA" ]; then target="$PGDATA"; fi
  rm -rf "$PGDATA.init"
  mkdir -p "$(dirname "$PGDATA")"
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb -D "$target" -U "$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale-provider=builtin --builtin-locale=C.UTF-8 >&2
  rm -f "$pwfile"
  printf "listen_addresses = '*'\n" >> "$target/postgresql.conf"
  printf 'host all all all scram-sha-256\n' >> "$target/pg_hba.conf"
  if [ "$db" != postgres ]; then
    printf 'CREATE DATABASE "%s"\n' "$(printf '%s' "$db" | sed 's/"/""/g')" | postgres --single -D "$target" postgres >/dev/null
  fi
  if [ "$target" != "$PGDATA" ]; then mv "$target" "$PGDATA"; fi
fi

exec postgres -D "$PGDATA" "$@"
