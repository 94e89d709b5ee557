#!/bin/sh
# Temporal's PostgreSQL schema (run by the `temporal-schema` job of docker-compose.yml, image
# temporalio/admin-tools): creates the `temporal` and `temporal_visibility` databases on first start and
# applies every schema version since; safe to run again on each `docker compose up`.
set -eu
: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
PORT="${DB_PORT:-5432}"
until nc -z -w 5 "$POSTGRES_SEEDS" "$PORT"; do echo "waiting for PostgreSQL…"; sleep 2; done
sql() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$PORT" "$@"; }
for db in temporal temporal_visibility; do
  sql --db "$db" create || echo "database $db already exists"
done
if ! sql --db temporal update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned 2>/dev/null; then
  sql --db temporal setup-schema -v 0.0
  sql --db temporal update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned
fi
if ! sql --db temporal_visibility update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned 2>/dev/null; then
  sql --db temporal_visibility setup-schema -v 0.0
  sql --db temporal_visibility update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned
fi
echo "Temporal schema up to date"
