#!/usr/bin/env bash
# kafka-restart.sh RUNDIR [DOWN_SECONDS] — stop the Kafka broker (SIGTERM, then SIGKILL after
# STOP_TIMEOUT s), stay down DOWN_SECONDS (default 0), start it again on the same port and log
# dirs, and wait (RESTART_TIMEOUT s, default 120) until it answers a metadata request.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -ge 1 ] || { echo "usage: $0 RUNDIR [DOWN_SECONDS]" >&2; exit 2; }
RUN=$(cd "$1" && pwd)
DOWN=${2:-0}
[ -f "$RUN/kafka/server.properties" ] || die "$RUN has no kafka/server.properties (start.sh first)"
T0=$(now_ms)
stop_pidfile "$RUN/kafka.pid" "${STOP_TIMEOUT:-30}" kafka
sleep "$DOWN"
log "starting Kafka again on 127.0.0.1:$(cat "$RUN/kafka/port")"
kafka_launch "$RUN"
DEADLINE=$(( $(date +%s) + ${RESTART_TIMEOUT:-120} ))
wait_kafka_port "$RUN" "$DEADLINE" || die "kafka did not come back"
until kafka_metadata_check "$RUN"; do
  [ "$(date +%s)" -lt "$DEADLINE" ] || die "kafka metadata request fails after restart"
  sleep 1
done
log "kafka restarted in $(( ($(now_ms) - T0) / 1000 ))s"
