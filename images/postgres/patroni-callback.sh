#!/bin/sh
# Patroni's on_start and on_role_change callback (arguments: action, role, scope). A primary with
# backups configured (PGBACKREST_STANZA) makes sure its pgBackRest stanza exists, so WAL archiving
# works from a new or restored cluster's first segment, and after a failover; stanza-create leaves an
# existing, matching stanza as it is. Patroni runs callbacks in the background; a promotion may
# still be ending when this starts, so it tries again for a minute.
set -u
case "${2:-}" in primary | master) ;; *) exit 0 ;; esac
if [ -z "${PGBACKREST_STANZA:-}" ]; then exit 0; fi
attempt=1
until pgbackrest stanza-create >&2; do
  if [ "$attempt" -ge 30 ]; then
    echo "hyphae-patroni-callback: stanza-create failed; WAL archiving waits for the next backup to create it" >&2
    exit 1
  fi
  attempt=$((attempt + 1))
  sleep 2
done
