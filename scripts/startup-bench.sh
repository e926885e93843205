#!/usr/bin/env bash
# Boot startup of the sample-service, plain and with class-data sharing (CDS), optionally with
# Spring AOT.
#
#   scripts/startup-bench.sh
#   STARTUP_AOT=1 SAMPLE_JAR=<jar built with -Paot> scripts/startup-bench.sh
#
# Against running local servers (scripts/infra.sh start all; this script starts nothing): creates a
# scratch ClickHouse database with the sample's orders table (ON CLUSTER; dropped at the end), then
#  1. extracts the jar (java -Djarmode=tools -jar sample-service.jar extract) and makes a CDS archive
#     with a training run (-XX:ArchiveClassesAtExit=app.jsa -Dspring.context.exit=onRefresh); with
#     STARTUP_AOT=1 a second one with an AOT training run (-Dspring.aot.enabled=true as well; the jar
#     must be built with ./mvnw -pl sample-service -am clean package -DskipTests -Paot),
#  2. runs STARTUP_REPEATS rounds of one start per variant, in this order:
#       plain   java -jar sample-service.jar
#       cds     the extracted jar with -XX:SharedArchiveFile=app.jsa
#       aot     (STARTUP_AOT=1) java -Dspring.aot.enabled=true -jar sample-service.jar
#       aotcds  (STARTUP_AOT=1) the extracted jar with -Dspring.aot.enabled=true -XX:SharedArchiveFile=app-aot.jsa
# and for every run reports Boot's "Started ... in X seconds" and the wall time from launching the
# JVM until /readyz answers 200 (the pipeline is running and every lane has joined its group), then
# the medians per variant. Each run is stopped with SIGTERM.
#
# Environment: STARTUP_REPEATS (default 3), ETL_INFRA_DIR (default .infra), SAMPLE_JAR (default
# sample-service/target/sample-service.jar; build it with ./mvnw -q -pl sample-service -am package -DskipTests),
# STARTUP_AOT (default 0; 1 adds the AOT variants), STARTUP_HTTP_PORT (the sample's port, default 18590).
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
INFRA_DIR="${ETL_INFRA_DIR:-$REPO_ROOT/.infra}"
# shellcheck source-path=SCRIPTDIR source=lib/run-support.sh
source "$REPO_ROOT/scripts/lib/run-support.sh"
REPEATS="${STARTUP_REPEATS:-3}"
JAR="${SAMPLE_JAR:-$REPO_ROOT/sample-service/target/sample-service.jar}"
RUN_ID="$(date +%Y%m%d_%H%M%S)"
LOG_DIR="$INFRA_DIR/startup/$RUN_ID"
DB="startup_$RUN_ID"
mkdir -p "$LOG_DIR"
[[ -f "$JAR" ]] || fail "no $JAR: build it with ./mvnw -q -pl sample-service -am package -DskipTests"
AOT="${STARTUP_AOT:-0}"
if [[ "$AOT" == 1 ]]; then
  jar tf "$JAR" | grep -c '^BOOT-INF/classes/dev/etl/sample/SampleApplication__ApplicationContextInitializer.class$' >/dev/null \
    || { echo "STARTUP_AOT=1 but $JAR has no AOT classes: ./mvnw -q -pl sample-service -am clean package -DskipTests -Paot" >&2; exit 1; }
fi
read_endpoints
trap '[[ -z "$FAIL_REASON" ]] || echo "FAILED: $FAIL_REASON" >&2
  ch "$(first "$SHARD1")" "DROP DATABASE IF EXISTS $DB ON CLUSTER $CLUSTER" >/dev/null 2>&1 || true' EXIT

step "database $DB (sample's orders.sql, ON CLUSTER $CLUSTER)" "$LOG_DIR/ddl.log"
ch "$(first "$SHARD1")" "CREATE DATABASE IF NOT EXISTS $DB ON CLUSTER $CLUSTER" >>"$LOG_DIR/ddl.log"
ch "$(first "$SHARD1")" "$(sed "s/\${DB}/$DB/g; s/ON CLUSTER etl/ON CLUSTER $CLUSTER/" \
  "$REPO_ROOT/sample-service/src/main/resources/sql/orders.sql" | grep -v '^--')" >>"$LOG_DIR/ddl.log"

now_ms() { local t="${EPOCHREALTIME/[.,]/}"; echo $((t / 1000)); }
PORT="${STARTUP_HTTP_PORT:-18590}"
export KAFKA_BOOTSTRAP="$KAFKA" REGISTRY_URL="$REGISTRY" ORDERS_TOPIC="startup-$RUN_ID" \
  KAFKA_GROUP_ID="startup-$RUN_ID" CLICKHOUSE_DATABASE="$DB" CLICKHOUSE_SHARD_1="$SHARD1" \
  CLICKHOUSE_SHARD_2="$SHARD2" SERVER_PORT="$PORT" SERVER_ADDRESS=127.0.0.1

# The caller's ETL_* infra variables (ETL_INFRA_DIR, ETL_*_PORT) bind to no etl.* property: leave them out.
UNSET_ENV=()
for name in $(compgen -e); do [[ "$name" == ETL_* ]] && UNSET_ENV+=(-u "$name"); done

# run <variant> <round> <java args...>: prints "variant-round started=<Boot's seconds> ready=<wall seconds>"
declare -A STARTED=() READY=()
run() {
  local variant="$1" label="$1-$2" log start ready pid started
  shift 2
  log="$LOG_DIR/$label.log"
  start=$(now_ms)
  env "${UNSET_ENV[@]}" java -Xmx512m "$@" >"$log" 2>&1 &
  pid=$!
  until curl -sf --max-time 1 "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1; do
    kill -0 "$pid" 2>/dev/null || fail "$label exited before it was ready (see $log)"
    (($(now_ms) - start < 120000)) || { kill -9 "$pid"; fail "$label not ready within 120 s (see $log)"; }
    sleep 0.05
  done
  ready=$(($(now_ms) - start))
  kill -TERM "$pid"
  wait "$pid" || true
  started="$(grep -o 'Started [A-Za-z]* in [0-9.]* seconds' "$log" | awk '{print $4}' | head -1)"
  ready="$(printf '%d.%03d' $((ready / 1000)) $((ready % 1000)))"
  STARTED[$variant]="${STARTED[$variant]:-} ${started:-?}"
  READY[$variant]="${READY[$variant]:-} $ready"
  printf '%-9s started=%ss ready=%ss (load %s)\n' "$label" "${started:-?}" "$ready" "$(cut -d' ' -f1 /proc/loadavg)"
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

step "extract (java -Djarmode=tools -jar $(basename "$JAR") extract), CDS training run" "$LOG_DIR/training.log"
rm -rf "$LOG_DIR/app"
java -Djarmode=tools -jar "$JAR" extract --destination "$LOG_DIR/app" >"$LOG_DIR/extract.log" 2>&1 \
  || fail "extract failed (see $LOG_DIR/extract.log)"
APP_JAR="$LOG_DIR/app/$(basename "$JAR")"
env "${UNSET_ENV[@]}" java -Xmx512m -XX:ArchiveClassesAtExit="$LOG_DIR/app.jsa" -Dspring.context.exit=onRefresh \
  -jar "$APP_JAR" >"$LOG_DIR/training.log" 2>&1 || fail "training run failed (see $LOG_DIR/training.log)"
info "archive app.jsa: $(du -h "$LOG_DIR/app.jsa" | cut -f1)"
VARIANTS=(plain cds)
if [[ "$AOT" == 1 ]]; then
  step "AOT training run (-Dspring.aot.enabled=true as well)" "$LOG_DIR/training-aot.log"
  env "${UNSET_ENV[@]}" java -Xmx512m -Dspring.aot.enabled=true -XX:ArchiveClassesAtExit="$LOG_DIR/app-aot.jsa" \
    -Dspring.context.exit=onRefresh -jar "$APP_JAR" >"$LOG_DIR/training-aot.log" 2>&1 \
    || fail "AOT training run failed (see $LOG_DIR/training-aot.log)"
  info "archive app-aot.jsa: $(du -h "$LOG_DIR/app-aot.jsa" | cut -f1)"
  VARIANTS+=(aot aotcds)
fi

# Rounds of one run per variant, so that load from elsewhere on the machine hits all variants alike.
step "$REPEATS rounds of: ${VARIANTS[*]}" "$LOG_DIR"
for i in $(seq 1 "$REPEATS"); do
  for v in "${VARIANTS[@]}"; do
    case "$v" in
      plain) run plain "$i" -jar "$JAR" ;;
      cds) run cds "$i" -XX:SharedArchiveFile="$LOG_DIR/app.jsa" -jar "$APP_JAR" ;;
      aot) run aot "$i" -Dspring.aot.enabled=true -jar "$JAR" ;;
      aotcds) run aotcds "$i" -Dspring.aot.enabled=true -XX:SharedArchiveFile="$LOG_DIR/app-aot.jsa" -jar "$APP_JAR" ;;
    esac
  done
done
step "medians"
for v in "${VARIANTS[@]}"; do
  read -ra st <<<"${STARTED[$v]}"
  read -ra rd <<<"${READY[$v]}"
  printf '%-9s started=[%s] median %ss; ready=[%s] median %ss\n' "$v" "${st[*]}" "$(median "${st[@]}")" "${rd[*]}" \
    "$(median "${rd[@]}")"
done
info "logs: $LOG_DIR; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
