#!/usr/bin/env bash
# stop.sh RUNDIR — stop the Hadoop and Kafka JVMs started by start.sh: SIGTERM, wait
# STOP_TIMEOUT seconds (default 60), then SIGKILL them and every process they started.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -eq 1 ] || { echo "usage: $0 RUNDIR" >&2; exit 2; }
[ -d "$1" ] || exit 0
RUN=$(cd "$1" && pwd)
TIMEOUT=${STOP_TIMEOUT:-60}
T0=$(now_ms)
stop_pidfile "$RUN/hadoop.pid" "$TIMEOUT" hadoop
stop_pidfile "$RUN/kafka.pid" "$TIMEOUT" kafka
rm -f "$RUN/cluster.json"
log "stopped in $(( ($(now_ms) - T0) / 1000 ))s"
