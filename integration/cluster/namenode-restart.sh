#!/usr/bin/env bash
# namenode-restart.sh RUNDIR [DOWN_MS] — restart the NameNode (same ports) through ClusterMain's
# control channel; it stays down DOWN_MS milliseconds (default 0) and waits until the datanodes
# have registered again.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 RUNDIR [DOWN_MS]" >&2; exit 2; }
exec "$(dirname "${BASH_SOURCE[0]}")/ctl.sh" "$1" restart-namenode "${2:-0}"
