#!/usr/bin/env bash
# The sample's backfill end to end: Avro container files in object storage -> sample-service (profile
# `backfill`) -> sharded, replicated ClickHouse, through the same chain as the Kafka topic.
#
#   scripts/backfill-demo.sh
#
# 1. starts the local servers (scripts/infra.sh start all: Kafka holds the work list, S3Proxy the archive),
# 2. creates a fresh database and the `orders` table ON CLUSTER (sample-service/.../sql/orders.sql),
# 3. builds sample-service (./mvnw -q -pl sample-service -am package -DskipTests),
# 4. writes BACKFILL_ORDERS orders as Avro object container files (zstandard; half the files schema v1,
#    half v2) to a fresh bucket with OrderArchiveWriter,
# 5. plans: java -jar sample-service.jar --spring.profiles.active=backfill --etl.source.s3.mode=plan
#    (writes the work list to a new work topic and exits; must exit 0),
# 6. runs: the same without the mode, in the background, showing progress; it must end by itself with 0
#    once the whole work list is committed,
# 7. checks that ClickHouse holds exactly the expected orders and lines after FINAL,
# 8. stops the servers it started (servers that were already running are left running).
#
# Environment:
#   BACKFILL_ORDERS    orders to archive (default 100000)
#   BACKFILL_FILES     container files they are written to (default 8)
#   BACKFILL_TIMEOUT_S longest wait for the run to end by itself (default 180)
#   DEMO_HTTP_PORT     the service's HTTP port (default: a free port from 18480 up), on 127.0.0.1 only
#   DEMO_SKIP_BUILD=1  use the jar that is there
#   DEMO_MVN_ARGS      extra Maven arguments for the build (e.g. -o)
#   DEMO_KEEP_INFRA=1  leave the servers running at the end
#   DEMO_CLEANUP=1     drop the run's database, work topic and bucket at the end (for shared servers)
#   ETL_INFRA_DIR, ETL_*_PORT, ...  as for scripts/infra.sh (the demo reads the endpoints it writes)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
INFRA="$REPO_ROOT/scripts/infra.sh"
INFRA_DIR="${ETL_INFRA_DIR:-$REPO_ROOT/.infra}"
# shellcheck source-path=SCRIPTDIR source=lib/run-support.sh
source "$REPO_ROOT/scripts/lib/run-support.sh"
ORDERS="${BACKFILL_ORDERS:-100000}"
FILES="${BACKFILL_FILES:-8}"
TIMEOUT_S="${BACKFILL_TIMEOUT_S:-180}"
RUN_ID="$(date +%Y%m%d_%H%M%S)"
RUN_TAG="${RUN_ID//_/-}"
BUCKET="orders-archive-$RUN_TAG"
PREFIX="orders/"
WORK_TOPIC="orders-backfill-work-$RUN_TAG"
GROUP="orders-backfill-$RUN_TAG"
DB="backfill_$RUN_ID"
LOG_DIR="$INFRA_DIR/demo/backfill-$RUN_ID"
JAR="$REPO_ROOT/sample-service/target/sample-service.jar"
SQL="$REPO_ROOT/sample-service/src/main/resources/sql/orders.sql"

T0=$SECONDS
SERVICE_PID=""
RESULT="FAIL"

stop_service() {
  [[ -n "$SERVICE_PID" ]] || return 0
  if kill -0 "$SERVICE_PID" 2>/dev/null; then
    kill -TERM "$SERVICE_PID" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$SERVICE_PID" 2>/dev/null || break; sleep 1; done
    kill -0 "$SERVICE_PID" 2>/dev/null && kill -KILL "$SERVICE_PID" 2>/dev/null
  fi
  wait "$SERVICE_PID" 2>/dev/null || true
  SERVICE_PID=""
}

on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  ((rc != 0)) && report_failure "$rc"
  if [[ -n "$SERVICE_PID" ]]; then
    say "stopping the service"
    stop_service
  fi
  if ((${#STARTED_SERVERS[@]} > 0)); then
    say "stopping the infrastructure"
    stop_started_infra "${DEMO_KEEP_INFRA:-0}" DEMO_KEEP_INFRA demo
  elif [[ "$STEP" != "checking prerequisites" ]]; then
    info "the servers were running before the demo: left running ($INFRA stop all stops them)"
  fi
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$LOG_DIR"

# ------------------------------------------------------------------ prerequisites ----
step "checking prerequisites"
require_java17
info "Java $JAVA_MAJOR; logs under $LOG_DIR"

# ------------------------------------------------------------------ infrastructure ----
step "starting the infrastructure (ZooKeeper, 4 ClickHouse, Kafka, schema registry, S3Proxy)" "$LOG_DIR/infra.log"
start_infra
info "ready in $((SECONDS - T0))s (endpoints: $INFRA_DIR/endpoints.properties)"
read_endpoints
S3_URL="$(endpoint s3.endpoint)"
S3_REGION_NAME="$(endpoint s3.region)"
S3_ACCESS="$(endpoint s3.access-key)"
S3_SECRET="$(endpoint s3.secret-key)"
[[ -n "$S3_URL" && -n "$S3_ACCESS" && -n "$S3_SECRET" ]] || fail "no s3.* endpoints in $ENDPOINTS"

# ------------------------------------------------------------------ database and table ----
step "creating database $DB and table $DB.orders ON CLUSTER $CLUSTER" "$LOG_DIR/ddl.log"
{
  ch "$(first "$SHARD1")" "CREATE DATABASE IF NOT EXISTS $DB ON CLUSTER $CLUSTER"
  sed "s/\${DB}/$DB/g; s/ON CLUSTER etl/ON CLUSTER $CLUSTER/" "$SQL" | grep -v '^--' >"$LOG_DIR/orders.sql"
  ch "$(first "$SHARD1")" "$(cat "$LOG_DIR/orders.sql")"
} >"$LOG_DIR/ddl.log" 2>&1 || fail "DDL failed: see $LOG_DIR/ddl.log"
for shard in "${SHARD_URLS[@]}"; do
  IFS=, read -ra replicas <<<"$shard"
  for url in "${replicas[@]}"; do
    n="$(ch "$url" "SELECT count() FROM system.tables WHERE database = '$DB' AND name = 'orders'" 2>>"$LOG_DIR/ddl.log")" \
      || fail "cannot ask $url for the table: see $LOG_DIR/ddl.log"
    [[ "$n" == 1 ]] || fail "table $DB.orders is missing on $url"
  done
done
info "on all 4 replicas: ReplicatedReplacingMergeTree ORDER BY (order_id, line_no)"

# ------------------------------------------------------------------ build ----
if [[ "${DEMO_SKIP_BUILD:-0}" == 1 && -f "$JAR" ]]; then
  step "building sample-service: skipped (DEMO_SKIP_BUILD=1)"
else
  step "building sample-service (./mvnw -q -pl sample-service -am package -DskipTests)" "$LOG_DIR/build.log"
  t=$SECONDS
  # shellcheck disable=SC2086 # DEMO_MVN_ARGS is a list of arguments
  (cd "$REPO_ROOT" && ./mvnw -q -B -pl sample-service -am package -DskipTests ${DEMO_MVN_ARGS:-}) \
    >"$LOG_DIR/build.log" 2>&1 || fail "the build failed: see $LOG_DIR/build.log"
  info "built $JAR in $((SECONDS - t))s"
fi
[[ -f "$JAR" ]] || fail "no $JAR"

# ------------------------------------------------------------------ archive ----
step "writing $ORDERS orders to s3://$BUCKET/$PREFIX ($FILES Avro container files, zstandard)" "$LOG_DIR/archive.log"
t=$SECONDS
S3_SECRET_KEY="$S3_SECRET" java -Xmx1g -cp "$JAR" -Dloader.main=dev.etl.sample.OrderArchiveWriter \
  org.springframework.boot.loader.launch.PropertiesLauncher \
  --endpoint "$S3_URL" --region "$S3_REGION_NAME" --access-key "$S3_ACCESS" --bucket "$BUCKET" --prefix "$PREFIX" \
  --orders "$ORDERS" --files "$FILES" --codec zstandard --totals-file "$LOG_DIR/totals.properties" \
  >"$LOG_DIR/archive.log" 2>&1 || fail "the archive writer failed: see $LOG_DIR/archive.log"
total() { awk -F= -v k="$1" '$1 == k {print $2}' "$LOG_DIR/totals.properties"; }
EXPECTED_ORDERS="$(total expected.orders)"
EXPECTED_LINES="$(total expected.lines)"
CANCELLED="$(total produced.cancelled)"
info "wrote $ORDERS orders in $((SECONDS - t))s: $CANCELLED cancelled (the chain drops them)"
info "expected in ClickHouse: $EXPECTED_ORDERS orders, $EXPECTED_LINES lines (one row per line)"

# The service's environment: application.yaml's and application-backfill.yaml's placeholders.
service_env() {
  env KAFKA_BOOTSTRAP="$KAFKA" REGISTRY_URL="$REGISTRY" ORDERS_TOPIC="orders-$RUN_TAG" \
    CLICKHOUSE_DATABASE="$DB" CLICKHOUSE_SHARD_1="$SHARD1" CLICKHOUSE_SHARD_2="$SHARD2" \
    BACKFILL_BUCKET="$BUCKET" BACKFILL_PREFIX="$PREFIX" BACKFILL_WORK_TOPIC="$WORK_TOPIC" \
    S3_ENDPOINT="$S3_URL" S3_REGION="$S3_REGION_NAME" S3_ACCESS_KEY="$S3_ACCESS" S3_SECRET_KEY="$S3_SECRET" \
    SERVER_ADDRESS=127.0.0.1 "$@"
}

EMPTY_SHA256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 # of the empty body
s3_delete() { # path -> DELETE on the S3 endpoint, signed with the local credential
  printf 'user = "%s:%s"\n' "$S3_ACCESS" "$S3_SECRET" \
    | curl -sS --fail-with-body --max-time 30 -K - --aws-sigv4 "aws:amz:$S3_REGION_NAME:s3" -X DELETE \
      -H "x-amz-content-sha256: $EMPTY_SHA256" "$S3_URL$1"
}

# ------------------------------------------------------------------ plan ----
step "planning: --spring.profiles.active=backfill --etl.source.s3.mode=plan (work topic $WORK_TOPIC)" "$LOG_DIR/plan.log"
t=$SECONDS
PLAN_EXIT=0
service_env timeout 120 java -Xmx512m -jar "$JAR" --spring.profiles.active=backfill --etl.source.s3.mode=plan \
  --etl.source.s3.group-id="$GROUP" >"$LOG_DIR/plan.log" 2>&1 || PLAN_EXIT=$?
((PLAN_EXIT == 0)) || fail "the plan exited with code $PLAN_EXIT (see $LOG_DIR/plan.log)"
PLANNED="$(grep -oE 'planned [0-9]+ work item\(s\) for [0-9]+ object\(s\)' "$LOG_DIR/plan.log" | head -n 1)"
[[ -n "$PLANNED" ]] || fail "the plan log does not say what it planned (see $LOG_DIR/plan.log)"
grep -q 'Tomcat started\|Netty started' "$LOG_DIR/plan.log" && fail "the plan started a web server"
grep -q 'PipelineRuntime' "$LOG_DIR/plan.log" && fail "the plan started a pipeline"
info "exit code 0 after $((SECONDS - t))s: $PLANNED (no pipeline, no web server)"

# ------------------------------------------------------------------ run ----
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
HTTP_PORT="${DEMO_HTTP_PORT:-}"
if [[ -n "$HTTP_PORT" ]]; then
  port_free "$HTTP_PORT" || fail "DEMO_HTTP_PORT=$HTTP_PORT is in use by another process"
else
  for p in $(seq 18480 18580); do port_free "$p" && { HTTP_PORT=$p; break; }; done
  [[ -n "$HTTP_PORT" ]] || fail "no free port in 18480-18580 (set DEMO_HTTP_PORT)"
fi
step "running: --spring.profiles.active=backfill (ends by itself when the work list is committed)" "$LOG_DIR/service.log"
service_env SERVER_PORT="$HTTP_PORT" java -Xmx1g -jar "$JAR" --spring.profiles.active=backfill \
  --etl.source.s3.group-id="$GROUP" --etl.source.s3.progress-interval=2s >"$LOG_DIR/service.log" 2>&1 &
SERVICE_PID=$!
BASE="http://127.0.0.1:$HTTP_PORT"
metric_sum() { # name -> sum over all series, or "-" when absent
  awk -v m="$1" 'index($0, m "{") == 1 || index($0, m " ") == 1 {if (tolower($NF) !~ /nan/) {s += $NF; n++}}
    END {if (n) printf "%.0f", s; else print "-"}' "$LOG_DIR/prometheus.txt"
}
shard_rows() { ch "$(first "$1")" "SELECT count() FROM $DB.orders" 2>>"$LOG_DIR/progress.log" || echo "?"; }
fmt() { printf '%s' "$1" | sed -E ':a;s/^([0-9]+)([0-9]{3})/\1,\2/;ta'; }
t=$SECONDS
tick=0
while kill -0 "$SERVICE_PID" 2>/dev/null; do
  sleep 0.5
  tick=$((tick + 1))
  ((tick % 4 == 0)) || continue
  curl -sf --max-time 2 "$BASE/actuator/prometheus" >"$LOG_DIR/prometheus.txt" 2>/dev/null || : >"$LOG_DIR/prometheus.txt"
  printf '    %4ss  work items committed %4s of %4s  rows read %9s  rows: shard 1 %9s  shard 2 %9s\n' \
    "$((SECONDS - t))" "$(metric_sum etl_backfill_work_items_committed)" "$(metric_sum etl_backfill_work_items)" \
    "$(fmt "$(metric_sum etl_backfill_rows_total)")" "$(fmt "$(shard_rows "$SHARD1")")" "$(fmt "$(shard_rows "$SHARD2")")"
  ((SECONDS - t < TIMEOUT_S)) || fail "the run did not end by itself within ${TIMEOUT_S}s (BACKFILL_TIMEOUT_S)"
done
RUN_EXIT=0
wait "$SERVICE_PID" || RUN_EXIT=$?
SERVICE_PID=""
RUN_S=$((SECONDS - t))
((RUN_EXIT == 0)) || fail "the run exited with code $RUN_EXIT (see $LOG_DIR/service.log)"
grep -q 'backfill complete' "$LOG_DIR/service.log" || fail "the run ended without 'backfill complete' in its log"
info "ended by itself with exit code 0 after ${RUN_S}s"
grep -E 'backfill complete|exiting the JVM' "$LOG_DIR/service.log" | tail -n 2 | sed -E 's/^.* : /    | /' || true

# ------------------------------------------------------------------ verify ----
step "verifying ClickHouse: SELECT uniqExact(order_id), count() FROM $DB.orders FINAL, per shard" "$LOG_DIR/verify.log"
FOUND_ORDERS=0
FOUND_LINES=0
RAW_ROWS=0
SHARD_REPORT=()
i=0
for shard in "${SHARD_URLS[@]}"; do
  i=$((i + 1))
  IFS=, read -ra replicas <<<"$shard"
  t=$SECONDS
  while :; do
    answers=()
    for url in "${replicas[@]}"; do
      a="$(ch "$url" "SELECT uniqExact(order_id), count() FROM $DB.orders FINAL" 2>>"$LOG_DIR/verify.log")" \
        || fail "query on $url failed: see $LOG_DIR/verify.log"
      answers+=("${a//$'\t'/ }")
    done
    agree=1
    for a in "${answers[@]}"; do [[ "$a" == "${answers[0]}" ]] || agree=0; done
    ((agree)) && break
    ((SECONDS - t < 60)) || fail "the replicas of shard $i disagree after 60 s: ${answers[*]}"
    sleep 1
  done
  read -r o l <<<"${answers[0]}"
  raw="$(ch "${replicas[0]}" "SELECT count() FROM $DB.orders" 2>>"$LOG_DIR/verify.log")"
  echo "shard $i: ${answers[*]} (raw rows $raw)" >>"$LOG_DIR/verify.log"
  FOUND_ORDERS=$((FOUND_ORDERS + o))
  FOUND_LINES=$((FOUND_LINES + l))
  RAW_ROWS=$((RAW_ROWS + raw))
  SHARD_REPORT+=("shard $i: $(fmt "$o") orders, $(fmt "$l") lines (${#replicas[@]} replicas agree)")
done
[[ "$FOUND_ORDERS" == "$EXPECTED_ORDERS" && "$FOUND_LINES" == "$EXPECTED_LINES" ]] && RESULT="PASS"

if [[ "${DEMO_CLEANUP:-0}" == 1 ]]; then
  step "cleaning up: DROP DATABASE $DB ON CLUSTER, delete topic $WORK_TOPIC and bucket $BUCKET" "$LOG_DIR/cleanup.log"
  {
    ch "$(first "$SHARD1")" "DROP DATABASE IF EXISTS $DB ON CLUSTER $CLUSTER"
    java -cp "$(cat "$INFRA_DIR/kafka/classpath.txt")" org.apache.kafka.tools.TopicCommand \
      --bootstrap-server "$KAFKA" --delete --topic "$WORK_TOPIC"
    # The archive's objects (their keys are known) and the bucket, with SigV4-signed DELETEs; the
    # credential goes to curl on a pipe, not on its command line.
    for ((f = 0; f < FILES; f++)); do s3_delete "/$BUCKET/${PREFIX}$(printf 'part-%05d.avro' "$f")"; done
    s3_delete "/$BUCKET"
  } >"$LOG_DIR/cleanup.log" 2>&1 || fail "cleanup failed: see $LOG_DIR/cleanup.log"
fi

# ------------------------------------------------------------------ summary ----
STEP="summary"
echo
say "summary"
info "archive          s3://$BUCKET/$PREFIX: $(fmt "$ORDERS") orders in $FILES files, $(fmt "$CANCELLED") cancelled"
info "plan             $PLANNED into $WORK_TOPIC"
info "expected         $(fmt "$EXPECTED_ORDERS") orders, $(fmt "$EXPECTED_LINES") lines"
info "found (FINAL)    $(fmt "$FOUND_ORDERS") orders, $(fmt "$FOUND_LINES") lines in $DB.orders"
for r in "${SHARD_REPORT[@]}"; do info "                 $r"; done
info "rows before FINAL $(fmt "$RAW_ROWS") (replayed duplicates: $(fmt $((RAW_ROWS - FOUND_LINES))))"
info "run              ended by itself after ${RUN_S}s (JVM start included), exit code 0"
info "logs             $LOG_DIR"
info "wall time        $((SECONDS - T0))s"
if [[ "$RESULT" == PASS ]]; then
  printf '\n\033[32mPASS\033[0m: ClickHouse holds exactly the %s expected orders (%s lines) after FINAL.\n\n' \
    "$(fmt "$EXPECTED_ORDERS")" "$(fmt "$EXPECTED_LINES")"
else
  printf '\n\033[31mFAIL\033[0m: expected %s orders / %s lines; found %s / %s.\n\n' \
    "$EXPECTED_ORDERS" "$EXPECTED_LINES" "$FOUND_ORDERS" "$FOUND_LINES"
  exit 1
fi
