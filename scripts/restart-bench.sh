#!/usr/bin/env bash
# Restart speed after kill -9, with and without static membership (group.instance.id).
#
#   scripts/restart-bench.sh                       # the engine in a child JVM (KafkaRestartTimeIT)
#   RESTART_TARGET=sample scripts/restart-bench.sh # the Boot sample-service (restart-sample-bench.sh)
#
# Runs KafkaRestartTimeIT against the local Kafka (scripts/infra.sh start kafka, or ETL_INFRA_DIR
# pointing at running servers): a child JVM (2 lanes, 4 partitions, a slow file sink) is SIGKILLed
# mid-run and started again, RESTART_REPEATS times with static membership and as many without; each
# time it measures from starting the new process to the consumer group's first commit past what the
# killed process had committed. Prints one line:
#
#   restart-time session.timeout.ms=45000 static=[...] median=... dynamic=[...] median=...
#
# Environment:
#   RESTART_REPEATS            rounds (default 3)
#   RESTART_SESSION_TIMEOUT_MS session.timeout.ms of both variants (default 45000, Kafka's default)
#   RESTART_MVN_ARGS           extra Maven arguments (e.g. -o)
#   RESTART_TARGET             engine (default: the above) or sample: the Boot sample-service itself,
#                              static membership with and without CDS (and AOT), against dynamic, with
#                              orders flowing; runs scripts/restart-sample-bench.sh (see its header)
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${RESTART_TARGET:-engine}" in
  engine) ;;
  sample) exec "$REPO_ROOT/scripts/restart-sample-bench.sh" "$@" ;;
  *) echo "RESTART_TARGET must be engine or sample, got '$RESTART_TARGET'" >&2; exit 2 ;;
esac
export ETL_INFRA_DIR="${ETL_INFRA_DIR:-$REPO_ROOT/.infra}"
LOG="$(mktemp -t restart-bench.XXXXXX.log)"
cd "$REPO_ROOT"
# shellcheck disable=SC2086 # RESTART_MVN_ARGS is a list of arguments
if ! ./mvnw -B ${RESTART_MVN_ARGS:-} -pl etl-integration-tests -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=KafkaRestartTimeIT -Dfailsafe.failIfNoSpecifiedTests=false \
  -Detl.restart.repeats="${RESTART_REPEATS:-3}" \
  -Detl.restart.session-timeout-ms="${RESTART_SESSION_TIMEOUT_MS:-45000}" verify >"$LOG" 2>&1; then
  echo "KafkaRestartTimeIT failed; see $LOG" >&2
  exit 1
fi
grep -h '^restart-time' "$LOG" etl-integration-tests/target/failsafe-reports/*KafkaRestartTimeIT*-output.txt 2>/dev/null \
  | head -1
echo "(full log: $LOG; machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg))"
