#!/usr/bin/env bash
# Coverage-guided fuzzing of the decoders (module etl-fuzz, Jazzer), one target after the other.
#
#   scripts/fuzz.sh                      every target, 60 s each
#   scripts/fuzz.sh TARGET [SECONDS]     one target (or 'all'), SECONDS each (default 60)
#   scripts/fuzz.sh list                 the targets
#   scripts/fuzz.sh repro TARGET FILE    runs one input (a crash file, a fuzz-findings input) in
#                                        regression mode, with its stack trace
#
# TARGET is a name of the list (avro, transcoder-row, ...) or Class#method. In plain `./mvnw -B verify`
# the targets only replay their corpus (src/test/resources/<package>/<Class>Inputs/<method>/); this
# script fuzzes: new coverage goes to etl-fuzz/.cifuzz-corpus/ (not in git, reused by the next run), a
# finding is written by Jazzer into the target's inputs directory (crash-*, timeout-*), where the
# regression run replays it until it is fixed or moved to etl-fuzz/src/test/resources/fuzz-findings/.
# See docs/design/fuzzing.md.
#
# Options (before TARGET): --report-only   findings are printed, not failed on (a local survey while a
#                                          known decoder bug is open; ETL_FUZZ_STRICT=1 fails anyway)
#                          --no-build      skip building the decoders' modules first (the last build's
#                                          class path is used)
#                          --total         SECONDS is the time for all the selected targets together,
#                                          split evenly between them (at least 10 s each), not each one's
# Environment: ETL_FUZZ_MAX_MILLIS  the soft time bound of one decoder call (Budget, default 1000 ms)
#              ETL_FUZZ_TIMEOUT     the hard per-input timeout, libFuzzer's -timeout (default 10 s, as
#                                   junit-platform.properties)
#              CI raises both (.ci/run): a finding there must not depend on how loaded the machine is.
# Exit status: 0 nothing found, 1 a finding (unless --report-only), 3 a target that could not run (or
# overran its wall-clock bound, below), 2 usage.
# How a target runs: Maven builds etl-fuzz with the decoders' modules once (-am) and writes the test class
# path (etl-fuzz/target/fuzz-classpath.txt: this work tree's target/classes, never jars another work tree
# installed into ~/.m2); then each target fuzzes in a JVM of its own (Jazzer fuzzes one test per JVM),
# started directly (dev.etl.fuzz.FuzzLauncher) with etl-fuzz's pom's argLine, not through Maven's reactor
# and Surefire's fork again. Every wait is bounded: the build by 15 minutes, a target by its SECONDS plus
# the per-input timeout plus 4 minutes for the JVM's start and Jazzer's instrumentation (then it is
# killed and counts as a target that could not run). Logs: etl-fuzz/target/fuzz-logs/<target>.log.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '%s [fuzz] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

TARGETS=(
  "avro=dev.etl.avro.AvroDecoderFuzzTest#fastDecoderMatchesGenericDatumReader"
  "transcoder-row=dev.etl.avro.clickhouse.TranscoderFuzzTest#rowPlanMatchesTheObjectPath"
  "transcoder-scan=dev.etl.avro.clickhouse.TranscoderFuzzTest#scanPlanMatchesTheObjectPath"
  "transcoder-explode=dev.etl.avro.clickhouse.TranscoderFuzzTest#explodeMatchesTheReferenceModel"
  "json=dev.etl.json.JsonFramingFuzzTest#framingsMatchJacksonTreeParse"
  "json-rows=dev.etl.json.clickhouse.JsonRowTranscoderFuzzTest#rowsMatchTheJacksonReference"
  "s3-avro=dev.etl.s3.AvroContainerFuzzTest#readerMatchesDataFileStream"
  "s3-ndjson=dev.etl.s3.NdjsonReaderFuzzTest#readerMatchesTheLineRules"
  "rowbinary=dev.etl.clickhouse.RowBinaryFuzzTest#transpositionMatchesTheReferenceParser"
)

report_only=0
build=1
total=0
while [[ $# -gt 0 && "$1" == --* ]]; do
  case "$1" in
    --report-only) report_only=1 ;;
    --no-build) build=0 ;;
    --total) total=1 ;;
    *) log "unknown option $1"; exit 2 ;;
  esac
  shift
done
[[ "${ETL_FUZZ_STRICT:-0}" == 1 ]] && report_only=0

resolve() { # name or Class#method -> Class#method
  local t
  for t in "${TARGETS[@]}"; do
    if [[ "$1" == "${t%%=*}" || "$1" == "${t#*=}" || "$1" == "${t#*=}" ]]; then
      printf '%s\n' "${t#*=}"
      return 0
    fi
  done
  if [[ "$1" == *'#'* ]]; then
    printf '%s\n' "$1"
    return 0
  fi
  log "unknown target '$1' (scripts/fuzz.sh list)"
  return 2
}

# Every Maven run here builds etl-fuzz with the decoders' modules of this work tree (-am), never their
# jars from ~/.m2, which another work tree's install may have replaced.
MVN_FUZZ=(./mvnw -B -o -pl etl-fuzz -am -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true
  -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -DskipITs)

# The test class path of etl-fuzz as the reactor resolves it (its siblings' target/classes and
# target/test-classes), written by build_modules; relative to etl-fuzz/.
CLASSPATH_FILE=target/fuzz-classpath.txt
# As etl-fuzz's pom's Surefire argLine.
FUZZ_JVM_ARGS=(-Xmx2g -XX:+UseSerialGC)
MAX_MILLIS="${ETL_FUZZ_MAX_MILLIS:-1000}"
TIMEOUT="${ETL_FUZZ_TIMEOUT:-10}"
[[ "$MAX_MILLIS" =~ ^[1-9][0-9]*$ && "$TIMEOUT" =~ ^[1-9][0-9]*$ ]] || {
  log "ETL_FUZZ_MAX_MILLIS and ETL_FUZZ_TIMEOUT must be positive numbers"
  exit 2
}
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

build_modules() {
  ((build)) || return 0
  log "compiling etl-fuzz and the decoders' modules"
  rm -f "etl-fuzz/$CLASSPATH_FILE"
  timeout --kill-after=30 900 ./mvnw -B -q -pl etl-fuzz -am test-compile dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$CLASSPATH_FILE" -Dspotless.check.skip=true </dev/null || {
    log "the build failed (or took over 15 minutes): no target can run"
    exit 3
  }
}

# Runs one target in fuzzing mode; prints one line; returns 0 (nothing found), 1 (finding), 3 (no run).
fuzz_one() {
  local target="$1" seconds="$2" name logfile status=0 runs cov
  name="$(printf '%s' "$target" | sed 's/^.*\.//; s/#/-/')"
  mkdir -p etl-fuzz/target/fuzz-logs
  logfile="etl-fuzz/target/fuzz-logs/$name.log"
  # libFuzzer's -timeout is Jazzer's translation of JUnit's per-invocation timeout, which the system
  # property sets over junit-platform.properties; JUnit's own timeout must be off (it would cover the run).
  (cd etl-fuzz && JAZZER_FUZZ=1 exec timeout --kill-after=15 "$((seconds + TIMEOUT + 240))" "$JAVA" \
    "${FUZZ_JVM_ARGS[@]}" -Djazzer.max_duration="${seconds}s" -Detl.fuzz.maxMillis="$MAX_MILLIS" \
    -Djunit.jupiter.execution.timeout.testtemplate.method.default="${TIMEOUT}s" \
    -Djunit.jupiter.execution.timeout.mode=disabled -cp "target/test-classes:$(cat "$CLASSPATH_FILE")" \
    dev.etl.fuzz.FuzzLauncher "$target") >"$logfile" 2>&1 </dev/null || status=$?
  if ((status == 124 || status == 137)); then
    log "$target: did not end within $((seconds + TIMEOUT + 240)) s, killed; last lines of $logfile:"
    tail -n 30 "$logfile" >&2
    return 3
  fi
  runs="$(grep -o '^Done [0-9]* runs in [0-9]* second' "$logfile" | tail -n 1 | awk '{print $2}')"
  cov="$(grep -o 'cov: [0-9]*' "$logfile" | tail -n 1 | awk '{print $2}')"
  if grep -q -E 'FuzzTestFinding|ERROR: libFuzzer:|Test unit written to' "$logfile"; then
    log "$target: FINDING after ${runs:-?} runs (coverage ${cov:-?}); log $logfile:"
    { # what failed, the input; then at most two of the watchdog's stacks (a slow call prints one a limit)
      grep -E 'ERROR: libFuzzer|== Java Exception|FuzzTestFinding|Caused by|Test unit written to|^Base64:' "$logfile" |
        grep -v '^\s*at ' | head -n 12
      grep -E 'still running after' "$logfile" | head -n 2 || true
    } | cut -c1-1500 >&2
    grep -E '^\s+(at )?dev\.etl\.' "$logfile" | head -n 15 >&2 || true
    return 1
  fi
  if [[ -z "$runs" ]] || ((status != 0)); then
    log "$target: did not fuzz (exit $status); last lines of $logfile:"
    tail -n 30 "$logfile" >&2
    return 3
  fi
  log "$target: ${seconds} s, $runs runs, coverage ${cov:-?}, no finding"
  return 0
}

cmd="${1:-all}"
case "$cmd" in
  list)
    for t in "${TARGETS[@]}"; do printf '%-20s %s\n' "${t%%=*}" "${t#*=}"; done
    exit 0
    ;;
  repro)
    [[ $# -eq 3 ]] || { log "usage: scripts/fuzz.sh repro TARGET FILE"; exit 2; }
    target="$(resolve "$2")"
    file="$(realpath "$3")"
    build_modules
    class="${target%%#*}"
    method="${target#*#}"
    # Jazzer replays the files of the inputs directory on the class path: a copy goes there, after the
    # tree was compiled (copying the resources again leaves it there), for this run only.
    dir="etl-fuzz/target/test-classes/$(dirname "${class//.//}")/${class##*.}Inputs/$method"
    mkdir -p "$dir"
    copy="$dir/repro-$(basename "$file")"
    cp "$file" "$copy"
    trap 'rm -f -- "$copy"' EXIT
    log "replaying $file on $target (regression mode)"
    "${MVN_FUZZ[@]}" test -Dtest="$target" -Dsurefire.trimStackTrace=false </dev/null 2>&1 |
      grep -v -E 'INFO: (Loaded .* hooks|Instrumented)'
    exit "${PIPESTATUS[0]}"
    ;;
esac

seconds="${2:-60}"
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] || { log "SECONDS must be a positive number, not '$seconds'"; exit 2; }
selected=()
if [[ "$cmd" == all ]]; then
  for t in "${TARGETS[@]}"; do selected+=("${t#*=}"); done
else
  selected+=("$(resolve "$cmd")")
fi
if ((total)); then
  seconds=$((seconds / ${#selected[@]}))
  ((seconds >= 10)) || seconds=10
  log "${#selected[@]} target(s), $seconds s of fuzzing each"
fi

build_modules
if [[ ! -s "etl-fuzz/$CLASSPATH_FILE" ]]; then
  log "no etl-fuzz/$CLASSPATH_FILE: run once without --no-build"
  exit 3
fi
started=$SECONDS
findings=() broken=()
for target in "${selected[@]}"; do
  rc=0
  fuzz_one "$target" "$seconds" || rc=$?
  ((rc == 1)) && findings+=("$target")
  ((rc == 3)) && broken+=("$target")
done
log "${#selected[@]} target(s) fuzzed in $((SECONDS - started)) s: ${#findings[@]} with a finding, ${#broken[@]} that did not run"
if ((${#broken[@]} > 0)); then
  exit 3
fi
if ((${#findings[@]} > 0)); then
  if ((report_only)); then
    log "report only: not failing on ${findings[*]} (triage: docs/design/fuzzing.md)"
    exit 0
  fi
  exit 1
fi
