#!/usr/bin/env bash
# start.sh RUNDIR — build the harness if needed, start a KRaft Kafka broker and the Hadoop
# minicluster (HDFS + YARN + MapReduce) as background JVMs, wait for them to be healthy and
# write RUNDIR/cluster.json. Env: START_TIMEOUT (s, default 300), HADOOP_HEAP (default -Xmx1g),
# KAFKA_HEAP_OPTS (default -Xms256m -Xmx768m).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -eq 1 ] || { echo "usage: $0 RUNDIR" >&2; exit 2; }
RUN=$(abs_dir "$1")
TIMEOUT=${START_TIMEOUT:-300}
T0=$(now_ms)

for f in hadoop.pid kafka.pid; do
  if [ -f "$RUN/$f" ] && pid_alive "$(cat "$RUN/$f")"; then
    die "$RUN/$f: process $(cat "$RUN/$f") is running; run stop.sh $RUN first"
  fi
done
command -v java >/dev/null || die "java not found (OpenJDK 17 needed)"
command -v mvn >/dev/null || die "mvn not found (Maven 3.8+ needed)"
command -v curl >/dev/null || die "curl not found"

build_harness
T_BUILD=$(now_ms)

mkdir -p "$RUN/logs" "$RUN/kafka"
rm -f "$RUN/cluster.json" "$RUN/hadoop.json"
DEADLINE=$(( $(date +%s) + TIMEOUT ))

# ---- Kafka: combined broker + controller on loopback, ports chosen now and kept for restarts.
KDIR="$RUN/kafka"
if [ ! -f "$KDIR/server.properties" ]; then
  KPORT=$(free_port) || die "no free port"
  CPORT=$(free_port) || die "no free port"
  [ "$KPORT" != "$CPORT" ] || CPORT=$(free_port)
  echo "$KPORT" >"$KDIR/port"
  cat >"$KDIR/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CPORT
listeners=PLAINTEXT://127.0.0.1:$KPORT,CONTROLLER://127.0.0.1:$CPORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KPORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$KDIR/data
num.partitions=1
default.replication.factor=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
log.retention.hours=24
log.segment.bytes=16777216
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
PROPS
  cat >"$KDIR/log4j.properties" <<'PROPS'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.org.apache.kafka.clients=WARN
log4j.logger.kafka.log.LogCleaner=WARN
PROPS
  cat >"$KDIR/log4j-tools.properties" <<'PROPS'
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
PROPS
  CLUSTER_ID=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
  echo "$CLUSTER_ID" >"$KDIR/cluster-id"
  log "formatting Kafka storage (cluster id $CLUSTER_ID)"
  java -Xmx256m -Dlog4j.configuration="file:$KDIR/log4j-tools.properties" -cp "$(kafka_classpath)" \
    kafka.tools.StorageTool format --cluster-id="$CLUSTER_ID" -c "$KDIR/server.properties" --ignore-formatted \
    >"$RUN/logs/kafka-format.out" 2>&1 || { cat "$RUN/logs/kafka-format.out" >&2; die "kafka storage format failed"; }
fi
KPORT=$(cat "$KDIR/port")
log "starting Kafka on 127.0.0.1:$KPORT"
kafka_launch "$RUN"

# ---- Hadoop: one JVM, working directory = RUNDIR (MiniYARNCluster writes ./target/...).
CP=$(harness_classpath)
# The port the sidecar's HTTP API listens on in tests (the plug-ins call it); kept for restarts.
[ -f "$RUN/sidecar-port" ] || free_port >"$RUN/sidecar-port" || die "no free port"
SIDECAR_ARGS=()
[ -f "$PLUGIN_JAR" ] && SIDECAR_ARGS=(--sidecar-port "$(cat "$RUN/sidecar-port")")
log "starting Hadoop minicluster"
(
  cd "$RUN"
  # shellcheck disable=SC2086
  exec nohup java ${HADOOP_HEAP:--Xmx1g} -XX:+UseG1GC "${HADOOP_JAVA_OPENS[@]}" \
    -Djava.io.tmpdir="$RUN/tmp" -Dtest.build.data="$RUN/data" -Djava.net.preferIPv4Stack=true \
    -cp "$CP" org.rmsidecar.harness.ClusterMain --run-dir "$RUN" --ignore-stdin \
    --kafka-bootstrap "127.0.0.1:$KPORT" --kafka-dir "$KDIR" --app-classpath "$CP" "${SIDECAR_ARGS[@]}" \
    >"$RUN/logs/hadoop.out" 2>"$RUN/logs/hadoop.err" </dev/null
) &
echo $! >"$RUN/hadoop.pid"
mkdir -p "$RUN/tmp"

fail() {
  log "start failed: $*"
  [ -f "$RUN/logs/hadoop.out" ] && { log "--- hadoop.out (tail)"; tail -20 "$RUN/logs/hadoop.out" >&2; }
  [ -f "$RUN/logs/hadoop.err" ] && { log "--- hadoop.err (errors)"; grep -E 'ERROR|Exception' "$RUN/logs/hadoop.err" | tail -20 >&2 || true; }
  [ -f "$RUN/logs/kafka.out" ] && { log "--- kafka.out (tail)"; tail -20 "$RUN/logs/kafka.out" >&2; }
  "$CLUSTER_SCRIPTS_DIR/stop.sh" "$RUN" || true
  exit 1
}

wait_kafka_port "$RUN" "$DEADLINE" || fail "kafka did not open its port"
T_KAFKA=$(now_ms)
log "kafka port open after $(( (T_KAFKA - T_BUILD) / 1000 ))s"

until grep -q '^READY$' "$RUN/logs/hadoop.out" 2>/dev/null; do
  pid_alive "$(cat "$RUN/hadoop.pid")" || fail "hadoop JVM exited"
  [ "$(date +%s)" -lt "$DEADLINE" ] || fail "hadoop not READY within ${TIMEOUT}s"
  sleep 1
done
T_HADOOP=$(now_ms)
log "hadoop READY after $(( (T_HADOOP - T_BUILD) / 1000 ))s"

# ---- health checks (each bounded by the same deadline)
json_field() { grep -o "\"$2\": *\"[^\"]*\"" "$1" | head -1 | sed 's/.*: *"\(.*\)"/\1/'; }
RM_WEB=$(json_field "$RUN/hadoop.json" rm_web)
WEBHDFS=$(json_field "$RUN/hadoop.json" webhdfs)
until curl -sf --max-time 5 "$RM_WEB/ws/v1/cluster/info" | grep -q '"clusterInfo"'; do
  [ "$(date +%s)" -lt "$DEADLINE" ] || fail "RM REST $RM_WEB/ws/v1/cluster/info does not answer"
  sleep 1
done
until curl -sf --max-time 5 "$WEBHDFS/?op=GETFILESTATUS&user.name=rmsidecar" | grep -q '"FileStatus"'; do
  [ "$(date +%s)" -lt "$DEADLINE" ] || fail "WebHDFS $WEBHDFS does not answer"
  sleep 1
done
until kafka_metadata_check "$RUN"; do
  [ "$(date +%s)" -lt "$DEADLINE" ] || fail "kafka metadata request fails"
  sleep 1
done
T_HEALTH=$(now_ms)

cp "$RUN/hadoop.json" "$RUN/cluster.json.tmp"
mv "$RUN/cluster.json.tmp" "$RUN/cluster.json"
log "cluster up: RM $RM_WEB, WebHDFS $WEBHDFS, Kafka 127.0.0.1:$KPORT"
log "timing: build $(( (T_BUILD - T0) / 1000 ))s, kafka port $(( (T_KAFKA - T_BUILD) / 1000 ))s, hadoop READY $(( (T_HADOOP - T_BUILD) / 1000 ))s, health checks $(( (T_HEALTH - T_HADOOP) / 1000 ))s, total $(( (T_HEALTH - T0) / 1000 ))s"
echo "$RUN/cluster.json"
