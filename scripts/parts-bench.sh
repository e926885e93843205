#!/usr/bin/env bash
# Inserts (new parts) per minute of the Boot sample-service at a steady input rate, with deterministic
# blocks (the ClickHouse sink's default) and without (--etl.sink.clickhouse.deterministic-blocks=false):
# the "parts explosion" check of crash replay without duplicates. A block holds one Kafka partition's
# rows for one shard, so at a low rate a lane inserts up to (its partitions with data) per shard per
# linger where merged batches insert one per shard per linger.
#
#   scripts/parts-bench.sh
#
# 1. starts the local servers if needed (scripts/infra.sh start all; stops only what it started),
# 2. builds sample-service if SAMPLE_JAR is missing, extracts it and compiles
#    scripts/lib/RestartBenchTool.java against it (its feeder),
# 3. PARTS_REPEATS rounds of (blocks, merged): a fresh database with the sample's orders table (ON
#    CLUSTER), a fresh topic (8 partitions) fed PARTS_FEED_RATE Avro orders per second, the sample
#    started on it; PARTS_WARMUP_S seconds after its first insert the successful inserts so far are read from its
#    /actuator/prometheus (etl_clickhouse_inserts_total), again PARTS_RUN_S seconds later, and the
#    difference is the inserts of that window; the active parts of every replica are counted at the
#    end (system.parts, after the background merges of the window),
# 4. prints one line per run and the medians per mode (also in <log dir>/results.txt), drops the
#    databases and topics, stops the servers it started.
#
# Environment:
#   PARTS_REPEATS      rounds of (blocks, merged) (default 2)
#   PARTS_FEED_RATE    orders per second (default 2000, ~5,000 rows/s)
#   PARTS_WARMUP_S     seconds after the first insert before the window opens (default 20)
#   PARTS_RUN_S        length of the measured window in seconds (default 60)
#   PARTS_SAMPLE_ARGS  extra command-line arguments of the sample for both modes (space-separated)
#   SAMPLE_JAR         default sample-service/target/sample-service.jar (built when missing with
#                      ./mvnw -q -pl sample-service -am package -DskipTests $PARTS_MVN_ARGS)
#   PARTS_MVN_ARGS     extra Maven arguments (e.g. -o)
#   PARTS_KEEP_INFRA=1 leave the servers this script started running
#   ETL_INFRA_DIR, ETL_*_PORT, ...  as for scripts/infra.sh
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
INFRA="$REPO_ROOT/scripts/infra.sh"
INFRA_DIR="${ETL_INFRA_DIR:-$REPO_ROOT/.infra}"
# shellcheck source-path=SCRIPTDIR source=lib/run-support.sh
source "$REPO_ROOT/scripts/lib/run-support.sh"
REPEATS="${PARTS_REPEATS:-2}"
FEED_RATE="${PARTS_FEED_RATE:-2000}"
WARMUP_S="${PARTS_WARMUP_S:-20}"
RUN_S="${PARTS_RUN_S:-60}"
read -ra SAMPLE_ARGS <<<"${PARTS_SAMPLE_ARGS:-}"
JAR="${SAMPLE_JAR:-$REPO_ROOT/sample-service/target/sample-service.jar}"
RUN_ID="$(date +%Y%m%d_%H%M%S)"
LOG_DIR="$INFRA_DIR/parts-bench/$RUN_ID"
RESULTS="$LOG_DIR/results.txt"

SAMPLE_PID=""
FEED_PID=""
DATABASES=()
TOPICS=()

kill_pid() { # pid signal: signal it if alive and reap it
  [[ -n "$1" ]] || return 0
  kill "-$2" "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup_data() {
  local db topic
  for db in "${DATABASES[@]}"; do
    ch "$(first "$SHARD1")" "DROP DATABASE IF EXISTS $db ON CLUSTER $CLUSTER" >>"$LOG_DIR/cleanup.log" 2>&1 \
      || info "dropping $db failed: see $LOG_DIR/cleanup.log"
  done
  for topic in "${TOPICS[@]}"; do
    timeout 60 java -cp "$(cat "$INFRA_DIR/kafka/classpath.txt")" org.apache.kafka.tools.TopicCommand \
      --bootstrap-server "$KAFKA" --delete --topic "$topic" >>"$LOG_DIR/cleanup.log" 2>&1 \
      || info "deleting topic $topic failed: see $LOG_DIR/cleanup.log"
  done
  DATABASES=()
  TOPICS=()
}
on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  ((rc == 0)) || report_failure "$rc"
  kill_pid "$SAMPLE_PID" TERM
  kill_pid "$FEED_PID" TERM
  [[ -z "${SHARD1:-}" ]] || cleanup_data
  ((${#STARTED_SERVERS[@]} == 0)) || stop_started_infra "${PARTS_KEEP_INFRA:-0}" PARTS_KEEP_INFRA benchmark
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$LOG_DIR"

now_ms() { local t="${EPOCHREALTIME/[.,]/}"; echo $((t / 1000)); }
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

step "checking prerequisites"
require_java17
command -v javac >/dev/null || fail "javac not found: a JDK (not only a JRE) is needed to compile the feeder"
[[ "$REPEATS" =~ ^[1-9][0-9]*$ && "$FEED_RATE" =~ ^[1-9][0-9]*$ && "$WARMUP_S" =~ ^[0-9]+$ && "$RUN_S" =~ ^[1-9][0-9]*$ ]] \
  || fail "PARTS_REPEATS, PARTS_FEED_RATE, PARTS_WARMUP_S and PARTS_RUN_S must be positive integers"
info "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); logs under $LOG_DIR"

step "starting the infrastructure if needed" "$LOG_DIR/infra.log"
start_infra
read_endpoints

if [[ ! -f "$JAR" ]]; then
  step "building sample-service (./mvnw -q -pl sample-service -am package -DskipTests)" "$LOG_DIR/build.log"
  # shellcheck disable=SC2086 # PARTS_MVN_ARGS is a list of arguments
  (cd "$REPO_ROOT" && ./mvnw -q -B -pl sample-service -am package -DskipTests ${PARTS_MVN_ARGS:-}) \
    >"$LOG_DIR/build.log" 2>&1 || fail "the build failed: see $LOG_DIR/build.log"
fi
[[ -f "$JAR" ]] || fail "no $JAR"
step "extracting $(basename "$JAR"), compiling scripts/lib/RestartBenchTool.java" "$LOG_DIR/extract.log"
java -Djarmode=tools -jar "$JAR" extract --destination "$LOG_DIR/app" >"$LOG_DIR/extract.log" 2>&1 \
  || fail "extract failed (see $LOG_DIR/extract.log)"
APP_JAR="$LOG_DIR/app/$(basename "$JAR")"
javac -nowarn -cp "$APP_JAR" -d "$LOG_DIR/tool" "$REPO_ROOT/scripts/lib/RestartBenchTool.java" >>"$LOG_DIR/extract.log" 2>&1 \
  || fail "compiling the feeder failed (see $LOG_DIR/extract.log)"
TOOL=(java -Xmx256m -XX:TieredStopAtLevel=1 -Dlogback.configurationFile=generator-logback.xml
  -cp "$LOG_DIR/tool:$APP_JAR" RestartBenchTool)
UNSET_ENV=()
for name in $(compgen -e); do [[ "$name" == ETL_* ]] && UNSET_ENV+=(-u "$name"); done

# Successful ClickHouse inserts of the orders sink so far (the sample's scrape), or "?".
inserts() {
  curl -sf --max-time 5 "http://127.0.0.1:$1/actuator/prometheus" 2>/dev/null \
    | awk '/^etl_clickhouse_inserts_total\{/ && /outcome="success"/ && !/sink="dead-letter"/ {s += $NF} END {printf "%.0f", s}' \
    || echo "?"
}

# run <round> <blocks|merged>
run() {
  local round="$1" mode="$2" id db topic group log port="" t before after parts url extra=()
  id="${RUN_ID}_${mode}_${round}"
  db="parts_$id"
  topic="parts-${id//_/-}"
  group="parts-${id//_/-}"
  log="$LOG_DIR/$mode-$round.log"
  [[ "$mode" == merged ]] && extra=(--etl.sink.clickhouse.deterministic-blocks=false)
  step "round $round: $mode (database $db, topic $topic)" "$log"
  DATABASES+=("$db")
  {
    ch "$(first "$SHARD1")" "CREATE DATABASE IF NOT EXISTS $db ON CLUSTER $CLUSTER"
    ch "$(first "$SHARD1")" "$(sed "s/\${DB}/$db/g; s/ON CLUSTER etl/ON CLUSTER $CLUSTER/" \
      "$REPO_ROOT/sample-service/src/main/resources/sql/orders.sql" | grep -v '^--')"
  } >>"$LOG_DIR/ddl.log" 2>&1 || fail "DDL failed: see $LOG_DIR/ddl.log"
  TOPICS+=("$topic")
  "${TOOL[@]}" feed --bootstrap "$KAFKA" --registry "$REGISTRY" --topic "$topic" --rate "$FEED_RATE" \
    >"$LOG_DIR/feed-$mode-$round.log" 2>&1 &
  FEED_PID=$!
  t=$(now_ms)
  until grep -q '^feeding' "$LOG_DIR/feed-$mode-$round.log" 2>/dev/null; do
    kill -0 "$FEED_PID" 2>/dev/null || fail "the feeder exited (see $LOG_DIR/feed-$mode-$round.log)"
    (($(now_ms) - t < 60000)) || fail "the feeder did not start within 60 s"
    sleep 0.2
  done
  for p in $(seq 18700 18800); do port_free "$p" && { port=$p; break; }; done
  [[ -n "$port" ]] || fail "no free port in 18700-18800"
  env "${UNSET_ENV[@]}" KAFKA_BOOTSTRAP="$KAFKA" REGISTRY_URL="$REGISTRY" ORDERS_TOPIC="$topic" KAFKA_GROUP_ID="$group" \
    CLICKHOUSE_DATABASE="$db" CLICKHOUSE_SHARD_1="$SHARD1" CLICKHOUSE_SHARD_2="$SHARD2" SERVER_PORT="$port" \
    java -Xmx512m -jar "$APP_JAR" "${SAMPLE_ARGS[@]}" "${extra[@]}" >"$log" 2>&1 &
  SAMPLE_PID=$!
  # Up and writing first (a loaded box may take 20 s and more to start the context), then the warm-up.
  t=$(now_ms)
  until [[ "$(inserts "$port")" =~ ^[1-9][0-9]*$ ]]; do
    kill -0 "$SAMPLE_PID" 2>/dev/null || fail "the sample exited (see $log)"
    (($(now_ms) - t < 180000)) || fail "the sample wrote nothing within 180 s (see $log)"
    sleep 0.5
  done
  sleep "$WARMUP_S"
  kill -0 "$SAMPLE_PID" 2>/dev/null || fail "the sample exited (see $log)"
  before="$(inserts "$port")"
  sleep "$RUN_S"
  kill -0 "$SAMPLE_PID" 2>/dev/null || fail "the sample exited (see $log)"
  after="$(inserts "$port")"
  [[ "$before" =~ ^[0-9]+$ && "$after" =~ ^[0-9]+$ ]] || fail "no inserts counter in the sample's scrape (port $port)"
  kill_pid "$SAMPLE_PID" TERM
  SAMPLE_PID=""
  kill_pid "$FEED_PID" TERM
  FEED_PID=""
  parts=0
  for url in ${SHARD1//,/ } ${SHARD2//,/ }; do
    parts=$((parts + $(ch "$url" "SELECT count() FROM system.parts WHERE database = '$db' AND table = 'orders' AND active")))
  done
  local per_min=$(((after - before) * 60 / RUN_S))
  info "$((after - before)) inserts in ${RUN_S}s: $per_min per minute (both shards), $((per_min / 2)) per shard; $parts active parts on the 4 replicas at the end"
  printf '%s\t%s\t%s\t%s\n' "$round" "$mode" "$per_min" "$parts" >>"$RESULTS.tsv"
  cleanup_data
}

: >"$RESULTS.tsv"
for round in $(seq 1 "$REPEATS"); do
  run "$round" blocks
  run "$round" merged
done

say "inserts per minute at $FEED_RATE orders/s (both shards; window ${RUN_S}s after ${WARMUP_S}s), load average $(cut -d' ' -f1-3 /proc/loadavg)"
{
  printf '| round | mode | inserts/min | active parts at the end (4 replicas) |\n|---|---|---:|---:|\n'
  awk -F'\t' '{printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4}' "$RESULTS.tsv"
  for mode in blocks merged; do
    mapfile -t v < <(awk -F'\t' -v m="$mode" '$2 == m {print $3}' "$RESULTS.tsv")
    mapfile -t p < <(awk -F'\t' -v m="$mode" '$2 == m {print $4}' "$RESULTS.tsv")
    printf '| median | %s | %s | %s |\n' "$mode" "$(median "${v[@]}")" "$(median "${p[@]}")"
  done
} | tee "$RESULTS"
