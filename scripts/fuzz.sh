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
# Options (before TARGET): --report-only   findings are printed, not failed on (CI, while known decoder
#                                          bugs are open; ETL_FUZZ_STRICT=1 fails on them anyway)
#                          --no-build      skip building the decoders' modules first
# Environment: ETL_FUZZ_JVM_ARGS is not read; the heap and timeouts are etl-fuzz's pom and
# junit-platform.properties. Logs: etl-fuzz/target/fuzz-logs/<target>.log.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '%s [fuzz] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

TARGETS=(
  "avro=dev.etl.avro.AvroDecoderFuzzTest#fastDecoderMatchesGenericDatumReader"
  "transcoder-row=dev.etl.transcode.TranscoderFuzzTest#rowPlanMatchesTheObjectPath"
  "transcoder-scan=dev.etl.transcode.TranscoderFuzzTest#scanPlanMatchesTheObjectPath"
  "transcoder-explode=dev.etl.transcode.TranscoderFuzzTest#explodeMatchesTheReferenceModel"
  "json=dev.etl.json.JsonFramingFuzzTest#framingsMatchJacksonTreeParse"
  "s3-avro=dev.etl.s3.AvroContainerFuzzTest#readerMatchesDataFileStream"
  "s3-ndjson=dev.etl.s3.NdjsonReaderFuzzTest#readerMatchesTheLineRules"
  "rowbinary=dev.etl.clickhouse.RowBinaryFuzzTest#transpositionMatchesTheReferenceParser"
)

report_only=0
build=1
while [[ $# -gt 0 && "$1" == --* ]]; do
  case "$1" in
    --report-only) report_only=1 ;;
    --no-build) build=0 ;;
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

build_modules() {
  ((build)) || return 0
  log "compiling etl-fuzz and the decoders' modules"
  ./mvnw -B -q -pl etl-fuzz -am test-compile -Dspotless.check.skip=true </dev/null
}

# Runs one target in fuzzing mode; prints one line; returns 0 (nothing found), 1 (finding), 3 (no run).
fuzz_one() {
  local target="$1" seconds="$2" name logfile status=0 runs cov
  name="$(printf '%s' "$target" | sed 's/^.*\.//; s/#/-/')"
  mkdir -p etl-fuzz/target/fuzz-logs
  logfile="etl-fuzz/target/fuzz-logs/$name.log"
  JAZZER_FUZZ=1 "${MVN_FUZZ[@]}" test -Dtest="$target" -Djazzer.max_duration="${seconds}s" \
    -Djunit.jupiter.execution.timeout.mode=disabled >"$logfile" 2>&1 </dev/null || status=$?
  runs="$(grep -o '^Done [0-9]* runs in [0-9]* second' "$logfile" | tail -n 1 | awk '{print $2}')"
  cov="$(grep -o 'cov: [0-9]*' "$logfile" | tail -n 1 | awk '{print $2}')"
  if grep -q -E 'FuzzTestFinding|ERROR: libFuzzer:|Test unit written to' "$logfile"; then
    log "$target: FINDING after ${runs:-?} runs (coverage ${cov:-?}); log $logfile:"
    grep -E 'Test unit written to|ERROR: libFuzzer|FuzzTestFinding|Caused by|still running after|^Base64:' "$logfile" |
      grep -v '^\s*at ' | head -n 12 | cut -c1-1500 >&2
    grep -E '^\s+at dev\.etl\.' "$logfile" | head -n 15 >&2 || true
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

build_modules
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
