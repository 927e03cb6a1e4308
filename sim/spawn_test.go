package sim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// splitBinder binds partition 0 of every job to node-0002 with reducers
// reducers, on every tick (so a repeated hint must not split twice).
type splitBinder struct{ reducers int }

func (splitBinder) Name() string { return "splitbinder" }

func (b splitBinder) Bind(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	var out []policy.Hint
	for _, a := range v.Apps() {
		if !a.Finished() {
			out = append(out, policy.Hint{Kind: policy.KindReduceBinding, App: a.ID, Partition: 0,
				Node: "node-0002", Reducers: b.reducers, Reason: "t"})
		}
	}
	return out, nil
}

// With yarn.spawn_reducers a reduce-binding's reducers split the partition:
// n reducers of partition 0 run on the bound node, each fetching 1/n of it,
// and the job still shuffles exactly what its maps produced. Without it the
// job keeps one reducer per partition.
func TestSpawnReducersSplitsPartition(t *testing.T) {
	const yml = `
seed: 3
cluster:
  racks: 1
  nodes: [{count: 3, vcores: 4, memory_mb: 8192}]
yarn: {slowstart: 1.0, spawn_reducers: %s, map_container: {vcores: 1, memory_mb: 1024}, reduce_container: {vcores: 1, memory_mb: 1024}}
workload:
  jobs:
    - {name: a, input_mb: 512, reduces: 2, shuffle_ratio: 1.0, map_s_per_block: 10, reduce_s_per_gb: 60, skew: 0.5}
`
	for _, tc := range []struct {
		spawn    string
		reducers int
		want     int // reduce tasks run for partition 0
	}{
		{"false", 3, 1},
		{"true", 1, 1},
		{"true", 3, 3},
		{"true", 1000, MaxSpawnReducers},
	} {
		t.Run(fmt.Sprintf("spawn=%s/reducers=%d", tc.spawn, tc.reducers), func(t *testing.T) {
			sc := mustParse(t, strings.Replace(yml, "%s", tc.spawn, 1))
			s := runSim(t, sc, "splitbinder", Options{Registry: testRegistry(splitBinder{tc.reducers})})
			j := s.jobs[0]
			if !j.finished {
				t.Fatal("job did not finish")
			}
			if got := len(j.reduces); got != 1+tc.want {
				t.Fatalf("%d reduce tasks, want %d (partition 1's one and %d for partition 0)", got, 1+tc.want, tc.want)
			}
			var part0 []int64
			for _, r := range j.reduces {
				if r.state != taskDone {
					t.Fatalf("reducer %s not done", r.id)
				}
				if r.part != 0 {
					continue
				}
				w := winner(r)
				if w == nil || w.node.id != "node-0002" {
					t.Fatalf("reducer %s of partition 0 ran on %v, want node-0002", r.id, w)
				}
				part0 = append(part0, w.fetched)
			}
			if len(part0) != tc.want {
				t.Fatalf("partition 0 has %d reducers, want %d", len(part0), tc.want)
			}
			var sum int64
			for _, b := range part0 {
				sum += b
			}
			if sum != j.partTotal[0] {
				t.Fatalf("partition 0's reducers fetched %d bytes, partition holds %d", sum, j.partTotal[0])
			}
			for _, b := range part0 {
				// Each piece of every map output splits within a byte.
				if d := b - sum/int64(len(part0)); d < -int64(len(j.maps)) || d > int64(len(j.maps)) {
					t.Fatalf("shares %v are not equal", part0)
				}
			}
			if j.shuffled != j.produced {
				t.Fatalf("shuffled %d bytes, maps produced %d", j.shuffled, j.produced)
			}
		})
	}
}

func winner(t *task) *attempt {
	for _, a := range t.attempts {
		if a.over && a.endMS > 0 && t.state == taskDone && a.fetched > 0 {
			return a
		}
	}
	return nil
}

// A spawned reducer is reported like the others: task.pending names its
// partition.
func TestSpawnedReducerEventsNamePartition(t *testing.T) {
	sc := mustParse(t, `
cluster:
  racks: 1
  nodes: [{count: 3, vcores: 4, memory_mb: 8192}]
yarn: {slowstart: 1.0, spawn_reducers: true}
workload:
  jobs:
    - {name: a, input_mb: 256, reduces: 2, shuffle_ratio: 1.0, map_s_per_block: 10}
`)
	var log bytes.Buffer
	runSim(t, sc, "splitbinder", Options{Registry: testRegistry(splitBinder{2}), Events: &log})
	parts := map[string]int{}
	sc2 := bufio.NewScanner(&log)
	sc2.Buffer(nil, 1<<20)
	for sc2.Scan() {
		e, err := events.Decode(sc2.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if e.Type == events.TaskPending && e.Kind == events.Reduce {
			if e.Partition == nil {
				t.Fatalf("task.pending for %s has no partition", e.Task)
			}
			parts[e.Task] = *e.Partition
		}
	}
	if len(parts) != 3 {
		t.Fatalf("reduce tasks pending: %v, want 3", parts)
	}
	n0 := 0
	for _, p := range parts {
		if p == 0 {
			n0++
		}
	}
	if n0 != 2 {
		t.Fatalf("partitions %v: want two reducers of partition 0", parts)
	}
}
