package sim

import (
	"fmt"
	"testing"
)

// DHSA's per-node ratio hints spread a job's reducers over the nodes
// (Hadoop 1's per-TaskTracker slots); YARN alone piles them onto the nodes
// whose containers free first, and so does DHSA with node_caps off.
func TestDHSANodeCapsSpreadReducers(t *testing.T) {
	const yml = `
cluster:
  racks: 1
  nodes: [{count: 4, vcores: 12, memory_mb: 24576}]
yarn: {heartbeat_s: 1, slowstart: 0.05}
policy_args:
  dhsa-pi: {map_slots: 6, reduce_slots: 6, node_caps: %s}
workload:
  jobs:
    - {name: sort, input_gb: 8, reduces: 12, map_s_per_block: 12, reduce_s_per_gb: 40, shuffle_ratio: 1.0}
`
	maxReds := func(s *sim) int {
		m := 0
		for _, n := range s.nodes {
			m = max(m, n.maxReds)
		}
		return m
	}
	tests := []struct {
		stack, nodeCaps string
		most            int // most reducers allowed on one node; 0: must exceed 3
	}{
		{"yarn", "true", 0},
		{"yarn+dhsa-pi", "false", 0},
		{"yarn+dhsa-pi", "true", 3}, // ⌈12 granted × 12 / 48 slots⌉
	}
	for _, tt := range tests {
		s := runSim(t, mustParse(t, fmt.Sprintf(yml, tt.nodeCaps)), tt.stack, Options{})
		got := maxReds(s)
		switch {
		case tt.most == 0 && got <= 3:
			t.Errorf("%s node_caps %s: at most %d reducers on a node; the test needs a pile-up (> 3) to show anything", tt.stack, tt.nodeCaps, got)
		case tt.most > 0 && got > tt.most:
			t.Errorf("%s node_caps %s: %d reducers on one node, want <= %d", tt.stack, tt.nodeCaps, got, tt.most)
		}
	}
}
