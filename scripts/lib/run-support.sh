# shellcheck shell=bash
# Shared by scripts/demo.sh and scripts/bench.sh (sourced, not run): step logging, the failure report,
# the Java check, starting the local servers while remembering which ones this run started, reading
# the endpoints, and ClickHouse queries over HTTP.
#
# The caller sets INFRA (scripts/infra.sh), INFRA_DIR and LOG_DIR before calling these functions.

STEP="start"
STEP_LOG=""
FAIL_REASON=""
STARTED_SERVERS=()   # servers this run started, stopped again at the end

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
info() { printf '    %s\n' "$*"; }
step() { # name [log file]
  STEP="$1"
  STEP_LOG="${2:-}"
  say "$1"
}
fail() {
  FAIL_REASON="$*"
  exit 1
}

# For an EXIT trap: says which step failed and why, with the tail of that step's log.
report_failure() { # exit code
  if [[ -n "$FAIL_REASON" ]]; then
    printf '\n\033[31mFAILED at step "%s": %s\033[0m\n' "$STEP" "$FAIL_REASON" >&2
  else
    printf '\n\033[31mFAILED at step "%s" (exit code %d).\033[0m\n' "$STEP" "$1" >&2
  fi
  if [[ -n "$STEP_LOG" && -f "$STEP_LOG" ]]; then
    printf 'Last lines of %s:\n' "$STEP_LOG" >&2
    tail -n 25 "$STEP_LOG" | sed 's/^/    /' >&2
  fi
  printf 'Logs of this run: %s\n' "$LOG_DIR" >&2
}

require_java17() { # sets JAVA_MAJOR
  command -v java >/dev/null || fail "java not found: install a JDK 17 or newer"
  JAVA_MAJOR="$(java -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')"
  [[ "${JAVA_MAJOR%%.*}" -ge 17 ]] 2>/dev/null || fail "Java 17 or newer is needed, found ${JAVA_MAJOR:-unknown}"
}

# Starts every local server, recording in STARTED_SERVERS those that were not already running.
start_infra() {
  export ETL_INFRA_DIR="$INFRA_DIR"
  "$INFRA" status >"$LOG_DIR/infra-before.txt" 2>&1 || true
  local server
  for server in zookeeper clickhouse kafka registry s3; do
    # A server counts as running when every line of it (4 for ClickHouse) says "up".
    if awk -v s="$server" '($1 == s || index($1, s "-") == 1) {n++; if ($2 != "up") bad = 1} END {exit !(n > 0 && !bad)}' \
        "$LOG_DIR/infra-before.txt"; then
      info "$server: already running, will be left running"
    else
      STARTED_SERVERS+=("$server")
    fi
  done
  "$INFRA" start all >"$LOG_DIR/infra.log" 2>&1 || fail "scripts/infra.sh start all failed"
}

# Stops the servers this run started (ZooKeeper last: ClickHouse needs it), unless keep is 1.
stop_started_infra() { # keep(0|1) keep-variable-name who
  local keep="$1" keep_var="$2" who="$3" s
  if [[ "$keep" == 1 ]]; then
    ((${#STARTED_SERVERS[@]} == 0)) || info "leaving the servers running ($keep_var=1): $INFRA stop all"
    return 0
  fi
  for s in "${STARTED_SERVERS[@]}"; do
    [[ "$s" == zookeeper ]] && continue
    "$INFRA" stop "$s" >>"$LOG_DIR/infra-stop.log" 2>&1 || info "stopping $s failed: see $LOG_DIR/infra-stop.log"
  done
  for s in "${STARTED_SERVERS[@]}"; do
    [[ "$s" == zookeeper ]] || continue
    "$INFRA" stop zookeeper >>"$LOG_DIR/infra-stop.log" 2>&1 || info "stopping zookeeper failed: see $LOG_DIR/infra-stop.log"
  done
  ((${#STARTED_SERVERS[@]} == 0)) || info "stopped the servers this $who started: ${STARTED_SERVERS[*]}"
}

# Reads what scripts/infra.sh wrote: KAFKA, REGISTRY, CLUSTER, SHARD1, SHARD2 (comma-separated
# replica URLs) and SHARD_URLS.
read_endpoints() {
  ENDPOINTS="$INFRA_DIR/endpoints.properties"
  KAFKA="$(endpoint kafka.bootstrap)"
  REGISTRY="$(endpoint registry.url)"
  CLUSTER="$(endpoint clickhouse.cluster)"
  SHARD1="$(endpoint clickhouse.shard.1.replicas)"
  SHARD2="$(endpoint clickhouse.shard.2.replicas)"
  [[ -n "$KAFKA" && -n "$REGISTRY" && -n "$CLUSTER" && -n "$SHARD1" && -n "$SHARD2" ]] \
    || fail "incomplete endpoints in $ENDPOINTS"
  # shellcheck disable=SC2034 # read by the calling script
  SHARD_URLS=("$SHARD1" "$SHARD2")
}
endpoint() { awk -F= -v k="$1" '$1 == k {sub(/^[^=]*=/, ""); print; exit}' "$ENDPOINTS"; }

first() { echo "${1%%,*}"; }

ch() { # url sql -> TabSeparated answer; fails with ClickHouse's message
  local out
  if ! out="$(curl -sS --fail-with-body --max-time 120 --data-binary "$2" "$1/?wait_end_of_query=1" 2>&1)" \
      || [[ "$out" == *Exception* ]]; then
    printf '%s: %s\n' "$1" "$out" >&2
    return 1
  fi
  printf '%s' "$out"
}
