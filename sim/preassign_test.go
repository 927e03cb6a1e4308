package sim

import "testing"

// yarn.preassign: a place hint an Assigner emits at a node's heartbeat for a
// map and that node launches the map there before the queues are offered the
// node (the YARN form of Slot PreScheduling); without the key the hint is a
// preference only and the head job (delay scheduling off here) takes the
// container for a non-local map. Checked through the plugin's own counts of
// hinted maps that ran where hinted.
func TestPreassignLaunchesHintedMap(t *testing.T) {
	const yml = `
cluster:
  racks: 2
  nodes: [{count: 12, vcores: 2, memory_mb: 8192}]
  hdfs: {block_mb: 128, replication: 1}
yarn: {node_local_delay: 0, rack_local_delay: 0, preassign: true}
policy_args:
  prescheduling: {mode: yarn, fairness_bound: 1}
workload:
  jobs:
    - {name: a, maps: 20, input_gb: 2.5, reduces: 1, map_s_per_block: 10, queue: q1}
    - {name: b, maps: 20, input_gb: 2.5, reduces: 1, map_s_per_block: 10, queue: q2}
    - {name: c, maps: 20, input_gb: 2.5, reduces: 1, map_s_per_block: 10, queue: q3}
`
	sc := mustParse(t, yml)
	if !sc.YARN.Preassign {
		t.Fatal("yarn.preassign not read")
	}
	on := runSim(t, sc, "yarn+prescheduling", Options{}).results().Extra
	sc.YARN.Preassign = false
	off := runSim(t, sc, "yarn+prescheduling", Options{}).results().Extra
	if on["prescheduling_steered"] == 0 {
		t.Fatalf("no map steered: %v", on)
	}
	ratio := func(x map[string]float64) float64 {
		return x["prescheduling_followed"] / max(1, x["prescheduling_followed"]+x["prescheduling_not_followed"])
	}
	// A speculative copy queued for the node still goes first, so not
	// every pre-assigned map need run there.
	if ratio(on) < 0.8 || ratio(off) >= ratio(on) {
		t.Errorf("hinted maps run where hinted: %.2f with preassign (want >= 0.8), %.2f without (want less): on %v off %v",
			ratio(on), ratio(off), on, off)
	}
}
