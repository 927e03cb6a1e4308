package sim

import (
	"bytes"
	"testing"

	"github.com/rmsidecar/rmsidecar/policy/plugins"
)

// rackChunkYAML: jobs of hundreds of maps on four racks, reducers fetching
// per rack (rack_fetch_pairs 1), stragglers and a degraded node so maps
// finish out of order and some outputs sit on a reducer's own node.
const rackChunkYAML = `
seed: 11
cluster:
  racks: 4
  nodes:
    - {count: 10, vcores: 4, memory_mb: 8192}
    - {count: 3, vcores: 2, memory_mb: 4096, map_speed: 0.5}
  network: {node_gbps: 1, rack_uplink_gbps: 2, rack_fetch_pairs: 1}
yarn: {heartbeat_s: 1, slowstart: 0.05}
stragglers: {task_prob: 0.1, slowdown: [2, 5], node_degrade: [{node: 2, from_s: 10, to_s: 300, factor: 0.3}]}
workload:
  jobs:
    - {name: sort, type: sort, submit_s: 0, input_gb: 40, reduces: 7, map_s_per_block: 6, reduce_s_per_gb: 30, skew: 0.4}
    - {name: wc, type: wordcount, submit_s: 5, input_gb: 25, reduces: 3, shuffle_ratio: 0.4, map_s_per_block: 4}
    - {name: one, type: grep, submit_s: 8, input_gb: 0.1, reduces: 2, shuffle_ratio: 1}
`

// Reducers of a rack-fetch job take full chunks of map outputs from their
// summaries (pollChunk): the results are those of taking every output one
// by one, whatever the chunk length.
func TestRackChunksSameAsOutputs(t *testing.T) {
	sc := mustParse(t, rackChunkYAML)
	stacks := []string{"none", "yarn"}
	reg := plugins.NewRegistry()
	want := resultsJSON(t, sc, stacks, Options{Registry: reg, rackChunk: 1 << 30})
	for _, n := range []int{1, 2, 3, 7, 64, rackChunkLen} {
		got := resultsJSON(t, mustParse(t, rackChunkYAML), stacks, Options{Registry: reg, rackChunk: n})
		if !bytes.Equal(got, want) {
			t.Errorf("chunks of %d outputs: results differ from taking outputs one by one", n)
		}
	}
	s := runSim(t, mustParse(t, rackChunkYAML), "none", Options{Registry: testRegistry(), rackChunk: 7})
	if s.m.chunksPolled == 0 {
		t.Fatal("no chunk taken from a summary: the test does not exercise pollChunk")
	}
	for _, j := range s.jobs {
		if !j.rackFetch || j.shuffled != j.produced {
			t.Errorf("%s: rackFetch %v, fetched %d of %d bytes", j.id, j.rackFetch, j.shuffled, j.produced)
		}
	}
}
