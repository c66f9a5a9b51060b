#!/bin/sh
# Runs on the primary, started by the backup CronJob (hyphae-backup-job) through
# COPY ... FROM PROGRAM as the database superuser: makes sure the stanza exists, takes a pgBackRest
# backup of type $1 (full, diff or incr; the repository and the stanza come from
# /etc/pgbackrest/pgbackrest.conf and PGBACKREST_STANZA) and prints what pgBackRest printed,
# ending with the line "hyphae-backup: exit N". It always exits 0 so the caller receives that output.
type="${1:-full}"
case "$type" in
  full | diff | incr)
    { pgbackrest stanza-create && pgbackrest --log-level-console=info --type="$type" backup && pgbackrest info; } 2>&1
    status=$?
    ;;
  *)
    echo "hyphae-backup: unknown backup type '$type' (full, diff or incr)"
    status=2
    ;;
esac
echo "hyphae-backup: exit $status"
