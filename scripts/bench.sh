#!/usr/bin/env bash
# End-to-end benchmark: the etl sample-service against a hand-written Spring Kafka + JDBC pipeline
# (dev.etl.bench.e2e.SpringKafkaJdbcBaseline), same orders, same servers, same invocation.
#
#   scripts/bench.sh
#
# 1. starts the local servers if needed (scripts/infra.sh start all; stops only what it started),
# 2. builds sample-service and etl-benchmarks (./mvnw -q -pl sample-service,etl-benchmarks -am package),
# 3. produces BENCH_ORDERS Avro orders ONCE into a new topic (8 partitions, half schema v1, half v2),
# 4. runs BENCH_REPEATS rounds of: baseline, then etl (so baseline, etl, baseline, etl, ...). Each run
#    has its own consumer group and its own database (the orders table of sample-service's
#    orders.sql, ON CLUSTER), the same thread count (BENCH_THREADS lanes / listener threads) and the
#    same heap; it is timed from process start until `SELECT count()` on the shards (per shard, the
#    replica that has more) reaches the expected rows, and from the first row seen to the last
#    (steady state, without JVM start),
#    then stopped with SIGTERM and checked: `count()` and `uniqExact(order_id)` after FINAL must be
#    exactly the expected lines and orders, on every replica,
#    Before each round's pipelines, the machine's limits on the same topic and cluster (BENCH_LIMITS=1,
#    the default): C0, plain KafkaConsumers reading the topic (BENCH_THREADS threads, no decoding);
#    C, the same decoding every value with Avro's stock GenericDatumReader; I, raw RowBinary inserts
#    of as many order-line rows as a run writes, BENCH_LIMIT_BATCH rows per POST, into a scratch
#    database (dev.etl.bench.limits.ConsumerLimit / InsertLimit). L = orders / (orders/C + rows/I) is
#    the rate a perfect pipeline built on Avro's reader would reach if consuming and inserting shared
#    the cores without overhead,
#    Every timed run and limit waits first (up to 60 s) for a quiet machine (less than 15 % of a core
#    busy for a second), so that no run pays for the tail of the one before,
# 5. prints the table (orders/s and rows/s per run, medians, ratio etl/baseline, the limits and every
#    pipeline as "× L"), each run's CPU (the servers' and the pipeline process's own: core-s, µs per row
#    and per order) and PASS or FAIL.
#
# Paths for user code, like for like (issue 34; BENCH_PATHS=1): one table, order_headers (one row per
# order that is not cancelled, with its line count, total quantity and total value; sample-service's
# sql/order_headers.sql), written by the sample's headers-* profiles, each a different way to write the
# same rows: headers-transcode (the transcoder with computed columns), headers-objects (the generated
# Order, a Java filter, a reused OrderHeaderRow and its encoder: the first-pipeline guide's object path),
# headers-generic (GenericRecords, a filter and a map into a new row, as the docs show a generic chain),
# headers-view (the record view, AvroView: a Java filter and the totals computed in Java over field handles,
# written by the transcoder's view encoder). OrderHeadersPathTest proves they write the same bytes for the
# same payloads. Those sides run against
# order_headers instead of orders: each run its own database, count() and uniqExact(order_id) after FINAL
# on every replica must both equal the non-cancelled orders the generator produced, and the insert limit
# I writes order_headers rows (as many as a run writes), so L is this table's. The rounds rotate the
# order of the sides (round r starts with the r-th), the table gets medians per side, ratios against
# headers-transcode, and each side's process CPU per order, start options the same for every side
# (heap, BENCH_ETL_CDS / BENCH_ETL_AOT per side).
#
# Environment:
#   BENCH_PRESET=10m          10M orders (BENCH_ORDERS 10000000), 1 round, BENCH_RUN_TIMEOUT_S 900, heap 2g
#                             (each still overridable)
#   BENCH_ORDERS              orders to produce (default 1000000)
#   BENCH_REPEATS             rounds of (baseline, etl) (default 2)
#   BENCH_THREADS             etl lanes = baseline listener threads (default 2)
#   BENCH_MAX_POLL_RECORDS    the baseline's max.poll.records, i.e. its insert batch (default 5000, as the
#                             etl Kafka source's default; 2000 makes the baseline ~2x slower)
#   BENCH_RUN_TIMEOUT_S       longest wait for one run to write all rows (default 240)
#   BENCH_POLL_S              row-count sampling period in seconds (default 0.2): the timing resolution
#   BENCH_HEAP                -Xmx of both pipelines (default 1g)
#   BENCH_ETL_ARGS            extra command-line arguments of the etl sample-service (space-separated),
#                             e.g. '--etl.source.kafka.properties[max.poll.records]=500'
#   BENCH_ETL_JAVA_OPTS       extra JVM options of the etl runs (space-separated), e.g. a flight recording:
#                             '-XX:StartFlightRecording=filename=/tmp/etl.jfr,settings=profile'
#   BENCH_SIDES               the pipelines of each round, in order (default "baseline etl"; the
#                             BENCH_COMPARE_* options append theirs), e.g. "etl" to profile etl alone.
#                             A side is baseline, etl, etl-objects, etl-merged, etl-native (table orders) or
#                             a headers-* profile of the sample (table order_headers); one invocation's
#                             sides write one table (the limits are that table's)
#   BENCH_PATHS=1             the paths for user code, like for like (above): BENCH_SIDES defaults to
#                             "headers-transcode headers-objects headers-generic headers-view",
#                             BENCH_REPEATS to 3,
#                             BENCH_ROTATE to 1
#   BENCH_ROTATE=1            round r runs the sides starting from the r-th (default 0: the same order
#                             every round; 1 with BENCH_PATHS=1), so that no side always runs first
#   BENCH_LIMITS=0            skip the limits (C0, C, I, L)
#   BENCH_LIMIT_BATCH         rows per POST of the insert limit (default 200000)
#   BENCH_LIMIT_REUSED=1      also run the insert limit as it was defined before 2026-12-04 (four bodies
#                             reused with insert_deduplicate=0: keys that the merges collapse), printed
#                             beside I for comparison; L always uses I (distinct rows, server defaults)
#   BENCH_ETL_PROFILE         Spring profile of the "etl" runs (default transcode: the sample's
#                             OrdersTranscodingConfiguration, Avro bytes straight to RowBinary rows;
#                             "default" runs the object path, OrdersChain)
#   BENCH_COMPARE_OBJECTS=1   each round also runs the sample's object path ("etl-objects": the default
#                             profile, AvroDeserializer + OrdersChain + RowBinaryEncoder) and the table
#                             gets the ratio etl / etl-objects
#   BENCH_COMPARE_MERGED=1    each round also runs the etl sample with deterministic blocks off
#                             (--etl.sink.clickhouse.deterministic-blocks=false, "etl-merged": rows of
#                             all partitions share batches) and the table gets the ratio etl / etl-merged
#   BENCH_COMPARE_NATIVE=1    each round also runs the etl sample with Native inserts
#                             (--etl.sink.clickhouse.format=native, "etl-native") and the table gets the
#                             ratio etl-native / etl (the sides can also be named in BENCH_SIDES)
#   BENCH_ETL_CDS=1           start the etl runs the way the Kubernetes guide recommends for a fast
#                             start: from the extracted jar (java -Djarmode=tools -jar … extract) with
#                             a class-data-sharing archive made by a training run (once per invocation
#                             and profile, before its first timed run, against that run's database;
#                             -XX:ArchiveClassesAtExit, -Dspring.context.exit=onRefresh)
#   BENCH_ETL_AOT=1           also Spring AOT, as the Kubernetes guide describes: the build runs the
#                             sample's aot profile once per Spring profile of the etl sides (process-aot
#                             with that profile active, since AOT freezes profile conditions at build
#                             time; sample-service/target is rebuilt from nothing each time) and keeps each
#                             jar as <infra dir>/bench/aot-jars/<profile>/sample-service.jar; every etl
#                             side and its CDS training start from its profile's jar with
#                             -Dspring.aot.enabled=true
#   BENCH_SKIP_BUILD=1        use the jars that are there (with BENCH_ETL_AOT=1: the aot-jars above)
#   BENCH_MVN_ARGS            extra Maven arguments for the build (e.g. -o)
#   BENCH_KEEP_INFRA=1        leave the servers this script started running
#   BENCH_KEEP_DATA=1         keep the run databases and the topic (default: dropped after checking)
#   ETL_INFRA_DIR, ETL_*_PORT, ...  as for scripts/infra.sh (endpoints are read from the file it writes)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
INFRA="$REPO_ROOT/scripts/infra.sh"
INFRA_DIR="${ETL_INFRA_DIR:-$REPO_ROOT/.infra}"
# shellcheck source-path=SCRIPTDIR source=lib/run-support.sh
source "$REPO_ROOT/scripts/lib/run-support.sh"
case "${BENCH_PRESET:-}" in
  "") ;;
  10m)
    : "${BENCH_ORDERS:=10000000}" "${BENCH_REPEATS:=1}" "${BENCH_RUN_TIMEOUT_S:=900}" "${BENCH_HEAP:=2g}"
    ;;
  *) echo "BENCH_PRESET must be 10m or unset, got '$BENCH_PRESET'" >&2; exit 2 ;;
esac
if [[ "${BENCH_PATHS:-0}" == 1 ]]; then
  : "${BENCH_SIDES:=headers-transcode headers-objects headers-generic headers-view}" "${BENCH_REPEATS:=3}" "${BENCH_ROTATE:=1}"
fi
ORDERS="${BENCH_ORDERS:-1000000}"
REPEATS="${BENCH_REPEATS:-2}"
THREADS="${BENCH_THREADS:-2}"
MAX_POLL_RECORDS="${BENCH_MAX_POLL_RECORDS:-5000}"
RUN_TIMEOUT_S="${BENCH_RUN_TIMEOUT_S:-240}"
POLL_S="${BENCH_POLL_S:-0.2}"
HEAP="${BENCH_HEAP:-1g}"
ETL_PROFILE="${BENCH_ETL_PROFILE:-transcode}"
RUN_ID="$(date +%Y%m%d_%H%M%S)"
TOPIC="bench-$RUN_ID"
LOG_DIR="$INFRA_DIR/bench/$RUN_ID"
SERVICE_JAR="$REPO_ROOT/sample-service/target/sample-service.jar"
BENCH_JAR="$REPO_ROOT/etl-benchmarks/target/benchmarks.jar"
AOT_JARS="$INFRA_DIR/bench/aot-jars"

# The sides of every round, in order, and the one table they all write.
# shellcheck disable=SC2206 # BENCH_SIDES is a list of words
SIDES=(${BENCH_SIDES:-baseline etl})
[[ "${BENCH_COMPARE_OBJECTS:-0}" == 1 ]] && SIDES+=(etl-objects)
[[ "${BENCH_COMPARE_MERGED:-0}" == 1 ]] && SIDES+=(etl-merged)
[[ "${BENCH_COMPARE_NATIVE:-0}" == 1 ]] && SIDES+=(etl-native)
side_table() { [[ "$1" == headers-* ]] && echo order_headers || echo orders; }
# The Spring profile an etl side runs with.
side_profile() {
  case "$1" in
    etl-objects) echo default ;;
    headers-*) echo "$1" ;;
    *) echo "$ETL_PROFILE" ;;
  esac
}
TABLE="$(side_table "${SIDES[0]}")"
SQL="$REPO_ROOT/sample-service/src/main/resources/sql/$TABLE.sql"

T0=$SECONDS
PIPELINE_PID=""
DATABASES=()         # run databases not dropped yet
TOPIC_CREATED=0

stop_pipeline() { # SIGTERM, then SIGKILL after 60 s; sets PIPELINE_EXIT
  PIPELINE_EXIT=""
  [[ -n "$PIPELINE_PID" ]] || return 0
  if kill -0 "$PIPELINE_PID" 2>/dev/null; then
    kill -TERM "$PIPELINE_PID" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$PIPELINE_PID" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$PIPELINE_PID" 2>/dev/null && kill -KILL "$PIPELINE_PID" 2>/dev/null
  fi
  PIPELINE_EXIT=0
  wait "$PIPELINE_PID" 2>/dev/null || PIPELINE_EXIT=$?
  PIPELINE_PID=""
}

stop_infra() { stop_started_infra "${BENCH_KEEP_INFRA:-0}" BENCH_KEEP_INFRA benchmark; }

cleanup_data() {
  [[ "${BENCH_KEEP_DATA:-0}" == 1 ]] && return 0
  local db
  for db in "${DATABASES[@]}"; do
    [[ -n "$db" ]] || continue
    ch "$(first "$SHARD1")" "DROP DATABASE IF EXISTS $db ON CLUSTER $CLUSTER" >>"$LOG_DIR/cleanup.log" 2>&1 \
      || info "dropping $db failed: see $LOG_DIR/cleanup.log"
  done
  DATABASES=()
  if ((TOPIC_CREATED)); then
    timeout 60 java -cp "$(cat "$INFRA_DIR/kafka/classpath.txt")" org.apache.kafka.tools.TopicCommand \
      --bootstrap-server "$KAFKA" --delete --topic "$TOPIC" >>"$LOG_DIR/cleanup.log" 2>&1 \
      || info "deleting topic $TOPIC failed: see $LOG_DIR/cleanup.log"
    TOPIC_CREATED=0
  fi
}

cleanup_data_db() { # drop one run database now (the rest are dropped at the end)
  local db="$1" kept=() d
  [[ "${BENCH_KEEP_DATA:-0}" == 1 ]] && return 0
  if ch "$(first "$SHARD1")" "DROP DATABASE IF EXISTS $db ON CLUSTER $CLUSTER" >>"$LOG_DIR/cleanup.log" 2>&1; then
    for d in "${DATABASES[@]}"; do [[ "$d" == "$db" ]] || kept+=("$d"); done
    DATABASES=("${kept[@]}")
  fi
}

on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if ((rc != 0)); then
    report_failure "$rc"
  fi
  [[ -n "$PIPELINE_PID" ]] && stop_pipeline
  if [[ -n "${SHARD1:-}" ]]; then
    cleanup_data
  fi
  if ((${#STARTED_SERVERS[@]} > 0)); then
    say "stopping the infrastructure"
    stop_infra
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
[[ "$ORDERS" =~ ^[0-9]+$ && "$REPEATS" =~ ^[1-9][0-9]*$ && "$THREADS" =~ ^[1-9][0-9]*$ ]] \
  || fail "BENCH_ORDERS, BENCH_REPEATS and BENCH_THREADS must be positive integers"
((${#SIDES[@]} > 0)) || fail "no sides to run (BENCH_SIDES is empty)"
for side in "${SIDES[@]}"; do
  case "$side" in
    baseline | etl | etl-objects | etl-merged | etl-native | headers-transcode | headers-objects | headers-generic | headers-view) ;;
    *) fail "unknown side '$side' in BENCH_SIDES" ;;
  esac
  [[ "$(side_table "$side")" == "$TABLE" ]] \
    || fail "BENCH_SIDES mixes sides of the orders table and of order_headers (${SIDES[*]}): run them in two invocations"
done
JAVA_VERSION="$(java -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.runtime.version/ {print $2}')"
CPUS="$(nproc)"
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
info "Java $JAVA_VERSION, $CPUS CPUs, load average $LOAD_BEFORE; logs under $LOG_DIR"

# ------------------------------------------------------------------ infrastructure ----
step "starting the infrastructure if needed (ZooKeeper, 4 ClickHouse, Kafka, schema registry)" "$LOG_DIR/infra.log"
start_infra
info "ready (endpoints: $INFRA_DIR/endpoints.properties)"

read_endpoints

# ------------------------------------------------------------------ build ----
# The Spring profiles of the etl sides, each once (an AOT jar each).
ETL_PROFILES=()
for side in "${SIDES[@]}"; do
  [[ "$side" == baseline ]] && continue
  p="$(side_profile "$side")"
  [[ " ${ETL_PROFILES[*]} " == *" $p "* ]] || ETL_PROFILES+=("$p")
done
# The jar an etl side starts from: its profile's AOT jar (BENCH_ETL_AOT=1), else the one built.
side_jar() {
  if [[ "${BENCH_ETL_AOT:-0}" == 1 ]]; then
    echo "$AOT_JARS/$(side_profile "$1")/sample-service.jar"
  else
    echo "$SERVICE_JAR"
  fi
}
if [[ "${BENCH_SKIP_BUILD:-0}" == 1 && -f "$SERVICE_JAR" && -f "$BENCH_JAR" ]]; then
  step "building: skipped (BENCH_SKIP_BUILD=1)"
elif [[ "${BENCH_ETL_AOT:-0}" == 1 && ${#ETL_PROFILES[@]} -gt 0 ]]; then
  # AOT freezes the profile's conditions at build time: one build per profile, each from nothing (the
  # generated classes of another profile must not survive in target/), its jar kept under $AOT_JARS.
  PL=sample-service,etl-benchmarks
  for p in "${ETL_PROFILES[@]}"; do
    step "building sample-service with Spring AOT for profile $p (./mvnw -q -pl $PL -am package -DskipTests -Paot)" \
      "$LOG_DIR/build-$p.log"
    t=$SECONDS
    rm -rf "$REPO_ROOT/sample-service/target"
    # shellcheck disable=SC2086 # BENCH_MVN_ARGS is a list of arguments
    (cd "$REPO_ROOT" && timeout 600 ./mvnw -q -B -pl "$PL" -am package -DskipTests -Paot \
      "-Dspring-boot.aot.jvmArguments=-Dspring.profiles.active=$p" ${BENCH_MVN_ARGS:-}) >"$LOG_DIR/build-$p.log" 2>&1 \
      || fail "the build failed: see $LOG_DIR/build-$p.log"
    mkdir -p "$AOT_JARS/$p"
    cp "$SERVICE_JAR" "$AOT_JARS/$p/sample-service.jar"
    info "built in $((SECONDS - t))s: $AOT_JARS/$p/sample-service.jar"
    PL=sample-service
  done
else
  step "building sample-service and etl-benchmarks (./mvnw -q -pl sample-service,etl-benchmarks -am package -DskipTests)" \
    "$LOG_DIR/build.log"
  # Spring Boot's repackage keeps a jar it finds already repackaged when the module's own classes did not
  # change, with the dependencies it had then: a changed engine would not reach the jar.
  rm -f "$REPO_ROOT/sample-service/target/sample-service.jar" "$REPO_ROOT/sample-service/target/sample-service.jar.original"
  t=$SECONDS
  # shellcheck disable=SC2086 # BENCH_MVN_ARGS is a list of arguments
  (cd "$REPO_ROOT" && timeout 600 ./mvnw -q -B -pl sample-service,etl-benchmarks -am package -DskipTests \
    ${BENCH_MVN_ARGS:-}) >"$LOG_DIR/build.log" 2>&1 || fail "the build failed: see $LOG_DIR/build.log"
  info "built in $((SECONDS - t))s"
fi
[[ -f "$SERVICE_JAR" ]] || fail "no $SERVICE_JAR"
[[ -f "$BENCH_JAR" ]] || fail "no $BENCH_JAR"
for side in "${SIDES[@]}"; do
  [[ "$side" == baseline || -f "$(side_jar "$side")" ]] || fail "no $(side_jar "$side") (BENCH_ETL_AOT=1 with BENCH_SKIP_BUILD=1)"
done

# ------------------------------------------------------------------ produce ----
step "producing $ORDERS orders to topic $TOPIC (8 partitions; half Avro schema v1, half v2)" "$LOG_DIR/generator.log"
t=$SECONDS
TOPIC_CREATED=1
timeout 600 java -Xmx1g -cp "$SERVICE_JAR" -Dloader.main=dev.etl.sample.OrderLoadGenerator \
  org.springframework.boot.loader.launch.PropertiesLauncher \
  --bootstrap "$KAFKA" --registry "$REGISTRY" --topic "$TOPIC" --orders "$ORDERS" \
  --totals-file "$LOG_DIR/totals.properties" >"$LOG_DIR/generator.log" 2>&1 \
  || fail "the load generator failed: see $LOG_DIR/generator.log"
total() { awk -F= -v k="$1" '$1 == k {print $2}' "$LOG_DIR/totals.properties"; }
EXPECTED_ORDERS="$(total expected.orders)"
EXPECTED_LINES="$(total expected.lines)"
CANCELLED="$(total produced.cancelled)"
info "produced in $((SECONDS - t))s: $CANCELLED cancelled (both pipelines drop them)"
if [[ "$TABLE" == order_headers ]]; then
  EXPECTED_ROWS="$EXPECTED_ORDERS"
  info "expected per run: $EXPECTED_ORDERS orders, $EXPECTED_ROWS rows of order_headers (one per order)"
else
  EXPECTED_ROWS="$EXPECTED_LINES"
  info "expected per run: $EXPECTED_ORDERS orders, $EXPECTED_ROWS rows (one per order line)"
fi

# ------------------------------------------------------------------ one run ----
now_ms() { local t="${EPOCHREALTIME/[.,]/}"; echo $((t / 1000)); }
CLK_TCK="$(getconf CLK_TCK)"
# The four ClickHouse servers' CPU so far (user + system, all threads), in clock ticks: sampled before
# and after each run and each insert limit, so that every run reports what the servers spent per row.
server_ticks() {
  local f pid sum=0 t
  for f in "$INFRA_DIR"/clickhouse/*/clickhouse.pid; do
    pid="$(cat "$f" 2>/dev/null)" || continue
    t="$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null)" || t=0
    sum=$((sum + ${t:-0}))
  done
  echo "$sum"
}
# Every timed run and limit starts on a quiet machine: the previous run's tail (a JVM exiting, the
# servers dropping its database, merges of the parts it left) would otherwise take CPU from the next
# one, and the order of the runs would decide part of the result. wait_quiet <what> waits (up to 60 s)
# until a whole second passes with the machine busy less than 15 % of one core (/proc/stat).
machine_busy_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
wait_quiet() {
  local what="$1" i a b busy=0
  for i in $(seq 1 60); do
    a="$(machine_busy_ticks)"
    sleep 1
    b="$(machine_busy_ticks)"
    busy=$((b - a))
    if ((busy * 100 < 15 * CLK_TCK)); then
      info "quiet before $what after ${i}s ($((busy * 100 / CLK_TCK)) % of a core busy)"
      return 0
    fi
  done
  info "not quiet before $what after 60s ($((busy * 100 / CLK_TCK)) % of a core busy): starting anyway"
}
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# The clock of a run is dev.etl.bench.e2e.RowCountWatch: one JVM, started before the pipeline, that
# samples count() on every replica every BENCH_POLL_S over kept-alive connections (a curl per replica
# every 0.2 s cost about a tenth of a core, taken from the pipeline under test). Per shard the replica
# with more rows counts: the baseline writes to each shard's first replica, the etl sink spreads its
# batches round-robin over both, so a shard counts as complete once one replica holds all of its rows,
# i.e. the etl's time includes replicating its last batches (the baseline's does not).
POLL_MS="$(awk -v s="$POLL_S" 'BEGIN {printf "%d", s * 1000}')"

# create_orders_db <db> <sql file>: the database and its table ($TABLE: orders.sql or order_headers.sql,
# ON CLUSTER), the DDL kept in <sql file>; the database is dropped at the end (DATABASES).
create_orders_db() {
  local db="$1" sql="$2"
  {
    ch "$(first "$SHARD1")" "CREATE DATABASE IF NOT EXISTS $db ON CLUSTER $CLUSTER"
    sed "s/\${DB}/$db/g; s/ON CLUSTER etl/ON CLUSTER $CLUSTER/" "$SQL" | grep -v '^--' >"$sql"
    ch "$(first "$SHARD1")" "$(cat "$sql")"
  } >>"$LOG_DIR/ddl.log" 2>&1 || fail "DDL for $db failed: see $LOG_DIR/ddl.log"
  DATABASES+=("$db")
}

RESULTS="$LOG_DIR/results.tsv" # round pipeline total_ms first_ms rows_at_first last_ms final_orders final_lines raw exit inserts server_ticks pipeline_ticks
: >"$RESULTS"
FAILURES=()

# The sample-service's environment and arguments for <side> into <db> as <group> (sets ETL_ENV, ETL_ARGS).
etl_command() {
  local side="$1" db="$2" group="$3" p
  ETL_HTTP_PORT=""
  for p in $(seq 18480 18580); do port_free "$p" && { ETL_HTTP_PORT=$p; break; }; done
  [[ -n "$ETL_HTTP_PORT" ]] || fail "no free HTTP port in 18480-18580 for sample-service"
  ETL_ENV=(KAFKA_BOOTSTRAP="$KAFKA" REGISTRY_URL="$REGISTRY" ORDERS_TOPIC="$TOPIC" KAFKA_GROUP_ID="$group"
    CLICKHOUSE_DATABASE="$db" CLICKHOUSE_SHARD_1="$SHARD1" CLICKHOUSE_SHARD_2="$SHARD2" SERVER_PORT="$ETL_HTTP_PORT"
    SERVER_ADDRESS=127.0.0.1 ETL_THREADS="$THREADS")
  # shellcheck disable=SC2206 # BENCH_ETL_ARGS is a list of arguments
  ETL_ARGS=(${BENCH_ETL_ARGS:-} --spring.profiles.active="$(side_profile "$side")")
  [[ "$side" == etl-merged ]] && ETL_ARGS+=(--etl.sink.clickhouse.deterministic-blocks=false)
  [[ "$side" == etl-native ]] && ETL_ARGS+=(--etl.sink.clickhouse.format=native)
  return 0
}

CDS_DIR="$LOG_DIR/cds"
# The JVM options of <side> for AOT: -Dspring.aot.enabled=true (BENCH_ETL_AOT=1; every side starts from
# the jar processed for its profile).
etl_aot() {
  [[ "${BENCH_ETL_AOT:-0}" == 1 ]] && echo "-Dspring.aot.enabled=true"
  return 0
}
# Where <side>'s jar is extracted for CDS: one directory per jar.
cds_app() { echo "$CDS_DIR/app-$([[ "${BENCH_ETL_AOT:-0}" == 1 ]] && side_profile "$1" || echo plain)"; }
# The launch of an etl run: the fat jar, or (BENCH_ETL_CDS=1) the extracted jar with <side>'s archive.
etl_launch() {
  if [[ "${BENCH_ETL_CDS:-0}" == 1 ]]; then
    echo "-XX:SharedArchiveFile=$CDS_DIR/$1.jsa -jar $(cds_app "$1")/$(basename "$SERVICE_JAR")"
  else
    echo "-jar $(side_jar "$1")"
  fi
}

# cds_archive <side> <db> <group>: extracts the jar (once) and makes <side>'s CDS archive (once) with a
# training run that refreshes the context against <db> and exits before the pipeline starts.
cds_archive() {
  local side="$1" training="$LOG_DIR/cds-training-$1.log" app jar
  [[ -f "$CDS_DIR/$side.jsa" ]] && return 0
  app="$(cds_app "$side")" jar="$(side_jar "$side")"
  if [[ ! -d "$app" ]]; then
    mkdir -p "$CDS_DIR"
    java -Djarmode=tools -jar "$jar" extract --destination "$app" >"$app.extract.log" 2>&1 \
      || fail "extracting $jar failed: see $app.extract.log"
  fi
  etl_command "$@"
  # shellcheck disable=SC2046 # the AOT option is zero or one word
  timeout 300 env "${ETL_ENV[@]}" java -Xmx"$HEAP" $(etl_aot "$side") -XX:ArchiveClassesAtExit="$CDS_DIR/$side.jsa" \
    -Dspring.context.exit=onRefresh -jar "$app/$(basename "$SERVICE_JAR")" "${ETL_ARGS[@]}" >"$training" 2>&1 \
    || fail "the CDS training run of $side failed: see $training"
  [[ -f "$CDS_DIR/$side.jsa" ]] || fail "the CDS training run of $side wrote no archive: see $training"
  info "CDS archive for $side: $(du -h "$CDS_DIR/$side.jsa" | cut -f1) (training run: $training)"
}

# start_etl <side> <db> <group> <log>: starts the sample-service in the background.
start_etl() {
  local side="$1" log="$4"
  etl_command "$1" "$2" "$3"
  http_port="$ETL_HTTP_PORT"
  # shellcheck disable=SC2086,SC2046 # the JVM options and the launch are lists of words
  env "${ETL_ENV[@]}" java -Xmx"$HEAP" ${BENCH_ETL_JAVA_OPTS:-} $(etl_aot "$side") $(etl_launch "$side") "${ETL_ARGS[@]}" >"$log" 2>&1 &
}

# run <round> <side>: one timed run into its own database and consumer group.
run() {
  local round="$1" side="$2"
  local db="bench_${RUN_ID}_${side//-/_}_${round}" group="bench-$RUN_ID-$side-$round"
  local log="$LOG_DIR/$side-$round.log" http_port="" start_ms first_ms="" rows_at_first=0 last_ms="" p

  step "round $round: $side (database $db, group $group)" "$log"
  create_orders_db "$db" "$LOG_DIR/orders-$side-$round.sql"
  for p in ${SHARD1//,/ } ${SHARD2//,/ }; do
    [[ "$(ch "$p" "SELECT count() FROM system.tables WHERE database = '$db' AND name = '$TABLE'" 2>>"$LOG_DIR/ddl.log")" == 1 ]] \
      || fail "table $db.$TABLE is missing on $p"
  done

  if [[ "$side" != baseline && "${BENCH_ETL_CDS:-0}" == 1 ]]; then
    cds_archive "$side" "$db" "$group"
  fi
  local ticks_start ticks_used="" pipeline_ticks="" watch_pid watch_rc=0 watch_out="$LOG_DIR/watch-$side-$round.txt"
  local start_file="$LOG_DIR/start-$side-$round.txt"
  rm -f "$start_file"
  java -Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$BENCH_JAR" dev.etl.bench.e2e.RowCountWatch \
    --shards "${SHARD1//,/|},${SHARD2//,/|}" --database "$db" --table "$TABLE" --expected "$EXPECTED_ROWS" \
    --start-file "$start_file" --poll-ms "$POLL_MS" --timeout-s "$RUN_TIMEOUT_S" >"$watch_out" 2>>"$log" &
  watch_pid=$!
  for _ in $(seq 1 300); do
    grep -q '^ready' "$watch_out" 2>/dev/null && break
    kill -0 "$watch_pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -q '^ready' "$watch_out" 2>/dev/null || fail "the row-count watcher did not start within 30 s: see $watch_out"
  wait_quiet "$side round $round"
  ticks_start="$(server_ticks)"
  start_ms=$(now_ms)
  if [[ "$side" == baseline ]]; then
    java -Xmx"$HEAP" -cp "$BENCH_JAR" dev.etl.bench.e2e.SpringKafkaJdbcBaseline \
      --bootstrap "$KAFKA" --registry "$REGISTRY" --topic "$TOPIC" --group "$group" --database "$db" \
      --shards "$(first "$SHARD1"),$(first "$SHARD2")" --threads "$THREADS" --max-poll-records "$MAX_POLL_RECORDS" \
      >"$log" 2>&1 &
  else
    start_etl "$side" "$db" "$group" "$log"
  fi
  PIPELINE_PID=$!
  echo "$start_ms $PIPELINE_PID" >"$start_file.tmp" && mv "$start_file.tmp" "$start_file"

  wait "$watch_pid" || watch_rc=$?
  case "$watch_rc" in
    0)
      ticks_used=$(($(server_ticks) - ticks_start))
      pipeline_ticks="$(awk '{print $14 + $15}' "/proc/$PIPELINE_PID/stat" 2>/dev/null)" || pipeline_ticks=""
      first_ms="$(sed -nE 's/^watch first_ms=(-?[0-9]+) .*/\1/p' "$watch_out")"
      rows_at_first="$(sed -nE 's/^watch .* rows_at_first=([0-9]+) .*/\1/p' "$watch_out")"
      last_ms="$(sed -nE 's/^watch .* last_ms=([0-9]+)$/\1/p' "$watch_out")"
      [[ -n "$first_ms" && -n "$last_ms" ]] || fail "the row-count watcher's result is unreadable: see $watch_out"
      ;;
    2) fail "the $side pipeline exited while loading (see $log)" ;;
    3) fail "$side did not write $EXPECTED_ROWS rows within ${RUN_TIMEOUT_S}s (BENCH_RUN_TIMEOUT_S): $(cat "$watch_out")" ;;
    *) fail "the row-count watcher failed (exit $watch_rc): see $watch_out and $log" ;;
  esac
  info "all $EXPECTED_ROWS rows after $((last_ms / 1000)).$(((last_ms % 1000) / 100))s" \
    "(first rows seen after $((first_ms / 1000)).$(((first_ms % 1000) / 100))s: $rows_at_first)"

  local inserts="n/a"
  if [[ "$side" != baseline ]]; then
    # The engine's own view of the run, for finding its bottleneck afterwards; and its inserts (parts
    # created: each successful insert is one part per replica before merges).
    curl -sf --max-time 5 "http://127.0.0.1:$http_port/actuator/prometheus" >"$LOG_DIR/$side-$round.prometheus.txt" \
      2>/dev/null || true
    inserts="$(awk '/^etl_clickhouse_inserts_total\{/ && /outcome="success"/ && !/sink="dead-letter"/ {s += $NF} END {printf "%.0f", s}' \
      "$LOG_DIR/$side-$round.prometheus.txt" 2>/dev/null)" || inserts="n/a"
  fi
  stop_pipeline
  case "$PIPELINE_EXIT" in
    0 | 143) info "stopped with SIGTERM (exit code $PIPELINE_EXIT)" ;;
    *) FAILURES+=("$side round $round exited with code $PIPELINE_EXIT on SIGTERM (see $log)") ;;
  esac
  if [[ "$side" == baseline ]]; then
    grep -h 'baseline totals' "$log" | sed -E 's/^.* - /    | /' || true
  fi

  # Exactly the expected rows after FINAL, on every replica (they must agree once replication caught
  # up): a faster run that loses (or invents) rows is a failure.
  local found_orders=0 found_lines=0 raw=0 a o l url shard replicas answers agree t
  for shard in "${SHARD_URLS[@]}"; do
    IFS=, read -ra replicas <<<"$shard"
    t=$SECONDS
    while :; do
      answers=()
      for url in "${replicas[@]}"; do
        a="$(ch "$url" "SELECT uniqExact(order_id), count() FROM $db.$TABLE FINAL" 2>>"$log")" \
          || fail "FINAL check on $url failed: see $log"
        answers+=("${a//$'\t'/ }")
      done
      agree=1
      for a in "${answers[@]}"; do [[ "$a" == "${answers[0]}" ]] || agree=0; done
      ((agree)) && break
      ((SECONDS - t < 60)) || { FAILURES+=("$side round $round: replicas of $shard disagree after 60 s: ${answers[*]}"); break; }
      sleep 1
    done
    read -r o l <<<"${answers[0]}"
    found_orders=$((found_orders + o))
    found_lines=$((found_lines + l))
    a="$(ch "${replicas[0]}" "SELECT count() FROM $db.$TABLE" 2>>"$log")" || fail "count on ${replicas[0]} failed: see $log"
    raw=$((raw + a))
  done
  if [[ "$found_orders" == "$EXPECTED_ORDERS" && "$found_lines" == "$EXPECTED_ROWS" ]]; then
    info "FINAL: $found_orders orders, $found_lines rows on every replica, as expected (raw rows $raw)"
  else
    FAILURES+=("$side round $round: FINAL holds $found_orders orders / $found_lines rows, expected $EXPECTED_ORDERS / $EXPECTED_ROWS")
    info "FINAL: $found_orders orders, $found_lines rows: WRONG (expected $EXPECTED_ORDERS / $EXPECTED_ROWS)"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$side" "$last_ms" "$first_ms" "$rows_at_first" \
    "$last_ms" "$found_orders" "$found_lines" "$raw" "$PIPELINE_EXIT" "$inserts" "$ticks_used" "$pipeline_ticks" >>"$RESULTS"

  cleanup_data_db "$db"
}

LIMITS="$LOG_DIR/limits.tsv" # round kind rate(records/s for consumers, rows/s for inserts) ms [server_ticks]
: >"$LIMITS"

# insert_limit <round> <kind> <distinct|reused> <db> <log>: one InsertLimit run into a new <db>, with the
# servers' CPU from its start until it has written every row (their merges go on afterwards, as after a
# pipeline's run, and are counted for neither).
insert_limit() {
  local round="$1" kind="$2" keys="$3" db="$4" log="$5" out ticks
  create_orders_db "$db" "$LOG_DIR/orders-limit-$kind-$round.sql"
  wait_quiet "the insert limit ($keys keys)"
  ticks="$(server_ticks)"
  out="$(timeout 900 java -Xmx"$HEAP" -cp "$BENCH_JAR" dev.etl.bench.limits.InsertLimit \
    --shards "$(first "$SHARD1"),$(first "$SHARD2")" --database "$db" --table "$TABLE" --rows "$EXPECTED_ROWS" \
    --batch "${BENCH_LIMIT_BATCH:-200000}" --threads "$THREADS" --keys "$keys" 2>>"$log" | grep '^insert-limit ')" \
    || fail "the insert limit ($keys keys) failed: see $log"
  ticks=$(($(server_ticks) - ticks))
  echo "$out" >>"$log"
  printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$kind" "$(sed -E 's/.*rows_per_s=([0-9]+).*/\1/' <<<"$out")" \
    "$(sed -E 's/.* ms=([0-9]+).*/\1/' <<<"$out")" "$ticks" >>"$LIMITS"
  info "$out; servers' CPU $(awk -v t="$ticks" -v h="$CLK_TCK" 'BEGIN {printf "%.1f", t / h}') core-s"
  cleanup_data_db "$db"
}

# limits <round>: C0, C and I on the same topic and cluster, one after the other (nothing else runs).
limits() {
  local round="$1" kind out db="bench_${RUN_ID}_limit_${round}" log="$LOG_DIR/limits-$round.log"
  step "round $round: machine limits (plain consumer raw and with GenericDatumReader; raw RowBinary inserts)" "$log"
  for kind in none generic; do
    wait_quiet "the consumer limit ($kind)"
    out="$(timeout 900 java -Xmx"$HEAP" -cp "$BENCH_JAR" dev.etl.bench.limits.ConsumerLimit --bootstrap "$KAFKA" \
      --topic "$TOPIC" --threads "$THREADS" --decode "$kind" --registry "$REGISTRY" \
      --max-poll-records "$MAX_POLL_RECORDS" 2>>"$log" | grep '^consumer-limit ')" || fail "the consumer limit ($kind) failed: see $log"
    echo "$out" >>"$log"
    printf '%s\tconsumer-%s\t%s\t%s\n' "$round" "$kind" "$(sed -E 's/.*records_per_s=([0-9]+).*/\1/' <<<"$out")" \
      "$(sed -E 's/.* ms=([0-9]+).*/\1/' <<<"$out")" >>"$LIMITS"
    info "$out"
  done
  insert_limit "$round" insert distinct "$db" "$log"
  if [[ "${BENCH_LIMIT_REUSED:-0}" == 1 ]]; then
    insert_limit "$round" insert-reused reused "${db}_reused" "$log"
  fi
}


for round in $(seq 1 "$REPEATS"); do
  if [[ "${BENCH_LIMITS:-1}" == 1 ]]; then
    limits "$round"
  fi
  first=0
  [[ "${BENCH_ROTATE:-0}" == 1 ]] && first=$(((round - 1) % ${#SIDES[@]}))
  for i in $(seq 0 $((${#SIDES[@]} - 1))); do
    run "$round" "${SIDES[$(((first + i) % ${#SIDES[@]}))]}"
  done
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
cleanup_data

# ------------------------------------------------------------------ table ----
STEP="summary"
echo
say "results: $ORDERS orders ($EXPECTED_ROWS rows of $TABLE) per run, sides ${SIDES[*]}$([[ "${BENCH_ROTATE:-0}" == 1 ]] && echo " (rotated each round)"), $THREADS threads each, -Xmx$HEAP, baseline max.poll.records $MAX_POLL_RECORDS, etl profile $ETL_PROFILE$([[ "${BENCH_ETL_CDS:-0}" == 1 ]] && echo ", etl started from the extracted jar with a CDS archive")$([[ "${BENCH_ETL_AOT:-0}" == 1 ]] && echo ", with Spring AOT")"
info "total = from process start until all rows are in ClickHouse; steady = from the first row seen to the last"
info "(rows sampled every ${POLL_S}s); Java $JAVA_VERSION, $CPUS CPUs, load average $LOAD_BEFORE before, $LOAD_AFTER after"
# Medians of the limits: C0, C (records/s), I (rows/s), and L in orders/s.
median_of() { awk -F'\t' -v k="$1" '$2 == k {print $3}' "$LIMITS" | sort -n | awk '{a[NR] = $1} END {
  if (NR == 0) print ""; else if (NR % 2) print a[(NR + 1) / 2]; else printf "%.0f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
C0="$(median_of consumer-none)"; C="$(median_of consumer-generic)"; I="$(median_of insert)"
L=""
if [[ -n "$C" && -n "$I" && "$C" != 0 && "$I" != 0 ]]; then
  L="$(awk -v n="$ORDERS" -v r="$EXPECTED_ROWS" -v c="$C" -v i="$I" 'BEGIN {printf "%.0f", n / (n / c + r / i)}')"
  info "limits (medians of $REPEATS): C0 $C0 records/s, C $C records/s, I $I rows/s (${BENCH_LIMIT_BATCH:-200000} rows/POST);"
  info "L = orders / (orders/C + rows/I) = $L orders/s"
fi
echo
awk -F'\t' -v orders="$ORDERS" -v lines="$EXPECTED_ROWS" -v eo="$EXPECTED_ORDERS" -v side_list="${SIDES[*]}" \
  -v lim_c0="$C0" -v lim_c="$C" -v lim_i="$I" -v lim_l="$L" -v lim_batch="${BENCH_LIMIT_BATCH:-200000}" '
  function fmt(x,   s) { x = sprintf("%.0f", x); s = ""; while (length(x) > 3) { s = "," substr(x, length(x) - 2) s; x = substr(x, 1, length(x) - 3) }; return x s }
  function median(arr, n,   i, j, t, s) {
    for (i = 1; i <= n; i++) s[i] = arr[i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
    return n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
  }
  # The row "a / b" of the medians (total, steady and, with inserts=1, the inserts), when both ran.
  function ratio(a, b, inserts,   steady, ins) {
    if (!n[a] || !n[b]) return
    steady = "n/a | n/a"
    if (ns[a] && ns[b]) steady = sprintf("**%.2f×** | **%.2f×**", mso[a] / mso[b], msr[a] / msr[b])
    ins = (inserts && ni[a] && ni[b] && mi[b] > 0) ? sprintf("**%.2f×**", mi[a] / mi[b]) : ""
    printf "| **ratio** | **%s / %s** | | **%.2f×** | **%.2f×** | | %s | %s | |\n", a, b, mo[a] / mo[b], mr[a] / mr[b], steady, ins
  }
  {
    side = $2; total_s = $3 / 1000; steady_s = ($6 - $4) / 1000
    ok = ($7 == eo && $8 == lines) ? "yes" : "NO"
    to = orders / total_s; tr = lines / total_s
    # Steady state: the rows written between the first sample that saw rows and the last one.
    # Undefined when the window is under 1 s (a few samples; e.g. a small run written in one insert
    # per shard): its rate would be mostly sampling error.
    n[side]++; TO[side, n[side]] = to; TR[side, n[side]] = tr
    if (steady_s >= 1 && $5 < lines) {
      sr = (lines - $5) / steady_s; so = sr * orders / lines
      ns[side]++; SO[side, ns[side]] = so; SR[side, ns[side]] = sr
      steady = sprintf("%.1f | %s | %s", steady_s, fmt(so), fmt(sr))
    } else {
      steady = "n/a | n/a | n/a"
    }
    rows[NR] = sprintf("| %s | %s | %.1f | %s | %s | %s | %s | %s |", $1, side, total_s, fmt(to), fmt(tr), steady, $11, ok)
    if ($11 != "n/a" && $11 != "") { ni[side]++; IN[side, ni[side]] = $11 }
  }
  END {
    print "| round | pipeline | total s | orders/s | rows/s | steady s | steady orders/s | steady rows/s | inserts | exact rows after FINAL |"
    print "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
    for (i = 1; i <= NR; i++) print rows[i]
    nsides = split(side_list, sides, " ")
    for (s = 1; s <= nsides; s++) {
      side = sides[s]
      if (!n[side]) continue
      for (i = 1; i <= n[side]; i++) { a[i] = TO[side, i]; b[i] = TR[side, i] }
      for (i = 1; i <= ns[side]; i++) { c[i] = SO[side, i]; d[i] = SR[side, i] }
      mo[side] = median(a, n[side]); mr[side] = median(b, n[side])
      steady = "n/a | n/a"
      if (ns[side]) {
        mso[side] = median(c, ns[side]); msr[side] = median(d, ns[side])
        steady = fmt(mso[side]) " | " fmt(msr[side])
      }
      ins = ""
      if (ni[side]) { for (i = 1; i <= ni[side]; i++) e[i] = IN[side, i]; mi[side] = median(e, ni[side]); ins = fmt(mi[side]) }
      printf "| median | %s | | %s | %s | | %s | %s | |\n", side, fmt(mo[side]), fmt(mr[side]), steady, ins
    }
    ratio("etl", "baseline", 0)
    ratio("etl", "etl-objects", 0)
    ratio("etl", "etl-merged", 1)
    ratio("etl-native", "etl", 1)
    for (s = 1; s <= nsides; s++) if (sides[s] ~ /^headers-/ && sides[s] != "headers-transcode") ratio(sides[s], "headers-transcode", 0)
    if (lim_l != "") {
      printf "| limit | C0: plain consumer, no decoding | | %s | | | %s | | | |\n", fmt(lim_c0), fmt(lim_c0)
      printf "| limit | C: plain consumer + GenericDatumReader | | %s | | | %s | | | |\n", fmt(lim_c), fmt(lim_c)
      printf "| limit | I: raw RowBinary inserts, %s rows/POST | | %s | %s | | %s | %s | | |\n", fmt(lim_batch),
        fmt(lim_i * orders / lines), fmt(lim_i), fmt(lim_i * orders / lines), fmt(lim_i)
      printf "| limit | **L = 1 / (1/C + 1/I)** | | **%s** | %s | | **%s** | %s | | |\n", fmt(lim_l),
        fmt(lim_l * lines / orders), fmt(lim_l), fmt(lim_l * lines / orders)
      for (k = 1; k <= nsides; k++) {
        side = sides[k]
        if (!n[side]) continue
        # Three places: the thresholds of issue 15 (0.9×, 1.0×) must not be met by rounding.
        steady = ns[side] ? sprintf("**%.3f×**", mso[side] / lim_l) : "n/a"
        printf "| **ratio** | **%s / L** | | **%.3f×** | | | %s | | | |\n", side, mo[side] / lim_l, steady
      }
    }
  }' "$RESULTS" | tee "$LOG_DIR/results.md"
echo
# What the four ClickHouse servers spent (user + system CPU of their processes, all threads) while each
# run or insert limit wrote its rows: the pipelines' inserts against the raw ones of I; and each
# pipeline process's own CPU (user + system of the JVM, /proc/<pid>/stat) from its start (JVM and context
# start included) until all rows were in, per order.
{
  echo "| what wrote the rows | servers' CPU, core-s | per row, µs | the pipeline's own CPU, core-s | pipeline µs per order | rows/s |"
  echo "|---|---:|---:|---:|---:|---:|"
  awk -F'\t' -v h="$CLK_TCK" -v lines="$EXPECTED_ROWS" '$5 != "" && $2 ~ /^insert/ {
    name = $2 == "insert" ? "I (distinct rows, server defaults)" : "I as before 2026-12-04 (reused keys, insert_deduplicate=0)"
    printf "| round %s: %s | %.1f | %.2f | | | %s |\n", $1, name, $5 / h, $5 / h / lines * 1e6, $3 }' "$LIMITS"
  awk -F'\t' -v h="$CLK_TCK" -v lines="$EXPECTED_ROWS" -v orders="$ORDERS" '$12 != "" {
    own = $13 != "" ? sprintf("%.1f", $13 / h) : "n/a"
    per = $13 != "" ? sprintf("%.2f", $13 / h / orders * 1e6) : "n/a"
    printf "| round %s: %s | %.1f | %.2f | %s | %s | %.0f |\n", $1, $2, $12 / h, $12 / h / lines * 1e6, own, per, lines / ($3 / 1000) }' "$RESULTS"
} | tee -a "$LOG_DIR/results.md"
echo
# Per side, the medians over the rounds: speed from process start, its ratio to the reference side
# (headers-transcode, else etl, else the first), and where the CPU went: the pipeline process's own per
# order (consumer, decoding, user code, encoding, JIT, GC, Spring) and the servers' per row.
REF_SIDE="${SIDES[0]}"
for side in etl headers-transcode; do [[ " ${SIDES[*]} " == *" $side "* ]] && REF_SIDE="$side"; done
awk -F'\t' -v h="$CLK_TCK" -v lines="$EXPECTED_ROWS" -v orders="$ORDERS" -v side_list="${SIDES[*]}" -v ref="$REF_SIDE" '
  function median(arr, n,   i, j, t, s) {
    for (i = 1; i <= n; i++) s[i] = arr[i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
    return n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
  }
  function fmt(x,   s) { x = sprintf("%.0f", x); s = ""; while (length(x) > 3) { s = "," substr(x, length(x) - 2) s; x = substr(x, 1, length(x) - 3) }; return x s }
  {
    n[$2]++; R[$2, n[$2]] = orders / ($3 / 1000)
    if ($13 != "") { np[$2]++; P[$2, np[$2]] = $13 / h }
    if ($12 != "") { nv[$2]++; V[$2, nv[$2]] = $12 / h }
  }
  END {
    print "| side (medians of the rounds) | orders/s from start | × " ref " | pipeline CPU, core-s | pipeline µs per order | × " ref " | servers CPU, core-s | servers µs per row |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|"
    k = split(side_list, sides, " ")
    for (x = 1; x <= k; x++) {
      side = sides[x]
      if (!n[side]) continue
      for (i = 1; i <= n[side]; i++) a[i] = R[side, i]
      rate[side] = median(a, n[side])
      cpu[side] = ""
      if (np[side]) { for (i = 1; i <= np[side]; i++) a[i] = P[side, i]; cpu[side] = median(a, np[side]) }
    }
    for (x = 1; x <= k; x++) {
      side = sides[x]
      if (!n[side]) continue
      srv = "n/a | n/a"
      if (nv[side]) { for (i = 1; i <= nv[side]; i++) a[i] = V[side, i]; v = median(a, nv[side]); srv = sprintf("%.1f | %.2f", v, v / lines * 1e6) }
      own = "n/a | n/a | n/a"
      if (cpu[side] != "") own = sprintf("%.1f | %.2f | %s", cpu[side], cpu[side] / orders * 1e6,
        cpu[ref] != "" && cpu[ref] > 0 ? sprintf("%.2f×", cpu[side] / cpu[ref]) : "n/a")
      printf "| %s | %s | **%.2f×** | %s | %s |\n", side, fmt(rate[side]), rate[side] / rate[ref], own, srv
    }
  }' "$RESULTS" | tee -a "$LOG_DIR/results.md"
reused="$(awk -F'\t' '$2 == "insert-reused" {print $3}' "$LIMITS" | sort -n | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]}')"
[[ -n "$reused" ]] && info "I as defined before 2026-12-04 (reused keys): $reused rows/s (not used for L)"
echo
info "logs, per-run output and the etl runs' Prometheus scrapes: $LOG_DIR"
info "wall time $((SECONDS - T0))s"
if ((${#FAILURES[@]} > 0)); then
  printf '\n\033[31mFAIL\033[0m:\n' >&2
  for f in "${FAILURES[@]}"; do printf '    %s\n' "$f" >&2; done
  exit 1
fi
printf '\n\033[32mPASS\033[0m: every run wrote exactly %s orders / %s rows of %s (after FINAL).\n\n' "$EXPECTED_ORDERS" "$EXPECTED_ROWS" "$TABLE"
