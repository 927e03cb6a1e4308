package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
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
    - {name: rem, submit_s: 10, input_mb: 800, reduces: 3, map_s_per_block: 2}
`

// A reducer's fetch list starts over once every entry is taken (fetchMore):
// results, event log and tasks.csv are those of the list that only grows,
// for per-node and per-rack fetches under stacks that speculate and kill.
func TestFetchListResetChangesNothing(t *testing.T) {
	reg := plugins.NewRegistry()
	run := func(yml, stack string, noCompact bool) (*sim, [3][]byte) {
		return runOutputs(t, mustParse(t, yml), stack, Options{Registry: reg, noCompact: noCompact})
	}
	for name, yml := range map[string]string{"per-node": shuffleYAML, "per-rack": rackChunkYAML} {
		for _, stack := range []string{"none", "yarn", "late"} {
			t.Run(name+"/"+stack, func(t *testing.T) {
				_, want := run(yml, stack, true)
				s, got := run(yml, stack, false)
				if s.fetchResets == 0 {
					t.Fatal("no fetch list started over: the test does not exercise the reset")
				}
				sameOutputs(t, got, want, "when fetch lists start over")
			})
		}
	}
}

// A map's task id and split path, built in one string when it is first
// reported pending (pendingMapIDs) and the id kept for its record
// (mapTask), and an attempt's id and its container's, built in one string
// (attemptIDs), read as fmt formats them in every task.pending and
// container.allocated event; replicas beyond splitHosts' three get a split
// of their own.
func TestIDsAsFormatted(t *testing.T) {
	for _, repl := range []int{3, 5} {
		var evs bytes.Buffer
		sc := mustParse(t, shuffleYAML)
		sc.Cluster.HDFS.Replication = repl
		s, err := newSim(t.Context(), sc, "late", Options{Registry: plugins.NewRegistry(), Events: &evs})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.run(t.Context()); err != nil {
			t.Fatal(err)
		}
		names := map[string]string{} // app id -> job name
		for _, j := range s.jobs {
			names[j.id] = j.spec.Name
		}
		maps, launched, most := 0, 0, 0
		tries, containers := map[string]int{}, map[string]int{} // attempts by task, containers by app
		for _, ev := range readEvents(t, &evs) {
			switch {
			case ev.Type == events.TaskPending && ev.Kind == events.Map:
				maps++
				var seq, i int
				if _, err := fmt.Sscanf(ev.Task, "task_%d_%d_m_%d", new(int64), &seq, &i); err != nil {
					t.Fatalf("task id %q: %v", ev.Task, err)
				}
				if want := fmt.Sprintf("task_%d_%04d_m_%06d", clusterTS, seq, i); ev.Task != want {
					t.Fatalf("task id %q, want %q", ev.Task, want)
				}
				if want := fmt.Sprintf("/sim/%s/part-%05d", names[ev.App], i); len(ev.Splits) != 1 || ev.Splits[0].Path != want {
					t.Fatalf("%s: splits %+v, want one at %q", ev.Task, ev.Splits, want)
				}
				if h := ev.Splits[0].Hosts; len(h) == 0 || len(h) > repl {
					t.Fatalf("%s: hosts %v with replication %d", ev.Task, h, repl)
				}
				most = max(most, len(ev.Splits[0].Hosts))
			case ev.Type == events.ContainerAllocated:
				if strings.Contains(ev.Task, "_m_") {
					launched++
				}
				if want := fmt.Sprintf("attempt_%s_%d", strings.TrimPrefix(ev.Task, "task_"), tries[ev.Task]); ev.Attempt != want {
					t.Fatalf("attempt %q, want %q", ev.Attempt, want)
				}
				tries[ev.Task]++
				containers[ev.App]++
				var seq int
				if _, err := fmt.Sscanf(ev.App, "application_%d_%d", new(int64), &seq); err != nil {
					t.Fatalf("app id %q: %v", ev.App, err)
				}
				if want := fmt.Sprintf("container_%d_%04d_01_%06d", clusterTS, seq, containers[ev.App]); ev.Container != want {
					t.Fatalf("container %q, want %q", ev.Container, want)
				}
			}
		}
		if maps == 0 || launched == 0 || most != repl {
			t.Fatalf("replication %d: %d pending maps, %d launched, at most %d hosts", repl, maps, launched, most)
		}
	}
}

// pollDense, poll's loop for a fetch index by node, gives the results,
// event log and tasks.csv of poll's general loop, on jobs whose last map's
// output differs in size from the others (shuffleYAML's) and on a scenario
// of stragglers, under stacks that speculate and kill.
func TestPollDenseSameAsLoop(t *testing.T) {
	reg := plugins.NewRegistry()
	run := func(sc *Scenario, stack string, ref bool) [3][]byte {
		s, out := runOutputs(t, sc, stack, Options{Registry: reg, pollRef: ref})
		if s.m.byKind[evFetchPoll] == 0 {
			t.Fatal("no reducer polled")
		}
		rem := false // a job whose last map's output is smaller (outBytesAt)
		for _, j := range s.jobs {
			if j.shuffled != j.produced {
				t.Errorf("%s: fetched %d of %d bytes", j.id, j.shuffled, j.produced)
			}
			rem = rem || j.outLast != j.outPer
		}
		if !rem && sc.Name == "test.yaml" {
			t.Error("no job with a last output of another size")
		}
		return out
	}
	for _, stack := range []string{"none", "yarn", "late"} {
		for name, load := range map[string]func() *Scenario{
			"shuffle":    func() *Scenario { return mustParse(t, shuffleYAML) },
			"stragglers": func() *Scenario { return mustLoad(t, "testdata/stragglers.yaml") },
		} {
			t.Run(name+"/"+stack, func(t *testing.T) {
				want, got := run(load(), stack, true), run(load(), stack, false)
				sameOutputs(t, got, want, "with pollDense")
			})
		}
	}
}

// Progress reports built from the attempt's copies of its task's, job's and
// node's constants equal those built from the records: the event log
// (every task.progress), results and tasks.csv, with degraded nodes, a job
// without reducers, and a partition split among spawned reducers.
func TestProgressCopiesSameAsRecords(t *testing.T) {
	const splitYAML = `
seed: 3
cluster:
  racks: 1
  nodes: [{count: 3, vcores: 4, memory_mb: 8192}]
yarn: {slowstart: 1.0, spawn_reducers: true, map_container: {vcores: 1, memory_mb: 1024}, reduce_container: {vcores: 1, memory_mb: 1024}}
workload:
  jobs:
    - {name: a, input_mb: 4096, reduces: 2, shuffle_ratio: 1.0, map_s_per_block: 10, reduce_s_per_gb: 60, skew: 0.5}
    - {name: b, submit_s: 2, input_mb: 384, reduces: 0, shuffle_ratio: 0, map_s_per_block: 10}
`
	run := func(sc *Scenario, reg policy.Registry, stack string, ref bool) [3][]byte {
		opts := Options{Registry: reg}
		if ref {
			opts.emitProgressRef = emitProgressRef
		}
		_, out := runOutputs(t, sc, stack, opts)
		if !bytes.Contains(out[1], []byte(`"task.progress"`)) {
			t.Fatal("no progress report")
		}
		return out
	}
	reg := plugins.NewRegistry()
	type runCase struct {
		load  func() *Scenario
		reg   policy.Registry
		stack string
	}
	cases := map[string]runCase{
		"split/splitbinder": {func() *Scenario { return mustParse(t, splitYAML) }, testRegistry(splitBinder{3}), "splitbinder"},
	}
	for _, stack := range []string{"yarn", "late", "tmar"} {
		cases["shuffle/"+stack] = runCase{func() *Scenario { return mustParse(t, shuffleYAML) }, reg, stack}
		cases["stragglers/"+stack] = runCase{func() *Scenario { return mustLoad(t, "testdata/stragglers.yaml") }, reg, stack}
		cases["hetero/"+stack] = runCase{func() *Scenario { return mustParse(t, heteroYAML) }, reg, stack}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			want, got := run(c.load(), c.reg, c.stack, true), run(c.load(), c.reg, c.stack, false)
			sameOutputs(t, got, want, "when progress reads the attempt's copies")
		})
	}
}

// runOutputs runs sc under stack with opts, its Events and Tasks set here,
// and returns the finished sim and its outputs: results.json, the event log
// and tasks.csv, which the equivalence tests compare byte for byte.
func runOutputs(t *testing.T, sc *Scenario, stack string, opts Options) (*sim, [3][]byte) {
	t.Helper()
	var evs, tasks bytes.Buffer
	opts.Events, opts.Tasks = &evs, &tasks
	s, err := newSim(t.Context(), sc, stack, opts)
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

// sameOutputs fails t for each of runOutputs' outputs that differ, saying
// under which change (why).
func sameOutputs(t *testing.T, got, want [3][]byte, why string) {
	t.Helper()
	for i, what := range []string{"results", "event log", "tasks.csv"} {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("%s differ %s", what, why)
		}
	}
}

// emptyShareYAML: jobs whose map outputs are a few bytes over many
// partitions, so most reducers' share of every output is 0 bytes
// (attempt.noBytes) while the last partition's is not, per node and per
// rack, beside a job whose reducers all fetch bytes.
const emptyShareYAML = `
seed: 3
cluster:
  racks: 3
  nodes:
    - {count: 9, vcores: 4, memory_mb: 8192}
    - {count: 2, vcores: 2, memory_mb: 4096, map_speed: 0.5}
  network: {node_gbps: 1, rack_uplink_gbps: 2, rack_fetch_pairs: %d}
yarn: {heartbeat_s: 1, slowstart: 0.05, parallel_copies: 3}
stragglers: {task_prob: 0.1, slowdown: [2, 5]}
workload:
  jobs:
    - {name: tiny, type: grep, submit_s: 0, input_gb: 4, reduces: 12, shuffle_ratio: 0.000000001, map_s_per_block: 3}
    - {name: sort, type: sort, submit_s: 2, input_gb: 6, reduces: 4, map_s_per_block: 4, reduce_s_per_gb: 30}
    - {name: tiny2, type: grep, submit_s: 5, input_gb: 3, reduces: 9, shuffle_ratio: 0.000000002, map_s_per_block: 2}
`

// A reducer whose share of every map output is 0 bytes takes the outputs
// without listing its empty fetches (poll): the results, event log and
// tasks.csv are those of listing them, per node and per rack, under
// stacks that speculate and kill.
func TestEmptyFetchesNotListed(t *testing.T) {
	reg := plugins.NewRegistry()
	for _, pairs := range []int{0, 1} {
		sc := mustParse(t, fmt.Sprintf(emptyShareYAML, pairs))
		for _, stack := range []string{"none", "yarn", "late"} {
			t.Run(fmt.Sprintf("rack_fetch_pairs=%d/%s", pairs, stack), func(t *testing.T) {
				_, want := runOutputs(t, sc, stack, Options{Registry: reg, listEmpty: true})
				s, got := runOutputs(t, sc, stack, Options{Registry: reg})
				if s.noByteReds == 0 || s.noByteReds == int(s.m.byKind[evFetchPoll]) {
					t.Fatalf("%d reducers with no bytes: the test does not exercise them beside others", s.noByteReds)
				}
				sameOutputs(t, got, want, "when empty fetches are not listed")
			})
		}
	}
}

// The running list keeps launch order (runningRemove), so a policy tick
// reports progress in another order than when a stopped attempt's place
// was taken by the last one: the results and tasks.csv are the same, and
// the event log holds the same events (ids aside, which number them in
// emission order), over scenarios, seeds and stacks that speculate, kill,
// shape and place. The list's order and positions are checked as it runs.
func TestRunningInLaunchOrder(t *testing.T) {
	reg := plugins.NewRegistry()
	scs := map[string]string{"shuffle": shuffleYAML, "rack": rackChunkYAML, "empty": fmt.Sprintf(emptyShareYAML, 0)}
	reordered := 0 // runs whose event logs differ in order
	for name, yml := range scs {
		for _, stack := range []string{"none", "yarn", "late", "dhsa-pi", "erul", "yarn+prescheduling", "tmar"} {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("%s/%s/%d", name, stack, seed), func(t *testing.T) {
					sc := mustParse(t, yml)
					sc.Seed = seed
					_, want := runOutputs(t, sc, stack, Options{Registry: reg, swapRunning: true})
					checks := 0
					s, got := runOutputs(t, sc, stack, Options{Registry: reg, onTick: func(s *sim) {
						checks++
						n, last := 0, -1
						for i, a := range s.running {
							if a == nil {
								continue
							}
							if a.runIdx != i || int(a.idx) < 0 || a.over {
								t.Fatalf("running[%d]: runIdx %d, over %v", i, a.runIdx, a.over)
							}
							if a.startMS < 0 || i < last {
								t.Fatal("not in launch order")
							}
							last = i
							n++
						}
						if n != s.nRunning {
							t.Fatalf("%d running listed, nRunning %d", n, s.nRunning)
						}
					}})
					if checks == 0 || s.m.byKind[evPolicyTick] == 0 {
						t.Fatal("nothing checked")
					}
					if !bytes.Equal(got[0], want[0]) || !bytes.Equal(got[2], want[2]) {
						t.Fatal("results or tasks.csv differ when the running list keeps launch order")
					}
					if a, b := eventsNoIDs(t, got[1]), eventsNoIDs(t, want[1]); !slices.Equal(a, b) {
						t.Fatal("the event logs hold different events")
					}
					if !bytes.Equal(got[1], want[1]) {
						reordered++
					}
				})
			}
		}
	}
	if reordered == 0 {
		t.Error("no run reported progress in another order: the test does not exercise the change")
	}
}

// eventsNoIDs is an event log's lines without their ids, sorted.
func eventsNoIDs(t *testing.T, log []byte) []string {
	t.Helper()
	var out []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(log)), "\n") {
		i := strings.Index(line, `"id":"`)
		j := strings.Index(line[i+6:], `"`)
		if i < 0 || j < 0 {
			t.Fatalf("no id in %q", line)
		}
		out = append(out, line[:i]+line[i+6+j+1:])
	}
	slices.Sort(out)
	return out
}
