#!/usr/bin/env bash
# The deterministic simulation (etl-simulation, docs/design/simulation.md) on demand: more seeds than the
# build runs, or one seed replayed.
#
#   scripts/simulate.sh [SEEDS] [BASE]    run SEEDS seeds (default 1000) derived from BASE (default: the
#                                         build's base, 20261205); a failing seed prints its replay command
#   scripts/simulate.sh --seed N [--log]  replay seed N alone (--log: with the engine's INFO logs)
#
# Needs only Java 17 (Maven comes through ./mvnw); no servers. Exits non-zero when a seed fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

props=()
if [[ "${1:-}" == "--seed" ]]; then
  [[ -n "${2:-}" ]] || { echo "usage: $0 --seed N [--log]" >&2; exit 2; }
  props+=("-Dsim.seed=$2" "-Dsim.verbose=true")
  [[ "${3:-}" == "--log" ]] && props+=("-Dsim.log=INFO")
else
  props+=("-Dsim.seeds=${1:-1000}" "-Dsim.verbose=false")
  [[ -n "${2:-}" ]] && props+=("-Dsim.base=$2")
fi

exec ./mvnw -B -q -pl etl-simulation -am test \
  -Dtest='SimulationTest#seedsFromTheBaseSeedKeepEveryInvariant' -Dsurefire.failIfNoSpecifiedTests=false \
  -Dmaven.javadoc.skip=true "${props[@]}"
