#!/usr/bin/env bash
# Local test infrastructure: ZooKeeper, 4 ClickHouse instances (2 shards x 2
# replicas), a KRaft Kafka broker, an Apicurio schema registry and S3Proxy (an
# S3-compatible server on the local filesystem).
# All processes bind to 127.0.0.1 and keep their state under ONE work dir.
# Besides their plaintext listeners the same servers have secured ones (HTTPS on
# ClickHouse with password users, SASL_SSL/SCRAM-SHA-512 on Kafka, HTTPS on the
# registry), with a throwaway CA and server certificate made when nothing runs.
#
#   scripts/infra.sh start|stop|status|endpoints|clean [clickhouse|zookeeper|kafka|registry|s3|all]
#
# See scripts/infra/README.md for ports and environment variables.
set -euo pipefail

SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(dirname "$SCRIPTS_DIR")"
WORK_DIR="${ETL_INFRA_DIR:-$REPO_ROOT/.infra}"
TIMEOUT_S="${ETL_INFRA_TIMEOUT_S:-90}"

ZK_PORT="${ETL_ZK_PORT:-12181}"
CH_HTTP_BASE="${ETL_CH_HTTP_BASE:-18123}"
CH_TCP_BASE="${ETL_CH_TCP_BASE:-19000}"
CH_INTERSERVER_BASE="${ETL_CH_INTERSERVER_BASE:-19100}"
CH_INSTANCES=(s1r1 s1r2 s2r1 s2r2)
CH_CLUSTER=etl
KAFKA_PORT="${ETL_KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${ETL_KAFKA_CONTROLLER_PORT:-19093}"
KAFKA_CLUSTER_ID="ZXRsLWluZnJhLWxvY2FsMQ" # base64("etl-infra-local1"), fixed on purpose
KAFKA_POM="$SCRIPTS_DIR/infra/kafka/pom.xml"
REGISTRY_PORT="${ETL_REGISTRY_PORT:-18081}"
REGISTRY_VERSION="2.6.13.Final"
S3_PORT="${ETL_S3_PORT:-19300}"
S3_POM="$SCRIPTS_DIR/infra/s3proxy/pom.xml"
# What clients sign with (SigV4 credential scope); S3Proxy accepts any region, clients need one.
S3_REGION=us-east-1
# The fixed local identity (the AWS access key id); its secret key is made per work dir (secrets.env).
S3_ACCESS_KEY=etl-local
# Secured listeners. Defaults follow the plaintext ports, so an instance moved with the ETL_* port
# variables above moves its secured ports too.
CH_HTTPS_BASE="${ETL_CH_HTTPS_BASE:-$((CH_HTTP_BASE + 320))}"
KAFKA_SASL_SSL_PORT="${ETL_KAFKA_SASL_SSL_PORT:-$((KAFKA_PORT + 2))}"
REGISTRY_HTTPS_PORT="${ETL_REGISTRY_HTTPS_PORT:-$((REGISTRY_PORT + 1))}"
# The host name the server certificate is issued for (DNS:localhost only: https://127.0.0.1 is a
# host-name mismatch, on purpose, for the tests of that mistake).
TLS_HOST=localhost
CH_SECURE_USER=etl
CH_READONLY_USER=reader
KAFKA_SCRAM_USER=etl
KAFKA_SCRAM_MECHANISM=SCRAM-SHA-512

if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then JAVA="$JAVA_HOME/bin/java"; else JAVA=java; fi

# ---------------------------------------------------------------- helpers ---

log() { printf '%s [infra] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# Fail loudly for a server: name, reason, last 30 lines of its log.
fail_server() { # name logfile reason
  log "ERROR: $1: $3"
  if [[ -f "$2" ]]; then
    log "---- last 30 lines of $2 ----"
    # a tool's error may quote a credential: never print one
    tail -n 30 "$2" | sed -E 's/((password|credential|secret)[^=:]*[=:] *"?)[^]",; ]+/\1******/Ig' >&2 || true
    log "---- end of $2 ----"
  fi
  exit 1
}

# 0 if something accepts TCP connections on 127.0.0.1:$1
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# PID from a pid file if that process is alive AND its command line still
# contains the expected token (so a recycled PID is never mistaken for ours).
live_pid() { # pidfile token
  local pid cmd
  [[ -f "$1" ]] || return 1
  pid="$(cat "$1" 2>/dev/null)" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  cmd="$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")" || return 1
  [[ "$cmd" == *"$2"* ]] || return 1
  echo "$pid"
}

# Start a daemon in its own session, stdout/stderr to a file, record its PID.
# Returns once the child has exec'd the server (its command line shows the
# token) or has died, so later liveness checks never see the pre-exec fork.
launch() { # pidfile token outfile cmd...
  local pidfile="$1" token="$2" out="$3" pid i
  shift 3
  setsid nohup "$@" >>"$out" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$pidfile"
  for ((i = 0; i < 100; i++)); do
    live_pid "$pidfile" "$token" >/dev/null && return 0
    [[ -d "/proc/$pid" ]] || return 0
    sleep 0.05
  done
}

# TERM, wait up to 15 s, then KILL. Only for PIDs that pass live_pid.
stop_pidfile() { # label pidfile token
  local label="$1" pidfile="$2" token="$3" pid i
  if ! pid="$(live_pid "$pidfile" "$token")"; then
    rm -f "$pidfile"
    log "$label: not running"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 150; i++)); do
    live_pid "$pidfile" "$token" >/dev/null || break
    sleep 0.1
  done
  if live_pid "$pidfile" "$token" >/dev/null; then
    log "$label: still alive after 15 s, sending KILL to $pid"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$pidfile"
  log "$label: stopped (pid $pid)"
}

# Poll a check function until it succeeds, the process dies, or timeout.
wait_ready() { # label pidfile token logfile check_fn [args...]
  local label="$1" pidfile="$2" token="$3" logfile="$4"
  shift 4
  local deadline=$((SECONDS + TIMEOUT_S))
  until "$@" >/dev/null 2>&1; do
    live_pid "$pidfile" "$token" >/dev/null || fail_server "$label" "$logfile" "process exited during startup"
    ((SECONDS < deadline)) || fail_server "$label" "$logfile" "not ready after ${TIMEOUT_S}s"
    sleep 0.3
  done
}

# Refuse to start if a foreign process already holds one of our ports.
require_free_ports() { # label port...
  local label="$1" p low high
  shift
  read -r low high </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || { low=32768; high=60999; }
  for p in "$@"; do
    port_open "$p" && die "$label: port 127.0.0.1:$p is already in use by another process (override with the ETL_* env vars)"
    if ((p >= low && p <= high)); then
      log "WARNING: $label: port $p is in the ephemeral range $low-$high; an outgoing connection may hold it" \
        "and make the bind fail (choose ports below $low)"
    fi
  done
  return 0
}

# Maven, quiet, output to a log file that is shown on failure.
run_mvn() { # label logfile mvn-args...
  local label="$1" logfile="$2"
  shift 2
  local mvn="${ETL_MVN:-mvn}"
  command -v "$mvn" >/dev/null || mvn="$REPO_ROOT/mvnw"
  "$mvn" -B -ntp -Dstyle.color=never "$@" >"$logfile" 2>&1 || fail_server "$label" "$logfile" "mvn $* failed"
}

# 0 if the cached classpath is present, not older than the pom, and complete.
classpath_valid() { # cpfile pom
  local cpfile="$1" pom="$2" jar
  [[ -s "$cpfile" && ! "$pom" -nt "$cpfile" ]] || return 1
  while IFS= read -r -d: jar; do
    [[ -f "$jar" ]] || return 1
  done < <(tr -d '\n' <"$cpfile"; printf ':')
}

# The classpath of a classpath-holder pom (scripts/infra/<server>/pom.xml), resolved by Maven on the
# first run and cached in <server dir>/classpath.txt.
maven_classpath() { # label pom server-dir
  local label="$1" pom="$2" cpfile="$3/classpath.txt"
  if ! classpath_valid "$cpfile" "$pom"; then
    mkdir -p "$3/logs"
    log "$label: resolving classpath with Maven (first run downloads artifacts)"
    run_mvn "$label" "$3/logs/mvn.log" -f "$pom" dependency:build-classpath "-Dmdep.outputFile=$cpfile.tmp"
    mv "$cpfile.tmp" "$cpfile"
  fi
  cat "$cpfile"
}

# ------------------------------------------------------------- packages ----

CH_SERVER_BIN=""
find_clickhouse() {
  local c
  for c in "$(command -v clickhouse-server 2>/dev/null || true)" /usr/sbin/clickhouse-server /usr/bin/clickhouse-server; do
    [[ -n "$c" && -x "$c" ]] && { CH_SERVER_BIN="$c"; return 0; }
  done
  return 1
}

ensure_packages() {
  local need=()
  find_clickhouse || need+=(clickhouse-server clickhouse-client)
  [[ -f /usr/share/java/zookeeper.jar ]] || need+=(zookeeper)
  command -v curl >/dev/null || need+=(curl)
  command -v unzip >/dev/null || need+=(unzip)
  command -v openssl >/dev/null || need+=(openssl)
  ((${#need[@]} == 0)) && return 0
  log "installing missing Debian packages: ${need[*]}"
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >&2
  find_clickhouse || die "clickhouse-server binary not found after install"
}

# curl is the registry's and S3Proxy's readiness check; S3Proxy's signs its request (--aws-sigv4).
ensure_curl() {
  if ! command -v curl >/dev/null; then
    log "installing missing Debian package: curl"
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q curl >&2
  fi
  local help
  help="$(curl --help all 2>/dev/null || true)"
  [[ "$help" == *--aws-sigv4* ]] ||
    die "curl $(curl --version | head -n 1 | cut -d' ' -f2) has no --aws-sigv4 (needs 7.75 or newer): the S3 readiness check signs its request"
}

# ------------------------------------------------------------------ tls ----

# Debian's openssl makes the PEM key and certificates (ClickHouse reads PEM); keytool the Java trust store.
ensure_openssl() {
  command -v openssl >/dev/null && return 0
  log "installing missing Debian package: openssl"
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q openssl >&2
  command -v openssl >/dev/null || die "openssl not found after install"
}

# Throwaway TLS material for the secured listeners, under $TLS_DIR (0700):
#   ca.crt           the CA (its key is deleted right after signing: it can sign nothing else)
#   server.crt/.key  PEM, for ClickHouse (DNS:localhost only)
#   server.p12       the same key and certificate for Kafka and the registry
#   truststore.p12   the CA for Java clients (tests, the IT's application)
#   secrets.env      the store and user passwords and S3Proxy's secret key (0600)
# Passwords are made once per work dir: Kafka keeps SCRAM credentials in its metadata log, so they must
# outlive a restart. Certificates are made again whenever no server of this work dir is running (every
# CI run, every `start` after `stop all`); running servers keep theirs.
TLS_DIR="$WORK_DIR/tls"

if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/keytool" ]]; then KEYTOOL="$JAVA_HOME/bin/keytool"; else KEYTOOL=keytool; fi

tls_secret() { openssl rand -hex 16; }

tls_secrets() {
  local f="$TLS_DIR/secrets.env"
  mkdir -p "$TLS_DIR"
  chmod 700 "$TLS_DIR"
  if [[ ! -s "$f" ]]; then
    (
      umask 077
      {
        echo "TLS_KEYSTORE_PASSWORD=$(tls_secret)"
        echo "TLS_TRUSTSTORE_PASSWORD=$(tls_secret)"
        echo "CH_SECURE_PASSWORD=$(tls_secret)"
        echo "CH_READONLY_PASSWORD=$(tls_secret)"
        echo "KAFKA_SCRAM_PASSWORD=$(tls_secret)"
        echo "S3_SECRET_KEY=$(tls_secret)"
      } >"$f.tmp"
    )
    mv "$f.tmp" "$f"
  fi
  # shellcheck source=/dev/null
  source "$f"
  # A work dir made by an older scripts/infra.sh has no S3 secret key yet: add one, keep the rest.
  if [[ -z "${S3_SECRET_KEY:-}" ]]; then
    (umask 077 && echo "S3_SECRET_KEY=$(tls_secret)" >>"$f")
    # shellcheck source=/dev/null
    source "$f"
  fi
}

# The secrets as they are, for commands that must not create them (status, endpoints).
load_secrets() {
  [[ -s "$TLS_DIR/secrets.env" ]] || return 1
  # shellcheck source=/dev/null
  source "$TLS_DIR/secrets.env"
}

tls_complete() {
  local f
  for f in ca.crt server.crt server.key server.p12 truststore.p12; do
    [[ -s "$TLS_DIR/$f" ]] || return 1
  done
}

any_server_running() {
  local name
  live_pid "$ZK_DIR/zookeeper.pid" "$(zk_token)" >/dev/null && return 0
  for name in "${CH_INSTANCES[@]}"; do
    live_pid "$CH_DIR/$name/clickhouse.pid" "$(ch_token "$name")" >/dev/null && return 0
  done
  live_pid "$KAFKA_DIR/kafka.pid" "$(kafka_token)" >/dev/null && return 0
  live_pid "$REG_DIR/registry.pid" "$(reg_token)" >/dev/null && return 0
  return 1
}

tls_generate() {
  local tmp f
  tmp="$(mktemp -d "$TLS_DIR/new.XXXXXX")"
  if ! (
    umask 077
    cd "$tmp"
    export TLS_KEYSTORE_PASSWORD TLS_TRUSTSTORE_PASSWORD
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 \
      -subj "/CN=etl local infra CA $(date -u +%Y%m%dT%H%M%SZ)" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
    openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=$TLS_HOST"
    printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n' \
      "$TLS_HOST" >server.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 30 -extfile server.ext
    openssl pkcs12 -export -in server.crt -inkey server.key -certfile ca.crt -name server -out server.p12 \
      -passout env:TLS_KEYSTORE_PASSWORD
    "$KEYTOOL" -importcert -noprompt -alias etl-infra-ca -file ca.crt -keystore truststore.p12 -storetype PKCS12 \
      -storepass:env TLS_TRUSTSTORE_PASSWORD
    rm -f ca.key ca.srl server.csr server.ext
  ) >"$TLS_DIR/generate.log" 2>&1; then
    rm -rf -- "$tmp"
    fail_server tls "$TLS_DIR/generate.log" "generating the throwaway CA and server certificate failed"
  fi
  for f in ca.crt server.crt server.key server.p12 truststore.p12; do
    mv -f "$tmp/$f" "$TLS_DIR/$f"
  done
  rm -rf -- "$tmp"
  log "tls: new throwaway CA and server certificate for $TLS_HOST in $TLS_DIR"
}

tls_ensure() {
  tls_secrets
  if tls_complete && any_server_running; then
    return 0 # the running servers use these files
  fi
  tls_generate
}

# ------------------------------------------------------------ zookeeper ----

ZK_DIR="$WORK_DIR/zookeeper"
zk_token() { echo "$ZK_DIR/conf/zoo.cfg"; }

zk_classpath() {
  # zookeeper.jar's manifest Class-Path pulls in netty, jetty, jackson, metrics,
  # commons-*, snappy, slf4j-api, zookeeper-jute (Debian libzookeeper-java).
  # We add the slf4j -> log4j 1.2 binding (hard deps of libzookeeper-java) to
  # get a log file.
  local j cp=""
  for j in zookeeper zookeeper-jute slf4j-api slf4j-log4j12 log4j-1.2; do
    cp+="${cp:+:}/usr/share/java/$j.jar"
  done
  echo "$cp"
}

zk_write_config() {
  mkdir -p "$ZK_DIR/conf" "$ZK_DIR/data" "$ZK_DIR/logs"
  cat >"$ZK_DIR/conf/zoo.cfg" <<EOF
# generated by scripts/infra.sh
tickTime=2000
initLimit=10
syncLimit=5
dataDir=$ZK_DIR/data
clientPort=$ZK_PORT
clientPortAddress=127.0.0.1
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,mntr
autopurge.snapRetainCount=3
autopurge.purgeInterval=1
EOF
  cat >"$ZK_DIR/conf/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, FILE
log4j.appender.FILE=org.apache.log4j.RollingFileAppender
log4j.appender.FILE.File=${zookeeper.log.dir}/zookeeper.log
log4j.appender.FILE.MaxFileSize=10MB
log4j.appender.FILE.MaxBackupIndex=2
log4j.appender.FILE.layout=org.apache.log4j.PatternLayout
log4j.appender.FILE.layout.ConversionPattern=%d{ISO8601} %-5p [%t:%C{1}@%L] - %m%n
EOF
}

zk_ruok() ( # subshell: fd 3 and failures stay local
  local resp=""
  exec 3<>"/dev/tcp/127.0.0.1/$ZK_PORT" || return 1
  printf 'ruok' >&3
  read -r -t 2 resp <&3 || true
  [[ "$resp" == imok* ]]
)

# Ready means serving, not just running: 'ruok' answers imok before the server has loaded its data
# and accepts sessions, and a ClickHouse that connects then gives up and exits (seen under load).
zk_serving() ( # subshell: fd 3 and failures stay local
  local resp=""
  exec 3<>"/dev/tcp/127.0.0.1/$ZK_PORT" || return 1
  printf 'srvr' >&3
  resp="$(timeout 2 cat <&3 || true)"
  [[ "$resp" == *"Mode: standalone"* ]]
)

zk_start() {
  if pid="$(live_pid "$ZK_DIR/zookeeper.pid" "$(zk_token)")"; then
    log "zookeeper: already running (pid $pid)"
    return 0
  fi
  require_free_ports zookeeper "$ZK_PORT"
  zk_write_config
  log "zookeeper: starting on 127.0.0.1:$ZK_PORT"
  launch "$ZK_DIR/zookeeper.pid" "$(zk_token)" "$ZK_DIR/logs/zookeeper.out" \
    "$JAVA" -Xmx256m -Xms64m -XX:+UseSerialGC -Djava.awt.headless=true \
    "-Dzookeeper.log.dir=$ZK_DIR/logs" "-Dlog4j.configuration=file:$ZK_DIR/conf/log4j.properties" \
    -Dzookeeper.jmx.log4j.disable=true \
    -cp "$(zk_classpath)" org.apache.zookeeper.server.quorum.QuorumPeerMain "$(zk_token)"
}

zk_wait() {
  wait_ready zookeeper "$ZK_DIR/zookeeper.pid" "$(zk_token)" "$ZK_DIR/logs/zookeeper.log" zk_serving
  log "zookeeper: ready"
}

zk_stop() { stop_pidfile zookeeper "$ZK_DIR/zookeeper.pid" "$(zk_token)"; }

# ----------------------------------------------------------- clickhouse ----

CH_DIR="$WORK_DIR/clickhouse"
ch_http_port() { echo $((CH_HTTP_BASE + $1)); }
ch_tcp_port() { echo $((CH_TCP_BASE + $1)); }
ch_interserver_port() { echo $((CH_INTERSERVER_BASE + $1)); }
ch_https_port() { echo $((CH_HTTPS_BASE + $1)); }
ch_token() { echo "$CH_DIR/$1/config.xml"; }

ch_remote_servers_xml() {
  local shard r i
  echo "        <$CH_CLUSTER>"
  for shard in 1 2; do
    echo "            <shard>"
    echo "                <internal_replication>true</internal_replication>"
    for r in 1 2; do
      i=$(((shard - 1) * 2 + r - 1))
      echo "                <replica><host>127.0.0.1</host><port>$(ch_tcp_port "$i")</port></replica>"
    done
    echo "            </shard>"
  done
  echo "        </$CH_CLUSTER>"
}

# Derived from the Debian package's /etc/clickhouse-server/config.xml (18.16).
ch_write_config() { # index
  local i="$1" name="${CH_INSTANCES[$1]}" d shard
  d="$CH_DIR/$name"
  shard=$((i / 2 + 1))
  mkdir -p "$d/data" "$d/data/tmp" "$d/data/user_files" "$d/data/format_schemas" "$d/logs"
  cat >"$d/config.xml" <<EOF
<?xml version="1.0"?>
<!-- generated by scripts/infra.sh: ClickHouse 18.16 instance $name -->
<yandex>
    <logger>
        <level>information</level>
        <log>$d/logs/clickhouse-server.log</log>
        <errorlog>$d/logs/clickhouse-server.err.log</errorlog>
        <size>100M</size>
        <count>2</count>
    </logger>
    <display_name>$name</display_name>
    <listen_host>127.0.0.1</listen_host>
    <http_port>$(ch_http_port "$i")</http_port>
    <tcp_port>$(ch_tcp_port "$i")</tcp_port>
    <interserver_http_port>$(ch_interserver_port "$i")</interserver_http_port>
    <interserver_http_host>127.0.0.1</interserver_http_host>
    <!-- the secured listener: TLS with the throwaway server certificate (issued for $TLS_HOST) -->
    <https_port>$(ch_https_port "$i")</https_port>
    <openSSL>
        <server>
            <certificateFile>$TLS_DIR/server.crt</certificateFile>
            <privateKeyFile>$TLS_DIR/server.key</privateKeyFile>
            <verificationMode>none</verificationMode>
            <loadDefaultCAFile>false</loadDefaultCAFile>
            <cacheSessions>true</cacheSessions>
            <disableProtocols>sslv2,sslv3,tlsv1,tlsv1_1</disableProtocols>
            <preferServerCiphers>true</preferServerCiphers>
        </server>
    </openSSL>

    <max_connections>1024</max_connections>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_concurrent_queries>100</max_concurrent_queries>
    <uncompressed_cache_size>67108864</uncompressed_cache_size>
    <mark_cache_size>67108864</mark_cache_size>

    <path>$d/data/</path>
    <tmp_path>$d/data/tmp/</tmp_path>
    <user_files_path>$d/data/user_files/</user_files_path>
    <format_schema_path>$d/data/format_schemas/</format_schema_path>
    <users_config>$d/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <umask>022</umask>
    <mlock_executable>false</mlock_executable>

    <remote_servers>
$(ch_remote_servers_xml)
    </remote_servers>

    <zookeeper>
        <node index="1">
            <host>127.0.0.1</host>
            <port>$ZK_PORT</port>
        </node>
        <session_timeout_ms>30000</session_timeout_ms>
    </zookeeper>

    <macros>
        <cluster>$CH_CLUSTER</cluster>
        <shard>$shard</shard>
        <replica>$name</replica>
    </macros>

    <distributed_ddl>
        <path>/clickhouse/task_queue/ddl</path>
    </distributed_ddl>

    <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
    <max_session_timeout>3600</max_session_timeout>
    <default_session_timeout>60</default_session_timeout>
    <!-- tests drop tables freely -->
    <max_table_size_to_drop>0</max_table_size_to_drop>
    <max_partition_size_to_drop>0</max_partition_size_to_drop>
</yandex>
EOF
  # Derived from the Debian package's users.xml; localhost-only access. Besides the passwordless
  # 'default' (what the plaintext tests use), two users with passwords for the secured tests: one
  # that may write, and one in the 'readonly' profile (18.16 has no GRANT: readonly=1 is its only
  # way to take the right to write away). Passwords are stored as SHA-256 hashes.
  local secure_hash readonly_hash
  secure_hash="$(printf '%s' "$CH_SECURE_PASSWORD" | sha256sum | cut -d' ' -f1)"
  readonly_hash="$(printf '%s' "$CH_READONLY_PASSWORD" | sha256sum | cut -d' ' -f1)"
  cat >"$d/users.xml" <<EOF
<?xml version="1.0"?>
<!-- generated by scripts/infra.sh -->
<yandex>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
            <use_uncompressed_cache>0</use_uncompressed_cache>
            <load_balancing>random</load_balancing>
            <background_pool_size>4</background_pool_size>
            <readonly>0</readonly>
        </default>
        <readonly>
            <readonly>1</readonly>
        </readonly>
    </profiles>
    <users>
        <default>
            <password></password>
            <networks>
                <ip>::1</ip>
                <ip>127.0.0.1</ip>
            </networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
        <$CH_SECURE_USER>
            <password_sha256_hex>$secure_hash</password_sha256_hex>
            <networks>
                <ip>::1</ip>
                <ip>127.0.0.1</ip>
            </networks>
            <profile>default</profile>
            <quota>default</quota>
        </$CH_SECURE_USER>
        <$CH_READONLY_USER>
            <password_sha256_hex>$readonly_hash</password_sha256_hex>
            <networks>
                <ip>::1</ip>
                <ip>127.0.0.1</ip>
            </networks>
            <profile>readonly</profile>
            <quota>default</quota>
        </$CH_READONLY_USER>
    </users>
    <quotas>
        <default>
            <interval>
                <duration>3600</duration>
                <queries>0</queries>
                <errors>0</errors>
                <result_rows>0</result_rows>
                <read_rows>0</read_rows>
                <execution_time>0</execution_time>
            </interval>
        </default>
    </quotas>
</yandex>
EOF
}

ch_query() { # index sql
  curl -sfS --max-time 10 "http://127.0.0.1:$(ch_http_port "$1")/" --data-binary "$2"
}

ch_ping() { curl -sf --max-time 2 "http://127.0.0.1:$(ch_http_port "$1")/?query=SELECT%201" | grep -qx 1; }

# The secured listener answers SELECT 1 as the password user, verified against the CA (the password
# goes to curl on stdin, not on its command line).
ch_https_ping() {
  printf 'user = "%s:%s"\n' "$CH_SECURE_USER" "$CH_SECURE_PASSWORD" |
    curl -sf --max-time 2 -K - --cacert "$TLS_DIR/ca.crt" \
      "https://$TLS_HOST:$(ch_https_port "$1")/?query=SELECT%201" | grep -qx 1
}

# Whether an instance runs with a secured listener (one started by an older scripts/infra.sh has none).
ch_has_https() { grep -q '<https_port>' "$(ch_token "${CH_INSTANCES[$1]}")" 2>/dev/null; }

ch_start_one() { # index
  local i="$1" name="${CH_INSTANCES[$1]}" d pid
  d="$CH_DIR/$name"
  if pid="$(live_pid "$d/clickhouse.pid" "$(ch_token "$name")")"; then
    log "clickhouse-$name: already running (pid $pid)"
    return 0
  fi
  require_free_ports "clickhouse-$name" "$(ch_http_port "$i")" "$(ch_tcp_port "$i")" "$(ch_interserver_port "$i")" \
    "$(ch_https_port "$i")"
  (umask 077 && ch_write_config "$i")
  log "clickhouse-$name: starting (http $(ch_http_port "$i"), https $(ch_https_port "$i"), tcp $(ch_tcp_port "$i"), interserver $(ch_interserver_port "$i"))"
  launch "$d/clickhouse.pid" "$(ch_token "$name")" "$d/logs/stdout.log" "$CH_SERVER_BIN" "--config-file=$(ch_token "$name")"
}

ch_start() {
  local i
  for i in "${!CH_INSTANCES[@]}"; do ch_start_one "$i"; done
}

ch_cluster_ok() {
  local n
  ch_query 0 "SELECT count() FROM system.zookeeper WHERE path='/'" >/dev/null || return 1
  n="$(ch_query 0 "SELECT count() FROM system.clusters WHERE cluster='$CH_CLUSTER'")" || return 1
  [[ "$n" == 4 ]]
}

# Polls until the instance answers; false (instead of failing the script) if it exited meanwhile.
ch_wait_one() { # index
  local i="$1" name="${CH_INSTANCES[$1]}" deadline=$((SECONDS + TIMEOUT_S))
  until ch_ping "$i" >/dev/null 2>&1; do
    live_pid "$CH_DIR/$name/clickhouse.pid" "$(ch_token "$name")" >/dev/null || return 1
    ((SECONDS < deadline)) || fail_server "clickhouse-$name" "$CH_DIR/$name/logs/clickhouse-server.log" \
      "not ready after ${TIMEOUT_S}s"
    sleep 0.3
  done
}

ch_wait() {
  local i name
  for i in "${!CH_INSTANCES[@]}"; do
    name="${CH_INSTANCES[$i]}"
    if ! ch_wait_one "$i"; then
      # A server with Replicated tables exits when its ZooKeeper session cannot be set up in time
      # (a loaded machine, or a session of its previous life not yet expired): one more try.
      log "clickhouse-$name: exited during startup; starting it once more"
      sleep 2
      ch_start_one "$i"
      ch_wait_one "$i" || fail_server "clickhouse-$name" "$CH_DIR/$name/logs/clickhouse-server.log" \
        "process exited during startup (twice)"
    fi
  done
  wait_ready "clickhouse (cluster check)" "$CH_DIR/s1r1/clickhouse.pid" "$(ch_token s1r1)" \
    "$CH_DIR/s1r1/logs/clickhouse-server.err.log" ch_cluster_ok
  for i in "${!CH_INSTANCES[@]}"; do
    name="${CH_INSTANCES[$i]}"
    if ch_has_https "$i"; then
      wait_ready "clickhouse-$name (https)" "$CH_DIR/$name/clickhouse.pid" "$(ch_token "$name")" \
        "$CH_DIR/$name/logs/clickhouse-server.err.log" ch_https_ping "$i"
    else
      log "WARNING: clickhouse-$name was started by an older scripts/infra.sh without https_port;" \
        "restart it (stop clickhouse, start clickhouse) for the secured listener"
    fi
  done
  log "clickhouse: 4 instances ready, ZooKeeper wired, cluster '$CH_CLUSTER' has 4 replicas"
}

ch_stop() {
  local name pids=()
  for name in "${CH_INSTANCES[@]}"; do
    stop_pidfile "clickhouse-$name" "$CH_DIR/$name/clickhouse.pid" "$(ch_token "$name")" &
    pids+=($!)
  done
  wait "${pids[@]}"
}

# ---------------------------------------------------------------- kafka ----

KAFKA_DIR="$WORK_DIR/kafka"
kafka_token() { echo "$KAFKA_DIR/config/server.properties"; }

kafka_classpath() { maven_classpath kafka "$KAFKA_POM" "$KAFKA_DIR"; }

kafka_write_config() {
  mkdir -p "$KAFKA_DIR/config" "$KAFKA_DIR/data" "$KAFKA_DIR/logs"
  # 0600: it holds the key store's password
  (umask 077 && cat >"$KAFKA_DIR/config/server.properties" <<EOF
# generated by scripts/infra.sh: single-node KRaft (combined broker+controller)
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
# SASL_SSL: the secured listener (SCRAM-SHA-512 users, TLS with the throwaway certificate for $TLS_HOST);
# advertised by the name the certificate is issued for
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT,SASL_SSL://127.0.0.1:$KAFKA_SASL_SSL_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,SASL_SSL://$TLS_HOST:$KAFKA_SASL_SSL_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL
sasl.enabled.mechanisms=$KAFKA_SCRAM_MECHANISM
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
ssl.keystore.location=$TLS_DIR/server.p12
ssl.keystore.type=PKCS12
ssl.keystore.password=$TLS_KEYSTORE_PASSWORD
ssl.client.auth=none
log.dirs=$KAFKA_DIR/data
num.network.threads=2
num.io.threads=4
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=false
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=5
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.hours=24
log.segment.bytes=67108864
EOF
  )
  # What a SASL_SSL client needs (the readiness check's; 0600: it holds the user's password)
  (umask 077 && cat >"$TLS_DIR/kafka-client.properties" <<EOF
security.protocol=SASL_SSL
sasl.mechanism=$KAFKA_SCRAM_MECHANISM
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$KAFKA_SCRAM_USER" password="$KAFKA_SCRAM_PASSWORD";
ssl.truststore.location=$TLS_DIR/truststore.p12
ssl.truststore.type=PKCS12
ssl.truststore.password=$TLS_TRUSTSTORE_PASSWORD
EOF
  )
  cat >"$KAFKA_DIR/config/log4j2.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN">
  <Appenders>
    <RollingFile name="server" fileName="$KAFKA_DIR/logs/server.log" filePattern="$KAFKA_DIR/logs/server.log.%i">
      <PatternLayout pattern="[%d] %p %m (%c)%n"/>
      <Policies><SizeBasedTriggeringPolicy size="50 MB"/></Policies>
      <DefaultRolloverStrategy max="2"/>
    </RollingFile>
  </Appenders>
  <Loggers>
    <Logger name="kafka.request.logger" level="WARN"/>
    <Logger name="org.apache.kafka.controller" level="INFO"/>
    <Root level="INFO"><AppenderRef ref="server"/></Root>
  </Loggers>
</Configuration>
EOF
  cat >"$KAFKA_DIR/config/tools-log4j2.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN">
  <Appenders><Console name="stderr" target="SYSTEM_ERR"><PatternLayout pattern="[%d] %p %m (%c)%n"/></Console></Appenders>
  <Loggers><Root level="WARN"><AppenderRef ref="stderr"/></Root></Loggers>
</Configuration>
EOF
}

# Run a Kafka tool class (TopicCommand, ConsoleProducer, ...) on our classpath.
kafka_tool() { # main-class args...
  local main="$1"
  shift
  "$JAVA" -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    "-Dlog4j2.configurationFile=$KAFKA_DIR/config/tools-log4j2.xml" \
    -cp "$(kafka_classpath)" "$main" "$@"
}

# The SCRAM user's credential as last stored in the metadata log: a hash of user and password.
kafka_scram_stamp() { printf '%s:%s:%s' "$KAFKA_SCRAM_MECHANISM" "$KAFKA_SCRAM_USER" "$KAFKA_SCRAM_PASSWORD" | sha256sum | cut -d' ' -f1; }

kafka_format_if_needed() {
  [[ -f "$KAFKA_DIR/data/meta.properties" ]] && return 0
  log "kafka: formatting storage (cluster id $KAFKA_CLUSTER_ID, SCRAM user $KAFKA_SCRAM_USER)"
  kafka_tool kafka.tools.StorageTool format -t "$KAFKA_CLUSTER_ID" -c "$(kafka_token)" \
    --add-scram "$KAFKA_SCRAM_MECHANISM=[name=$KAFKA_SCRAM_USER,password=$KAFKA_SCRAM_PASSWORD]" \
    >>"$KAFKA_DIR/logs/format.log" 2>&1 ||
    fail_server kafka "$KAFKA_DIR/logs/format.log" "storage format failed"
  kafka_scram_stamp >"$KAFKA_DIR/data/etl-scram.sha256"
}

# Storage formatted before the SCRAM user existed (or with other passwords): create or update the
# user through the running broker (AlterUserScramCredentials; the password in the environment of
# scripts/infra/kafka/ScramUser.java, not on a command line).
kafka_ensure_scram() {
  local stamp="$KAFKA_DIR/data/etl-scram.sha256"
  [[ -f "$stamp" && "$(cat "$stamp")" == "$(kafka_scram_stamp)" ]] && return 0
  log "kafka: storing SCRAM credentials of $KAFKA_SCRAM_USER through the broker"
  ETL_SCRAM_PASSWORD="$KAFKA_SCRAM_PASSWORD" "$JAVA" -Xmx256m -XX:+UseSerialGC \
    "-Dlog4j2.configurationFile=$KAFKA_DIR/config/tools-log4j2.xml" -cp "$(kafka_classpath)" \
    "$SCRIPTS_DIR/infra/kafka/ScramUser.java" "127.0.0.1:$KAFKA_PORT" "$KAFKA_SCRAM_USER" "$KAFKA_SCRAM_MECHANISM" \
    >>"$KAFKA_DIR/logs/scram.log" 2>&1 ||
    fail_server kafka "$KAFKA_DIR/logs/scram.log" "storing the SCRAM user failed"
  kafka_scram_stamp >"$stamp"
}

kafka_start() {
  local pid cp
  if pid="$(live_pid "$KAFKA_DIR/kafka.pid" "$(kafka_token)")"; then
    log "kafka: already running (pid $pid)"
    return 0
  fi
  require_free_ports kafka "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" "$KAFKA_SASL_SSL_PORT"
  cp="$(kafka_classpath)"
  kafka_write_config
  kafka_format_if_needed
  log "kafka: starting on 127.0.0.1:$KAFKA_PORT (controller $KAFKA_CONTROLLER_PORT, SASL_SSL $KAFKA_SASL_SSL_PORT)"
  launch "$KAFKA_DIR/kafka.pid" "$(kafka_token)" "$KAFKA_DIR/logs/kafka.out" \
    "$JAVA" -Xmx512m -Xms512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    "-Dlog4j2.configurationFile=$KAFKA_DIR/config/log4j2.xml" \
    -cp "$cp" kafka.Kafka "$(kafka_token)"
}

kafka_check() {
  port_open "$KAFKA_PORT" || return 1
  kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" --list >/dev/null 2>&1
}

# The secured listener answers an authenticated, verified client (TLS against the CA, SCRAM login).
kafka_sasl_check() {
  port_open "$KAFKA_SASL_SSL_PORT" || return 1
  kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$TLS_HOST:$KAFKA_SASL_SSL_PORT" \
    --command-config "$TLS_DIR/kafka-client.properties" --list >/dev/null 2>&1
}

kafka_has_sasl() { grep -q '^listeners=.*SASL_SSL://' "$(kafka_token)" 2>/dev/null; }

kafka_wait() {
  wait_ready kafka "$KAFKA_DIR/kafka.pid" "$(kafka_token)" "$KAFKA_DIR/logs/server.log" kafka_check
  if kafka_has_sasl; then
    kafka_ensure_scram
    wait_ready "kafka (SASL_SSL)" "$KAFKA_DIR/kafka.pid" "$(kafka_token)" "$KAFKA_DIR/logs/server.log" kafka_sasl_check
  else
    log "WARNING: kafka was started by an older scripts/infra.sh without the SASL_SSL listener;" \
      "restart it (stop kafka, start kafka) for the secured listener"
  fi
  log "kafka: ready"
}

kafka_stop() { stop_pidfile kafka "$KAFKA_DIR/kafka.pid" "$(kafka_token)"; }

# ------------------------------------------------------------- registry ----

REG_DIR="$WORK_DIR/registry"
reg_token() { echo "-Detl.infra.home=$REG_DIR"; }

reg_runner_jar() {
  local jar="$REG_DIR/dist/apicurio-registry-app-$REGISTRY_VERSION-runner.jar"
  local zip="$REG_DIR/dist/apicurio-registry-app-$REGISTRY_VERSION-all.zip"
  if [[ ! -f "$jar" ]]; then
    mkdir -p "$REG_DIR/dist" "$REG_DIR/logs"
    if [[ ! -f "$zip" ]]; then
      log "registry: fetching io.apicurio:apicurio-registry-app:$REGISTRY_VERSION:zip:all with Maven"
      # runs in the dist dir (no pom.xml there), so the project's build is never loaded
      (cd "$REG_DIR/dist" && run_mvn registry "$REG_DIR/logs/mvn.log" dependency:copy \
        "-Dartifact=io.apicurio:apicurio-registry-app:$REGISTRY_VERSION:zip:all" \
        "-DoutputDirectory=$REG_DIR/dist")
    fi
    log "registry: unpacking distribution"
    unzip -q -o "$zip" -d "$REG_DIR/dist" || die "registry: unzip failed"
    [[ -f "$jar" ]] || die "registry: $jar missing after unzip"
  fi
  echo "$jar"
}

reg_start() {
  local pid jar
  if pid="$(live_pid "$REG_DIR/registry.pid" "$(reg_token)")"; then
    log "registry: already running (pid $pid)"
    return 0
  fi
  require_free_ports registry "$REGISTRY_PORT" "$REGISTRY_HTTPS_PORT"
  jar="$(reg_runner_jar)"
  mkdir -p "$REG_DIR/logs"
  log "registry: starting Apicurio $REGISTRY_VERSION on 127.0.0.1:$REGISTRY_PORT, HTTPS $REGISTRY_HTTPS_PORT (in-memory storage)"
  # - quarkus.http.*: plain HTTP and HTTPS (the throwaway certificate) on 127.0.0.1; the key store's
  #   password goes in the environment (QUARKUS_HTTP_SSL_CERTIFICATE_KEY_STORE_PASSWORD), not on the
  #   command line. TLS only: the registry's own authentication needs Keycloak.
  # - management interface off (the default, made explicit)
  # - Narayana's default SocketProcessId opens an ephemeral server socket on
  #   the first transaction just to get a unique id: use UuidProcessId instead
  QUARKUS_HTTP_SSL_CERTIFICATE_KEY_STORE_PASSWORD="$TLS_KEYSTORE_PASSWORD" \
    launch "$REG_DIR/registry.pid" "$(reg_token)" "$REG_DIR/logs/registry.log" \
    "$JAVA" -Xmx384m -XX:+UseSerialGC -Djava.awt.headless=true "$(reg_token)" \
    -Dquarkus.http.host=127.0.0.1 "-Dquarkus.http.port=$REGISTRY_PORT" \
    -Dquarkus.http.insecure-requests=enabled \
    "-Dquarkus.http.ssl-port=$REGISTRY_HTTPS_PORT" \
    "-Dquarkus.http.ssl.certificate.key-store-file=$TLS_DIR/server.p12" \
    -Dquarkus.http.ssl.certificate.key-store-file-type=PKCS12 \
    -Dquarkus.management.enabled=false \
    -DCoreEnvironmentBean.processImplementationClassName=com.arjuna.ats.internal.arjuna.utils.UuidProcessId \
    "-Djava.io.tmpdir=$REG_DIR" \
    -jar "$jar"
}

reg_check() { curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7/subjects"; }

reg_https_check() {
  curl -sf --max-time 2 -o /dev/null --cacert "$TLS_DIR/ca.crt" \
    "https://$TLS_HOST:$REGISTRY_HTTPS_PORT/apis/ccompat/v7/subjects"
}

# Whether the running registry was started with its HTTPS port (an older scripts/infra.sh had none).
reg_has_https() {
  local pid
  pid="$(live_pid "$REG_DIR/registry.pid" "$(reg_token)")" || return 1
  local cmdline
  cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline")" || return 1
  # a here-string, not a pipe: under pipefail grep -q's early exit could fail tr with SIGPIPE
  grep -q 'quarkus.http.ssl-port=' <<<"$cmdline"
}

reg_wait() {
  wait_ready registry "$REG_DIR/registry.pid" "$(reg_token)" "$REG_DIR/logs/registry.log" reg_check
  if reg_has_https; then
    wait_ready "registry (https)" "$REG_DIR/registry.pid" "$(reg_token)" "$REG_DIR/logs/registry.log" reg_https_check
  else
    log "WARNING: the registry was started by an older scripts/infra.sh without HTTPS;" \
      "restart it (stop registry, start registry) for the secured listener"
  fi
  log "registry: ready"
}

reg_stop() { stop_pidfile registry "$REG_DIR/registry.pid" "$(reg_token)"; }

# ------------------------------------------------------------------- s3 ----

S3_DIR="$WORK_DIR/s3"
s3_token() { echo "$S3_DIR/conf/s3proxy.conf"; }
s3_classpath() { maven_classpath s3 "$S3_POM" "$S3_DIR"; }

# SHA-256 of an empty body: SigV4 requests to S3 carry it in x-amz-content-sha256 (curl does not add it).
S3_EMPTY_SHA256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

s3_write_config() {
  mkdir -p "$S3_DIR/conf" "$S3_DIR/data" "$S3_DIR/logs"
  # 0600: it holds the secret key. Path-style only (no s3proxy.virtual-host): a bucket is the first
  # path segment, so 127.0.0.1 needs no wildcard DNS.
  (umask 077 && cat >"$(s3_token)" <<EOF
# generated by scripts/infra.sh: S3Proxy on the local filesystem
s3proxy.endpoint=http://127.0.0.1:$S3_PORT
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$S3_ACCESS_KEY
s3proxy.credential=$S3_SECRET_KEY
jclouds.provider=filesystem
jclouds.filesystem.basedir=$S3_DIR/data
EOF
  )
  cat >"$S3_DIR/conf/logback.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<configuration>
  <appender name="FILE" class="ch.qos.logback.core.rolling.RollingFileAppender">
    <file>$S3_DIR/logs/s3proxy.log</file>
    <rollingPolicy class="ch.qos.logback.core.rolling.FixedWindowRollingPolicy">
      <fileNamePattern>$S3_DIR/logs/s3proxy.log.%i</fileNamePattern>
      <maxIndex>2</maxIndex>
    </rollingPolicy>
    <triggeringPolicy class="ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy"><maxFileSize>50MB</maxFileSize></triggeringPolicy>
    <encoder><pattern>[%d{ISO8601}] %-5level [%thread] %logger{30} - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
EOF
}

s3_start() {
  local pid cp
  if pid="$(live_pid "$S3_DIR/s3proxy.pid" "$(s3_token)")"; then
    log "s3: already running (pid $pid)"
    return 0
  fi
  require_free_ports s3 "$S3_PORT"
  cp="$(s3_classpath)"
  s3_write_config
  log "s3: starting S3Proxy on 127.0.0.1:$S3_PORT (filesystem $S3_DIR/data, SigV2/V4 as $S3_ACCESS_KEY, path-style)"
  # The secret key is in the 0600 properties file, not on the command line.
  launch "$S3_DIR/s3proxy.pid" "$(s3_token)" "$S3_DIR/logs/s3proxy.out" \
    "$JAVA" -Xmx256m -XX:+UseSerialGC -Djava.awt.headless=true \
    "-Dlogback.configurationFile=$S3_DIR/conf/logback.xml" \
    -cp "$cp" org.gaul.s3proxy.Main --properties "$(s3_token)"
}

# Ready means the S3 API answers a signed request: ListBuckets, SigV4 with the local credential (given to
# curl on stdin, not on its command line), must return a ListAllMyBucketsResult.
s3_check() {
  local body
  [[ -n "${S3_SECRET_KEY:-}" ]] || return 1
  body="$(printf 'user = "%s:%s"\n' "$S3_ACCESS_KEY" "$S3_SECRET_KEY" |
    curl -sf --max-time 2 -K - --aws-sigv4 "aws:amz:$S3_REGION:s3" -H "x-amz-content-sha256: $S3_EMPTY_SHA256" \
      "http://127.0.0.1:$S3_PORT/")" || return 1
  [[ "$body" == *"<ListAllMyBucketsResult"* ]]
}

s3_wait() {
  wait_ready s3 "$S3_DIR/s3proxy.pid" "$(s3_token)" "$S3_DIR/logs/s3proxy.log" s3_check
  log "s3: ready"
}

s3_stop() { stop_pidfile s3 "$S3_DIR/s3proxy.pid" "$(s3_token)"; }

# ------------------------------------------------------------ commands ----

endpoints() {
  cat <<EOF
zookeeper.connect=127.0.0.1:$ZK_PORT
clickhouse.cluster=$CH_CLUSTER
clickhouse.shards=2
clickhouse.shard.1.replicas=http://127.0.0.1:$(ch_http_port 0),http://127.0.0.1:$(ch_http_port 1)
clickhouse.shard.2.replicas=http://127.0.0.1:$(ch_http_port 2),http://127.0.0.1:$(ch_http_port 3)
kafka.bootstrap=127.0.0.1:$KAFKA_PORT
registry.url=http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7
EOF
  s3_endpoints
  secured_endpoints
}

# S3Proxy's endpoint and credential, once the work dir has the secret key (made by `start`).
s3_endpoints() {
  load_secrets && [[ -n "${S3_SECRET_KEY:-}" ]] || return 0
  cat <<EOF
s3.endpoint=http://127.0.0.1:$S3_PORT
s3.region=$S3_REGION
s3.access-key=$S3_ACCESS_KEY
s3.secret-key=$S3_SECRET_KEY
EOF
}

# The secured listeners that accept connections, and what a client needs for them (trust store,
# users, passwords). Only listeners that are up are listed: servers started by an older script have
# none, and tests that need them then say so instead of failing on a refused connection.
secured_endpoints() {
  [[ -s "$TLS_DIR/secrets.env" ]] && tls_complete || return 0
  tls_secrets
  local ch=1 i
  for i in "${!CH_INSTANCES[@]}"; do port_open "$(ch_https_port "$i")" || ch=0; done
  cat <<EOF
tls.host=$TLS_HOST
tls.ca.pem=$TLS_DIR/ca.crt
tls.truststore=$TLS_DIR/truststore.p12
tls.truststore.type=PKCS12
tls.truststore.password=$TLS_TRUSTSTORE_PASSWORD
EOF
  if ((ch)); then
    cat <<EOF
clickhouse.https.shard.1.replicas=https://$TLS_HOST:$(ch_https_port 0),https://$TLS_HOST:$(ch_https_port 1)
clickhouse.https.shard.2.replicas=https://$TLS_HOST:$(ch_https_port 2),https://$TLS_HOST:$(ch_https_port 3)
clickhouse.https.user=$CH_SECURE_USER
clickhouse.https.password=$CH_SECURE_PASSWORD
clickhouse.https.readonly-user=$CH_READONLY_USER
clickhouse.https.readonly-password=$CH_READONLY_PASSWORD
EOF
  fi
  if port_open "$KAFKA_SASL_SSL_PORT"; then
    cat <<EOF
kafka.sasl-ssl.bootstrap=$TLS_HOST:$KAFKA_SASL_SSL_PORT
kafka.sasl-ssl.mechanism=$KAFKA_SCRAM_MECHANISM
kafka.sasl-ssl.user=$KAFKA_SCRAM_USER
kafka.sasl-ssl.password=$KAFKA_SCRAM_PASSWORD
EOF
  fi
  if port_open "$REGISTRY_HTTPS_PORT"; then
    echo "registry.https.url=https://$TLS_HOST:$REGISTRY_HTTPS_PORT/apis/ccompat/v7"
  fi
}

want() { [[ "$TARGET" == all || "$TARGET" == "$1" ]]; }

cmd_start() {
  local t0=$SECONDS bg=() p
  mkdir -p "$WORK_DIR"
  if want clickhouse || want zookeeper; then ensure_packages; fi
  if want s3; then ensure_curl; fi
  ensure_openssl
  tls_ensure
  # Resolve downloads up front (cached after the first run).
  if want kafka; then kafka_classpath >/dev/null; fi
  if want registry; then reg_runner_jar >/dev/null; fi
  if want s3; then s3_classpath >/dev/null; fi
  # Kafka and the registry do not depend on ZooKeeper/ClickHouse: launch them
  # first (Kafka's storage format runs in a background subshell), then ZK,
  # then the 4 ClickHouse instances in parallel, then wait for everything.
  if want kafka; then
    kafka_start &
    bg+=($!)
  fi
  if want registry; then reg_start; fi
  if want s3; then s3_start; fi
  # ClickHouse needs ZooKeeper: `start clickhouse` brings ZooKeeper up too.
  if want zookeeper || want clickhouse; then
    zk_start
    zk_wait
  fi
  if want clickhouse; then ch_start; fi
  for p in "${bg[@]}"; do wait "$p" || exit 1; done
  if want clickhouse; then ch_wait; fi
  if want kafka; then kafka_wait; fi
  if want registry; then reg_wait; fi
  if want s3; then s3_wait; fi
  # 0600: it lists the secured users' passwords
  (umask 077 && endpoints >"$WORK_DIR/endpoints.properties.tmp")
  mv "$WORK_DIR/endpoints.properties.tmp" "$WORK_DIR/endpoints.properties"
  log "all requested servers ready in $((SECONDS - t0))s; endpoints: $WORK_DIR/endpoints.properties"
}

cmd_stop() {
  local bg=() p
  if want clickhouse; then ch_stop & bg+=($!); fi
  if want kafka; then kafka_stop & bg+=($!); fi
  if want registry; then reg_stop & bg+=($!); fi
  if want s3; then s3_stop & bg+=($!); fi
  for p in "${bg[@]}"; do wait "$p"; done
  # ZooKeeper last: ClickHouse sessions close cleanly first.
  if want zookeeper; then zk_stop; fi
}

status_line() { # label pidfile token endpoint check_fn [args]
  local label="$1" pidfile="$2" token="$3" ep="$4" pid state=down
  shift 4
  if pid="$(live_pid "$pidfile" "$token")"; then
    if "$@" >/dev/null 2>&1; then state=up; else state=starting; fi
  else
    pid=-
  fi
  printf '%-18s %-8s %-8s %s\n' "$label" "$state" "$pid" "$ep"
  [[ "$state" == up ]]
}

cmd_status() {
  local rc=0 i name
  if want zookeeper; then
    status_line zookeeper "$ZK_DIR/zookeeper.pid" "$(zk_token)" "127.0.0.1:$ZK_PORT" zk_ruok || rc=3
  fi
  if want clickhouse; then
    for i in "${!CH_INSTANCES[@]}"; do
      name="${CH_INSTANCES[$i]}"
      status_line "clickhouse-$name" "$CH_DIR/$name/clickhouse.pid" "$(ch_token "$name")" \
        "http://127.0.0.1:$(ch_http_port "$i") tcp=$(ch_tcp_port "$i") https=$(ch_https_port "$i")" ch_ping "$i" || rc=3
    done
  fi
  if want kafka; then
    status_line kafka "$KAFKA_DIR/kafka.pid" "$(kafka_token)" "127.0.0.1:$KAFKA_PORT sasl_ssl=$TLS_HOST:$KAFKA_SASL_SSL_PORT" \
      port_open "$KAFKA_PORT" || rc=3
  fi
  if want registry; then
    status_line registry "$REG_DIR/registry.pid" "$(reg_token)" \
      "http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7 https=$REGISTRY_HTTPS_PORT" reg_check || rc=3
  fi
  if want s3; then
    load_secrets || true
    status_line s3 "$S3_DIR/s3proxy.pid" "$(s3_token)" "http://127.0.0.1:$S3_PORT (path-style, $S3_REGION)" \
      s3_check || rc=3
  fi
  return "$rc"
}

cmd_clean() {
  TARGET=all
  cmd_stop
  log "removing $WORK_DIR"
  rm -rf -- "$WORK_DIR"
}

usage() {
  echo "usage: $0 start|stop|status|endpoints|clean [clickhouse|zookeeper|kafka|registry|s3|all]" >&2
  exit 2
}

main() {
  local cmd="${1:-}"
  TARGET="${2:-all}"
  case "$TARGET" in clickhouse | zookeeper | kafka | registry | s3 | all) ;; *) usage ;; esac
  case "$cmd" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    endpoints) endpoints ;;
    clean) cmd_clean ;;
    *) usage ;;
  esac
}

main "$@"
