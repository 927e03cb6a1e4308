# Shared helpers for the real-cluster scripts (sourced, not executed).
# shellcheck shell=bash

CLUSTER_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HARNESS_DIR="$(cd "$CLUSTER_SCRIPTS_DIR/../harness" && pwd)"
KAFKA_POM_DIR="$HARNESS_DIR/kafka"
PLUGIN_DIR="$(cd "$CLUSTER_SCRIPTS_DIR/../.." && pwd)/yarn-plugin"
PLUGIN_JAR="$PLUGIN_DIR/target/rmsidecar-yarn-plugin.jar"

# JDK 17 flags for Hadoop daemons (YARN web apps use Guice/Jersey reflection).
# shellcheck disable=SC2034  # used by start.sh
HADOOP_JAVA_OPENS=(
  --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED
  --add-exports=java.base/sun.net.dns=ALL-UNNAMED
  --add-exports=java.base/sun.net.util=ALL-UNNAMED
)

log() { printf '%s [cluster] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

now_ms() { date +%s%3N; }

abs_dir() { mkdir -p "$1" && (cd "$1" && pwd); }

# port_in_use PORT: true when something accepts connections on 127.0.0.1:PORT.
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port: a random port nobody listens on (checked, not reserved), below the kernel's
# ephemeral range (ip_local_port_range, 32768.. by default): Kafka, the NameNode and the RM
# are restarted on their ports, and a port in the ephemeral range can meanwhile be taken as
# the source port of any outgoing connection (a restart then failed with "address in use").
free_port() {
  local lo=20000 hi=32767 elo p
  if read -r elo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null && [ "$elo" -gt $((lo + 1000)) ]; then
    hi=$((elo - 1))
  fi
  for _ in $(seq 1 200); do
    p=$(( lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1) ))
    if ! port_in_use "$p"; then echo "$p"; return 0; fi
  done
  return 1
}

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# descendants PID: every process below PID (children first listed after parents).
descendants() {
  local kids k
  kids=$(ps -o pid= --ppid "$1" 2>/dev/null || true)
  for k in $kids; do
    echo "$k"
    descendants "$k"
  done
}

# stop_pidfile FILE TIMEOUT_S NAME: SIGTERM the process, wait, then SIGKILL it and anything it started.
stop_pidfile() {
  local file=$1 timeout=$2 name=$3 pid kids t0
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  if ! pid_alive "$pid"; then rm -f "$file"; return 0; fi
  kids=$(descendants "$pid" | tr '\n' ' ')
  t0=$(date +%s)
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  while pid_alive "$pid" && [ $(( $(date +%s) - t0 )) -lt "$timeout" ]; do sleep 0.5; done
  if pid_alive "$pid"; then
    log "$name did not stop within ${timeout}s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  local k
  for k in $kids; do
    if pid_alive "$k"; then kill -KILL "$k" 2>/dev/null || true; fi
  done
  rm -f "$file"
  log "$name stopped after $(( $(date +%s) - t0 ))s"
}

# run_mvn ARGS...: quiet batch Maven; its output is shown only when it fails.
run_mvn() {
  local out rc=0
  out=$(mktemp)
  # shellcheck disable=SC2086
  mvn -q -B ${HARNESS_MVN_ARGS:-} "$@" >"$out" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then tail -60 "$out" >&2; fi
  rm -f "$out"
  return "$rc"
}

# build_harness: compile the harness and copy both classpaths with Maven (Maven Central only).
# HARNESS_MVN_ARGS adds Maven flags (e.g. -Dmaven.repo.local=DIR to try an empty repository).
build_harness() {
  local stamp="$HARNESS_DIR/target/.built" kstamp="$KAFKA_POM_DIR/target/.built"
  mkdir -p "$HARNESS_DIR/target"
  # One build at a time per work tree (parallel runs share target/).
  exec 9>"$HARNESS_DIR/target/.build.lock"
  flock -w 900 9 || die "another harness build holds $HARNESS_DIR/target/.build.lock"
  if [ ! -f "$stamp" ] || [ -n "$(find "$HARNESS_DIR/pom.xml" "$HARNESS_DIR/src" -newer "$stamp" -print -quit)" ]; then
    # A changed pom must not leave old jars beside new ones on the classpath.
    if [ -f "$stamp" ] && [ "$HARNESS_DIR/pom.xml" -nt "$stamp" ]; then rm -rf "$HARNESS_DIR/target/lib"; fi
    log "building harness (mvn package) ..."
    local t0; t0=$(now_ms)
    run_mvn -f "$HARNESS_DIR/pom.xml" package -DskipTests || die "harness build failed"
    touch "$stamp"
    log "harness built in $(( ($(now_ms) - t0) / 1000 ))s"
  fi
  if [ ! -f "$kstamp" ] || [ "$KAFKA_POM_DIR/pom.xml" -nt "$kstamp" ]; then
    rm -rf "$KAFKA_POM_DIR/target/lib"
    log "resolving Kafka classpath (mvn package) ..."
    local t0; t0=$(now_ms)
    run_mvn -f "$KAFKA_POM_DIR/pom.xml" package || die "kafka classpath build failed"
    touch "$kstamp"
    log "kafka classpath ready in $(( ($(now_ms) - t0) / 1000 ))s"
  fi
  # rmsidecar's Hadoop plug-ins (yarn-plugin/): on the RM's and every container's classpath.
  # Unit tests run in `make test-plugins`; here only the jar is needed.
  if [ -f "$PLUGIN_DIR/pom.xml" ] && { [ ! -f "$PLUGIN_JAR" ] ||
      [ -n "$(find "$PLUGIN_DIR/pom.xml" "$PLUGIN_DIR/src/main" -newer "$PLUGIN_JAR" -print -quit)" ]; }; then
    log "building yarn-plugin (mvn package -DskipTests) ..."
    local t0; t0=$(now_ms)
    run_mvn -f "$PLUGIN_DIR/pom.xml" package -DskipTests || die "yarn-plugin build failed"
    log "yarn-plugin built in $(( ($(now_ms) - t0) / 1000 ))s"
  fi
  flock -u 9
  exec 9>&-
}

harness_classpath() {
  local cp="$HARNESS_DIR/target/classes:$HARNESS_DIR/target/lib/*"
  [ -f "$PLUGIN_JAR" ] && cp="$cp:$PLUGIN_JAR"
  echo "$cp"
}
kafka_classpath() { echo "$KAFKA_POM_DIR/target/lib/*"; }

# kafka_launch RUNDIR: start the broker JVM (already formatted) in the background.
kafka_launch() {
  local run=$1 kdir="$1/kafka"
  # shellcheck disable=SC2086
  nohup java ${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m} -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$kdir/log4j.properties" -Dkafka.logs.dir="$run/logs" \
    -cp "$(kafka_classpath)" kafka.Kafka "$kdir/server.properties" \
    >>"$run/logs/kafka.out" 2>&1 </dev/null &
  echo $! >"$run/kafka.pid"
}

# wait_kafka RUNDIR DEADLINE_EPOCH: wait until the broker accepts connections.
wait_kafka_port() {
  local run=$1 deadline=$2 port
  port=$(cat "$run/kafka/port")
  until port_in_use "$port"; do
    pid_alive "$(cat "$run/kafka.pid" 2>/dev/null)" || { tail -40 "$run/logs/kafka.out" >&2; return 1; }
    [ "$(date +%s)" -lt "$deadline" ] || { log "kafka port $port not open in time"; return 1; }
    sleep 0.5
  done
}

# kafka_metadata_check RUNDIR: a real client request (ApiVersions + Metadata) against the broker.
kafka_metadata_check() {
  local run=$1 port out
  port=$(cat "$run/kafka/port")
  out=$(timeout 60 java -Xmx256m -Dlog4j.configuration="file:$run/kafka/log4j-tools.properties" \
    -cp "$(kafka_classpath)" kafka.admin.BrokerApiVersionsCommand \
    --bootstrap-server "127.0.0.1:$port" 2>&1) || { echo "$out" | tail -20 >&2; return 1; }
  echo "$out" | grep -q "(id: 1" || { echo "$out" | tail -20 >&2; return 1; }
}
