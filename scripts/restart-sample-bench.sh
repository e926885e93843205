#!/usr/bin/env bash
# Restart speed of the Boot sample-service after kill -9: launch of the new JVM -> the consumer
# group's first commit past what the killed process had committed, with orders flowing.
#
#   scripts/restart-sample-bench.sh            # or: RESTART_TARGET=sample scripts/restart-bench.sh
#
# 1. starts the local servers if needed (scripts/infra.sh start all; stops only what it started),
# 2. builds sample-service if SAMPLE_JAR is missing, extracts it (java -Djarmode=tools ... extract)
#    and compiles scripts/lib/RestartBenchTool.java against it (the feeder and the offset watcher),
# 3. creates a scratch database with the sample's orders table (ON CLUSTER) and a topic with 8
#    partitions, and starts the feeder: RESTART_FEED_RATE Avro orders per second for the whole run,
# 4. makes the class-data-sharing archive(s) the variants need (a training run with
#    -XX:ArchiveClassesAtExit and -Dspring.context.exit=onRefresh, as scripts/startup-bench.sh),
# 5. per membership (static, dynamic; one consumer group each): starts the sample, waits for its
#    first commit, then RESTART_REPEATS rounds; in each round every variant of that membership in
#    turn: let the running process work RESTART_RUN_S seconds, kill -9 it, read the group's
#    committed offsets (their sum), launch the variant's JVM and time launch -> the sum exceeds that
#    (polled every 20 ms through the Admin API). Also reported per run: Boot's "Started ... in X
#    seconds" and launch -> the lanes' "assigned [...]" log line (the partitions are back),
# 6. prints one line per run and a summary per variant (also in <log dir>/results.txt), drops the
#    database and the topic, stops the servers it started.
#
# Variants (RESTART_VARIANTS, space-separated; default "static-cds static dynamic-cds"):
#   static            group.instance.id=<name> (the source appends -lane-<i>), java -jar sample-service.jar
#   static-cds        same, extracted jar + -XX:SharedArchiveFile
#   static-aot        static, java -Dspring.aot.enabled=true -jar (needs a jar built with -Paot)
#   static-aot-cds    static, AOT + extracted jar + CDS archive trained with AOT
#   dynamic, dynamic-cds, dynamic-aot, dynamic-aot-cds   the same without group.instance.id: each
#                     restart waits for the dead members' session.timeout.ms (45 s, Kafka's default)
#
# Environment:
#   RESTART_REPEATS      rounds: kill -9 + restart into each variant once per round (default 3)
#   RESTART_VARIANTS     see above
#   RESTART_FEED_RATE    orders per second produced during the run (default 2000, ~5,000 rows/s)
#   RESTART_RUN_S        seconds a process works (after its first commit) before it is killed (default 5)
#   RESTART_HEAP         -Xmx of the sample (default 512m)
#   RESTART_SAMPLE_ARGS  extra command-line arguments of the sample (space-separated), e.g.
#                        '--etl.checkpoint.interval=500ms --etl.sink.clickhouse.batch.linger=500ms'
#   RESTART_HTTP_PORT    the sample's HTTP port (default: a free port from 18600 up)
#   SAMPLE_JAR           default sample-service/target/sample-service.jar (built when missing with
#                        ./mvnw -q -pl sample-service -am package -DskipTests $RESTART_MVN_ARGS, with
#                        -Paot when a variant needs AOT; a jar built with -Paot serves every variant)
#   RESTART_MVN_ARGS     extra Maven arguments (e.g. -o)
#   RESTART_KEEP_INFRA=1 leave the servers this script started running
#   ETL_INFRA_DIR, ETL_*_PORT, ...  as for scripts/infra.sh (the endpoints are read from the file it writes)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
INFRA="$REPO_ROOT/scripts/infra.sh"
INFRA_DIR="${ETL_INFRA_DIR:-$REPO_ROOT/.infra}"
# shellcheck source-path=SCRIPTDIR source=lib/run-support.sh
source "$REPO_ROOT/scripts/lib/run-support.sh"
REPEATS="${RESTART_REPEATS:-3}"
read -ra VARIANTS <<<"${RESTART_VARIANTS:-static-cds static dynamic-cds}"
FEED_RATE="${RESTART_FEED_RATE:-2000}"
RUN_S="${RESTART_RUN_S:-5}"
read -ra SAMPLE_ARGS <<<"${RESTART_SAMPLE_ARGS:-}"
HEAP="${RESTART_HEAP:-512m}"
JAR="${SAMPLE_JAR:-$REPO_ROOT/sample-service/target/sample-service.jar}"
RUN_ID="$(date +%Y%m%d_%H%M%S)"
LOG_DIR="$INFRA_DIR/restart-sample/$RUN_ID"
DB="restart_$RUN_ID"
TOPIC="restart-$RUN_ID"
RESULTS="$LOG_DIR/results.txt"

SAMPLE_PID=""
FEED_PID=""
WATCH_PID=""
DB_CREATED=0

kill_pid() { # pid signal: signal it if alive and reap it
  [[ -n "$1" ]] || return 0
  kill "-$2" "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  ((rc == 0)) || report_failure "$rc"
  kill_pid "$WATCH_PID" KILL
  kill_pid "$SAMPLE_PID" KILL
  kill_pid "$FEED_PID" TERM
  if ((DB_CREATED)); then
    ch "$(first "$SHARD1")" "DROP DATABASE IF EXISTS $DB ON CLUSTER $CLUSTER" >>"$LOG_DIR/cleanup.log" 2>&1 \
      || info "dropping $DB failed: see $LOG_DIR/cleanup.log"
    timeout 60 java -cp "$(cat "$INFRA_DIR/kafka/classpath.txt")" org.apache.kafka.tools.TopicCommand \
      --bootstrap-server "$KAFKA" --delete --topic "$TOPIC" >>"$LOG_DIR/cleanup.log" 2>&1 \
      || info "deleting topic $TOPIC failed: see $LOG_DIR/cleanup.log"
  fi
  ((${#STARTED_SERVERS[@]} == 0)) || stop_started_infra "${RESTART_KEEP_INFRA:-0}" RESTART_KEEP_INFRA benchmark
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$LOG_DIR"

now_ms() { local t="${EPOCHREALTIME/[.,]/}"; echo $((t / 1000)); }
secs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); } # ms -> s.mmm
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ------------------------------------------------------------------ prerequisites ----
step "checking prerequisites"
require_java17
command -v javac >/dev/null || fail "javac not found: a JDK (not only a JRE) is needed to compile the helper"
[[ "$REPEATS" =~ ^[1-9][0-9]*$ && "$FEED_RATE" =~ ^[1-9][0-9]*$ && "$RUN_S" =~ ^[0-9]+$ ]] \
  || fail "RESTART_REPEATS, RESTART_FEED_RATE and RESTART_RUN_S must be positive integers"
for v in "${VARIANTS[@]}"; do
  [[ "$v" =~ ^(static|dynamic)(-aot)?(-cds)?$ ]] || fail "unknown variant '$v' (static[-aot][-cds], dynamic[-aot][-cds])"
done
JAVA_VERSION="$(java -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.runtime.version/ {print $2}')"
info "Java $JAVA_VERSION, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); logs under $LOG_DIR"

step "starting the infrastructure if needed" "$LOG_DIR/infra.log"
start_infra
read_endpoints

# ------------------------------------------------------------------ jar, helper ----
step "sample jar $JAR"
if [[ ! -f "$JAR" ]]; then
  PROFILE=""
  [[ " ${VARIANTS[*]} " == *-aot* ]] && PROFILE="-Paot"
  step "building sample-service (./mvnw -q -pl sample-service -am package -DskipTests $PROFILE)" "$LOG_DIR/build.log"
  # shellcheck disable=SC2086 # RESTART_MVN_ARGS is a list of arguments
  (cd "$REPO_ROOT" && ./mvnw -q -B -pl sample-service -am package -DskipTests $PROFILE ${RESTART_MVN_ARGS:-}) \
    >"$LOG_DIR/build.log" 2>&1 || fail "the build failed: see $LOG_DIR/build.log"
fi
[[ -f "$JAR" ]] || fail "no $JAR"
if [[ " ${VARIANTS[*]} " == *-aot* ]]; then # the jar must hold the AOT initializers
  jar tf "$JAR" | grep -c '^BOOT-INF/classes/dev/etl/sample/SampleApplication__ApplicationContextInitializer.class$' >/dev/null \
    || fail "$JAR has no AOT classes: build it with ./mvnw -q -pl sample-service -am clean package -DskipTests -Paot"
fi
step "extracting $(basename "$JAR"), compiling scripts/lib/RestartBenchTool.java" "$LOG_DIR/extract.log"
java -Djarmode=tools -jar "$JAR" extract --destination "$LOG_DIR/app" >"$LOG_DIR/extract.log" 2>&1 \
  || fail "extract failed (see $LOG_DIR/extract.log)"
APP_JAR="$LOG_DIR/app/$(basename "$JAR")"
javac -nowarn -cp "$APP_JAR" -d "$LOG_DIR/tool" "$REPO_ROOT/scripts/lib/RestartBenchTool.java" >>"$LOG_DIR/extract.log" 2>&1 \
  || fail "compiling the helper failed (see $LOG_DIR/extract.log)"
# Started with "${TOOL[@]}" ... & so that $! is the JVM itself (a shell function would be a subshell).
TOOL=(java -Xmx256m -XX:TieredStopAtLevel=1 -Dlogback.configurationFile=generator-logback.xml
  -cp "$LOG_DIR/tool:$APP_JAR" RestartBenchTool)

# ------------------------------------------------------------------ database, topic, feed ----
step "database $DB (sample's orders.sql, ON CLUSTER $CLUSTER)" "$LOG_DIR/ddl.log"
DB_CREATED=1
{
  ch "$(first "$SHARD1")" "CREATE DATABASE IF NOT EXISTS $DB ON CLUSTER $CLUSTER"
  ch "$(first "$SHARD1")" "$(sed "s/\${DB}/$DB/g; s/ON CLUSTER etl/ON CLUSTER $CLUSTER/" \
    "$REPO_ROOT/sample-service/src/main/resources/sql/orders.sql" | grep -v '^--')"
} >>"$LOG_DIR/ddl.log" 2>&1 || fail "DDL failed: see $LOG_DIR/ddl.log"

step "feeding $FEED_RATE orders/s into topic $TOPIC (8 partitions)" "$LOG_DIR/feed.log"
"${TOOL[@]}" feed --bootstrap "$KAFKA" --registry "$REGISTRY" --topic "$TOPIC" --rate "$FEED_RATE" >"$LOG_DIR/feed.log" 2>&1 &
FEED_PID=$!
t=$(now_ms)
until grep -q '^feeding' "$LOG_DIR/feed.log" 2>/dev/null; do
  kill -0 "$FEED_PID" 2>/dev/null || fail "the feeder exited (see $LOG_DIR/feed.log)"
  (($(now_ms) - t < 60000)) || fail "the feeder did not start within 60 s"
  sleep 0.2
done

HTTP_PORT="${RESTART_HTTP_PORT:-}"
if [[ -z "$HTTP_PORT" ]]; then
  for p in $(seq 18600 18700); do port_free "$p" && { HTTP_PORT=$p; break; }; done
  [[ -n "$HTTP_PORT" ]] || fail "no free port in 18600-18700 (set RESTART_HTTP_PORT)"
fi
# The sample's environment: its addresses; the caller's ETL_* infra variables are left out (they
# bind to no etl.* property and the sample would warn about each).
SAMPLE_ENV=(KAFKA_BOOTSTRAP="$KAFKA" REGISTRY_URL="$REGISTRY" ORDERS_TOPIC="$TOPIC" CLICKHOUSE_DATABASE="$DB"
  CLICKHOUSE_SHARD_1="$SHARD1" CLICKHOUSE_SHARD_2="$SHARD2" SERVER_PORT="$HTTP_PORT"
  SERVER_ADDRESS=127.0.0.1)
UNSET_ENV=()
for name in $(compgen -e); do [[ "$name" == ETL_* ]] && UNSET_ENV+=(-u "$name"); done

# ------------------------------------------------------------------ CDS archives ----
train() { # label jsa [java options...]
  local label="$1" jsa="$2"
  shift 2
  step "CDS training run ($label): -XX:ArchiveClassesAtExit -Dspring.context.exit=onRefresh" "$LOG_DIR/training-$label.log"
  env "${UNSET_ENV[@]}" "${SAMPLE_ENV[@]}" KAFKA_GROUP_ID="training-$RUN_ID" \
    java -Xmx"$HEAP" "$@" -XX:ArchiveClassesAtExit="$jsa" -Dspring.context.exit=onRefresh -jar "$APP_JAR" \
    >"$LOG_DIR/training-$label.log" 2>&1 || fail "training run failed (see $LOG_DIR/training-$label.log)"
  info "archive $(basename "$jsa"): $(du -h "$jsa" | cut -f1)"
}
needs() { local v; for v in "${VARIANTS[@]}"; do [[ "$v" =~ $1 ]] && return 0; done; return 1; }
if needs '^(static|dynamic)-cds$'; then train plain "$LOG_DIR/app.jsa"; fi
if needs '-aot-cds$'; then train aot "$LOG_DIR/app-aot.jsa" -Dspring.aot.enabled=true; fi

# ------------------------------------------------------------------ runs ----
# launch <variant> <group> <log>: starts the sample in the background, sets SAMPLE_PID
launch() {
  local variant="$1" group="$2" log="$3" opts=(-Xmx"$HEAP") args=()
  [[ "$variant" == *-aot* ]] && opts+=(-Dspring.aot.enabled=true)
  if [[ "$variant" == *-aot-cds ]]; then
    opts+=(-XX:SharedArchiveFile="$LOG_DIR/app-aot.jsa" -jar "$APP_JAR")
  elif [[ "$variant" == *-cds ]]; then
    opts+=(-XX:SharedArchiveFile="$LOG_DIR/app.jsa" -jar "$APP_JAR")
  else
    opts+=(-jar "$JAR")
  fi
  [[ "$variant" == static* ]] && args+=("--etl.source.kafka.properties[group.instance.id]=$group")
  args+=("${SAMPLE_ARGS[@]}")
  env "${UNSET_ENV[@]}" "${SAMPLE_ENV[@]}" KAFKA_GROUP_ID="$group" java "${opts[@]}" "${args[@]}" >"$log" 2>&1 &
  SAMPLE_PID=$!
}

# await_commit <watch file> <timeout s> <what>: waits for the watcher's "committed=... at=..." line
await_commit() {
  local file="$1" timeout_s="$2" what="$3" t
  t=$(now_ms)
  until grep -q '^committed=' "$file" 2>/dev/null; do
    grep -q '^timeout' "$file" 2>/dev/null && fail "$what: no commit within the watcher's timeout"
    kill -0 "$SAMPLE_PID" 2>/dev/null || fail "$what: the sample exited (see its log)"
    kill -0 "$WATCH_PID" 2>/dev/null || grep -q '^committed=' "$file" || fail "$what: the watcher exited"
    (($(now_ms) - t < timeout_s * 1000)) || fail "$what: no commit within ${timeout_s}s"
    sleep 0.1
  done
  wait "$WATCH_PID" 2>/dev/null || true
  WATCH_PID=""
}
log_ms() { # ISO timestamp at the start of the first log line matching <regex> in <log> -> epoch ms
  local ts
  ts="$(grep -m1 -E "$2" "$1" | awk '{print $1}')"
  [[ -n "$ts" ]] && date -d "$ts" +%s%3N
}

: >"$RESULTS"
declare -A VALUES=()   # variant -> space-separated ms
# Variants of one membership share a consumer group (static ones also the instance id) and take turns:
# round 1 restarts into each of them once, then round 2, ... so that load from elsewhere on the
# machine is spread over all of them alike. Each restart is timed the same way whatever the killed
# process was.
for membership in static dynamic; do
  members=()
  for v in "${VARIANTS[@]}"; do [[ "$v" == "$membership"* ]] && members+=("$v"); done
  ((${#members[@]} > 0)) || continue
  group="restart-$RUN_ID-$membership"
  step "$membership membership (group $group): ${members[*]}, $REPEATS rounds" "$LOG_DIR/$membership-0.log"
  launch "${members[0]}" "$group" "$LOG_DIR/$membership-0.log"
  "${TOOL[@]}" watch --bootstrap "$KAFKA" --group "$group" --above 0 --out "$LOG_DIR/$membership-0.watch" \
    >"$LOG_DIR/$membership-0.watch.log" 2>&1 &
  WATCH_PID=$!
  await_commit "$LOG_DIR/$membership-0.watch" 180 "$membership: first process"
  for i in $(seq 1 "$REPEATS"); do
    for variant in "${members[@]}"; do
      sleep "$RUN_S"
      log="$LOG_DIR/$variant-$i.log"
      STEP_LOG="$log"
      kill_pid "$SAMPLE_PID" KILL
      SAMPLE_PID=""
      watch="$LOG_DIR/$variant-$i.watch"
      "${TOOL[@]}" watch --bootstrap "$KAFKA" --group "$group" --timeout-ms 180000 --out "$watch" >"$watch.log" 2>&1 &
      WATCH_PID=$!
      t=$(now_ms)
      until grep -q '^baseline=' "$watch" 2>/dev/null; do
        kill -0 "$WATCH_PID" 2>/dev/null || fail "the watcher exited (see $watch.log)"
        (($(now_ms) - t < 60000)) || fail "the watcher did not read the offsets within 60 s"
        sleep 0.05
      done
      start=$(now_ms)
      launch "$variant" "$group" "$log"
      await_commit "$watch" 180 "$variant run $i"
      at="$(sed -n 's/^committed=.* at=//p' "$watch")"
      ms=$((at - start))
      VALUES[$variant]="${VALUES[$variant]:-} $ms"
      started="$(grep -o 'Started [A-Za-z]* in [0-9.]* seconds' "$log" | awk '{print $4}' | head -1)"
      assigned="$(log_ms "$log" 'Lane .* assigned \[' || true)"
      line="$(printf '%-16s run %d: launch -> first commit %ss (Boot started in %ss, partitions assigned after %ss; committed %s -> %s; load %s)' \
        "$variant" "$i" "$(secs "$ms")" "${started:-?}" "$([[ -n "$assigned" ]] && secs $((assigned - start)) || echo '?')" \
        "$(sed -n 's/^baseline=//p' "$watch")" "$(sed -n 's/^committed=\([0-9]*\).*/\1/p' "$watch")" \
        "$(cut -d' ' -f1 /proc/loadavg)")"
      info "$line"
      echo "$line" >>"$RESULTS"
    done
  done
  kill_pid "$SAMPLE_PID" KILL
  SAMPLE_PID=""
done
SUMMARY=()
for variant in "${VARIANTS[@]}"; do
  read -ra values <<<"${VALUES[$variant]}"
  s="$(printf 'restart-sample %s launch->first-commit ms=[%s] median=%s' "$variant" "$(IFS=,; echo "${values[*]}")" \
    "$(median "${values[@]}")")"
  SUMMARY+=("$s")
  echo "$s" >>"$RESULTS"
done

STEP="summary"
say "summary ($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); feed $FEED_RATE orders/s${SAMPLE_ARGS[*]:+; sample arguments ${SAMPLE_ARGS[*]}})"
for s in "${SUMMARY[@]}"; do info "$s"; done
info "results: $RESULTS"
