#!/bin/bash
# Entrypoint of the test image of ClickHouse 18.16. It honours what Testcontainers' ClickHouseContainer
# and its users expect of the official clickhouse/clickhouse-server image:
#
#   ports          8123 (HTTP), 9000 (native), 9009 (interserver), on every interface
#   CLICKHOUSE_USER, CLICKHOUSE_PASSWORD
#                  when either is set, that user (default: `default`) with that password replaces the
#                  passwordless `default`, reachable from any address (ClickHouseContainer sets test/test)
#   CLICKHOUSE_DB  a database created at the first start (besides `default`)
#   /docker-entrypoint-initdb.d/*.sql, *.sql.gz, *.sh
#                  run at the first start, in name order, after the database exists (the .sql files
#                  with clickhouse-client as that user, into CLICKHOUSE_DB)
#   CLICKHOUSE_INIT_TIMEOUT
#                  longest wait for the init server (seconds, default 60)
#   arguments      none: the server; arguments starting with '--': the server with them; anything else
#                  is run instead (`podman run ... clickhouse-client --version`)
#
# 18.16 has no access management (no GRANT, no CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT): the user may do
# everything `default` may. Written for this repository from the official image's documented contract.
set -euo pipefail

CONFIG=/etc/clickhouse-server/config.xml
INIT_CONFIG=/etc/clickhouse-server/config-init.xml
USERS_D=/etc/clickhouse-server/users.d
DATA=/var/lib/clickhouse
log() { printf '%s [entrypoint] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

if (($# > 0)) && [[ "$1" != --* ]]; then
  exec "$@"
fi

user="${CLICKHOUSE_USER:-default}"
password="${CLICKHOUSE_PASSWORD:-}"
database="${CLICKHOUSE_DB:-}"

mkdir -p "$DATA/tmp" "$DATA/user_files" "$DATA/format_schemas"

# The user: an XML element name in users.xml, so only the characters such a name may have.
if [[ "$user" != default || -n "$password" ]]; then
  [[ "$user" =~ ^[A-Za-z_][A-Za-z0-9_.-]*$ ]] || die "CLICKHOUSE_USER '$user' is not a name ClickHouse 18.16's users.xml can hold"
  hash="$(printf '%s' "$password" | sha256sum | cut -d' ' -f1)"
  remove_default=""
  [[ "$user" == default ]] || remove_default='<default remove="remove"/>'
  cat >"$USERS_D/default-user.xml" <<XML
<?xml version="1.0"?>
<!-- written by the entrypoint from CLICKHOUSE_USER and CLICKHOUSE_PASSWORD -->
<yandex>
    <users>
        $remove_default
        <$user>
            <password_sha256_hex>$hash</password_sha256_hex>
            <networks><ip>::/0</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </$user>
    </users>
</yandex>
XML
  log "user '$user' with the given password (CLICKHOUSE_USER, CLICKHOUSE_PASSWORD)"
fi

client() { clickhouse-client --host 127.0.0.1 --port 9000 --user "$user" --password "$password" "$@"; }

# First start: the database and the init scripts, on a server that listens on 127.0.0.1 only.
init_scripts=()
while IFS= read -r -d '' f; do init_scripts+=("$f"); done \
  < <(find /docker-entrypoint-initdb.d -mindepth 1 -maxdepth 1 -type f \( -name '*.sql' -o -name '*.sql.gz' -o -name '*.sh' \) -print0 2>/dev/null | sort -z)
if [[ ! -f "$DATA/.etl-initialized" ]] && { [[ -n "$database" && "$database" != default ]] || ((${#init_scripts[@]} > 0)); }; then
  [[ -z "$database" ]] || [[ "$database" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "CLICKHOUSE_DB '$database' is not a plain identifier"
  log "first start: init server on 127.0.0.1"
  clickhouse-server --config-file="$INIT_CONFIG" &
  pid=$!
  deadline=$((SECONDS + ${CLICKHOUSE_INIT_TIMEOUT:-60}))
  until client --query 'SELECT 1' >/dev/null 2>&1; do
    kill -0 "$pid" 2>/dev/null || die "the init server exited"
    ((SECONDS < deadline)) || { kill "$pid"; die "the init server did not answer within ${CLICKHOUSE_INIT_TIMEOUT:-60} s"; }
    sleep 0.2
  done
  if [[ -n "$database" && "$database" != default ]]; then
    client --query "CREATE DATABASE IF NOT EXISTS $database"
    log "database $database"
  fi
  for f in "${init_scripts[@]}"; do
    case "$f" in
      *.sh) log "running $f"; bash "$f" ;;
      *.sql) log "running $f"; client --multiquery --database "${database:-default}" <"$f" ;;
      *.sql.gz) log "running $f"; gzip -dc "$f" | client --multiquery --database "${database:-default}" ;;
    esac
  done
  kill -TERM "$pid"
  wait "$pid" || true
  touch "$DATA/.etl-initialized"
  log "init done"
fi

exec clickhouse-server --config-file="$CONFIG" "$@"
