#!/bin/sh
# Patroni's bootstrap.post_bootstrap: runs once, on the first primary of a new or restored cluster,
# with a connection string for the superuser as its argument. Creates the mesh's database
# (POSTGRES_DB) unless a restored cluster already has it.
set -eu
: "${POSTGRES_DB:?POSTGRES_DB must be set}"
psql "$1" -X -q -v ON_ERROR_STOP=1 -v db="$POSTGRES_DB" <<'SQL'
SELECT format('CREATE DATABASE %I', :'db') WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'db')
\gexec
SQL
