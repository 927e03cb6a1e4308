#!/usr/bin/env bash
# Records the CPU profiles behind `make build`'s profile-guided build
# (bin/rmsidecar.pgo, docs/simulator.md) and merges them. Run from the repository root:
#   make pgo            (or: bash scripts/pgo/profile.sh)
# The binary is built with -pgo=off so the profile does not feed on itself.
# Work profiled: the FB-2009 day under yarn, tmar and dhsa-pi (the simulator),
# and `rmsidecar bench --quick` (the live path: engine, decoder, Kafka consumer).
set -euo pipefail
GO=${GO:-go}
TRACE=${PGO_TRACE:-swim:testdata/traces/SWIM_FB-2009_samples_24_times_1hr_0.tsv}
STACKS=${PGO_STACKS:-yarn tmar dhsa-pi}
OUT=${PGO_OUT:-bin/rmsidecar.pgo}
mkdir -p "$(dirname "$OUT")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$GO" build -pgo=off -o "$work/rmsidecar" ./cmd/rmsidecar
profiles=()
for s in $STACKS; do
	echo "pgo: sim $s" >&2
	"$work/rmsidecar" sim --trace "$TRACE" --policies "$s" --quiet \
		--out "$work/sim-$s" --cpuprofile "$work/sim-$s.pprof"
	profiles+=("$work/sim-$s.pprof")
done
echo "pgo: bench --quick" >&2
"$work/rmsidecar" bench --quick --json --cpuprofile "$work/bench.pprof" >/dev/null
profiles+=("$work/bench.pprof")

# One merged profile; -proto keeps it the compact gzip'd form the compiler reads.
"$GO" tool pprof -proto "${profiles[@]}" >"$work/merged.pgo"
mv "$work/merged.pgo" "$OUT"
ls -l "$OUT" >&2
