#!/usr/bin/env bash
# Freshness benchmark: how long after it was produced an order is visible on a ClickHouse replica,
# at a steady rate, with the sample-service's default settings (issue 34 item 5).
#
#   scripts/freshness-bench.sh
#
# 1. starts the local servers if one is down (scripts/infra.sh start all; stops only what it started),
# 2. builds sample-service and etl-benchmarks (./mvnw -q -pl sample-service,etl-benchmarks -am package),
# 3. per round (FRESH_REPEATS): a new topic (8 partitions) and database (sample-service's orders.sql, ON
#    CLUSTER), then the sample-service exactly as shipped (its application.yaml; the default profile,
#    i.e. the object path: AvroDeserializer + OrdersChain + RowBinaryEncoder; FRESH_PROFILE=transcode for
#    the transcoder), FRESH_ETL_ARGS appended; once it is ready (/actuator/health/readiness UP),
#    first, with no input yet, the service's CPU per thread group over FRESH_IDLE_S (what an idle pipeline
#    costs: io threads, lanes, Kafka's clients, the JVM), then
#    dev.etl.bench.e2e.FreshnessBench produces orders at FRESH_RATE per second (open loop, the send time in
#    updated_ms and in the bench's memory), FRESH_WARMUP_S uncounted then FRESH_DURATION_S measured, and
#    polls every replica every FRESH_POLL_MS for the orders that became visible; it prints p50/p90/p99/
#    p99.9/max of "visible" (first replica of the order's shard), "replicated" (both replicas) and
#    their difference, then the pipeline's own meters over the measured window (from
#    /actuator/prometheus: insert and write durations, polls, records, blocks, commits),
# 4. stops the service with SIGTERM, drops the database and the topic, and prints a summary table.
#
# Environment:
#   FRESH_RATE          orders per second (default 5000)
#   FRESH_WARMUP_S      seconds produced before the measurement (default 15)
#   FRESH_DURATION_S    seconds measured (default 60)
#   FRESH_POLL_MS       replica polling period (default 100): latencies are late by up to this
#   FRESH_REPEATS       rounds (default 2)
#   FRESH_IDLE_S        seconds of the idle measurement before producing, after 10 s to settle (default 20;
#                       0: none)
#   FRESH_PROFILE       Spring profile of the sample-service (default: default, the object path)
#   FRESH_ETL_ARGS      extra command-line arguments of the sample-service (space-separated), e.g.
#                       '--etl.sink.clickhouse.batch.linger=500ms'
#   FRESH_HEAP          -Xmx of the sample-service (default 1g)
#   FRESH_SERVICE_JAR   the sample-service jar to run (default sample-service/target/sample-service.jar),
#                       e.g. a copy of an earlier build for a before/after comparison
#   FRESH_SKIP_BUILD=1  use the jars that are there
#   FRESH_MVN_ARGS      extra Maven arguments for the build (e.g. -o)
#   FRESH_KEEP_INFRA=1  leave the servers this script started running
#   ETL_INFRA_DIR, ...  as for scripts/infra.sh (endpoints are read from the file it writes)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
INFRA="$REPO_ROOT/scripts/infra.sh"
INFRA_DIR="${ETL_INFRA_DIR:-$REPO_ROOT/.infra}"
# shellcheck source-path=SCRIPTDIR source=lib/run-support.sh
source "$REPO_ROOT/scripts/lib/run-support.sh"
RATE="${FRESH_RATE:-5000}"
WARMUP_S="${FRESH_WARMUP_S:-15}"
DURATION_S="${FRESH_DURATION_S:-60}"
POLL_MS="${FRESH_POLL_MS:-100}"
REPEATS="${FRESH_REPEATS:-2}"
IDLE_S="${FRESH_IDLE_S:-20}"
PROFILE="${FRESH_PROFILE:-default}"
HEAP="${FRESH_HEAP:-1g}"
RUN_ID="$(date +%Y%m%d_%H%M%S)"
LOG_DIR="$INFRA_DIR/freshness/$RUN_ID"
SERVICE_JAR="${FRESH_SERVICE_JAR:-$REPO_ROOT/sample-service/target/sample-service.jar}"
BENCH_JAR="$REPO_ROOT/etl-benchmarks/target/benchmarks.jar"
SQL="$REPO_ROOT/sample-service/src/main/resources/sql/orders.sql"
SCHEMA="$REPO_ROOT/sample-service/src/main/avro/Order.avsc"

T0=$SECONDS
PIPELINE_PID=""
DB=""
TOPIC=""

stop_pipeline() { # SIGTERM, then SIGKILL after 60 s
  [[ -n "$PIPELINE_PID" ]] || return 0
  if kill -0 "$PIPELINE_PID" 2>/dev/null; then
    kill -TERM "$PIPELINE_PID" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$PIPELINE_PID" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$PIPELINE_PID" 2>/dev/null && kill -KILL "$PIPELINE_PID" 2>/dev/null
  fi
  wait "$PIPELINE_PID" 2>/dev/null || true
  PIPELINE_PID=""
}

drop_round_data() { # the round's database and topic
  if [[ -n "$DB" ]]; then
    ch "$(first "$SHARD1")" "DROP DATABASE IF EXISTS $DB ON CLUSTER $CLUSTER" >>"$LOG_DIR/cleanup.log" 2>&1 \
      || info "dropping $DB failed: see $LOG_DIR/cleanup.log"
    DB=""
  fi
  if [[ -n "$TOPIC" ]]; then
    timeout 60 java -cp "$(cat "$INFRA_DIR/kafka/classpath.txt")" org.apache.kafka.tools.TopicCommand \
      --bootstrap-server "$KAFKA" --delete --topic "$TOPIC" >>"$LOG_DIR/cleanup.log" 2>&1 \
      || info "deleting topic $TOPIC failed: see $LOG_DIR/cleanup.log"
    TOPIC=""
  fi
}

on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  ((rc == 0)) || report_failure "$rc"
  stop_pipeline
  [[ -n "${SHARD1:-}" ]] && drop_round_data
  if ((${#STARTED_SERVERS[@]} > 0)); then
    say "stopping the infrastructure"
    stop_started_infra "${FRESH_KEEP_INFRA:-0}" FRESH_KEEP_INFRA benchmark
  fi
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$LOG_DIR"

step "checking prerequisites"
require_java17
[[ "$RATE" =~ ^[1-9][0-9]*$ && "$REPEATS" =~ ^[1-9][0-9]*$ && "$DURATION_S" =~ ^[1-9][0-9]*$ ]] \
  || fail "FRESH_RATE, FRESH_REPEATS and FRESH_DURATION_S must be positive integers"
info "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); logs under $LOG_DIR"

step "starting the infrastructure if needed" "$LOG_DIR/infra.log"
# The local servers may be shared with other runs: infra.sh start only when one of them is down.
if ETL_INFRA_DIR="$INFRA_DIR" "$INFRA" status >"$LOG_DIR/infra-before.txt" 2>&1 \
    && awk '$2 != "up" {bad = 1} END {exit bad || NR == 0}' "$LOG_DIR/infra-before.txt"; then
  info "every server is running: left as it is"
else
  start_infra
fi
read_endpoints

if [[ "${FRESH_SKIP_BUILD:-0}" == 1 && -f "$SERVICE_JAR" && -f "$BENCH_JAR" ]]; then
  step "building: skipped (FRESH_SKIP_BUILD=1)"
else
  step "building sample-service and etl-benchmarks" "$LOG_DIR/build.log"
  # Spring Boot's repackage keeps a jar it finds already repackaged when the module's own classes did not
  # change, with the dependencies it had then: a changed engine would not reach the jar.
  rm -f "$REPO_ROOT/sample-service/target/sample-service.jar" "$REPO_ROOT/sample-service/target/sample-service.jar.original"
  # shellcheck disable=SC2086 # FRESH_MVN_ARGS is a list of arguments
  (cd "$REPO_ROOT" && timeout 900 ./mvnw -q -B -pl sample-service,etl-benchmarks -am package -DskipTests \
    ${FRESH_MVN_ARGS:-}) >"$LOG_DIR/build.log" 2>&1 || fail "the build failed: see $LOG_DIR/build.log"
fi
[[ -f "$SERVICE_JAR" && -f "$BENCH_JAR" ]] || fail "no $SERVICE_JAR or $BENCH_JAR"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# CPU time of each thread of process $1 (/proc, clock ticks), "tid ticks name" per line
thread_ticks() {
  local t
  for t in /proc/"$1"/task/*; do
    printf '%s %s %s\n' "${t##*/}" "$(awk '{sub(/.*\) /, ""); print $12 + $13}' "$t/stat" 2>/dev/null || echo 0)" \
      "$(tr ' ' '_' <"$t/comm" 2>/dev/null || echo gone)"
  done | sort
}

# The service's CPU over $2 seconds with no input, by thread group, as "% of a core" (one line, also in $3)
idle_cpu() {
  local pid="$1" secs="$2" out="$3" before after
  before="$(thread_ticks "$pid")"
  sleep "$secs"
  after="$(thread_ticks "$pid")"
  join <(echo "$before") <(echo "$after") | awk -v secs="$secs" -v hz="$(getconf CLK_TCK)" '
    { d = $4 - $2; if (d < 0) next; n = $3
      g = "other"
      if (n ~ /^etl-io/) g = "etl-io"; else if (n ~ /^etl-lane/) g = "etl-lane"
      else if (n ~ /^kafka|^consumer|^producer/) g = "kafka"; else if (n ~ /^C[12]_/) g = "jit"
      else if (n ~ /^G1|^GC/) g = "gc"
      cpu[g] += d; threads[g]++; total += d }
    END {
      printf "idle CPU, %% of a core over %d s:", secs
      for (g in cpu) printf " %s %.2f (%d threads);", g, 100 * cpu[g] / hz / secs, threads[g]
      printf " total %.2f\n", 100 * total / hz / secs
    }' | tee "$out"
}
SUMMARY="$LOG_DIR/summary.tsv"
: >"$SUMMARY"

round() {
  local n="$1" log="$LOG_DIR/service-$1.log" out="$LOG_DIR/freshness-$1.txt" port="" p rc=0
  TOPIC="fresh-$RUN_ID-$n"
  DB="fresh_${RUN_ID}_$n"
  step "round $n: topic $TOPIC, database $DB, sample-service (profile $PROFILE) ${FRESH_ETL_ARGS:-}" "$log"
  timeout 60 java -cp "$(cat "$INFRA_DIR/kafka/classpath.txt")" org.apache.kafka.tools.TopicCommand \
    --bootstrap-server "$KAFKA" --create --topic "$TOPIC" --partitions 8 --replication-factor 1 \
    >>"$LOG_DIR/ddl.log" 2>&1 || fail "creating topic $TOPIC failed: see $LOG_DIR/ddl.log"
  {
    ch "$(first "$SHARD1")" "CREATE DATABASE IF NOT EXISTS $DB ON CLUSTER $CLUSTER"
    ch "$(first "$SHARD1")" "$(sed "s/\${DB}/$DB/g; s/ON CLUSTER etl/ON CLUSTER $CLUSTER/" "$SQL" | grep -v '^--')"
  } >>"$LOG_DIR/ddl.log" 2>&1 || fail "DDL for $DB failed: see $LOG_DIR/ddl.log"

  for p in $(seq 18590 18690); do port_free "$p" && { port=$p; break; }; done
  [[ -n "$port" ]] || fail "no free HTTP port in 18590-18690 for sample-service"
  # shellcheck disable=SC2086 # FRESH_ETL_ARGS is a list of arguments
  env KAFKA_BOOTSTRAP="$KAFKA" REGISTRY_URL="$REGISTRY" ORDERS_TOPIC="$TOPIC" KAFKA_GROUP_ID="fresh-$RUN_ID-$n" \
    CLICKHOUSE_DATABASE="$DB" CLICKHOUSE_SHARD_1="$SHARD1" CLICKHOUSE_SHARD_2="$SHARD2" SERVER_PORT="$port" \
    SERVER_ADDRESS=127.0.0.1 \
    java -Xmx"$HEAP" -jar "$SERVICE_JAR" --spring.profiles.active="$PROFILE" ${FRESH_ETL_ARGS:-} >"$log" 2>&1 &
  PIPELINE_PID=$!
  local ready=0
  for _ in $(seq 1 600); do
    kill -0 "$PIPELINE_PID" 2>/dev/null || fail "the sample-service exited while starting: see $log"
    if curl -sf --max-time 2 "http://127.0.0.1:$port/actuator/health/readiness" 2>/dev/null | grep -q '"UP"'; then
      ready=1
      break
    fi
    sleep 0.2
  done
  ((ready)) || fail "the sample-service was not ready within 120 s: see $log"
  info "sample-service ready on port $port"
  if ((IDLE_S > 0)); then
    sleep 10
    idle_cpu "$PIPELINE_PID" "$IDLE_S" "$LOG_DIR/idle-$n.txt" | sed 's/^/    /'
  fi

  timeout $((WARMUP_S + DURATION_S + 300)) java -Xmx512m -cp "$BENCH_JAR" dev.etl.bench.e2e.FreshnessBench \
    --bootstrap "$KAFKA" --registry "$REGISTRY" --topic "$TOPIC" --schema "$SCHEMA" --database "$DB" \
    --shards "${SHARD1//,/|},${SHARD2//,/|}" --rate "$RATE" --warmup-s "$WARMUP_S" --duration-s "$DURATION_S" \
    --poll-ms "$POLL_MS" --metrics "http://127.0.0.1:$port/actuator/prometheus" >"$out" 2>>"$log" || rc=$?
  sed 's/^freshness /    /' "$out"
  ((rc == 0)) || fail "FreshnessBench exited with $rc: see $out and $log"
  curl -sf --max-time 5 "http://127.0.0.1:$port/actuator/prometheus" >"$LOG_DIR/service-$n.prometheus.txt" 2>/dev/null || true
  stop_pipeline
  awk -v n="$n" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
    /^freshness visible/ { v = $0 } /^freshness replicated/ { r = $0 }
    END {
      match(v, /p50= *[0-9]+/); v50 = substr(v, RSTART + 4, RLENGTH - 4) + 0
      match(v, /p99= *[0-9]+/); v99 = substr(v, RSTART + 4, RLENGTH - 4) + 0
      match(v, /max= *[0-9]+/); vmax = substr(v, RSTART + 4, RLENGTH - 4) + 0
      match(r, /p50= *[0-9]+/); r50 = substr(r, RSTART + 4, RLENGTH - 4) + 0
      match(r, /p99= *[0-9]+/); r99 = substr(r, RSTART + 4, RLENGTH - 4) + 0
      printf "%s\t%d\t%d\t%d\t%d\t%d\t%s\n", n, v50, v99, vmax, r50, r99, load
    }' "$out" >>"$SUMMARY"
  drop_round_data
}

for n in $(seq 1 "$REPEATS"); do
  round "$n"
done

STEP="summary"
echo
say "freshness at $RATE orders/s, ${DURATION_S}s measured after ${WARMUP_S}s warm-up, polls every ${POLL_MS} ms, sample-service profile $PROFILE ${FRESH_ETL_ARGS:-}"
{
  echo "| round | visible p50 ms | visible p99 ms | visible max ms | on both replicas p50 ms | on both replicas p99 ms | load average (1 min) at the end |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' '{printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7}' "$SUMMARY"
} | tee "$LOG_DIR/summary.md"
info "logs, per-round results and the service's Prometheus scrapes: $LOG_DIR; wall time $((SECONDS - T0))s"
