#!/bin/sh
# Restores from the pgBackRest repository described by /etc/pgbackrest/restore.conf, with the
# credentials the pod carries as HYPHAE_RESTORE_PGBACKREST_* (so they never mix with those of the
# mesh's own backup repository, PGBACKREST_*):
#   hyphae-restore bootstrap --datadir=DIR --stanza=NAME [--target-time=TIME]
#       Patroni's custom bootstrap (bootstrap.method: pgbackrest; Patroni adds --scope and
#       --datadir): the backup set holding TIME (or the latest) into DIR. Patroni then starts
#       PostgreSQL to replay the archived WAL up to TIME (or its end) and promote.
#   hyphae-restore wal --stanza=NAME --datadir=DIR WALFILE PATH
#       The restore_command of that recovery: one archived WAL file.
set -eu

restore_pgbackrest() {
  # Only the restore repository's settings: the mesh's own PGBACKREST_* are dropped, the restore
  # credentials take their names.
  for name in $(env | sed -n 's/^\(PGBACKREST_[A-Z0-9_]*\)=.*/\1/p'); do unset "$name"; done
  for name in $(env | sed -n 's/^HYPHAE_RESTORE_\(PGBACKREST_[A-Z0-9_]*\)=.*/\1/p'); do
    eval "export $name=\"\${HYPHAE_RESTORE_$name}\""
  done
  exec pgbackrest --config=/etc/pgbackrest/restore.conf "$@"
}

command="${1:-}"
shift || true
datadir='' stanza='' target=''
while [ $# -gt 0 ]; do
  case "$1" in
    --datadir=*) datadir="${1#*=}" ;;
    --stanza=*) stanza="${1#*=}" ;;
    --target-time=*) target="${1#*=}" ;;
    --scope=*) ;;
    --*) echo "hyphae-restore: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
: "${stanza:?--stanza is required}"

case "$command" in
  bootstrap)
    : "${datadir:?--datadir is required}"
    mkdir -p "$datadir"
    chmod 700 "$datadir"
    if [ -n "$target" ]; then
      restore_pgbackrest --log-level-console=info --stanza="$stanza" --pg1-path="$datadir" --type=time --target="$target" restore
    else
      restore_pgbackrest --log-level-console=info --stanza="$stanza" --pg1-path="$datadir" restore
    fi
    ;;
  wal)
    : "${datadir:?--datadir is required}"
    [ $# -eq 2 ] || { echo "hyphae-restore wal: WALFILE and PATH expected" >&2; exit 2; }
    restore_pgbackrest --stanza="$stanza" --pg1-path="$datadir" archive-get "$1" "$2"
    ;;
  *)
    echo "usage: hyphae-restore bootstrap|wal ..." >&2
    exit 2
    ;;
esac
