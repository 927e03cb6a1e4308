package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/none"
	"github.com/rmsidecar/rmsidecar/sim/report"
)

func mustLoad(t *testing.T, path string) *Scenario {
	t.Helper()
	sc, err := LoadScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// readEvents decodes a run's emitted events v1 log.
func readEvents(t *testing.T, r io.Reader) []events.Event {
	t.Helper()
	rd := events.NewReader(r)
	var out []events.Event
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
}

func mustParse(t *testing.T, yml string) *Scenario {
	t.Helper()
	sc, err := ParseScenario("test.yaml", []byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// runSim runs a scenario and returns the finished simulator, for tests that
// look inside.
func runSim(t *testing.T, sc *Scenario, stack string, opts Options) *sim {
	t.Helper()
	opts.keepHistory = true // tests look at finished jobs' tasks and the engine's apps
	s, err := newSim(context.Background(), sc, stack, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// fakeSpec is a tiny speculator for tests: on each tick it backs up every
// map attempt that has run for longer than after ms without a sibling,
// on the first other node that reported a free vcore.
type fakeSpec struct {
	after int64
	kill  bool // also kill the original attempt (a kill hint) instead of backing it up
}

func (fakeSpec) Name() string { return "fakespec" }

func (f fakeSpec) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	var out []policy.Hint
	for _, app := range v.Apps() {
		if app.Finished() {
			continue
		}
		for _, t := range app.Tasks {
			run := t.Running()
			if len(run) != 1 || t.State != cluster.TaskRunning || len(t.Attempts) > 1 {
				continue
			}
			a := run[0]
			if v.Now()-a.StartTS < f.after {
				continue
			}
			if f.kill {
				out = append(out, policy.Hint{Kind: policy.KindKill, App: app.ID, Attempt: a.ID, Container: a.Container, Reason: "test"})
				continue
			}
			for _, n := range v.Nodes() {
				if n.ID != a.Node && n.FreeVCores() > 0 {
					out = append(out, policy.Hint{Kind: policy.KindSpeculate, App: app.ID, Task: t.ID, Attempt: a.ID, Node: n.ID, Reason: "test"})
					break
				}
			}
		}
	}
	return out, nil
}

func testRegistry(extra ...policy.Plugin) policy.Registry {
	r := policy.Registry{}
	_ = r.Register(none.Name, none.New)
	for _, p := range extra {
		_ = r.Register(p.Name(), func(context.Context, policy.Handle) (policy.Plugin, error) { return p, nil })
	}
	return r
}

const heteroYAML = `
seed: 7
cluster:
  racks: 2
  nodes:
    - {count: 6, vcores: 4, memory_mb: 8192, map_speed: 1.0, reduce_speed: 1.0}
    - {count: 2, vcores: 4, memory_mb: 8192, map_speed: 0.3, reduce_speed: 0.4}
  network: {node_gbps: 1, rack_uplink_gbps: 2}
yarn: {heartbeat_s: 1, node_local_delay: 1, rack_local_delay: 2}
stragglers: {task_prob: 0.1, slowdown: [3, 6], node_degrade: [{node: 1, from_s: 20, to_s: 400, factor: 0.2}]}
workload:
  jobs:
    - {name: sort, type: sort, submit_s: 0, input_gb: 4, reduces: 8, map_s_per_block: 20, reduce_s_per_gb: 60, skew: 0.3}
    - {name: grep, type: grep, submit_s: 30, input_gb: 3, reduces: 2, shuffle_ratio: 0.05, map_s_per_block: 15}
    - {name: wc, type: wordcount, submit_s: 60, input_gb: 2, reduces: 4, shuffle_ratio: 0.3, queue: adhoc}
`

func resultsJSON(t *testing.T, sc *Scenario, stacks []string, opts Options) []byte {
	t.Helper()
	res, err := Simulate(context.Background(), sc, stacks, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSameSeedSameResults(t *testing.T) {
	reg := testRegistry(fakeSpec{after: 15_000})
	sc := mustParse(t, heteroYAML)
	a := resultsJSON(t, sc, []string{"none", "fakespec"}, Options{Registry: reg, Parallel: 2})
	b := resultsJSON(t, mustParse(t, heteroYAML), []string{"none", "fakespec"}, Options{Registry: reg})
	if !bytes.Equal(a, b) {
		t.Fatalf("same scenario and seed, different results.json:\n%s\n%s", a, b)
	}
	other := mustParse(t, heteroYAML)
	other.Seed = 8
	if c := resultsJSON(t, other, []string{"none", "fakespec"}, Options{Registry: reg}); bytes.Equal(a, c) {
		t.Fatal("a different seed gave identical results: the seed is not used")
	}
}

func TestConservation(t *testing.T) {
	for _, stack := range []string{"none", "fakespec", "fakekill"} {
		t.Run(stack, func(t *testing.T) {
			reg := testRegistry(fakeSpec{after: 10_000})
			_ = reg.Register("fakekill", func(context.Context, policy.Handle) (policy.Plugin, error) {
				return fakeKill{fakeSpec{after: 25_000, kill: true}}, nil
			})
			s := runSim(t, mustParse(t, heteroYAML), stack, Options{Registry: reg})
			for _, j := range s.jobs {
				for _, tk := range append(append([]*task{}, j.maps...), j.reduces...) {
					if tk.wins != 1 || tk.state != taskDone {
						t.Errorf("%s: completed %d times, state %d", tk.id, tk.wins, tk.state)
					}
				}
				if j.produced != j.shuffled {
					t.Errorf("%s: %d bytes produced, %d fetched by the winning reducers", j.id, j.produced, j.shuffled)
				}
				if j.produced == 0 {
					t.Errorf("%s: no shuffle at all", j.id)
				}
			}
			if s.m.overCapacity != 0 {
				t.Errorf("%d allocations put a node over its capacity", s.m.overCapacity)
			}
			for _, n := range s.nodes {
				if n.maxUsedV > n.vcores || n.maxUsedM > n.memMB {
					t.Errorf("%s peaked at %d vcores / %d MB of %d / %d", n.id, n.maxUsedV, n.maxUsedM, n.vcores, n.memMB)
				}
				if n.usedV != 0 || n.usedM != 0 || n.running != 0 {
					t.Errorf("%s still holds %d vcores after the run", n.id, n.usedV)
				}
			}
			for _, l := range s.net.links {
				if l.members != 0 || l.traverse != 0 {
					t.Errorf("a link still carries flows after the run")
				}
			}
			r := s.results()
			switch stack {
			case "none":
				if r.Spec.Launched != 0 || r.Spec.WastedS != 0 {
					t.Errorf("stack none speculated: %+v", r.Spec)
				}
			case "fakespec":
				if r.Spec.Launched == 0 || r.Spec.WastedS <= 0 {
					t.Errorf("the fake speculator had no effect: %+v", r.Spec)
				}
				if r.Spec.Won > r.Spec.Launched {
					t.Errorf("won %d > launched %d", r.Spec.Won, r.Spec.Launched)
				}
			case "fakekill":
				if r.Killed == 0 {
					t.Errorf("no attempt was killed")
				}
			}
		})
	}
}

// fakeKill kills long attempts (once per task: only first attempts).
type fakeKill struct{ fakeSpec }

func (fakeKill) Name() string { return "fakekill" }

// The closed form of DynamicMR §3.2.2 for one job with S containers:
// T = ceil(N_M/S)·t_M + shuffle + ceil(N_R/S)·t_R.
func TestAnalyticSingleJob(t *testing.T) {
	const yml = `
cluster:
  racks: 1
  nodes: [{count: 4, vcores: 4, memory_mb: 16384}]
  network: {node_gbps: 1, latency_ms: 0}
  hdfs: {block_mb: 128, replication: 4}
yarn: {heartbeat_s: 1, slowstart: 1.0, map_container: {vcores: 1, memory_mb: 1024}, reduce_container: {vcores: 1, memory_mb: 1024}}
workload:
  jobs: [{name: one, input_gb: 5, reduces: 16, map_s_per_block: 60, reduce_s_per_gb: 60, shuffle_ratio: 0.5}]
`
	sc := mustParse(t, yml)
	r, err := Run(context.Background(), sc, "none", Options{Registry: testRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	const (
		nodes, slots = 4, 16
		nm, nr       = 40, 16
		block        = 128 << 20
		mib          = 1 << 20
	)
	out := 0.5 * block // per map
	total := out * nm
	tM := DefaultTaskOverheadS + 60 + out/(DefaultSortMBps*mib)
	in := total / nr // per reducer
	tR := DefaultTaskOverheadS + in/(DefaultSortMBps*mib) + 60*in/(1<<30)
	// Each node receives the (nodes-1)/nodes remote share of its reducers'
	// input through its 1 Gb/s NIC.
	shuffle := float64(nr/nodes) * in * (nodes - 1) / nodes / (1e9 / 8)
	want := math.Ceil(float64(nm)/slots)*tM + shuffle + math.Ceil(float64(nr)/slots)*tR
	if got := r.MakespanS; math.Abs(got-want)/want > 0.05 {
		t.Fatalf("makespan %.1f s, closed form %.1f s (t_M %.2f, shuffle %.2f, t_R %.2f): off by more than 5%%",
			got, want, tM, shuffle, tR)
	} else {
		t.Logf("makespan %.2f s vs closed form %.2f s (%.2f%%)", got, want, 100*(got-want)/want)
	}
	if r.Locality.Node != 1 {
		t.Errorf("with a replica on every node all maps should be node-local, got %+v", r.Locality)
	}
}

func TestScenarioErrorsNameLineAndKey(t *testing.T) {
	base := func(nodes string) string {
		return "seed: 1\ncluster:\n  racks: 1\n  nodes:\n" + nodes + "workload:\n  jobs: [{input_gb: 1}]\n"
	}
	for _, tc := range []struct {
		name, yml, want string
	}{
		{"zero vcores", base("    - {count: 1, vcores: 8, memory_mb: 1024}\n    - {count: 1, vcores: 0, memory_mb: 1024}\n"),
			"test.yaml:6: cluster.nodes[1].vcores: must be > 0"},
		{"unknown key", base("    - {count: 1, vcores: 8, memory_mb: 1024, vcorez: 3}\n"),
			"test.yaml:5: cluster.nodes[0].vcorez: unknown key"},
		{"not a number", "cluster:\n  nodes: [{vcores: 2, memory_mb: 2048}]\nyarn:\n  heartbeat_s: soon\nworkload: {jobs: [{input_gb: 1}]}\n",
			"test.yaml:4: yarn.heartbeat_s: must be a number"},
		{"slowstart range", "cluster:\n  nodes: [{vcores: 2, memory_mb: 2048}]\nyarn: {slowstart: 1.5}\nworkload: {jobs: [{input_gb: 1}]}\n",
			"test.yaml:3: yarn.slowstart: must be in [0, 1]"},
		{"missing memory", "cluster:\n  nodes:\n    - {vcores: 2}\nworkload: {jobs: [{input_gb: 1}]}\n",
			"test.yaml:3: cluster.nodes[0].memory_mb: required"},
		{"bad trace format", "cluster:\n  nodes: [{vcores: 2, memory_mb: 2048}]\nworkload:\n  trace: {format: csv, path: x}\n",
			"test.yaml:4: workload.trace.format: must be swim, rumen or sls"},
		{"degrade node out of range", "cluster:\n  nodes: [{vcores: 2, memory_mb: 2048}]\nstragglers: {node_degrade: [{node: 5, from_s: 1, to_s: 2, factor: 0.5}]}\nworkload: {jobs: [{input_gb: 1}]}\n",
			"stragglers.node_degrade[0].node: must be a node index in [0, 1)"},
		{"slowdown order", "cluster:\n  nodes: [{vcores: 2, memory_mb: 2048}]\nstragglers: {slowdown: [6, 2]}\nworkload: {jobs: [{input_gb: 1}]}\n",
			"test.yaml:3: stragglers.slowdown[1]: must be >= slowdown[0]"},
		{"features range", "cluster:\n  nodes: [{vcores: 2, memory_mb: 2048}]\nworkload:\n  jobs:\n    - {input_gb: 1, features: {cpu: 11}}\n",
			"test.yaml:5: workload.jobs[0].features.cpu: must be in 1..10"},
		{"features unknown key", "cluster:\n  nodes: [{vcores: 2, memory_mb: 2048}]\nworkload:\n  jobs:\n    - {input_gb: 1, features: {gpu: 3}}\n",
			"test.yaml:5: workload.jobs[0].features.gpu: unknown key"},
		{"load average negative", "cluster:\n  nodes: [{vcores: 2, memory_mb: 2048, load: {avg_s: -1}}]\nworkload: {jobs: [{input_gb: 1}]}\n",
			"test.yaml:2: cluster.nodes[0].load.avg_s: must be >= 0"},
		{"background load negative", "cluster:\n  nodes: [{vcores: 2, memory_mb: 2048, load: {mean: -0.5}}]\nworkload: {jobs: [{input_gb: 1}]}\n",
			"test.yaml:2: cluster.nodes[0].load.mean: must be >= 0"},
		{"task load not positive", "cluster:\n  nodes: [{vcores: 2, memory_mb: 2048}]\nworkload:\n  jobs:\n    - {input_gb: 1}\n    - {input_gb: 1, task_load: 0}\n",
			"test.yaml:6: workload.jobs[1].task_load: must be > 0"},
		{"no jobs", "cluster:\n  nodes: [{vcores: 2, memory_mb: 2048}]\n", "workload: required"},
		{"yaml syntax", "cluster: [\n", "test.yaml:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScenario("test.yaml", []byte(tc.yml))
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.yml)
			}
			var se *ScenarioError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *ScenarioError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestExampleScenarioDefaults(t *testing.T) {
	sc := mustLoad(t, "testdata/example.yaml")
	if len(sc.Jobs) != 1 || sc.Jobs[0].Skew != 0.2 || sc.YARN.Slowstart != 0.05 || sc.YARN.ParallelCopies != DefaultParallelCopies {
		t.Fatalf("unexpected scenario: %+v", sc)
	}
	if got := len(sc.Stragglers.NodeDegrade); got != 1 || sc.Stragglers.NodeDegrade[0].Factor != 0.3 {
		t.Fatalf("node_degrade: %+v", sc.Stragglers.NodeDegrade)
	}
	r, err := Run(context.Background(), sc, "none", Options{Registry: testRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Jobs[0].Maps != 40 || r.Jobs[0].Reduces != 36 {
		t.Fatalf("maps = ceil(5 GB / 128 MB) = 40 and 36 reduces, got %+v", r.Jobs[0])
	}
	if r.CrossRackShuffleBytes <= 0 || r.EnergyKWh <= 0 || r.Utilization <= 0 || r.Utilization > 1 {
		t.Fatalf("implausible metrics: %+v", r)
	}
}

// The emitted log is events v1 that decodes, and replaying it into a fresh
// engine rebuilds the same cluster state the run's engine ended with.
func TestEmitEventsReplays(t *testing.T) {
	var buf bytes.Buffer
	sc := mustParse(t, heteroYAML)
	reg := testRegistry(fakeSpec{after: 15_000})
	s := runSim(t, sc, "fakespec", Options{Registry: reg, Events: &buf})
	eng := engine.New(policy.NewStack(), engine.Options{})
	n := 0
	for _, ev := range readEvents(t, &buf) {
		eng.Apply(context.Background(), &ev)
		n++
	}
	if uint64(n) != s.m.engineEvents {
		t.Fatalf("log has %d events, run emitted %d", n, s.m.engineEvents)
	}
	a, b := eng.State(), s.eng.State()
	if len(a.Apps()) != len(b.Apps()) || len(a.Nodes()) != len(b.Nodes()) {
		t.Fatal("replayed state differs in apps or nodes")
	}
	for i, app := range a.Apps() {
		if app.State != b.Apps()[i].State || app.Count[events.Map].Succeeded != len(s.jobs[i].maps) {
			t.Fatalf("app %s: replayed state %s, %d maps succeeded", app.ID, app.State, app.Count[events.Map].Succeeded)
		}
	}
}

// Hints of every kind reach the simulated cluster.
type hinter struct {
	name string
	f    func(v cluster.View) []policy.Hint
}

func (h hinter) Name() string { return h.name }
func (h hinter) Shape(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	return h.f(v), nil
}

func TestHintsApplied(t *testing.T) {
	const yml = `
cluster:
  racks: 2
  nodes: [{count: 4, vcores: 4, memory_mb: 8192}]
workload:
  jobs:
    - {name: a, input_gb: 2, reduces: 4, map_s_per_block: 30}
    - {name: b, submit_s: 1, input_gb: 2, reduces: 4, map_s_per_block: 30}
`
	t.Run("node-capacity", func(t *testing.T) {
		reg := testRegistry(hinter{"cap", func(v cluster.View) []policy.Hint {
			return []policy.Hint{{Kind: policy.KindNodeCapacity, Node: "node-0001", VCores: 1, MemoryMB: 8192, Reason: "t"}}
		}})
		s := runSim(t, mustParse(t, yml), "cap", Options{Registry: reg})
		if n := s.nodes[0]; n.capV != 1 || n.maxUsedV > 4 {
			t.Fatalf("node-0001 capacity %d", n.capV)
		}
	})
	t.Run("ratio", func(t *testing.T) {
		reg := testRegistry(hinter{"ratio", func(v cluster.View) []policy.Hint {
			return []policy.Hint{{Kind: policy.KindRatio, Queue: "default", MaxMaps: 2, MaxReduces: 1, Reason: "t"}}
		}})
		s := runSim(t, mustParse(t, yml), "ratio", Options{Registry: reg})
		base := runSim(t, mustParse(t, yml), "none", Options{Registry: reg})
		peak := 0
		s.m.timeline.each(func(smp sample) {
			if smp.t > 0 {
				peak = max(peak, smp.maps)
			}
		})
		if peak > 2+16 || s.results().MakespanS <= base.results().MakespanS {
			t.Fatalf("ratio cap had no effect: peak %d maps, makespan %.0f vs %.0f", peak, s.results().MakespanS, base.results().MakespanS)
		}
	})
	t.Run("priority", func(t *testing.T) {
		reg := testRegistry(hinter{"prio", func(v cluster.View) []policy.Hint {
			var out []policy.Hint
			for _, a := range v.Apps() {
				if a.Name == "b" {
					out = append(out, policy.Hint{Kind: policy.KindPriority, App: a.ID, Priority: 10, Reason: "t"})
				}
			}
			return out
		}})
		s := runSim(t, mustParse(t, yml), "prio", Options{Registry: reg})
		if s.jobs[1].priority != 10 {
			t.Fatalf("priority not applied")
		}
	})
	t.Run("reduce-binding", func(t *testing.T) {
		reg := testRegistry(hinter{"bind", func(v cluster.View) []policy.Hint {
			var out []policy.Hint
			for _, a := range v.Apps() {
				out = append(out, policy.Hint{Kind: policy.KindReduceBinding, App: a.ID, Partition: 0, Node: "node-0003", Reducers: 4, Reason: "t"})
			}
			return out
		}})
		s := runSim(t, mustParse(t, yml), "bind", Options{Registry: reg})
		for _, j := range s.jobs {
			r0 := j.reduces[0]
			for _, a := range r0.attempts {
				if a.node.id != "node-0003" {
					t.Fatalf("%s partition 0 ran on %s, bound to node-0003", j.id, a.node.id)
				}
			}
		}
	})
}

func TestRumenSample(t *testing.T) {
	const path = "../testdata/traces/rumen-2jobs2min.json"
	sc, err := ScenarioFromTrace("rumen", path, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := sc.Cluster.Nodes[0].Count; n != 4 {
		t.Fatalf("the sample records 4 hosts, scenario has %d nodes", n)
	}
	res, err := Simulate(context.Background(), sc, []string{"none"}, Options{Registry: testRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	jobs := res.Runs[0].Jobs
	if len(jobs) != 2 {
		t.Fatalf("want both TeraGen jobs, got %d", len(jobs))
	}
	for _, j := range jobs {
		if j.Maps != 96 || j.FinishS <= j.SubmitS || j.RecordedS <= 0 {
			t.Errorf("job %+v: want 96 maps, a finish after submit and the recorded run time", j)
		}
		t.Logf("%s: simulated %.1f s, recorded %.1f s", j.Name, j.FinishS-j.SubmitS, j.RecordedS)
	}
	if err := report.Write(t.TempDir(), res); err != nil {
		t.Fatal(err)
	}
}

func TestScenarioTraceRelativePath(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../testdata/traces/SWIM_FB-2009_samples_24_times_1hr_0_first50jobs.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "w.tsv"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	yml := "cluster:\n  racks: 2\n  nodes: [{count: 20, vcores: 8, memory_mb: 16384}]\nworkload:\n  trace: {format: swim, path: w.tsv, limit_jobs: 20}\n"
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := mustLoad(t, filepath.Join(dir, "s.yaml"))
	if len(sc.Jobs) != 20 {
		t.Fatalf("limit_jobs: got %d jobs", len(sc.Jobs))
	}
	if _, err := Run(context.Background(), sc, "none", Options{Registry: testRegistry()}); err != nil {
		t.Fatal(err)
	}
}

// TestTraceWindowAndOrigin: --window keeps the jobs submitted in [from, to)
// shifted to 0; --trace-nodes scales bytes by nodes / trace nodes, so a
// trace from a 3000-node cluster simulated on 600 nodes gets a fifth of the
// input (at SWIM's 64 MB floor at least).
func TestTraceWindowAndOrigin(t *testing.T) {
	const day = "../testdata/traces/SWIM_FB-2009_samples_24_times_1hr_0.tsv"
	full, err := ScenarioFromTrace("swim", day, 600, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, j := range full.Jobs {
		if j.SubmitS >= 3600 && j.SubmitS < 7200 {
			want++
		}
	}
	hour, err := ScenarioFromTraceOptions("swim", day, TraceOptions{Nodes: 600, FromS: 3600, ToS: 7200}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(hour.Jobs) != want || want == 0 {
		t.Fatalf("window 3600:7200: %d jobs, want %d", len(hour.Jobs), want)
	}
	for _, j := range hour.Jobs {
		if j.SubmitS < 0 || j.SubmitS >= 3600 {
			t.Fatalf("job %s submitted at %v s, want within [0, 3600)", j.Name, j.SubmitS)
		}
	}
	big, err := ScenarioFromTraceOptions("swim", day, TraceOptions{Nodes: 600, TraceNodes: 3000, FromS: 3600, ToS: 7200}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var in600, in3000 int64
	for i := range hour.Jobs {
		in600 += hour.Jobs[i].InputBytes
		in3000 += big.Jobs[i].InputBytes
	}
	if !(in3000 < in600/3) {
		t.Errorf("input with trace nodes 3000: %d bytes, with 600: %d; want about a fifth", in3000, in600)
	}
	if _, err := ScenarioFromTraceOptions("swim", day, TraceOptions{FromS: 1e9}, 1); err == nil {
		t.Error("an empty window must be an error")
	}
}
