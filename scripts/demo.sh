#!/usr/bin/env bash
# The sample end to end: Avro orders in Kafka -> sample-service -> sharded, replicated ClickHouse; then the
# same orders a second time with no Java pipeline code: etl-app and YAML only.
#
#   scripts/demo.sh [--no-yaml-run]
#
# 1. starts the local servers (scripts/infra.sh start all; installs Debian packages when missing),
# 2. creates a fresh database and the `orders` table ON CLUSTER (sample-service/.../sql/orders.sql), and
#    a second database with the same table for the YAML-only run,
# 3. builds sample-service and etl-app (./mvnw -q -pl sample-service,etl-app -am package -DskipTests; with
#    DEMO_RUN=image also their container images, scripts/image.sh sample app),
# 4. produces DEMO_ORDERS Avro orders (half schema v1, half v2) to a new topic with the load generator,
# 5. runs the service in the background (java -jar, or with DEMO_RUN=image its image in a podman
#    container on the host's network) and shows progress (records/s, lag, rows per shard),
# 6. waits until it caught up, stops it with SIGTERM (drain, final commit) and prints its exit code,
# 7. checks that ClickHouse holds exactly the expected orders and lines after FINAL,
# 8. runs 5-7 again with etl-app, the runnable application without pipeline code, into the second
#    database, from the same topic under another consumer group: its pipeline is
#    examples/yaml-only/application.yaml (SPRING_CONFIG_ADDITIONAL_LOCATION; in a container, mounted),
#    the mapping derived from the table's columns and the registry's latest schema; the same checks,
#    FINAL included (--no-yaml-run or DEMO_YAML_RUN=0 leaves this run out),
# 9. stops the servers it started (servers that were already running are left running).
#
# Environment:
#   DEMO_ORDERS        orders to produce (default 200000)
#   DEMO_TIMEOUT_S     longest wait for the service to catch up (default 240)
#   DEMO_READY_TIMEOUT_S  longest wait for each application's /readyz after its start (default 90)
#   DEMO_HTTP_PORT     the service's HTTP port (default: a free port from 18480 up), bound to 127.0.0.1
#                      only (SERVER_ADDRESS; Actuator shares the port; the demo checks it with ss)
#   DEMO_SKIP_BUILD=1  use the jar (and with DEMO_RUN=image the image) that is there
#   DEMO_RUN           jar (default): java -jar sample-service.jar; image: the sample's container image
#                      (scripts/image.sh sample builds it from the jar, and what it is built FROM when
#                      missing), run with podman on the host's network (--network host), so that it
#                      reaches the servers on 127.0.0.1 as the jar does; the container is removed at the end
#   DEMO_IMAGE         the image DEMO_RUN=image runs (default localhost/etl/sample-service:latest)
#   DEMO_APP_IMAGE     the etl-app image DEMO_RUN=image runs for the YAML-only run (default
#                      localhost/etl/etl-app:latest)
#   DEMO_YAML_RUN=0    no second run with etl-app and YAML only (as --no-yaml-run)
#   DEMO_MVN_ARGS      extra Maven arguments for the build (e.g. -o)
#   DEMO_KEEP_INFRA=1  leave the servers running at the end
#   DEMO_CLEANUP=1     drop the run's databases and topic at the end (for servers shared with others)
#   DEMO_SERVERS_DIR   the infrastructure dir (ETL_INFRA_DIR) of servers already running, started by
#                      someone else: the demo reads its endpoints.properties and kafka/classpath.txt and
#                      never starts, or stops, a server (logs stay under this checkout's .infra/demo);
#                      use it with DEMO_CLEANUP=1
#   ETL_INFRA_DIR, ETL_*_PORT, ...  as for scripts/infra.sh (the demo reads the endpoints it writes)
set -euo pipefail

YAML_RUN="${DEMO_YAML_RUN:-1}"
for arg in "$@"; do
  case "$arg" in
    --no-yaml-run) YAML_RUN=0 ;;
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--no-yaml-run]" >&2; exit 2 ;;
  esac
done
[[ "$YAML_RUN" == 0 || "$YAML_RUN" == 1 ]] || { echo "DEMO_YAML_RUN must be 0 or 1, not '$YAML_RUN'" >&2; exit 2; }

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
INFRA="$REPO_ROOT/scripts/infra.sh"
INFRA_DIR="${ETL_INFRA_DIR:-$REPO_ROOT/.infra}"
# shellcheck source-path=SCRIPTDIR source=lib/run-support.sh
source "$REPO_ROOT/scripts/lib/run-support.sh"
ORDERS="${DEMO_ORDERS:-200000}"
TIMEOUT_S="${DEMO_TIMEOUT_S:-240}"
READY_TIMEOUT_S="${DEMO_READY_TIMEOUT_S:-90}"
RUN_ID="$(date +%Y%m%d_%H%M%S)"
TOPIC="orders-$RUN_ID"
DB="demo_$RUN_ID"
DB_YAML="demo_${RUN_ID}_yaml"
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
APP_JAR="$REPO_ROOT/etl-app/target/etl-app.jar"
APP_IMAGE="${DEMO_APP_IMAGE:-localhost/etl/etl-app:latest}"
YAML_CONFIG="$REPO_ROOT/examples/yaml-only/application.yaml"
CONTAINER=""
CONTAINERS=()
case "$RUN_MODE" in
  jar) ;;
  image) eval "$("$REPO_ROOT/scripts/image.sh" env)" ;; # CONTAINERS_CONF: podman's settings for this machine
  *) echo "DEMO_RUN must be jar or image, not '$RUN_MODE'" >&2; exit 2 ;;
esac
SQL="$REPO_ROOT/sample-service/src/main/resources/sql/orders.sql"

T0=$SECONDS
SERVICE_PID=""
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

# The containers of DEMO_RUN=image, whatever happened (podman run --rm removes one when it ends normally).
remove_container() {
  [[ "$RUN_MODE" == image ]] || return 0
  local c
  for c in "${CONTAINERS[@]}"; do
    if podman container exists "$c" 2>/dev/null; then
      timeout 60 podman rm --force "$c" >/dev/null 2>&1 || info "could not remove container $c"
    fi
  done
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
DATABASES=("$DB")
[[ "$YAML_RUN" == 0 ]] || DATABASES+=("$DB_YAML")
step "creating database(s) ${DATABASES[*]} and table orders in each ON CLUSTER $CLUSTER" "$LOG_DIR/ddl.log"
for db in "${DATABASES[@]}"; do
  {
    ch "$(first "$SHARD1")" "CREATE DATABASE IF NOT EXISTS $db ON CLUSTER $CLUSTER"
    sed "s/\${DB}/$db/g; s/ON CLUSTER etl/ON CLUSTER $CLUSTER/" "$SQL" | grep -v '^--' >"$LOG_DIR/orders-$db.sql"
    ch "$(first "$SHARD1")" "$(cat "$LOG_DIR/orders-$db.sql")"
  } >>"$LOG_DIR/ddl.log" 2>&1 || fail "DDL failed: see $LOG_DIR/ddl.log"
  for shard in "${SHARD_URLS[@]}"; do
    IFS=, read -ra replicas <<<"$shard"
    for url in "${replicas[@]}"; do
      n="$(ch "$url" "SELECT count() FROM system.tables WHERE database = '$db' AND name = 'orders'" 2>>"$LOG_DIR/ddl.log")" \
        || fail "cannot ask $url for the table: see $LOG_DIR/ddl.log"
      [[ "$n" == 1 ]] || fail "table $db.orders is missing on $url"
    done
  done
done
info "on all 4 replicas: ReplicatedReplacingMergeTree ORDER BY (order_id, line_no)"

# ------------------------------------------------------------------ build ----
MODULES=sample-service
JARS=("$JAR")
IMAGES=(sample)
NEEDED_IMAGES=("$IMAGE")
if [[ "$YAML_RUN" == 1 ]]; then
  MODULES=sample-service,etl-app
  JARS+=("$APP_JAR")
  IMAGES+=(app)
  NEEDED_IMAGES+=("$APP_IMAGE")
fi
have_jars() { local j; for j in "${JARS[@]}"; do [[ -f "$j" ]] || return 1; done; }
if [[ "${DEMO_SKIP_BUILD:-0}" == 1 ]] && have_jars; then
  step "building $MODULES: skipped (DEMO_SKIP_BUILD=1)"
elif [[ "${DEMO_SKIP_BUILD:-0}" == 1 ]]; then
  fail "DEMO_SKIP_BUILD=1 but there is no ${JARS[*]}"
else
  step "building $MODULES (./mvnw -q -pl $MODULES -am package -DskipTests)" "$LOG_DIR/build.log"
  t=$SECONDS
  # shellcheck disable=SC2086 # DEMO_MVN_ARGS is a list of arguments
  (cd "$REPO_ROOT" && ./mvnw -q -B -pl "$MODULES" -am package -DskipTests ${DEMO_MVN_ARGS:-}) \
    >"$LOG_DIR/build.log" 2>&1 || fail "the build failed: see $LOG_DIR/build.log"
  info "built ${JARS[*]} in $((SECONDS - t))s"
fi
for j in "${JARS[@]}"; do [[ -f "$j" ]] || fail "no $j"; done
if [[ "$RUN_MODE" == image ]]; then
  have_images() { local i; for i in "${NEEDED_IMAGES[@]}"; do podman image exists "$i" || return 1; done; }
  if [[ "${DEMO_SKIP_BUILD:-0}" == 1 ]] && have_images; then
    step "building the images: skipped (DEMO_SKIP_BUILD=1, ${NEEDED_IMAGES[*]} exist)"
  else
    step "building the images ${NEEDED_IMAGES[*]} (scripts/image.sh ${IMAGES[*]})" "$LOG_DIR/image.log"
    t=$SECONDS
    "$REPO_ROOT/scripts/image.sh" "${IMAGES[@]}" </dev/null >"$LOG_DIR/image.log" 2>&1 \
      || fail "scripts/image.sh ${IMAGES[*]} failed: see $LOG_DIR/image.log"
    info "images ready after $((SECONDS - t))s"
  fi
  for i in "${NEEDED_IMAGES[@]}"; do podman image exists "$i" || fail "no image $i"; done
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

# ------------------------------------------------------------------ run a pipeline and check it ----
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
metric_sum() { # name -> sum over all series, or "-" when absent or not sampled yet (NaN)
  awk -v m="$1" 'index($0, m "{") == 1 || index($0, m " ") == 1 {if (tolower($NF) ~ /nan/) u = 1; else s += $NF; n++}
    END {if (n && !u) printf "%.0f", s; else print "-"}' "$LOG_DIR/prometheus.txt"
}
shard_rows() { ch "$(first "$1")" "SELECT count() FROM $RUN_DB.orders" 2>>"$LOG_DIR/progress.log" || echo "?"; }
fmt() { printf '%s' "$1" | sed -E ':a;s/^([0-9]+)([0-9]{3})/\1,\2/;ta'; }
now_ms() { local t="${EPOCHREALTIME/[.,]/}"; echo $((t / 1000)); }
secs() { printf '%d.%d' $(($1 / 1000)) $((($1 % 1000) / 100)); } # ms -> "s.d"

# Starts the run's application in the background (SERVICE_PID): sample-service, whose topology is Java
# (OrdersPipelineConfiguration), or etl-app, which has none: its pipeline is examples/yaml-only's YAML.
start_service() {
  local run_env=() podman_env=() podman_args=() image jar e
  if [[ "$RUN_NAME" == sample-service ]]; then
    run_env=(KAFKA_BOOTSTRAP="$KAFKA" REGISTRY_URL="$REGISTRY" ORDERS_TOPIC="$TOPIC" KAFKA_GROUP_ID="$RUN_GROUP"
      CLICKHOUSE_DATABASE="$RUN_DB" CLICKHOUSE_SHARD_1="$SHARD1" CLICKHOUSE_SHARD_2="$SHARD2" SERVER_PORT="$HTTP_PORT"
      SERVER_ADDRESS=127.0.0.1)
    image="$IMAGE"
    jar="$JAR"
  else
    # Boot's own names (relaxed binding), no placeholder of etl-app's: the servers, the topic, the database.
    run_env=(SPRING_APPLICATION_NAME=orders-etl-yaml SPRING_KAFKA_BOOTSTRAP_SERVERS="$KAFKA"
      SPRING_KAFKA_CONSUMER_GROUP_ID="$RUN_GROUP" ETL_AVRO_REGISTRY_URL="$REGISTRY" ETL_SINK_CLICKHOUSE_DATABASE="$RUN_DB"
      ETL_SINK_CLICKHOUSE_SHARDS_0_REPLICAS="$SHARD1" ETL_SINK_CLICKHOUSE_SHARDS_1_REPLICAS="$SHARD2"
      ETL_SINK_CLICKHOUSE_FROM_TOPIC="$TOPIC" ETL_PIPELINE_THREADS=2 ETL_CHECKPOINT_INTERVAL=2s
      MANAGEMENT_ENDPOINT_HEALTH_SHOW_DETAILS=always SERVER_PORT="$HTTP_PORT" SERVER_ADDRESS=127.0.0.1)
    image="$APP_IMAGE"
    jar="$APP_JAR"
  fi
  if [[ "$RUN_MODE" == image ]]; then
    # The host's network: the servers' 127.0.0.1 is the container's, and the service's port is the host's.
    # The heap as the jar's run has it (the image's own default is 75% of the container's memory).
    for e in "${run_env[@]}" JAVA_TOOL_OPTIONS=-Xmx1g; do podman_env+=(--env "$e"); done
    if [[ "$RUN_NAME" == etl-app ]]; then
      # The mapping as a mounted file, as a deployment mounts a ConfigMap.
      podman_args=(--volume "$YAML_CONFIG:/config/orders.yaml:ro" --env SPRING_CONFIG_ADDITIONAL_LOCATION=/config/orders.yaml)
    fi
    podman run --rm --name "$CONTAINER" --network host "${podman_env[@]}" "${podman_args[@]}" "$image" \
      >"$RUN_LOG" 2>&1 &
  else
    [[ "$RUN_NAME" == sample-service ]] || run_env+=(SPRING_CONFIG_ADDITIONAL_LOCATION="$YAML_CONFIG")
    env "${run_env[@]}" java -Xmx1g -jar "$jar" >"$RUN_LOG" 2>&1 &
  fi
  SERVICE_PID=$!
}

# One run: starts RUN_NAME against database RUN_DB with consumer group RUN_GROUP, follows it until it
# caught up, stops it with SIGTERM, checks the committed offsets and the table after FINAL. Appends its
# summary to SUMMARY and sets RUN_OK (1 when ClickHouse and the offsets are exactly as expected).
run_pipeline() { # name database group
  RUN_NAME="$1"
  RUN_DB="$2"
  RUN_GROUP="$3"
  RUN_LOG="$LOG_DIR/$RUN_NAME.log"
  CONTAINER="etl-demo-$RUN_ID-$RUN_NAME"
  CONTAINERS+=("$CONTAINER")
  RUN_OK=0
  local t how

  # ---------------------------------------------------------------- start ----
  if [[ "$RUN_MODE" == image ]]; then
    how="podman run --network host $([[ "$RUN_NAME" == etl-app ]] && echo "$APP_IMAGE" || echo "$IMAGE")"
  else
    how="java -jar $RUN_NAME.jar"
  fi
  [[ "$RUN_NAME" == etl-app ]] && how="$how, no pipeline code: $(realpath --relative-to="$REPO_ROOT" "$YAML_CONFIG")"
  step "starting $RUN_NAME ($how) into $RUN_DB.orders" "$RUN_LOG"
  HTTP_PORT="${DEMO_HTTP_PORT:-}"
  if [[ -n "$HTTP_PORT" ]]; then
    port_free "$HTTP_PORT" || fail "DEMO_HTTP_PORT=$HTTP_PORT is in use by another process"
  else
    for p in $(seq 18480 18580); do port_free "$p" && { HTTP_PORT=$p; break; }; done
    [[ -n "$HTTP_PORT" ]] || fail "no free port in 18480-18580 (set DEMO_HTTP_PORT)"
  fi
  start_service
  BASE="http://127.0.0.1:$HTTP_PORT"
  t=$SECONDS
  until curl -sf -o /dev/null --max-time 2 "$BASE/readyz"; do
    kill -0 "$SERVICE_PID" 2>/dev/null || fail "$RUN_NAME exited during startup"
    ((SECONDS - t < READY_TIMEOUT_S)) || fail "$RUN_NAME was not ready within $READY_TIMEOUT_S s ($BASE/readyz; DEMO_READY_TIMEOUT_S)"
    sleep 0.5
  done
  if [[ "$RUN_MODE" == image ]]; then
    info "ready in $((SECONDS - t))s (container $CONTAINER, log $RUN_LOG)"
  else
    info "ready in $((SECONDS - t))s (pid $SERVICE_PID, log $RUN_LOG)"
  fi
  # Loopback only, like the servers: the probes and /actuator are not for the network here.
  if command -v ss >/dev/null 2>&1; then
    # Java may show its 127.0.0.1 socket as the IPv4-mapped [::ffff:127.0.0.1] (a dual-stack socket,
    # still loopback only); anything else (0.0.0.0, *, [::], a routable address) is a failure.
    local listeners l
    listeners="$(ss -Hltn "sport = :$HTTP_PORT" | awk '{print $4}' | sort -u | tr '\n' ' ')"
    [[ -n "$listeners" ]] || fail "nothing listens on port $HTTP_PORT"
    for l in $listeners; do
      [[ "$l" == "127.0.0.1:$HTTP_PORT" || "$l" == "[::ffff:127.0.0.1]:$HTTP_PORT" ]] \
        || fail "$RUN_NAME listens on $listeners instead of 127.0.0.1:$HTTP_PORT only"
    done
    info "listening on 127.0.0.1:$HTTP_PORT only"
  fi
  info "probes $BASE/readyz $BASE/healthz, metrics $BASE/actuator/prometheus"
  if [[ "$RUN_NAME" == etl-app ]]; then
    # What the application derived from the table and the schema (logged at startup: column ← source, and
    # the reader fields the table does not store).
    grep -E 'ClickHouseTablePipelines' "$RUN_LOG" | head -n 4 | sed -E 's/^.* : //' | fold -s -w 108 | sed 's/^/    | /' || true
  fi

  # ---------------------------------------------------------------- progress ----
  step "loading: progress every 2 s until the lag is 0 and the row counts stop growing" "$RUN_LOG"
  # Sample every 0.5 s (the times below are measured at that resolution), print every 2 s.
  local start_ms print_ms print_records=0 prev_total=-1 stable_since="" consumed_ms="" written_ms="" tick=0
  local records lag r1 r2 now total_rows consumed rate
  start_ms=$(now_ms)
  print_ms=$start_ms
  while :; do
    sleep 0.5
    tick=$((tick + 1))
    kill -0 "$SERVICE_PID" 2>/dev/null || fail "$RUN_NAME exited while loading"
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
    ((consumed)) && [[ -z "$consumed_ms" ]] && consumed_ms=$((now - start_ms))
    [[ "$total_rows" =~ ^[0-9]+$ ]] && ((total_rows >= EXPECTED_LINES)) && [[ -z "$written_ms" ]] \
      && written_ms=$((now - start_ms))
    if ((tick % 4 == 0)); then
      rate="-"
      if [[ "$records" =~ ^[0-9]+$ ]]; then
        rate=$(((records - print_records) * 1000 / (now - print_ms > 0 ? now - print_ms : 1)))
        print_records=$records
      fi
      print_ms=$now
      printf '    %5ss  records %9s  %9s/s  lag %9s  rows: shard 1 %9s  shard 2 %9s  total %9s\n' \
        "$(secs $((now - start_ms)))" "$(fmt "$records")" "$(fmt "$rate")" "$(fmt "$lag")" "$(fmt "$r1")" \
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
    ((now - start_ms < TIMEOUT_S * 1000)) \
      || fail "not caught up within ${TIMEOUT_S}s (DEMO_TIMEOUT_S): records $records, lag $lag, rows $total_rows"
  done
  info "caught up: $(fmt "$records") records consumed after $(secs "$consumed_ms")s," \
    "$(fmt "$total_rows") rows in ClickHouse after $(secs "${written_ms:-0}")s"

  # ---------------------------------------------------------------- graceful shutdown ----
  step "stopping $RUN_NAME with SIGTERM (drain, final commit)" "$RUN_LOG"
  t=$SECONDS
  term_service
  while kill -0 "$SERVICE_PID" 2>/dev/null; do
    ((SECONDS - t < 60)) || fail "$RUN_NAME did not exit within 60 s of SIGTERM"
    sleep 0.2
  done
  local service_exit=0
  wait "$SERVICE_PID" || service_exit=$?
  SERVICE_PID=""
  case "$service_exit" in
    0) info "exited with code 0 after $((SECONDS - t))s: drained cleanly" ;;
    143) info "exited with code 143 (128 + SIGTERM) after $((SECONDS - t))s: the JVM reports the signal; the drain ran (see the log)" ;;
    *) fail "$RUN_NAME exited with code $service_exit (see $RUN_LOG)" ;;
  esac
  grep -E 'PipelineRuntime .*(draining|ended)' "$RUN_LOG" | tail -n 2 | sed -E 's/^.*PipelineRuntime +: /    | /' || true

  # ---------------------------------------------------------------- committed offsets ----
  local offsets="$LOG_DIR/offsets-$RUN_NAME.log" committed commit_lag parts committed_report
  step "checking the consumer group's committed offsets (kafka-consumer-groups --describe)" "$offsets"
  java -cp "$(cat "$INFRA_DIR/kafka/classpath.txt")" org.apache.kafka.tools.consumer.group.ConsumerGroupCommand \
    --bootstrap-server "$KAFKA" --describe --group "$RUN_GROUP" >"$offsets" 2>&1 \
    || fail "kafka-consumer-groups failed: see $offsets"
  read -r committed commit_lag parts < <(awk -v t="$TOPIC" '$2 == t {c += $4; l += $6; n++} END {print c + 0, l + 0, n + 0}' \
    "$offsets")
  committed_report="$(fmt "$committed") of $(fmt "$ORDERS") offsets on $parts partitions, lag $(fmt "$commit_lag")"
  info "$committed_report"

  # ---------------------------------------------------------------- verify ----
  step "verifying ClickHouse: SELECT uniqExact(order_id), count() FROM $RUN_DB.orders FINAL, per shard" "$LOG_DIR/verify.log"
  local found_orders=0 found_lines=0 raw_rows=0 shard_report=() i=0 shard replicas answers agree a url o l raw
  for shard in "${SHARD_URLS[@]}"; do
    i=$((i + 1))
    IFS=, read -ra replicas <<<"$shard"
    # Both replicas of the shard must agree (replication catches up within seconds); use the first.
    t=$SECONDS
    while :; do
      answers=()
      for url in "${replicas[@]}"; do
        a="$(ch "$url" "SELECT uniqExact(order_id), count() FROM $RUN_DB.orders FINAL" 2>>"$LOG_DIR/verify.log")" \
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
    raw="$(ch "${replicas[0]}" "SELECT count() FROM $RUN_DB.orders" 2>>"$LOG_DIR/verify.log")"
    echo "$RUN_NAME shard $i: ${answers[*]} (raw rows $raw)" >>"$LOG_DIR/verify.log"
    found_orders=$((found_orders + o))
    found_lines=$((found_lines + l))
    raw_rows=$((raw_rows + raw))
    shard_report+=("shard $i: $(fmt "$o") orders, $(fmt "$l") lines (${#replicas[@]} replicas agree)")
  done
  if [[ "$found_orders" == "$EXPECTED_ORDERS" && "$found_lines" == "$EXPECTED_LINES" && "$committed" == "$ORDERS" \
      && "$commit_lag" == 0 ]]; then
    RUN_OK=1
    info "PASS: exactly the expected orders and lines after FINAL, every offset committed"
  else
    info "FAIL: expected $EXPECTED_ORDERS orders / $EXPECTED_LINES lines and $ORDERS committed offsets;" \
      "found $found_orders / $found_lines and $committed"
  fi

  local rate_s
  rate_s="$(fmt $((ORDERS * 1000 / (consumed_ms > 0 ? consumed_ms : 1))))"
  SUMMARY+=("" "$RUN_NAME ($([[ "$RUN_NAME" == etl-app ]] && echo "YAML only, $(realpath --relative-to="$REPO_ROOT" "$YAML_CONFIG")" || echo "Java topology")): $([[ "$RUN_OK" == 1 ]] && echo PASS || echo FAIL)")
  SUMMARY+=("found (FINAL)    $(fmt "$found_orders") orders, $(fmt "$found_lines") lines in $RUN_DB.orders")
  for r in "${shard_report[@]}"; do SUMMARY+=("                 $r"); done
  SUMMARY+=("rows before FINAL $(fmt "$raw_rows") (replayed duplicates: $(fmt $((raw_rows - found_lines))))")
  if [[ "$RUN_MODE" == image ]]; then
    SUMMARY+=("ran as           container of $([[ "$RUN_NAME" == etl-app ]] && echo "$APP_IMAGE" || echo "$IMAGE") (podman, --network host)")
  else
    SUMMARY+=("ran as           java -jar $RUN_NAME.jar")
  fi
  SUMMARY+=("service          consumed all orders $(secs "$consumed_ms")s after it was ready (~$rate_s orders/s, cold JVM);")
  SUMMARY+=("                 all rows in ClickHouse after $(secs "${written_ms:-0}")s; exit code $service_exit on SIGTERM")
  SUMMARY+=("committed        $committed_report")
  FOUND+=("$RUN_NAME: $found_orders / $found_lines and $committed")
}

SUMMARY=()
FOUND=()
PASSED=0
run_pipeline sample-service "$DB" "orders-etl-$RUN_ID"
PASSED=$((PASSED + RUN_OK))
if [[ "$YAML_RUN" == 1 ]]; then
  run_pipeline etl-app "$DB_YAML" "orders-etl-yaml-$RUN_ID"
  PASSED=$((PASSED + RUN_OK))
fi
RUNS=$((YAML_RUN == 1 ? 2 : 1))
((PASSED == RUNS)) && RESULT="PASS"

if [[ "${DEMO_CLEANUP:-0}" == 1 ]]; then
  step "cleaning up: DROP DATABASE ${DATABASES[*]} ON CLUSTER, delete topic $TOPIC" "$LOG_DIR/cleanup.log"
  {
    for db in "${DATABASES[@]}"; do ch "$(first "$SHARD1")" "DROP DATABASE IF EXISTS $db ON CLUSTER $CLUSTER"; done
    java -cp "$(cat "$INFRA_DIR/kafka/classpath.txt")" org.apache.kafka.tools.TopicCommand \
      --bootstrap-server "$KAFKA" --delete --topic "$TOPIC"
  } >"$LOG_DIR/cleanup.log" 2>&1 || fail "cleanup failed: see $LOG_DIR/cleanup.log"
fi

# ------------------------------------------------------------------ summary ----
STEP="summary"
echo
say "summary"
info "topic            $TOPIC: $(fmt "$ORDERS") orders produced, $(fmt "$CANCELLED") cancelled"
info "expected         $(fmt "$EXPECTED_ORDERS") orders, $(fmt "$EXPECTED_LINES") lines in each table"
for r in "${SUMMARY[@]}"; do info "$r"; done
echo
if [[ "${DEMO_CLEANUP:-0}" == 1 ]]; then
  info "query it         dropped (DEMO_CLEANUP=1)"
elif ((${#STARTED_SERVERS[@]} == 0)) || [[ "${DEMO_KEEP_INFRA:-0}" == 1 ]]; then
  for db in "${DATABASES[@]}"; do
    info "query it         curl '$(first "$SHARD1")/?query=SELECT+count()+FROM+$db.orders+FINAL'"
  done
else
  info "query it         the servers stop now; DEMO_KEEP_INFRA=1 keeps them running to query ${DATABASES[*]}"
fi
info "logs             $LOG_DIR"
info "wall time        $((SECONDS - T0))s"
if [[ "$RESULT" == PASS ]]; then
  if [[ "$YAML_RUN" == 1 ]]; then
    printf '\n\033[32mPASS\033[0m: both runs (Java topology, then YAML only) left exactly the %s expected orders\n' \
      "$(fmt "$EXPECTED_ORDERS")"
    printf '      (%s lines) in their table after FINAL, and every offset was committed.\n\n' "$(fmt "$EXPECTED_LINES")"
  else
    printf '\n\033[32mPASS\033[0m: ClickHouse holds exactly the %s expected orders (%s lines) after FINAL,\n' \
      "$(fmt "$EXPECTED_ORDERS")" "$(fmt "$EXPECTED_LINES")"
    printf '      and every offset was committed.\n\n'
  fi
else
  printf '\n\033[31mFAIL\033[0m: expected %s orders / %s lines and %s committed offsets; found %s.\n\n' \
    "$EXPECTED_ORDERS" "$EXPECTED_LINES" "$ORDERS" "${FOUND[*]}"
  exit 1
fi
