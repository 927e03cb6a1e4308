package sim

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rmsidecar/rmsidecar/policy/plugins"
)

// shuffleYAML: jobs of many maps on few nodes with an early slowstart, so
// reducers poll while maps still finish and list a source again after
// fetching from it; stragglers and a degraded node reorder the outputs.
const shuffleYAML = `
seed: 5
cluster:
  racks: 3
  nodes:
    - {count: 9, vcores: 4, memory_mb: 8192}
    - {count: 2, vcores: 2, memory_mb: 4096, map_speed: 0.5}
  network: {node_gbps: 1, rack_uplink_gbps: 2}
yarn: {heartbeat_s: 1, slowstart: 0.05, parallel_copies: 3}
stragglers: {task_prob: 0.1, slowdown: [2, 5], node_degrade: [{node: 1, from_s: 10, to_s: 200, factor: 0.3}]}
workload:
  jobs:
    - {name: sort, type: sort, submit_s: 0, input_gb: 30, reduces: 6, map_s_per_block: 5, reduce_s_per_gb: 30, skew: 0.4}
    - {name: wc, type: wordcount, submit_s: 4, input_gb: 20, reduces: 4, shuffle_ratio: 0.4, map_s_per_block: 3}
    - {name: one, type: grep, submit_s: 8, input_gb: 0.1, reduces: 2, shuffle_ratio: 1}
`

// A reducer's fetch list starts over once every entry is taken (fetchMore):
// results, event log and tasks.csv are those of the list that only grows,
// for per-node and per-rack fetches under stacks that speculate and kill.
func TestFetchListResetChangesNothing(t *testing.T) {
	reg := plugins.NewRegistry()
	run := func(yml, stack string, noCompact bool) (*sim, [3][]byte) {
		var evs, tasks bytes.Buffer
		s, err := newSim(t.Context(), mustParse(t, yml), stack,
			Options{Registry: reg, Events: &evs, Tasks: &tasks, noCompact: noCompact})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.run(t.Context()); err != nil {
			t.Fatal(err)
		}
		res, err := json.Marshal(s.results())
		if err != nil {
			t.Fatal(err)
		}
		return s, [3][]byte{res, evs.Bytes(), tasks.Bytes()}
	}
	for name, yml := range map[string]string{"per-node": shuffleYAML, "per-rack": rackChunkYAML} {
		for _, stack := range []string{"none", "yarn", "late"} {
			t.Run(name+"/"+stack, func(t *testing.T) {
				_, want := run(yml, stack, true)
				s, got := run(yml, stack, false)
				if s.fetchResets == 0 {
					t.Fatal("no fetch list started over: the test does not exercise the reset")
				}
				for i, what := range []string{"results", "event log", "tasks.csv"} {
					if !bytes.Equal(got[i], want[i]) {
						t.Errorf("%s differ when fetch lists start over", what)
					}
				}
			})
		}
	}
}
