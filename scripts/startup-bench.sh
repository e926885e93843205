#!/usr/bin/env bash
# Boot startup of the sample-service, plain and with class-data sharing (CDS), optionally with
# Spring AOT.
#
#   scripts/startup-bench.sh
#   STARTUP_AOT=1 SAMPLE_JAR=<jar built with -Paot> scripts/startup-bench.sh
#
# Against running local servers (scripts/infra.sh start all; this script starts nothing): creates a
# scratch ClickHouse database with the sample's orders table (ON CLUSTER; dropped at the end), then
#  1. runs the fat jar STARTUP_REPEATS times (java -jar sample-service.jar),
#  2. extracts it (java -Djarmode=tools -jar sample-service.jar extract), makes a CDS archive with a
#     training run (-XX:ArchiveClassesAtExit=app.jsa -Dspring.context.exit=onRefresh),
#  3. runs the extracted jar STARTUP_REPEATS times with -XX:SharedArchiveFile=app.jsa,
#  4. with STARTUP_AOT=1 also: runs the fat jar STARTUP_REPEATS times with -Dspring.aot.enabled=true
#     (the jar must be built with ./mvnw -pl sample-service -am clean package -DskipTests -Paot), then
#     makes a second archive with an AOT training run (-Dspring.aot.enabled=true as well) and runs the
#     extracted jar STARTUP_REPEATS times with AOT + that archive,
# and for every run reports Boot's "Started ... in X seconds" and the wall time from launching the
# JVM until /readyz answers 200 (the pipeline is running and every lane has joined its group). Each
# run is stopped with SIGTERM.
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
  unzip -l "$JAR" | grep -q 'BOOT-INF/classes/dev/etl/sample/SampleApplication__ApplicationContextInitializer.class' \
    || fail "STARTUP_AOT=1 but $JAR has no AOT classes: ./mvnw -q -pl sample-service -am clean package -DskipTests -Paot"
fi
read_endpoints
trap 'ch "$(first "$SHARD1")" "DROP DATABASE IF EXISTS $DB ON CLUSTER $CLUSTER" >/dev/null 2>&1 || true' EXIT

step "database $DB (sample's orders.sql, ON CLUSTER $CLUSTER)" "$LOG_DIR/ddl.log"
ch "$(first "$SHARD1")" "CREATE DATABASE IF NOT EXISTS $DB ON CLUSTER $CLUSTER" >>"$LOG_DIR/ddl.log"
ch "$(first "$SHARD1")" "$(sed "s/\${DB}/$DB/g; s/ON CLUSTER etl/ON CLUSTER $CLUSTER/" \
  "$REPO_ROOT/sample-service/src/main/resources/sql/orders.sql" | grep -v '^--')" >>"$LOG_DIR/ddl.log"

now_ms() { local t="${EPOCHREALTIME/[.,]/}"; echo $((t / 1000)); }
PORT="${STARTUP_HTTP_PORT:-18590}"
export KAFKA_BOOTSTRAP="$KAFKA" REGISTRY_URL="$REGISTRY" ORDERS_TOPIC="startup-$RUN_ID" \
  KAFKA_GROUP_ID="startup-$RUN_ID" CLICKHOUSE_DATABASE="$DB" CLICKHOUSE_SHARD_1="$SHARD1" \
  CLICKHOUSE_SHARD_2="$SHARD2" SERVER_PORT="$PORT"

# The caller's ETL_* infra variables (ETL_INFRA_DIR, ETL_*_PORT) bind to no etl.* property: leave them out.
UNSET_ENV=()
for name in $(compgen -e); do [[ "$name" == ETL_* ]] && UNSET_ENV+=(-u "$name"); done

# run <label> <java args...>: prints "label started=<Boot's seconds> ready=<wall seconds>"
run() {
  local label="$1" log start ready pid started
  shift
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
  printf '%-8s started=%ss ready=%d.%03ds\n' "$label" "${started:-?}" $((ready / 1000)) $((ready % 1000))
}

step "plain: java -jar $(basename "$JAR") ($REPEATS runs)"
for i in $(seq 1 "$REPEATS"); do run "plain-$i" -jar "$JAR"; done

step "CDS: extract, training run, then -XX:SharedArchiveFile ($REPEATS runs)" "$LOG_DIR/training.log"
rm -rf "$LOG_DIR/app"
java -Djarmode=tools -jar "$JAR" extract --destination "$LOG_DIR/app" >"$LOG_DIR/extract.log" 2>&1 \
  || fail "extract failed (see $LOG_DIR/extract.log)"
APP_JAR="$LOG_DIR/app/$(basename "$JAR")"
env "${UNSET_ENV[@]}" java -Xmx512m -XX:ArchiveClassesAtExit="$LOG_DIR/app.jsa" -Dspring.context.exit=onRefresh \
  -jar "$APP_JAR" >"$LOG_DIR/training.log" 2>&1 || fail "training run failed (see $LOG_DIR/training.log)"
info "archive: $(du -h "$LOG_DIR/app.jsa" | cut -f1)"
for i in $(seq 1 "$REPEATS"); do run "cds-$i" -XX:SharedArchiveFile="$LOG_DIR/app.jsa" -jar "$APP_JAR"; done

if [[ "$AOT" == 1 ]]; then
  step "AOT: java -Dspring.aot.enabled=true -jar $(basename "$JAR") ($REPEATS runs)"
  for i in $(seq 1 "$REPEATS"); do run "aot-$i" -Dspring.aot.enabled=true -jar "$JAR"; done
  step "AOT + CDS: AOT training run, then -Dspring.aot.enabled=true -XX:SharedArchiveFile ($REPEATS runs)" \
    "$LOG_DIR/training-aot.log"
  env "${UNSET_ENV[@]}" java -Xmx512m -Dspring.aot.enabled=true -XX:ArchiveClassesAtExit="$LOG_DIR/app-aot.jsa" \
    -Dspring.context.exit=onRefresh -jar "$APP_JAR" >"$LOG_DIR/training-aot.log" 2>&1 \
    || fail "AOT training run failed (see $LOG_DIR/training-aot.log)"
  info "archive: $(du -h "$LOG_DIR/app-aot.jsa" | cut -f1)"
  for i in $(seq 1 "$REPEATS"); do
    run "aotcds-$i" -Dspring.aot.enabled=true -XX:SharedArchiveFile="$LOG_DIR/app-aot.jsa" -jar "$APP_JAR"
  done
fi
info "logs: $LOG_DIR; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
