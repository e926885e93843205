#!/usr/bin/env bash
# Proves a release the way a user meets it: builds examples/consumer (its own pom.xml, Spring Boot's parent,
# the etl BOM imported, only etl-spring-boot-starter declared; not a module of this build) against the
# repository scripts/release.sh wrote, and runs its pipeline against the local servers.
#
#   scripts/consumer-check.sh [VERSION [REPOSITORY_DIR]]
#
# VERSION defaults to the project's version without -SNAPSHOT (what scripts/release.sh --check builds),
# REPOSITORY_DIR to target/release/repository. Needs the local servers (scripts/infra.sh start all): the
# addresses come from $ETL_INFRA_DIR/endpoints.properties (default .infra/).
#
# The dev.etl artifacts come from that repository only: Maven runs with a new, empty local repository
# (target/release/consumer/local-repository), and the repository is the only one declared for them. Central's
# artifacts come from ~/.m2/repository, read-only, as the tail of the new local repository (so nothing is
# downloaded twice; ETL_CONSUMER_FRESH=1 leaves the tail out and downloads them too). Afterwards the script
# checks that every dev.etl jar of the application's class path lies in the new local repository and was
# downloaded from the release repository (etl-release in _remote.repositories), that the starter is a jar
# and the optional connectors and the AWS SDK are absent, and that Boot's executable jar holds the etl jars
# but not the starter (Boot leaves out a jar marked as a dependencies starter).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { printf '%s [consumer] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() {
  log "$*"
  exit 1
}

snapshot="$(sed -n '/<parent>/,/<\/parent>/d; s#^  <version>\(.*\)</version>#\1#p' pom.xml | head -n 1)"
VERSION="${1:-${snapshot%-SNAPSHOT}}"
REPOSITORY="$(cd "${2:-$ROOT/target/release/repository}" && pwd)"
PROJECT="$ROOT/examples/consumer"
WORK="$ROOT/target/release/consumer"
LOCAL="$WORK/local-repository"
INFRA_DIR="${ETL_INFRA_DIR:-$ROOT/.infra}"
ENDPOINTS="$INFRA_DIR/endpoints.properties"

[[ -f "$REPOSITORY/dev/etl/etl-spring-boot-starter/$VERSION/etl-spring-boot-starter-$VERSION.jar" ]] ||
  die "no etl-spring-boot-starter $VERSION in $REPOSITORY: run scripts/release.sh --check first"
[[ -f "$ENDPOINTS" ]] || die "no $ENDPOINTS: start the local servers (scripts/infra.sh start all)"

endpoint() {
  local value
  value="$(sed -n "s#^$1=##p" "$ENDPOINTS" | head -n 1)"
  [[ -n "$value" ]] || die "$ENDPOINTS has no $1"
  printf '%s\n' "$value"
}
kafka="$(endpoint kafka.bootstrap)"
registry="$(endpoint registry.url)"
clickhouse="$(endpoint clickhouse.shard.1.replicas)"
clickhouse="${clickhouse%%,*}"

rm -rf -- "$WORK" "$PROJECT/target"
mkdir -p "$LOCAL"
tail=()
if [[ "${ETL_CONSUMER_FRESH:-0}" != 1 && -d "$HOME/.m2/repository" ]]; then
  # Maven looks in the tail before any remote repository: it must not hold etl $VERSION
  held="$(find "$HOME/.m2/repository/dev/etl" -mindepth 2 -maxdepth 2 -type d -name "$VERSION" 2>/dev/null | head -n 3)"
  [[ -z "$held" ]] || die "$HOME/.m2/repository holds etl $VERSION ($(paste -sd' ' - <<<"$held")), which would" \
    "be resolved instead of the release repository's: remove it, or run with ETL_CONSUMER_FRESH=1"
  tail=(-Dmaven.repo.local.tail="$HOME/.m2/repository")
fi
mvn=("$ROOT/mvnw" -B -f "$PROJECT/pom.xml" -Dmaven.repo.local="$LOCAL" "${tail[@]}"
  -Detl.version="$VERSION" -Detl.repository.url="file://$REPOSITORY")

log "building and running examples/consumer against etl $VERSION from $REPOSITORY"
"${mvn[@]}" verify -Dkafka.bootstrap="$kafka" -Dregistry.url="$registry" -Dclickhouse.url="$clickhouse" </dev/null
report="$PROJECT/target/failsafe-reports/TEST-com.example.orders.OrdersConsumerIT.xml"
[[ -f "$report" ]] || die "no $report: OrdersConsumerIT did not run"
grep -q -m1 '<testsuite [^>]* tests="2"' "$report" && ! grep -q -m1 '<testsuite [^>]* skipped="[1-9]' "$report" ||
  die "OrdersConsumerIT did not run both of its tests: $(grep -o -m1 '<testsuite [^>]*' "$report")"

"${mvn[@]}" -q dependency:build-classpath -DincludeScope=runtime -Dmdep.outputFile="$WORK/classpath.txt" </dev/null
mapfile -t jars < <(tr ':' '\n' <"$WORK/classpath.txt" | grep -v '^$')
etl=0
bytes=0
for jar in "${jars[@]}"; do
  bytes=$((bytes + $(stat -c %s "$jar")))
  case "$jar" in */dev/etl/*) ;; *) continue ;; esac
  etl=$((etl + 1))
  [[ "$jar" == "$LOCAL"/* ]] || die "$jar was not resolved into the new local repository"
  grep -qF "$(basename "$jar")>etl-release=" "$(dirname "$jar")/_remote.repositories" ||
    die "$jar was not downloaded from the release repository (etl-release)"
  case "$(basename "$jar")" in
    etl-datagen-* | etl-s3-* | etl-json-*) die "$jar is on the class path: the starter must not bring it" ;;
  esac
done
# every dev.etl file Maven resolved (the parent POM and the BOM too) came from the release repository
poms=0
while IFS= read -r file; do
  grep -qF "$(basename "$file")>etl-release=" "$(dirname "$file")/_remote.repositories" ||
    die "$file was not downloaded from the release repository (etl-release)"
  poms=$((poms + 1))
done < <(find "$LOCAL/dev/etl" -type f \( -name '*.pom' -o -name '*.jar' \))
((poms > etl)) || die "no dev.etl POMs in $LOCAL/dev/etl"
# (grep -q reads from here-strings, not pipes: under pipefail, a writer cut off by grep -q's early exit
# would fail the pipeline, and a check that found what it looked for would report it missing)
classpath="$(printf '%s\n' "${jars[@]}")"
grep -q "/etl-spring-boot-starter-$VERSION.jar$" <<<"$classpath" ||
  die "etl-spring-boot-starter-$VERSION.jar is not on the class path"
grep -q '/software/amazon/awssdk/' <<<"$classpath" && die "the AWS SDK is on the class path"
grep -q '/netty-codec-native-quic-' <<<"$classpath" && die "Netty's native QUIC is on the class path"

app="$PROJECT/target/orders-consumer-1.0.0.jar"
entries="$(unzip -Z1 "$app")" || die "cannot list $app"
grep -qx "BOOT-INF/lib/etl-engine-$VERSION.jar" <<<"$entries" || die "$app has no etl-engine-$VERSION.jar"
grep -q '^BOOT-INF/lib/etl-spring-boot-starter-' <<<"$entries" &&
  die "$app holds the starter's jar: Boot should leave out a dependencies starter"

log "examples/consumer passed against etl $VERSION: ${#jars[@]} jars on its runtime class path" \
  "($((bytes / 100000 / 10)).$((bytes / 100000 % 10)) MB), the $etl dev.etl jars and every dev.etl POM from $REPOSITORY only"
