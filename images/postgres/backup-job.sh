#!/bin/sh
# The backup CronJob's command: asks the current primary (PGHOST: the mesh's primary Service; PGUSER,
# PGPASSWORD: the superuser) to run hyphae-backup $1, prints its output and fails when the backup
# failed. pgBackRest must run beside the data directory, so the job only starts it there;
# COPY ... FROM PROGRAM on a replica fails, so a backup never runs anywhere but on the primary.
set -eu
type="${1:-full}"
case "$type" in full | diff | incr) ;; *) echo "hyphae-backup-job: unknown backup type '$type' (full, diff or incr)" >&2; exit 2 ;; esac
# The backup takes as long as it takes: no statement timeout on this session.
output="$(PGOPTIONS='-c statement_timeout=0' psql -X -q -A -t -v ON_ERROR_STOP=1 <<SQL
CREATE TEMP TABLE backup_output (n bigserial, line text);
-- Each output line verbatim: CSV with a delimiter and a quote character pgBackRest never prints.
COPY backup_output (line) FROM PROGRAM 'hyphae-backup $type' WITH (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e');
SELECT line FROM backup_output ORDER BY n;
SQL
)"
printf '%s\n' "$output"
case "$(printf '%s\n' "$output" | tail -n 1)" in
  'hyphae-backup: exit 0') ;;
  *) echo "hyphae-backup-job: the $type backup failed" >&2; exit 1 ;;
esac
