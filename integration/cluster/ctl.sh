#!/usr/bin/env bash
# ctl.sh RUNDIR COMMAND [ARGS...] — send a control command to the running ClusterMain and print
# its answer. Commands: ping, restart-namenode [DOWN_MS], stop-namenode, start-namenode,
# restart-datanode INDEX [DOWN_MS], restart-resourcemanager, stop-nodemanager INDEX, stop. Exit 0 when the answer is OK.
# Protocol: the command is written to RUNDIR/control/ID.req; ClusterMain answers in ID.resp.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -ge 2 ] || { echo "usage: $0 RUNDIR COMMAND [ARGS...]" >&2; exit 2; }
RUN=$(cd "$1" && pwd)
shift
DIR="$RUN/control"
[ -d "$DIR" ] || die "$DIR missing (cluster not started?)"
ID="$(date +%s%N)-$$"
echo "$*" >"$DIR/$ID.tmp"
mv "$DIR/$ID.tmp" "$DIR/$ID.req"
DEADLINE=$(( $(date +%s) + ${CTL_TIMEOUT:-180} ))
until [ -f "$DIR/$ID.resp" ]; do
  if [ "$(date +%s)" -ge "$DEADLINE" ]; then rm -f "$DIR/$ID.req"; die "no answer to '$*' within ${CTL_TIMEOUT:-180}s"; fi
  sleep 0.2
done
ANSWER=$(cat "$DIR/$ID.resp")
rm -f "$DIR/$ID.resp"
echo "$ANSWER"
[[ "$ANSWER" == OK* ]]
