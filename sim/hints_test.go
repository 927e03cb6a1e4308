package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/policy"
)

// specOnBusy backs up job a's map on the node that runs job b's map, which
// is full until b's map ends: the copy must wait for that container.
type specOnBusy struct{ expiresMS int64 }

func (specOnBusy) Name() string { return "specbusy" }

func (p specOnBusy) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	var orig *cluster.Attempt
	var busy string
	for _, app := range v.Apps() {
		for _, t := range app.Tasks {
			for _, a := range t.Running() {
				switch app.Name {
				case "a":
					orig = a
				case "b":
					busy = a.Node
				}
			}
		}
	}
	if orig == nil || busy == "" || len(orig.Task.Attempts) > 1 {
		return nil, nil
	}
	h := policy.Hint{Kind: policy.KindSpeculate, App: orig.Task.App.ID, Task: orig.Task.ID, Attempt: orig.ID, Node: busy, Reason: "t"}
	if p.expiresMS > 0 {
		h.ExpiresTS = v.Now() + p.expiresMS
	}
	return []policy.Hint{h}, nil
}

func TestSpeculateOnFullNodeWaitsOrExpires(t *testing.T) {
	const yml = `
cluster:
  racks: 1
  nodes: [{count: 2, vcores: 1, memory_mb: 4096}]
yarn: {map_container: {vcores: 1, memory_mb: 1024}}
workload:
  jobs:
    - {name: a, input_mb: 128, reduces: 0, shuffle_ratio: 0, map_s_per_block: 200}
    - {name: b, input_mb: 64, reduces: 0, shuffle_ratio: 0, map_s_per_block: 200}
`
	for _, tc := range []struct {
		name              string
		expiresMS         int64
		launched, dropped int
	}{
		{"expires before the node frees", 0, 0, 1}, // default TTL 30 s < b's 100 s
		{"launched when the node frees", 600_000, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := runSim(t, mustParse(t, yml), "specbusy", Options{Registry: testRegistry(specOnBusy{tc.expiresMS})})
			r := s.results()
			if r.Spec.Launched != tc.launched || int(r.Extra["spec_dropped"]) != tc.dropped {
				t.Fatalf("launched %d dropped %v, want %d and %d", r.Spec.Launched, r.Extra["spec_dropped"], tc.launched, tc.dropped)
			}
			if tc.launched == 1 {
				// The copy started when b's map ended (~101 s) and lost to the
				// original (~201 s): its 100 s are waste.
				if r.Spec.Won != 0 || r.Extra["spec_lost"] != 1 || r.Spec.WastedS < 90 || r.Spec.WastedS > 110 {
					t.Fatalf("spec %+v lost %v", r.Spec, r.Extra["spec_lost"])
				}
			}
		})
	}
}

func TestRunHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sc, err := ScenarioFromTrace("swim", "../testdata/traces/SWIM_FB-2009_samples_24_times_1hr_0_first50jobs.tsv", 50, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, sc, "none", Options{Registry: testRegistry()}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// Queues share the cluster by weight: with both queues backlogged, running
// containers split about 1:3 for weights 1 and 3; one queue alone gets all.
func TestQueueFairShare(t *testing.T) {
	const yml = `
cluster:
  racks: 1
  nodes: [{count: 4, vcores: 8, memory_mb: 65536}]
yarn: {queues: {a: 1, b: 3}, node_local_delay: 0, rack_local_delay: 0}
workload:
  jobs:
    - {name: a1, queue: a, input_gb: 40, reduces: 0, shuffle_ratio: 0, map_s_per_block: 60}
    - {name: b1, queue: b, input_gb: 40, reduces: 0, shuffle_ratio: 0, map_s_per_block: 60}
`
	s, err := newSim(context.Background(), mustParse(t, yml), "none", Options{Registry: testRegistry(), keepHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	s.ctx = context.Background()
	for i := range s.sc.Jobs {
		s.q.push(0, evSubmit, int32(i), 0)
	}
	// Run the first two minutes (both queues backlogged) and look.
	for s.q.len() > 0 && s.q.peekAt() < 120_000 {
		it := s.q.pop()
		s.now = it.at
		s.dispatch(it)
	}
	a, b := s.queueBy["a"].running, s.queueBy["b"].running
	if a+b != 32 || b < 23 || b > 25 {
		t.Fatalf("running a=%d b=%d of 32 containers, want about 8:24", a, b)
	}
}

// TestHintsFindJobsListedOutOfSubmitOrder: application ids follow the
// scenario's job order, submission follows submit_s. A task-targeted hint for
// a job listed first but submitted second must find that job's task (it
// found the other job's, or none, so every speculate hint for it was lost).
func TestHintsFindJobsListedOutOfSubmitOrder(t *testing.T) {
	sc := mustParse(t, `
cluster: {nodes: [{count: 2, vcores: 4, memory_mb: 8192}]}
workload:
  jobs:
    - {name: late, type: sort, submit_s: 50, maps: 3, reduces: 1, map_s_per_block: 10}
    - {name: early, type: sort, submit_s: 0, maps: 5, reduces: 1, map_s_per_block: 10}
`)
	s, err := newSim(context.Background(), sc, "none", Options{Registry: testRegistry(), keepHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	s.submit(1) // "early", submitted first
	s.submit(0)
	for idx, name := range []string{"late", "early"} {
		id := fmt.Sprintf("task_%d_%04d_m_000002", clusterTS, idx+1)
		tk := s.taskByID(id)
		if tk == nil || tk.id != id || tk.job.spec.Name != name {
			t.Errorf("%s: task %s not found in job %q", name, id, name)
		}
	}
}

// TestTaskByPlainIDSameAsFields holds taskByPlainID to the general path
// (taskByFields) on the ids the simulator makes and on random mutations of
// them (signs, extra or missing fields, other kinds, numbers out of range,
// another cluster time): whenever it answers (ok), the answer is the
// general path's task, the same record.
func TestTaskByPlainIDSameAsFields(t *testing.T) {
	sc := mustParse(t, `
cluster: {nodes: [{count: 2, vcores: 4, memory_mb: 8192}]}
workload:
  jobs:
    - {name: a, type: sort, submit_s: 0, maps: 12, reduces: 3, map_s_per_block: 10}
    - {name: b, type: sort, submit_s: 5, maps: 4, reduces: 1, map_s_per_block: 10}
    - {name: c, type: sort, submit_s: 9, maps: 120, reduces: 11, map_s_per_block: 10}
`)
	s, err := newSim(context.Background(), sc, "none", Options{Registry: testRegistry(), keepHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	s.submit(0)
	s.submit(2) // job b (index 1) never submitted: its number finds no job
	rng := rand.New(rand.NewPCG(14, 20))
	pieces := []string{"task", "_", fmt.Sprint(clusterTS), "0", "1", "0001", "0002", "0003", "0004", "m", "r", "x", "mm",
		"000000", "000001", "000011", "000119", "000120", "+1", "-1", "", "99999999999", "1_", "__", "attempt", "7"}
	var ids []string
	for _, j := range s.jobs {
		for i := range j.maps {
			ids = append(ids, padID(j.taskPrefix, "m_", i, 6))
		}
		for _, r := range j.reduces {
			ids = append(ids, r.id)
		}
	}
	for range 20000 {
		var id string
		switch rng.IntN(3) {
		case 0: // a real id
			id = ids[rng.IntN(len(ids))]
		case 1: // a real id with a byte changed, dropped or added
			id = mutateID(rng, ids[rng.IntN(len(ids))], "0123456789_mr+-ax")
		default: // pieces put together
			for range 1 + rng.IntN(10) {
				id += pieces[rng.IntN(len(pieces))]
			}
		}
		want := s.taskByFields(id)
		got, ok := s.taskByPlainID(id)
		if ok && got != want {
			t.Fatalf("%q: taskByPlainID %v, taskByFields %v", id, got, want)
		}
		if s.taskByID(id) != want {
			t.Fatalf("%q: taskByID differs from taskByFields", id)
		}
	}
	for _, id := range ids {
		if got, ok := s.taskByPlainID(id); !ok || got == nil || got.id != id {
			t.Fatalf("%q: taskByPlainID %v %v, want its task", id, got, ok)
		}
	}
}

// TestNodeByIDSameAsMap holds nodeByID to the map it stands for on the
// nodes' ids and on random mutations of them.
func TestNodeByIDSameAsMap(t *testing.T) {
	for _, nodes := range []int{1, 7, 600, 10_001} {
		sc := mustParse(t, fmt.Sprintf(`
cluster: {nodes: [{count: %d, vcores: 4, memory_mb: 8192}]}
workload:
  jobs:
    - {name: a, type: sort, submit_s: 0, maps: 2, reduces: 1, map_s_per_block: 10}
`, nodes))
		s, err := newSim(context.Background(), sc, "none", Options{Registry: testRegistry()})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(nodes), 14))
		for range 5000 {
			id := s.nodes[rng.IntN(len(s.nodes))].id
			if rng.IntN(2) == 0 {
				id = mutateID(rng, id, "0123456789-+node")
			}
			if got, want := s.nodeByID(id), s.nodeBy[id]; got != want {
				t.Fatalf("%d nodes, %q: nodeByID %v, map %v", nodes, id, got, want)
			}
		}
	}
}

// mutateID returns id with one byte changed to, or added from, alphabet,
// or dropped.
func mutateID(rng *rand.Rand, id, alphabet string) string {
	b := []byte(id)
	k := rng.IntN(len(b))
	c := alphabet[rng.IntN(len(alphabet))]
	switch rng.IntN(3) {
	case 0:
		b[k] = c
	case 1:
		b = append(b[:k], b[k+1:]...)
	default:
		b = append(b[:k], append([]byte{c}, b[k:]...)...)
	}
	return string(b)
}
