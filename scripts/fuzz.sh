#!/usr/bin/env bash
# Runs every Go fuzz target of the module, one at a time (go test -fuzz takes one target per
# package run), for FUZZTIME each, and prints the executions of each.
# Usage: scripts/fuzz.sh [FUZZTIME]   (default 30s)
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-30s}
GO=${GO:-go}
status=0
while IFS= read -r file; do
  pkg="./$(dirname "$file")"
  for target in $(grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | cut -d' ' -f2); do
    echo "== $pkg $target ($fuzztime)"
    out=$("$GO" test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" 2>&1) || { echo "$out"; status=1; continue; }
    # The last progress line carries the total executions.
    echo "$out" | grep -E 'fuzz: elapsed' | tail -1
  done
done < <(grep -rlE '^func Fuzz' --include='*_test.go' . | sed 's|^\./||' | sort)
exit $status
