#!/usr/bin/env bash
# Container images, built here from nothing with podman: no Docker engine and no registry are needed.
#
#   scripts/image.sh base          Debian bookworm (debootstrap --variant=minbase), imported as a base image
#   scripts/image.sh jre           the base + Debian's OpenJDK 17 runtime
#   scripts/image.sh sample        the sample-service's image (sample-service/Containerfile: Boot's layers,
#                                  a non-root user, a CDS archive trained at build time), from
#                                  sample-service/target/sample-service.jar (build it first:
#                                  ./mvnw -q -pl sample-service -am package -DskipTests)
#   scripts/image.sh app           the etl-app image (etl-app/Containerfile: a pipeline from configuration alone,
#                                  built the sample's way FROM the same JRE image), from etl-app/target/etl-app.jar
#                                  (build it first: ./mvnw -q -pl etl-app -am package -DskipTests)
#   scripts/image.sh servers       the test servers' images, for Testcontainers: clickhouse (18.16, Debian's
#                                  package), zookeeper (3.8, Debian's), kafka (4.1, its Maven jars),
#                                  apicurio (2.6, its Maven distribution); or one of them by name
#   scripts/image.sh all           all of the above (the etl-app image when its jar is there)
#   scripts/image.sh NAME NAME...  several of them in turn (scripts/image.sh sample app)
#   scripts/image.sh list          the images and whether they are built
#   scripts/image.sh service start|stop|status
#                                  the Docker API that Testcontainers speaks (podman system service) on
#                                  a socket in the work dir
#   scripts/image.sh env           prints the exports a shell needs for podman and Testcontainers:
#                                  eval "$(scripts/image.sh env)"
#   scripts/image.sh clean         removes the images and the cached base file system
#
# Every build is idempotent: an image whose inputs (its Containerfile and context, the image it is built
# FROM, versions) did not change is not built again (a label records them), and the debootstrap file
# system is cached as a tar file outside the checkout (ETL_IMAGE_CACHE_DIR), so a fresh clone on the same
# machine does not debootstrap again. Each of them builds what it is FROM when missing. Every
# step is bounded by ETL_IMAGE_TIMEOUT_S. Missing Debian packages (podman, runc, debootstrap, iptables)
# are installed with apt-get. Images are named $ETL_IMAGE_PREFIX/<name> (localhost/etl/...).
#
# Environment:
#   ETL_IMAGE_DIR          work dir: build contexts, logs, containers.conf, the API socket
#                          (default <repo>/.infra/images)
#   ETL_IMAGE_CACHE_DIR    the debootstrap file system's tar file (default ~/.cache/etl/images; about
#                          200 MB; `clean` removes it)
#   ETL_IMAGE_PREFIX       image names (default localhost/etl)
#   ETL_IMAGE_TIMEOUT_S    bound on each step: debootstrap, one image build, a wait (default 900)
#   ETL_IMAGE_REFRESH=1    build again even when the inputs did not change (a new debootstrap too:
#                          Debian's newest packages)
#   ETL_DEBIAN_MIRROR      default http://deb.debian.org/debian
#   ETL_DEBIAN_SECURITY_MIRROR  default http://deb.debian.org/debian-security
#   ETL_MVN                Maven for the Kafka jars and the Apicurio distribution (default mvn, else ./mvnw)
#
# podman runs with runc (this kernel's hybrid cgroup layout needs it, not crun), the cgroupfs manager and
# no default rlimits (raising them is not permitted in these sandboxes): the containers.conf written to
# the work dir, which `env` exports as CONTAINERS_CONF. See docs/deployment/container.md.
set -euo pipefail

SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(dirname "$SCRIPTS_DIR")"
IMAGES_SRC="$SCRIPTS_DIR/infra/images"
IMAGE_DIR="${ETL_IMAGE_DIR:-$REPO_ROOT/.infra/images}"
CACHE_DIR="${ETL_IMAGE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/etl/images}"
PREFIX="${ETL_IMAGE_PREFIX:-localhost/etl}"
TIMEOUT_S="${ETL_IMAGE_TIMEOUT_S:-900}"
REFRESH="${ETL_IMAGE_REFRESH:-0}"
MIRROR="${ETL_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SECURITY_MIRROR="${ETL_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
SUITE=bookworm

BASE_IMAGE="$PREFIX/debian:$SUITE"
JRE_IMAGE="$PREFIX/jre:17"
SAMPLE_IMAGE="$PREFIX/sample-service"
APP_IMAGE="$PREFIX/etl-app"
CLICKHOUSE_IMAGE="$PREFIX/clickhouse-server:18.16"
ZOOKEEPER_IMAGE="$PREFIX/zookeeper:3.8"
KAFKA_IMAGE="$PREFIX/kafka:4.1"
# The Apicurio version scripts/infra.sh runs, so that both are the same server.
REGISTRY_VERSION="$(sed -n 's/^REGISTRY_VERSION="\(.*\)"$/\1/p' "$SCRIPTS_DIR/infra.sh")"
APICURIO_IMAGE="$PREFIX/apicurio-registry-mem:$REGISTRY_VERSION"
SAMPLE_JAR="$REPO_ROOT/sample-service/target/sample-service.jar"
APP_JAR="$REPO_ROOT/etl-app/target/etl-app.jar"

CONF="$IMAGE_DIR/containers.conf"
SOCKET="$IMAGE_DIR/podman.sock"
SERVICE_PID="$IMAGE_DIR/podman-service.pid"
LOG_DIR="$IMAGE_DIR/logs"
LABEL=dev.etl.image.inputs

log() { printf '%s [image] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# Show the end of a step's log and fail.
fail_step() { # log-file reason
  log "ERROR: $2"
  if [[ -f "$1" ]]; then
    log "---- last 30 lines of $1 ----"
    tail -n 30 "$1" >&2 || true
    log "---- end of $1 ----"
  fi
  exit 1
}

as_root() {
  if [[ "$(id -u)" == 0 ]]; then "$@"; else sudo -n "$@"; fi
}

# ------------------------------------------------------------------ tools ----

ensure_tools() {
  local need=()
  command -v podman >/dev/null || need+=(podman)
  command -v runc >/dev/null || need+=(runc)
  command -v debootstrap >/dev/null || [[ -x /usr/sbin/debootstrap ]] || need+=(debootstrap)
  command -v iptables >/dev/null || [[ -x /usr/sbin/iptables ]] || need+=(iptables)
  command -v curl >/dev/null || need+=(curl)
  command -v unzip >/dev/null || need+=(unzip)
  if ((${#need[@]} > 0)); then
    log "installing missing Debian packages: ${need[*]}"
    as_root timeout 600 apt-get update -q >&2
    as_root timeout 1200 env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" </dev/null >&2
  fi
  write_conf
}

# runc (crun fails on this kernel's hybrid cgroup layout), cgroupfs (no systemd), no default rlimits (a
# container may not raise them here). CONTAINERS_CONF makes podman read this file and no other.
write_conf() {
  mkdir -p "$IMAGE_DIR" "$LOG_DIR"
  cat >"$CONF.tmp" <<'EOF'
# written by scripts/image.sh
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
EOF
  mv "$CONF.tmp" "$CONF"
  export CONTAINERS_CONF="$CONF"
}

pod() { timeout --kill-after=30 "$TIMEOUT_S" podman "$@"; }

image_exists() { podman image exists "$1"; }
image_id() { podman image inspect --format '{{.Id}}' "$1"; }
image_inputs() { podman image inspect --format "{{ index .Labels \"$LABEL\" }}" "$1" 2>/dev/null || true; }

# A hash of the extra words and of the files under the given paths: their names (relative to each path,
# so that another checkout of the repository has the same hash) and contents.
inputs_hash() { # extra-words paths...
  local extra="$1" p
  shift
  {
    printf '%s\n' "$extra"
    for p in "$@"; do
      if [[ -d "$p" ]]; then
        (cd "$p" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
      else
        printf '%s %s\n' "$(sha256sum <"$p" | cut -d' ' -f1)" "$(basename "$p")"
      fi
    done
  } | sha256sum | cut -c1-32
}

up_to_date() { # image hash
  [[ "$REFRESH" != 1 ]] && image_exists "$1" && [[ "$(image_inputs "$1")" == "$2" ]]
}

# podman build with the host's network (apt-get and nothing else reach out), labelled with its inputs.
build() { # name image hash context containerfile build-args...
  local name="$1" image="$2" hash="$3" context="$4" file="$5" t=$SECONDS logf="$LOG_DIR/$1.log"
  shift 5
  log "$name: building $image (log $logf)"
  pod build --network host --label "$LABEL=$hash" --tag "$image" --file "$file" "$@" "$context" >"$logf" 2>&1 ||
    fail_step "$logf" "$name: podman build failed or took longer than ${TIMEOUT_S}s"
  log "$name: built $image in $((SECONDS - t))s ($(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}'))"
  # Untagged images left by this build or replaced by it (a multi-stage build's first stage, the image
  # this one replaced): only those built FROM ours, which carry our label.
  podman image prune --force --filter "label=$LABEL" >/dev/null 2>&1 || true
}

# ------------------------------------------------------------------ base ----

# debootstrap's minimal Debian as a tar file (cached: rebuilding the images starts from it), imported as
# $BASE_IMAGE after customize_rootfs (apt sources with the updates and security suites, apt settings for
# images, no caches).
cmd_base() {
  local tar="$CACHE_DIR/debian-$SUITE-minbase.tar" root="$IMAGE_DIR/base/rootfs" hash t
  if [[ "$REFRESH" == 1 ]]; then rm -f "$tar"; fi
  if [[ ! -s "$tar" ]]; then
    mkdir -p "$IMAGE_DIR/base" "$CACHE_DIR"
    as_root rm -rf "$root"
    t=$SECONDS
    log "base: debootstrap --variant=minbase $SUITE from $MIRROR (log $LOG_DIR/debootstrap.log)"
    as_root timeout --kill-after=30 "$TIMEOUT_S" debootstrap --variant=minbase "$SUITE" "$root" "$MIRROR" \
      >"$LOG_DIR/debootstrap.log" 2>&1 || fail_step "$LOG_DIR/debootstrap.log" "base: debootstrap failed or took longer than ${TIMEOUT_S}s"
    as_root tar -C "$root" --numeric-owner -cf "$tar.tmp" .
    as_root chown "$(id -u):$(id -g)" "$tar.tmp"
    mv "$tar.tmp" "$tar"
    as_root rm -rf "$root"
    log "base: debootstrap done in $((SECONDS - t))s ($(du -h "$tar" | cut -f1), cached in $tar)"
  fi
  # The tar file's time (a new debootstrap is a new base) and what customize_rootfs does.
  hash="$(inputs_hash "base $SUITE $MIRROR $SECURITY_MIRROR $(stat -c %Y "$tar") $(declare -f customize_rootfs)")"
  if up_to_date "$BASE_IMAGE" "$hash"; then
    log "base: $BASE_IMAGE is up to date"
    return 0
  fi
  t=$SECONDS
  as_root rm -rf "$root"
  mkdir -p "$root"
  as_root tar -C "$root" --numeric-owner -xf "$tar"
  customize_rootfs "$root"
  as_root tar -C "$root" --numeric-owner -c . |
    pod import --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/bash"]' --change "LABEL $LABEL=$hash" \
      - "$BASE_IMAGE" >"$LOG_DIR/import.log" 2>&1 || fail_step "$LOG_DIR/import.log" "base: podman import failed"
  as_root rm -rf "$root"
  log "base: imported $BASE_IMAGE in $((SECONDS - t))s"
}

# What the base image has beyond debootstrap's file system (part of the base's inputs).
customize_rootfs() { # root
  as_root tee "$1/etc/apt/sources.list" >/dev/null <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY_MIRROR $SUITE-security main
EOF
  # Images install what they name and keep no package caches (the images' RUN steps also delete the
  # package lists and downloaded packages they leave).
  as_root tee "$1/etc/apt/apt.conf.d/90etl-image" >/dev/null <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  as_root find "$1/var/cache/apt" "$1/var/lib/apt/lists" "$1/var/log" -type f -delete
}

need_base() { image_exists "$BASE_IMAGE" || cmd_base; }

# ------------------------------------------------------------------ jre ----

cmd_jre() {
  local hash
  need_base
  hash="$(inputs_hash "jre $(image_id "$BASE_IMAGE")" "$IMAGES_SRC/jre")"
  if up_to_date "$JRE_IMAGE" "$hash"; then
    log "jre: $JRE_IMAGE is up to date"
    return 0
  fi
  build jre "$JRE_IMAGE" "$hash" "$IMAGES_SRC/jre" "$IMAGES_SRC/jre/Containerfile" --build-arg "BASE_IMAGE=$BASE_IMAGE"
}

need_jre() { image_exists "$JRE_IMAGE" || cmd_jre; }

# ------------------------------------------------------------------ sample ----

# An application's image from its module's Containerfile and executable jar, FROM the JRE image (the sample's
# and etl-app's share every layer up to their own jars), tagged :latest and :<the jar's version>.
build_app_image() { # name image module jar
  local name="$1" image="$2" module="$3" jar="$4" hash version
  [[ -f "$jar" ]] || die "$name: no $jar: build it with ./mvnw -q -pl $module -am package -DskipTests"
  need_jre
  hash="$(inputs_hash "$name $(image_id "$JRE_IMAGE")" "$REPO_ROOT/$module/Containerfile" \
    "$REPO_ROOT/$module/.dockerignore" "$jar")"
  if up_to_date "$image:latest" "$hash"; then
    log "$name: $image:latest is up to date"
    return 0
  fi
  version="$(unzip -p "$jar" "META-INF/maven/dev.etl/$module/pom.properties" 2>/dev/null |
    sed -n 's/^version=//p')"
  build "$name" "$image:latest" "$hash" "$REPO_ROOT/$module" "$REPO_ROOT/$module/Containerfile" \
    --build-arg "JRE_IMAGE=$JRE_IMAGE"
  if [[ -n "$version" ]]; then
    podman tag "$image:latest" "$image:$version"
    log "$name: tagged $image:$version"
  fi
}

cmd_sample() { build_app_image sample "$SAMPLE_IMAGE" sample-service "$SAMPLE_JAR"; }

cmd_app() { build_app_image app "$APP_IMAGE" etl-app "$APP_JAR"; }

# ------------------------------------------------------------------ servers ----

cmd_clickhouse() {
  local hash
  need_base
  hash="$(inputs_hash "clickhouse $(image_id "$BASE_IMAGE")" "$IMAGES_SRC/clickhouse")"
  if up_to_date "$CLICKHOUSE_IMAGE" "$hash"; then
    log "clickhouse: $CLICKHOUSE_IMAGE is up to date"
    return 0
  fi
  build clickhouse "$CLICKHOUSE_IMAGE" "$hash" "$IMAGES_SRC/clickhouse" "$IMAGES_SRC/clickhouse/Containerfile" \
    --build-arg "BASE_IMAGE=$BASE_IMAGE"
}

cmd_zookeeper() {
  local hash
  need_jre
  hash="$(inputs_hash "zookeeper $(image_id "$JRE_IMAGE")" "$IMAGES_SRC/zookeeper")"
  if up_to_date "$ZOOKEEPER_IMAGE" "$hash"; then
    log "zookeeper: $ZOOKEEPER_IMAGE is up to date"
    return 0
  fi
  build zookeeper "$ZOOKEEPER_IMAGE" "$hash" "$IMAGES_SRC/zookeeper" "$IMAGES_SRC/zookeeper/Containerfile" \
    --build-arg "JRE_IMAGE=$JRE_IMAGE"
}

run_mvn() { # logfile args...
  local logf="$1" mvn="${ETL_MVN:-mvn}"
  shift
  command -v "$mvn" >/dev/null || mvn="$REPO_ROOT/mvnw"
  timeout --kill-after=30 "$TIMEOUT_S" "$mvn" -B -ntp -Dstyle.color=never "$@" >"$logf" 2>&1 ||
    fail_step "$logf" "mvn $* failed"
}

# The broker's jars: the classpath of scripts/infra/kafka/pom.xml (the local broker's), copied by Maven.
cmd_kafka() {
  local hash ctx="$IMAGE_DIR/context/kafka" pom="$SCRIPTS_DIR/infra/kafka/pom.xml"
  need_jre
  hash="$(inputs_hash "kafka $(image_id "$JRE_IMAGE")" "$IMAGES_SRC/kafka" "$pom")"
  if up_to_date "$KAFKA_IMAGE" "$hash"; then
    log "kafka: $KAFKA_IMAGE is up to date"
    return 0
  fi
  rm -rf "$ctx"
  mkdir -p "$ctx"
  cp -r "$IMAGES_SRC/kafka/." "$ctx/"
  log "kafka: copying the broker's jars with Maven ($pom)"
  run_mvn "$LOG_DIR/kafka-mvn.log" -f "$pom" dependency:copy-dependencies -DincludeScope=runtime \
    "-DoutputDirectory=$ctx/libs"
  build kafka "$KAFKA_IMAGE" "$hash" "$ctx" "$ctx/Containerfile" --build-arg "JRE_IMAGE=$JRE_IMAGE"
  rm -rf "$ctx"
}

# Apicurio's distribution, fetched by Maven as scripts/infra.sh fetches it, unpacked into the context.
cmd_apicurio() {
  local hash ctx="$IMAGE_DIR/context/apicurio" zip
  need_jre
  hash="$(inputs_hash "apicurio $REGISTRY_VERSION $(image_id "$JRE_IMAGE")" "$IMAGES_SRC/apicurio")"
  if up_to_date "$APICURIO_IMAGE" "$hash"; then
    log "apicurio: $APICURIO_IMAGE is up to date"
    return 0
  fi
  rm -rf "$ctx"
  mkdir -p "$ctx/dist"
  cp -r "$IMAGES_SRC/apicurio/." "$ctx/"
  log "apicurio: fetching io.apicurio:apicurio-registry-app:$REGISTRY_VERSION:zip:all with Maven"
  # run in the context dir (no pom.xml there), so the project's build is never loaded
  (cd "$ctx" && run_mvn "$LOG_DIR/apicurio-mvn.log" dependency:copy \
    "-Dartifact=io.apicurio:apicurio-registry-app:$REGISTRY_VERSION:zip:all" "-DoutputDirectory=$ctx")
  zip="$ctx/apicurio-registry-app-$REGISTRY_VERSION-all.zip"
  unzip -q "$zip" -d "$ctx/dist" || die "apicurio: unzip $zip failed"
  mv "$ctx/dist/apicurio-registry-app-$REGISTRY_VERSION-runner.jar" "$ctx/dist/apicurio-registry-app-runner.jar"
  rm -f "$zip"
  build apicurio "$APICURIO_IMAGE" "$hash" "$ctx" "$ctx/Containerfile" --build-arg "JRE_IMAGE=$JRE_IMAGE"
  rm -rf "$ctx"
}

cmd_servers() {
  cmd_clickhouse
  cmd_zookeeper
  cmd_kafka
  cmd_apicurio
}

cmd_list() {
  local image state
  for image in "$BASE_IMAGE" "$JRE_IMAGE" "$SAMPLE_IMAGE:latest" "$APP_IMAGE:latest" "$CLICKHOUSE_IMAGE" "$ZOOKEEPER_IMAGE" "$KAFKA_IMAGE" \
    "$APICURIO_IMAGE"; do
    if image_exists "$image"; then
      state="$(podman image inspect --format '{{.Created.Format "2006-01-02 15:04"}} {{.Size}}' "$image" |
        awk '{printf "built %s %s, %.0f MB", $1, $2, $3 / 1e6}')"
    else
      state="missing"
    fi
    printf '%-48s %s\n' "$image" "$state"
  done
}

# ------------------------------------------------------------------ service ----

service_pid() {
  local pid
  [[ -f "$SERVICE_PID" ]] || return 1
  pid="$(cat "$SERVICE_PID")"
  [[ "$pid" =~ ^[0-9]+$ && -r "/proc/$pid/cmdline" ]] || return 1
  local cmdline
  cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  grep -qF "system service" <<<"$cmdline" || return 1
  echo "$pid"
}

service_ping() { [[ "$(curl -sf --max-time 2 --unix-socket "$SOCKET" http://d/_ping 2>/dev/null)" == OK ]]; }

cmd_service() {
  local pid deadline
  case "${1:-status}" in
    start)
      if pid="$(service_pid)" && service_ping; then
        log "service: already running (pid $pid, unix://$SOCKET)"
        return 0
      fi
      rm -f "$SOCKET"
      # --time=0: no idle timeout; the API serves until `service stop`.
      setsid nohup podman system service --time=0 "unix://$SOCKET" >"$LOG_DIR/podman-service.log" 2>&1 </dev/null &
      echo $! >"$SERVICE_PID"
      deadline=$((SECONDS + 60))
      until service_ping; do
        service_pid >/dev/null || fail_step "$LOG_DIR/podman-service.log" "service: podman system service exited"
        ((SECONDS < deadline)) || fail_step "$LOG_DIR/podman-service.log" "service: no answer on $SOCKET within 60 s"
        sleep 0.2
      done
      log "service: the Docker API answers on unix://$SOCKET (pid $(cat "$SERVICE_PID"), podman $(podman version --format '{{.Client.Version}}'))"
      ;;
    stop)
      if ! pid="$(service_pid)"; then
        log "service: not running"
        rm -f "$SERVICE_PID" "$SOCKET"
        return 0
      fi
      kill -TERM "$pid" 2>/dev/null || true
      deadline=$((SECONDS + 15))
      while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
      rm -f "$SERVICE_PID" "$SOCKET"
      log "service: stopped (pid $pid)"
      ;;
    status)
      if pid="$(service_pid)" && service_ping; then
        echo "podman system service: up (pid $pid), DOCKER_HOST=unix://$SOCKET"
      else
        echo "podman system service: down"
        return 3
      fi
      ;;
    *) usage ;;
  esac
}

cmd_env() {
  cat <<EOF
export CONTAINERS_CONF='$CONF'
export DOCKER_HOST='unix://$SOCKET'
export TESTCONTAINERS_RYUK_DISABLED=true
EOF
}

cmd_clean() {
  local image
  cmd_service stop
  for image in "$SAMPLE_IMAGE:latest" "$APP_IMAGE:latest" "$APICURIO_IMAGE" "$KAFKA_IMAGE" "$ZOOKEEPER_IMAGE" "$CLICKHOUSE_IMAGE" \
    "$JRE_IMAGE" "$BASE_IMAGE"; do
    if image_exists "$image"; then
      podman rmi --force "$image" >/dev/null && log "removed $image"
    fi
  done
  podman images --format '{{.Repository}}:{{.Tag}}' | grep -F -e "$SAMPLE_IMAGE:" -e "$APP_IMAGE:" |
    xargs -r podman rmi --force >/dev/null || true
  as_root rm -rf "$IMAGE_DIR/base" "$IMAGE_DIR/context"
  rm -f "$CACHE_DIR/debian-$SUITE-minbase.tar"
  log "removed the cached base file system"
}

usage() {
  echo "usage: $0 base|jre|sample|app|servers|clickhouse|zookeeper|kafka|apicurio|all|list|env|clean|service start|stop|status" >&2
  echo "       $0 NAME NAME... (several images in turn, e.g. sample app)" >&2
  exit 2
}

main() {
  local cmd="${1:-}" c
  case "$cmd" in
    env) write_conf; cmd_env; return 0 ;;
    base | jre | sample | app | servers | clickhouse | zookeeper | kafka | apicurio | all | list | service | clean) ;;
    *) usage ;;
  esac
  if [[ "$cmd" != service && $# -gt 1 ]]; then
    for c in "$@"; do
      case "$c" in
        base | jre | sample | app | servers | clickhouse | zookeeper | kafka | apicurio) ;;
        *) usage ;;
      esac
    done
  fi
  ensure_tools
  case "$cmd" in
    all) cmd_base; cmd_jre; cmd_servers; cmd_sample; [[ ! -f "$APP_JAR" ]] || cmd_app ;;
    service) shift; cmd_service "$@" ;;
    *) for c in "$@"; do "cmd_$c"; done ;;
  esac
}

main "$@"
