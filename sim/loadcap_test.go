package sim

import "testing"

// yarn.load_balance caps each node's running maps at
// ceil(min(1, L) × map containers): 8 maps on 4 nodes of 4 containers give
// L = 0.5 and a cap of 2 maps a node, where stock YARN packs local maps.
func TestLoadBalanceCapsMapsPerNode(t *testing.T) {
	const yml = `
cluster:
  racks: 1
  nodes: [{count: 4, vcores: 4, memory_mb: 8192}]
  hdfs: {block_mb: 128, replication: 1}
yarn: {node_local_delay: 3, load_balance: true}
workload:
  jobs:
    - {name: a, maps: 8, input_gb: 1, shuffle_ratio: 0, map_s_per_block: 60}
`
	sc := mustParse(t, yml)
	if !sc.YARN.LoadBalance {
		t.Fatal("yarn.load_balance not read")
	}
	s := runSim(t, sc, "none", Options{})
	for _, n := range s.nodes {
		if n.maxUsedV > 2 {
			t.Errorf("%s ran %d maps at once, cap 2", n.id, n.maxUsedV)
		}
	}
	if got := s.results().Jobs[0].FinishS; got <= 0 {
		t.Fatalf("job did not finish: %v", got)
	}
}
