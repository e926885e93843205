#!/bin/bash
# Entrypoint of the test image of ZooKeeper 3.8 (Debian's jars). It honours the environment of the
# official `zookeeper` image:
#
#   ports        2181 (clients), 2888 and 3888 (quorum), 8080 (AdminServer)
#   directories  ZOO_CONF_DIR (/conf), ZOO_DATA_DIR (/data), ZOO_DATA_LOG_DIR (/datalog)
#   zoo.cfg      $ZOO_CONF_DIR/zoo.cfg when it exists (a mounted one wins); otherwise written from
#                ZOO_TICK_TIME (2000), ZOO_INIT_LIMIT (5), ZOO_SYNC_LIMIT (2), ZOO_MAX_CLIENT_CNXNS (60),
#                ZOO_STANDALONE_ENABLED (true), ZOO_ADMINSERVER_ENABLED (true),
#                ZOO_AUTOPURGE_PURGEINTERVAL (0), ZOO_AUTOPURGE_SNAPRETAINCOUNT (3),
#                ZOO_4LW_COMMANDS_WHITELIST (srvr), ZOO_SERVERS (space-separated server.N=... entries),
#                ZOO_CFG_EXTRA (space-separated key=value lines)
#   ZOO_MY_ID    the server id written to $ZOO_DATA_DIR/myid at the first start (1)
#   JVMFLAGS     extra JVM options
#   arguments    none: the server in the foreground; otherwise the command is run instead
#
# Written for this repository from the official image's documented contract.
set -euo pipefail

if (($# > 0)); then
  exec "$@"
fi

conf_dir="${ZOO_CONF_DIR:-/conf}"
data_dir="${ZOO_DATA_DIR:-/data}"
data_log_dir="${ZOO_DATA_LOG_DIR:-/datalog}"
cfg="$conf_dir/zoo.cfg"

if [[ ! -f "$cfg" ]]; then
  {
    echo "dataDir=$data_dir"
    echo "dataLogDir=$data_log_dir"
    echo "tickTime=${ZOO_TICK_TIME:-2000}"
    echo "initLimit=${ZOO_INIT_LIMIT:-5}"
    echo "syncLimit=${ZOO_SYNC_LIMIT:-2}"
    echo "autopurge.snapRetainCount=${ZOO_AUTOPURGE_SNAPRETAINCOUNT:-3}"
    echo "autopurge.purgeInterval=${ZOO_AUTOPURGE_PURGEINTERVAL:-0}"
    echo "maxClientCnxns=${ZOO_MAX_CLIENT_CNXNS:-60}"
    echo "standaloneEnabled=${ZOO_STANDALONE_ENABLED:-true}"
    echo "admin.enableServer=${ZOO_ADMINSERVER_ENABLED:-true}"
    echo "4lw.commands.whitelist=${ZOO_4LW_COMMANDS_WHITELIST:-srvr}"
    if [[ -n "${ZOO_SERVERS:-}" ]]; then
      for server in $ZOO_SERVERS; do echo "$server"; done
    else
      echo "clientPort=2181"
    fi
    for line in ${ZOO_CFG_EXTRA:-}; do echo "$line"; done
  } >"$cfg"
fi

if [[ ! -f "$data_dir/myid" ]]; then
  echo "${ZOO_MY_ID:-1}" >"$data_dir/myid"
fi

cp="/etc/zookeeper-image"
for jar in zookeeper zookeeper-jute slf4j-api slf4j-log4j12 log4j-1.2; do
  cp+=":/usr/share/java/$jar.jar"
done
# shellcheck disable=SC2086 # JVMFLAGS is a list of options
exec java -Dzookeeper.log.dir="${ZOO_LOG_DIR:-/logs}" -Dlog4j.configuration=file:/etc/zookeeper-image/log4j.properties \
  -Dzookeeper.jmx.log4j.disable=true ${JVMFLAGS:-} -cp "$cp" org.apache.zookeeper.server.quorum.QuorumPeerMain "$cfg"
