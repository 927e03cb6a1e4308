package sim

import (
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// Hadoop 1.2.1 FairScheduler delay scheduling (yarn.hadoop1_delay): the level
// a job may launch at follows the locality of its last launched map and the
// wait accrued since (node: rack after node_local_delay, any after
// node_local_delay + rack_local_delay; rack: any after rack_local_delay;
// off-rack: any at once). Delays 1.5 and 1.5 heartbeats of 1 s, as Hadoop
// 1.2.1 derives both from 1.5 heartbeat intervals.
func TestHadoop1DelayLevel(t *testing.T) {
	s := &sim{hbMS: 1000, sc: &Scenario{YARN: YARN{NodeLocalDelay: 1.5, RackLocalDelay: 1.5, Hadoop1Delay: true}}}
	for _, c := range []struct {
		name          string
		last          events.Locality
		waitedMS      int64
		rackOK, anyOK bool
	}{
		{"no map yet, no wait", "", 0, false, false},
		{"node, short wait", events.NodeLocal, 1499, false, false},
		{"node, one delay", events.NodeLocal, 1500, true, false},
		{"node, just short of two delays", events.NodeLocal, 2999, true, false},
		{"node, two delays", events.NodeLocal, 3000, true, true},
		{"rack, no wait", events.RackLocal, 0, true, false},
		{"rack, one delay", events.RackLocal, 1500, true, true},
		{"off-rack, no wait", events.OffRack, 0, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := &job{waitStart: -1, lastLevel: c.last, waitedMS: c.waitedMS}
			s.now = 1_000_000 // wall time must not matter
			rack, any := s.delayLevel(j)
			if rack != c.rackOK || any != c.anyOK {
				t.Errorf("delayLevel = (rack %v, any %v), want (%v, %v)", rack, any, c.rackOK, c.anyOK)
			}
		})
	}
}

// By default the wait is wall time since the first skip, whatever happened in
// between (the YARN-like model every other scenario uses).
func TestDefaultDelayIsWallTime(t *testing.T) {
	s := &sim{hbMS: 1000, sc: &Scenario{YARN: YARN{NodeLocalDelay: 1, RackLocalDelay: 2}}}
	j := &job{waitStart: -1}
	for _, c := range []struct {
		now           int64
		rackOK, anyOK bool
	}{{10_000, false, false}, {10_999, false, false}, {11_000, true, false}, {13_000, true, true}} {
		s.now = c.now
		if rack, any := s.delayLevel(j); rack != c.rackOK || any != c.anyOK {
			t.Errorf("t=%d: delayLevel = (%v, %v), want (%v, %v)", c.now, rack, any, c.rackOK, c.anyOK)
		}
	}
}

// A job skipped at a heartbeat gains, at the next one, the mean gap between
// the cluster's heartbeats (interval / nodes); a job that also launched a map
// at that heartbeat gains nothing, and nothing accrues without a new skip.
func TestHadoop1DelayAccrual(t *testing.T) {
	s := &sim{hbMS: 1000, nodes: make([]*node, 10)}
	skipped, launched := &job{}, &job{}
	s.hbSeq = 1
	for _, j := range []*job{skipped, launched} {
		j.skippedHB = true
		s.skipped = append(s.skipped, j)
	}
	launched.skippedHB = false // what launchMap does
	s.accrueDelay()
	if skipped.waitedMS != 100 || launched.waitedMS != 0 {
		t.Errorf("waited skipped %d, launched %d ms; want 100, 0", skipped.waitedMS, launched.waitedMS)
	}
	if len(s.skipped) != 0 || skipped.skippedHB {
		t.Errorf("skip marks not cleared: %d queued, flag %v", len(s.skipped), skipped.skippedHB)
	}
	s.accrueDelay() // not skipped again: no more wait
	if skipped.waitedMS != 100 {
		t.Errorf("wait grew without a skip: %d ms", skipped.waitedMS)
	}
}

// The key is read from the scenario, and a run with it is deterministic.
func TestHadoop1DelayScenario(t *testing.T) {
	const yml = `
cluster:
  racks: 2
  nodes: [{count: 6, vcores: 4, memory_mb: 8192}]
  hdfs: {block_mb: 128, replication: 2}
yarn: {node_local_delay: 1.5, rack_local_delay: 1.5, hadoop1_delay: true, load_balance: true}
workload:
  jobs:
    - {name: a, maps: 12, input_gb: 1.5, reduces: 1, map_s_per_block: 10}
    - {name: b, maps: 12, input_gb: 1.5, reduces: 1, map_s_per_block: 10, submit_s: 2}
`
	sc := mustParse(t, yml)
	if !sc.YARN.Hadoop1Delay {
		t.Fatal("yarn.hadoop1_delay not read")
	}
	a := runSim(t, sc, "yarn", Options{}).results()
	b := runSim(t, sc, "yarn", Options{}).results()
	if a.MakespanS != b.MakespanS || a.Locality != b.Locality || a.Jain != b.Jain {
		t.Errorf("same seed, different results: %+v vs %+v", a, b)
	}
	for _, j := range a.Jobs {
		if j.FinishS <= 0 {
			t.Errorf("job %s did not finish", j.Name)
		}
	}
	if _, ok := a.Extra["maps_passed_over"]; !ok {
		t.Error("a Hadoop 1 run lacks extra maps_passed_over")
	}
	sc.YARN.Hadoop1Delay, sc.YARN.LoadBalance = false, false
	if _, ok := runSim(t, sc, "yarn", Options{}).results().Extra["maps_passed_over"]; ok {
		t.Error("a stock YARN run reports maps_passed_over (its results would change)")
	}
}
