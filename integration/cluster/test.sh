#!/usr/bin/env bash
# test.sh — the `make test-cluster` entry point: start a real cluster (start.sh) in a fresh run
# dir, run the cluster-tagged Go tests against it, and always stop it (trap), printing the
# total time and exiting with the tests' status.
# Env: RMSIDECAR_RUN_DIR (default: a new /tmp/rmsidecar-cluster.XXXXXX), KEEP_RUN_DIR=1 keeps
# it after a pass (it is always kept after a failure, for its logs), GO_TEST_ARGS (extra flags,
# e.g. "-run Kafka"), GO_TEST_TIMEOUT (default 25m).
set -uo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REPO=$(cd "$CLUSTER_SCRIPTS_DIR/../.." && pwd)
RUN=${RMSIDECAR_RUN_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/rmsidecar-cluster.XXXXXX")}
mkdir -p "$RUN"
T0=$(now_ms)
rc=1

# shellcheck disable=SC2317  # invoked through trap
finish() {
  trap - EXIT INT TERM
  "$CLUSTER_SCRIPTS_DIR/stop.sh" "$RUN" || true
  if [ "$rc" -eq 0 ] && [ -z "${KEEP_RUN_DIR:-}" ]; then
    rm -rf "$RUN"
  else
    log "run dir kept: $RUN (logs: $RUN/logs)"
  fi
  log "test-cluster: exit $rc, total $(( ($(now_ms) - T0) / 1000 ))s"
  exit "$rc"
}
trap finish EXIT
trap 'rc=130; exit 130' INT TERM

"$CLUSTER_SCRIPTS_DIR/start.sh" "$RUN" >/dev/null || { rc=1; exit 1; }
T_UP=$(now_ms)
log "cluster started in $(( (T_UP - T0) / 1000 ))s; running go test"
cd "$REPO" || exit 1
# shellcheck disable=SC2086
RMSIDECAR_CLUSTER_FILE="$RUN/cluster.json" RMSIDECAR_CLUSTER_SCRIPTS="$CLUSTER_SCRIPTS_DIR" \
  go test -tags cluster -count=1 -v -timeout "${GO_TEST_TIMEOUT:-25m}" ${GO_TEST_ARGS:-} ./integration/cluster/...
rc=$?
log "go test finished in $(( ($(now_ms) - T_UP) / 1000 ))s (status $rc)"
exit "$rc"
