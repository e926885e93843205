#!/usr/bin/env bash
# The sample end to end: Avro orders in Kafka -> sample-service -> sharded, replicated ClickHouse.
#
#   scripts/demo.sh
#
# 1. starts the local servers (scripts/infra.sh start all; installs Debian packages when missing),
# 2. creates a fresh database and the `orders` table ON CLUSTER (sample-service/.../sql/orders.sql),
# 3. builds sample-service (./mvnw -q -pl sample-service -am package -DskipTests; with DEMO_RUN=image
#    also its container image, scripts/image.sh sample),
# 4. produces DEMO_ORDERS Avro orders (half schema v1, half v2) to a new topic with the load generator,
# 5. runs the service in the background (java -jar, or with DEMO_RUN=image its image in a podman
#    container on the host's network) and shows progress (records/s, lag, rows per shard),
# 6. waits until it caught up, stops it with SIGTERM (drain, final commit) and prints its exit code,
# 7. checks that ClickHouse holds exactly the expected orders and lines after FINAL,
# 8. stops the servers it started (servers that were already running are left running).
#
# Environment:
#   DEMO_ORDERS        orders to produce (default 200000)
#   DEMO_TIMEOUT_S     longest wait for the service to catch up (default 240)
#   DEMO_HTTP_PORT     the service's HTTP port (default: a free port from 18480 up), bound to 127.0.0.1
#                      only (SERVER_ADDRESS; Actuator shares the port; the demo checks it with ss)
#   DEMO_SKIP_BUILD=1  use the jar (and with DEMO_RUN=image the image) that is there
#   DEMO_RUN           jar (default): java -jar sample-service.jar; image: the sample's container image
#                      (scripts/image.sh sample builds it from the jar, and what it is built FROM when
#                      missing), run with podman on the host's network (--network host), so that it
#                      reaches the servers on 127.0.0.1 as the jar does; the container is removed at the end
#   DEMO_IMAGE         the image DEMO_RUN=image runs (default localhost/etl/sample-service:latest)
#   DEMO_MVN_ARGS      extra Maven arguments for the build (e.g. -o)
#   DEMO_KEEP_INFRA=1  leave the servers running at the end
#   DEMO_CLEANUP=1     drop the run's database and topic at the end (for servers shared with others)
#   DEMO_SERVERS_DIR   the infrastructure dir (ETL_INFRA_DIR) of servers already running, started by
#                      someone else: the demo reads its endpoints.properties and kafka/classpath.txt and
#                      never starts, or stops, a server (logs stay under this checkout's .infra/demo);
#                      use it with DEMO_CLEANUP=1
#   ETL_INFRA_DIR, ETL_*_PORT, ...  as for scripts/infra.sh (the demo reads the endpoints it writes)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
INFRA="$REPO_ROOT/scripts/infra.sh"
INFRA_DIR="${ETL_INFRA_DIR:-$REPO_ROOT/.infra}"
# shellcheck source-path=SCRIPTDIR source=lib/run-support.sh
source "$REPO_ROOT/scripts/lib/run-support.sh"
ORDERS="${DEMO_ORDERS:-200000}"
TIMEOUT_S="${DEMO_TIMEOUT_S:-240}"
RUN_ID="$(date +%Y%m%d_%H%M%S)"
TOPIC="orders-$RUN_ID"
DB="demo_$RUN_ID"
LOG_DIR="$INFRA_DIR/demo/$RUN_ID"
SERVERS_DIR="${DEMO_SERVERS_DIR:-}"
if [[ -n "$SERVERS_DIR" ]]; then
  [[ -f "$SERVERS_DIR/endpoints.properties" ]] || { echo "DEMO_SERVERS_DIR=$SERVERS_DIR has no endpoints.properties" >&2; exit 2; }
  # Only read there: the endpoints and the Kafka tools' classpath; the logs stay in this checkout.
  INFRA_DIR="$(cd "$SERVERS_DIR" && pwd)"
fi
JAR="$REPO_ROOT/sample-service/target/sample-service.jar"
RUN_MODE="${DEMO_RUN:-jar}"
IMAGE="${DEMO_IMAGE:-localhost/etl/sample-service:latest}"
CONTAINER="etl-demo-$RUN_ID"
case "$RUN_MODE" in
  jar) ;;
  image) eval "$("$REPO_ROOT/scripts/image.sh" env)" ;; # CONTAINERS_CONF: podman's settings for this machine
  *) echo "DEMO_RUN must be jar or image, not '$RUN_MODE'" >&2; exit 2 ;;
esac
SQL="$REPO_ROOT/sample-service/src/main/resources/sql/orders.sql"

T0=$SECONDS
SERVICE_PID=""
SERVICE_EXIT=""
RESULT="FAIL"

# SIGTERM to the service: to the JVM, or to the container's main process (java, PID 1 in the container).
term_service() {
  if [[ "$RUN_MODE" == image ]]; then
    timeout 30 podman kill --signal TERM "$CONTAINER" >/dev/null 2>&1 || kill -TERM "$SERVICE_PID" 2>/dev/null || true
  else
    kill -TERM "$SERVICE_PID" 2>/dev/null || true
  fi
}

stop_service() {
  [[ -n "$SERVICE_PID" ]] || return 0
  if kill -0 "$SERVICE_PID" 2>/dev/null; then
    term_service
    for _ in $(seq 1 60); do kill -0 "$SERVICE_PID" 2>/dev/null || break; sleep 1; done
    if kill -0 "$SERVICE_PID" 2>/dev/null; then
      [[ "$RUN_MODE" != image ]] || timeout 30 podman kill --signal KILL "$CONTAINER" >/dev/null 2>&1 || true
      kill -KILL "$SERVICE_PID" 2>/dev/null
    fi
  fi
  wait "$SERVICE_PID" 2>/dev/null || true
  SERVICE_PID=""
}

# The container of DEMO_RUN=image, whatever happened (podman run --rm removes it when it ends normally).
remove_container() {
  [[ "$RUN_MODE" == image ]] || return 0
  if podman container exists "$CONTAINER" 2>/dev/null; then
    timeout 60 podman rm --force "$CONTAINER" >/dev/null 2>&1 || info "could not remove container $CONTAINER"
  fi
}

stop_infra() { stop_started_infra "${DEMO_KEEP_INFRA:-0}" DEMO_KEEP_INFRA demo; }

on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if ((rc != 0)); then
    report_failure "$rc"
  fi
  if [[ -n "$SERVICE_PID" ]]; then
    say "stopping the service"
    stop_service
  fi
  remove_container
  if ((${#STARTED_SERVERS[@]} > 0)); then
    say "stopping the infrastructure"
    stop_infra
  elif [[ -n "$SERVERS_DIR" ]]; then
    info "the servers of $INFRA_DIR (DEMO_SERVERS_DIR): left alone"
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
if [[ -n "$SERVERS_DIR" ]]; then
  step "using the servers of $INFRA_DIR (DEMO_SERVERS_DIR: not started or stopped here)"
else
  step "starting the infrastructure (ZooKeeper, 4 ClickHouse, Kafka, schema registry)" "$LOG_DIR/infra.log"
  start_infra
  info "ready in $((SECONDS - T0))s (endpoints: $INFRA_DIR/endpoints.properties)"
fi

read_endpoints

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
elif [[ "${DEMO_SKIP_BUILD:-0}" == 1 ]]; then
  fail "DEMO_SKIP_BUILD=1 but there is no $JAR"
else
  step "building sample-service (./mvnw -q -pl sample-service -am package -DskipTests)" "$LOG_DIR/build.log"
  t=$SECONDS
  # shellcheck disable=SC2086 # DEMO_MVN_ARGS is a list of arguments
  (cd "$REPO_ROOT" && ./mvnw -q -B -pl sample-service -am package -DskipTests ${DEMO_MVN_ARGS:-}) \
    >"$LOG_DIR/build.log" 2>&1 || fail "the build failed: see $LOG_DIR/build.log"
  info "built $JAR in $((SECONDS - t))s"
fi
[[ -f "$JAR" ]] || fail "no $JAR"
if [[ "$RUN_MODE" == image ]]; then
  if [[ "${DEMO_SKIP_BUILD:-0}" == 1 ]] && podman image exists "$IMAGE"; then
    step "building the image: skipped (DEMO_SKIP_BUILD=1, $IMAGE exists)"
  else
    step "building the image $IMAGE (scripts/image.sh sample)" "$LOG_DIR/image.log"
    t=$SECONDS
    "$REPO_ROOT/scripts/image.sh" sample </dev/null >"$LOG_DIR/image.log" 2>&1 \
      || fail "scripts/image.sh sample failed: see $LOG_DIR/image.log"
    info "image ready after $((SECONDS - t))s"
  fi
  podman image exists "$IMAGE" || fail "no image $IMAGE"
fi

# ------------------------------------------------------------------ produce ----
step "producing $ORDERS orders to topic $TOPIC (8 partitions; half Avro schema v1, half v2)" "$LOG_DIR/generator.log"
t=$SECONDS
java -Xmx1g -cp "$JAR" -Dloader.main=dev.etl.sample.OrderLoadGenerator \
  org.springframework.boot.loader.launch.PropertiesLauncher \
  --bootstrap "$KAFKA" --registry "$REGISTRY" --topic "$TOPIC" --orders "$ORDERS" \
  --totals-file "$LOG_DIR/totals.properties" >"$LOG_DIR/generator.log" 2>&1 \
  || fail "the load generator failed: see $LOG_DIR/generator.log"
total() { awk -F= -v k="$1" '$1 == k {print $2}' "$LOG_DIR/totals.properties"; }
EXPECTED_ORDERS="$(total expected.orders)"
EXPECTED_LINES="$(total expected.lines)"
CANCELLED="$(total produced.cancelled)"
info "produced $ORDERS orders in $((SECONDS - t))s: $CANCELLED cancelled (the chain drops them)"
info "expected in ClickHouse: $EXPECTED_ORDERS orders, $EXPECTED_LINES lines (one row per line)"

# ------------------------------------------------------------------ run the service ----
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if [[ "$RUN_MODE" == image ]]; then
  step "starting sample-service (podman run --network host $IMAGE)" "$LOG_DIR/service.log"
else
  step "starting sample-service (java -jar sample-service.jar)" "$LOG_DIR/service.log"
fi
HTTP_PORT="${DEMO_HTTP_PORT:-}"
if [[ -n "$HTTP_PORT" ]]; then
  port_free "$HTTP_PORT" || fail "DEMO_HTTP_PORT=$HTTP_PORT is in use by another process"
else
  for p in $(seq 18480 18580); do port_free "$p" && { HTTP_PORT=$p; break; }; done
  [[ -n "$HTTP_PORT" ]] || fail "no free port in 18480-18580 (set DEMO_HTTP_PORT)"
fi
SERVICE_ENV=(KAFKA_BOOTSTRAP="$KAFKA" REGISTRY_URL="$REGISTRY" ORDERS_TOPIC="$TOPIC" KAFKA_GROUP_ID="orders-etl-$RUN_ID"
  CLICKHOUSE_DATABASE="$DB" CLICKHOUSE_SHARD_1="$SHARD1" CLICKHOUSE_SHARD_2="$SHARD2" SERVER_PORT="$HTTP_PORT"
  SERVER_ADDRESS=127.0.0.1)
if [[ "$RUN_MODE" == image ]]; then
  # The host's network: the servers' 127.0.0.1 is the container's, and the service's port is the host's.
  # The heap as the jar's run has it (the image's own default is 75% of the container's memory).
  podman_env=()
  for e in "${SERVICE_ENV[@]}" JAVA_TOOL_OPTIONS=-Xmx1g; do podman_env+=(--env "$e"); done
  podman run --rm --name "$CONTAINER" --network host "${podman_env[@]}" "$IMAGE" >"$LOG_DIR/service.log" 2>&1 &
else
  env "${SERVICE_ENV[@]}" java -Xmx1g -jar "$JAR" >"$LOG_DIR/service.log" 2>&1 &
fi
SERVICE_PID=$!
BASE="http://127.0.0.1:$HTTP_PORT"
t=$SECONDS
until curl -sf -o /dev/null --max-time 2 "$BASE/readyz"; do
  kill -0 "$SERVICE_PID" 2>/dev/null || fail "the service exited during startup"
  ((SECONDS - t < 90)) || fail "the service was not ready within 90 s ($BASE/readyz)"
  sleep 0.5
done
if [[ "$RUN_MODE" == image ]]; then
  info "ready in $((SECONDS - t))s (container $CONTAINER, log $LOG_DIR/service.log)"
else
  info "ready in $((SECONDS - t))s (pid $SERVICE_PID, log $LOG_DIR/service.log)"
fi
# Loopback only, like the servers: the probes and /actuator are not for the network here.
if command -v ss >/dev/null 2>&1; then
  # Java may show its 127.0.0.1 socket as the IPv4-mapped [::ffff:127.0.0.1] (a dual-stack socket,
  # still loopback only); anything else (0.0.0.0, *, [::], a routable address) is a failure.
  listeners="$(ss -Hltn "sport = :$HTTP_PORT" | awk '{print $4}' | sort -u | tr '\n' ' ')"
  [[ -n "$listeners" ]] || fail "nothing listens on port $HTTP_PORT"
  for l in $listeners; do
    [[ "$l" == "127.0.0.1:$HTTP_PORT" || "$l" == "[::ffff:127.0.0.1]:$HTTP_PORT" ]] \
      || fail "the service listens on $listeners instead of 127.0.0.1:$HTTP_PORT only"
  done
  info "listening on 127.0.0.1:$HTTP_PORT only"
fi
info "probes $BASE/readyz $BASE/healthz, metrics $BASE/actuator/prometheus"

# ------------------------------------------------------------------ progress ----
step "loading: progress every 2 s until the lag is 0 and the row counts stop growing" "$LOG_DIR/service.log"
metric_sum() { # name -> sum over all series, or "-" when absent or not sampled yet (NaN)
  awk -v m="$1" 'index($0, m "{") == 1 || index($0, m " ") == 1 {if (tolower($NF) ~ /nan/) u = 1; else s += $NF; n++}
    END {if (n && !u) printf "%.0f", s; else print "-"}' "$LOG_DIR/prometheus.txt"
}
shard_rows() { ch "$(first "$1")" "SELECT count() FROM $DB.orders" 2>>"$LOG_DIR/progress.log" || echo "?"; }
fmt() { printf '%s' "$1" | sed -E ':a;s/^([0-9]+)([0-9]{3})/\1,\2/;ta'; }
now_ms() { local t="${EPOCHREALTIME/[.,]/}"; echo $((t / 1000)); }
secs() { printf '%d.%d' $(($1 / 1000)) $((($1 % 1000) / 100)); } # ms -> "s.d"
# Sample every 0.5 s (the times below are measured at that resolution), print every 2 s.
START_MS=$(now_ms)
print_ms=$START_MS
print_records=0
prev_total=-1
stable_since=""
CONSUMED_MS=""   # all records consumed and lag 0
WRITTEN_MS=""    # ClickHouse holds as many rows as the orders have lines
tick=0
while :; do
  sleep 0.5
  tick=$((tick + 1))
  kill -0 "$SERVICE_PID" 2>/dev/null || fail "the service exited while loading"
  curl -sf --max-time 2 "$BASE/actuator/prometheus" >"$LOG_DIR/prometheus.txt" 2>/dev/null || : >"$LOG_DIR/prometheus.txt"
  records="$(metric_sum etl_source_records_total)"
  lag="$(metric_sum etl_source_lag_records)"
  r1="$(shard_rows "$SHARD1")"
  r2="$(shard_rows "$SHARD2")"
  now=$(now_ms)
  total_rows="?"
  [[ "$r1" =~ ^[0-9]+$ && "$r2" =~ ^[0-9]+$ ]] && total_rows=$((r1 + r2))
  consumed=0
  [[ "$lag" == 0 && "$records" =~ ^[0-9]+$ ]] && ((records >= ORDERS)) && consumed=1
  ((consumed)) && [[ -z "$CONSUMED_MS" ]] && CONSUMED_MS=$((now - START_MS))
  [[ "$total_rows" =~ ^[0-9]+$ ]] && ((total_rows >= EXPECTED_LINES)) && [[ -z "$WRITTEN_MS" ]] \
    && WRITTEN_MS=$((now - START_MS))
  if ((tick % 4 == 0)); then
    rate="-"
    if [[ "$records" =~ ^[0-9]+$ ]]; then
      rate=$(((records - print_records) * 1000 / (now - print_ms > 0 ? now - print_ms : 1)))
      print_records=$records
    fi
    print_ms=$now
    printf '    %5ss  records %9s  %9s/s  lag %9s  rows: shard 1 %9s  shard 2 %9s  total %9s\n' \
      "$(secs $((now - START_MS)))" "$(fmt "$records")" "$(fmt "$rate")" "$(fmt "$lag")" "$(fmt "$r1")" \
      "$(fmt "$r2")" "$(fmt "$total_rows")"
  fi
  # Done when everything was consumed and the row counts did not change for 2 s.
  if ((consumed)) && [[ "$total_rows" == "$prev_total" ]] && ((total_rows > 0)); then
    [[ -n "$stable_since" ]] || stable_since=$now
    ((now - stable_since >= 2000)) && break
  else
    stable_since=""
  fi
  prev_total="$total_rows"
  ((now - START_MS < TIMEOUT_S * 1000)) \
    || fail "not caught up within ${TIMEOUT_S}s (DEMO_TIMEOUT_S): records $records, lag $lag, rows $total_rows"
done
info "caught up: $(fmt "$records") records consumed after $(secs "$CONSUMED_MS")s," \
  "$(fmt "$total_rows") rows in ClickHouse after $(secs "${WRITTEN_MS:-0}")s"

# ------------------------------------------------------------------ graceful shutdown ----
step "stopping the service with SIGTERM (drain, final commit)" "$LOG_DIR/service.log"
t=$SECONDS
term_service
while kill -0 "$SERVICE_PID" 2>/dev/null; do
  ((SECONDS - t < 60)) || fail "the service did not exit within 60 s of SIGTERM"
  sleep 0.2
done
SERVICE_EXIT=0
wait "$SERVICE_PID" || SERVICE_EXIT=$?
SERVICE_PID=""
case "$SERVICE_EXIT" in
  0) info "exited with code 0 after $((SECONDS - t))s: drained cleanly" ;;
  143) info "exited with code 143 (128 + SIGTERM) after $((SECONDS - t))s: the JVM reports the signal; the drain ran (see the log)" ;;
  *) fail "the service exited with code $SERVICE_EXIT (see $LOG_DIR/service.log)" ;;
esac
grep -E 'PipelineRuntime .*(draining|ended)' "$LOG_DIR/service.log" | tail -n 2 | sed -E 's/^.*PipelineRuntime +: /    | /' || true

# ------------------------------------------------------------------ committed offsets ----
step "checking the consumer group's committed offsets (kafka-consumer-groups --describe)" "$LOG_DIR/offsets.log"
java -cp "$(cat "$INFRA_DIR/kafka/classpath.txt")" org.apache.kafka.tools.consumer.group.ConsumerGroupCommand \
  --bootstrap-server "$KAFKA" --describe --group "orders-etl-$RUN_ID" >"$LOG_DIR/offsets.log" 2>&1 \
  || fail "kafka-consumer-groups failed: see $LOG_DIR/offsets.log"
read -r COMMITTED COMMIT_LAG PARTS < <(awk -v t="$TOPIC" '$2 == t {c += $4; l += $6; n++} END {print c + 0, l + 0, n + 0}' \
  "$LOG_DIR/offsets.log")
COMMITTED_REPORT="$(fmt "$COMMITTED") of $(fmt "$ORDERS") offsets on $PARTS partitions, lag $(fmt "$COMMIT_LAG")"
info "$COMMITTED_REPORT"

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
  # Both replicas of the shard must agree (replication catches up within seconds); use the first.
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
if [[ "$FOUND_ORDERS" == "$EXPECTED_ORDERS" && "$FOUND_LINES" == "$EXPECTED_LINES" && "$COMMITTED" == "$ORDERS" \
    && "$COMMIT_LAG" == 0 ]]; then
  RESULT="PASS"
fi

if [[ "${DEMO_CLEANUP:-0}" == 1 ]]; then
  step "cleaning up: DROP DATABASE $DB ON CLUSTER, delete topic $TOPIC" "$LOG_DIR/cleanup.log"
  {
    ch "$(first "$SHARD1")" "DROP DATABASE IF EXISTS $DB ON CLUSTER $CLUSTER"
    java -cp "$(cat "$INFRA_DIR/kafka/classpath.txt")" org.apache.kafka.tools.TopicCommand \
      --bootstrap-server "$KAFKA" --delete --topic "$TOPIC"
  } >"$LOG_DIR/cleanup.log" 2>&1 || fail "cleanup failed: see $LOG_DIR/cleanup.log"
fi

# ------------------------------------------------------------------ summary ----
STEP="summary"
RATE="$(fmt $((ORDERS * 1000 / (CONSUMED_MS > 0 ? CONSUMED_MS : 1))))"
echo
say "summary"
info "topic            $TOPIC: $(fmt "$ORDERS") orders produced, $(fmt "$CANCELLED") cancelled"
info "expected         $(fmt "$EXPECTED_ORDERS") orders, $(fmt "$EXPECTED_LINES") lines"
info "found (FINAL)    $(fmt "$FOUND_ORDERS") orders, $(fmt "$FOUND_LINES") lines in $DB.orders"
for r in "${SHARD_REPORT[@]}"; do info "                 $r"; done
info "rows before FINAL $(fmt "$RAW_ROWS") (replayed duplicates: $(fmt $((RAW_ROWS - FOUND_LINES))))"
if [[ "$RUN_MODE" == image ]]; then
  info "ran as           container of $IMAGE (podman, --network host)"
else
  info "ran as           java -jar $(basename "$JAR")"
fi
info "service          consumed all orders $(secs "$CONSUMED_MS")s after it was ready (~$RATE orders/s, cold JVM);"
info "                 all rows in ClickHouse after $(secs "${WRITTEN_MS:-0}")s; exit code $SERVICE_EXIT on SIGTERM"
info "committed        $COMMITTED_REPORT"
if [[ "${DEMO_CLEANUP:-0}" == 1 ]]; then
  info "query it         dropped (DEMO_CLEANUP=1)"
elif ((${#STARTED_SERVERS[@]} == 0)) || [[ "${DEMO_KEEP_INFRA:-0}" == 1 ]]; then
  info "query it         curl '$(first "$SHARD1")/?query=SELECT+count()+FROM+$DB.orders+FINAL'"
else
  info "query it         the servers stop now; DEMO_KEEP_INFRA=1 keeps them running to query $DB.orders"
fi
info "logs             $LOG_DIR"
info "wall time        $((SECONDS - T0))s"
if [[ "$RESULT" == PASS ]]; then
  printf '\n\033[32mPASS\033[0m: ClickHouse holds exactly the %s expected orders (%s lines) after FINAL,\n' \
    "$(fmt "$EXPECTED_ORDERS")" "$(fmt "$EXPECTED_LINES")"
  printf '      and every offset was committed.\n\n'
else
  printf '\n\033[31mFAIL\033[0m: expected %s orders / %s lines and %s committed offsets; found %s / %s and %s.\n\n' \
    "$EXPECTED_ORDERS" "$EXPECTED_LINES" "$ORDERS" "$FOUND_ORDERS" "$FOUND_LINES" "$COMMITTED"
  exit 1
fi
