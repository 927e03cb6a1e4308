package sim

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// A job's features reach app.submitted, its task_load sets the load1 its
// running tasks add to a node's heartbeat, and a plugin's Extra() (the
// learning scheduler's accuracy) lands in results.json extra.
func TestJobFeaturesTaskLoadAndPluginExtra(t *testing.T) {
	const yml = `
cluster:
  racks: 1
  nodes: [{count: 2, vcores: 4, memory_mb: 4096}]
yarn: {heartbeat_s: 5, map_container: {vcores: 1, memory_mb: 512}, reduce_container: {vcores: 1, memory_mb: 512}}
workload:
  jobs:
    - {name: heavy, type: CPUActivity, input_gb: 1, reduces: 0, shuffle_ratio: 0, map_s_per_block: 60,
       features: {cpu: 10, memory: 5, disk: 5, network: 3}, task_load: 2.5}
    - {name: light, type: URLGet, submit_s: 600, input_gb: 1, reduces: 0, shuffle_ratio: 0, map_s_per_block: 60,
       features: {cpu: 3, memory: 4, disk: 6, network: 7}, task_load: 0.5}
`
	var log bytes.Buffer
	s := runSim(t, mustParse(t, yml), "learning-nb", Options{Events: &log})
	feats := map[string]events.Features{}
	perTask := map[bool]float64{} // light job running? -> load1 per running container
	for _, ev := range readEvents(t, &log) {
		switch {
		case ev.Type == events.AppSubmitted && ev.Features != nil:
			feats[ev.Name] = *ev.Features
		case ev.Type == events.NodeHeartbeat && ev.RunningContainers != nil && *ev.RunningContainers > 0:
			perTask[epochMS+600_000 <= ev.TS] = ev.Load1 / float64(*ev.RunningContainers)
		}
	}
	if feats["heavy"] != (events.Features{CPU: 10, Memory: 5, Disk: 5, Network: 3}) || feats["light"].Network != 7 {
		t.Errorf("app.submitted features = %+v", feats)
	}
	if perTask[false] != 2.5 || perTask[true] != 0.5 {
		t.Errorf("load1 per running task = %v (before/after the light job), want 2.5 and 0.5", perTask)
	}
	extra := s.results().Extra
	if extra["learning-nb_decisions"] <= 0 {
		t.Errorf("results extra lacks the learning scheduler's decisions: %v", extra)
	}
	for k := range extra {
		if strings.HasPrefix(k, "learning-nb_accuracy") {
			return
		}
	}
	t.Errorf("results extra lacks learning-nb accuracy: %v", extra)
}

// With load.avg_s, heartbeat load1 is the moving average of the load: one
// task of task_load 2 on an otherwise idle node brings it to
// 2·(1 − e^(−t/60)) after t seconds, as the kernel's one-minute average does.
func TestLoadAverage(t *testing.T) {
	const yml = `
cluster:
  racks: 1
  nodes: [{count: 1, vcores: 4, memory_mb: 4096, load: {avg_s: 60}}]
yarn: {heartbeat_s: 1}
workload:
  jobs: [{name: one, maps: 1, input_mb: 64, reduces: 0, shuffle_ratio: 0, map_s_per_block: 400, task_load: 2}]
`
	var log bytes.Buffer
	s := runSim(t, mustParse(t, yml), "none", Options{Events: &log})
	start := s.attempts[0].startMS
	checked := 0
	for _, ev := range readEvents(t, &log) {
		dt := float64(ev.TS-epochMS-start) / 1000
		if ev.Type != events.NodeHeartbeat || dt <= 0 || dt > 300 {
			continue
		}
		want := 2 * (1 - math.Exp(-dt/60))
		if math.Abs(ev.Load1-want) > 1e-6 {
			t.Errorf("load1 at %.0f s = %.4f, want %.4f", dt, ev.Load1, want)
		}
		checked++
	}
	if checked < 3 {
		t.Fatalf("only %d heartbeats checked", checked)
	}
}

// TestBackgroundLoadPerCore: load.mean is runnable threads per core, so a
// level above 1 (an overloaded node, as real load averages often are) is
// accepted, adds level x vcores to load1, and leaves a task what the
// background does not take: 1 - level, at least minCPUShare.
func TestBackgroundLoadPerCore(t *testing.T) {
	const baseS = 400.0 // map_s_per_block, one block, no overhead: the map's time at full speed
	for _, tc := range []struct {
		level, share float64
	}{
		{0, 1},
		{0.5, 0.5},
		{0.95, minCPUShare},
		{1.5, minCPUShare},
	} {
		t.Run(fmt.Sprint(tc.level), func(t *testing.T) {
			yml := fmt.Sprintf(`
cluster:
  racks: 1
  nodes: [{count: 1, vcores: 4, memory_mb: 4096, load: {mean: %g}}]
yarn: {heartbeat_s: 1, task_overhead_s: 0}
workload:
  jobs: [{name: one, maps: 1, input_mb: 128, reduces: 0, shuffle_ratio: 0, map_s_per_block: %g}]
`, tc.level, baseS)
			var log bytes.Buffer
			s := runSim(t, mustParse(t, yml), "none", Options{Events: &log})
			a := s.attempts[0]
			gotS := float64(a.endMS-a.startMS) / 1000
			if want := baseS / tc.share; math.Abs(gotS-want) > 1 {
				t.Errorf("map took %.1f s, want %.1f (cpu share %.2f)", gotS, want, tc.share)
			}
			running := 0
			for _, ev := range readEvents(t, &log) {
				dt := ev.TS - epochMS
				if ev.Type != events.NodeHeartbeat || dt <= a.startMS || dt >= a.endMS {
					continue
				}
				if want := 1 + tc.level*4; math.Abs(ev.Load1-want) > 1e-9 {
					t.Errorf("load1 while the map runs = %.3f, want %.3f (task 1 + %.2f x 4 vcores)", ev.Load1, want, tc.level)
				}
				running++
			}
			if running == 0 {
				t.Fatal("no heartbeat while the map ran")
			}
		})
	}
}
