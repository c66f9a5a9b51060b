#!/bin/sh
# Patroni's on_start and on_role_change callback (arguments: action, role, scope). A primary with
# backups configured (PGBACKREST_STANZA) makes sure its pgBackRest stanza exists, so WAL archiving
# works from a new or restored cluster's first segment, and after a failover; stanza-create leaves an
# existing, matching stanza as it is.
set -u
case "${2:-}" in primary | master) ;; *) exit 0 ;; esac
if [ -z "${PGBACKREST_STANZA:-}" ]; then exit 0; fi
pgbackrest stanza-create >&2 || echo "hyphae-patroni-callback: stanza-create failed; WAL archiving waits for it" >&2
