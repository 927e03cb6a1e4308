package sim

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// datasetYAML: jobs a, b and c read path p (3, 5 and 5 blocks), d reads its
// own data, e is the only reader of q.
const datasetYAML = `
seed: 3
cluster:
  racks: 3
  nodes:
    - {count: 12, vcores: 4, memory_mb: 8192}
  hdfs: {replication: 3}
yarn: {heartbeat_s: 1}
workload:
  jobs:
    - {name: a, submit_s: 0, maps: 3, reduces: 1, input_path: p}
    - {name: b, submit_s: 5, maps: 5, reduces: 1, input_path: p}
    - {name: d, submit_s: 10, maps: 4, reduces: 1}
    - {name: c, submit_s: 20, maps: 5, reduces: 1, input_path: p}
    - {name: e, submit_s: 30, maps: 2, reduces: 1, input_path: q/t1}
`

// Jobs of one path find their blocks on the same nodes; a longer reader's
// extra blocks are placed once, by the first job that needs them; the
// dataset is dropped when its last reader is built.
func TestDatasetSharedBlocks(t *testing.T) {
	s, err := newSim(context.Background(), mustParse(t, datasetYAML), "none", Options{Registry: testRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	p := s.datasets["p"]
	if p == nil || p.readers != 3 || s.datasets["q/t1"] == nil || len(s.datasets) != 2 {
		t.Fatalf("datasets %v, want p with 3 readers and q/t1", s.datasets)
	}
	jobs := make([]*job, len(s.sc.Jobs))
	build := func(i int) *job {
		jobs[i] = s.buildJob(i, &s.sc.Jobs[i])
		return jobs[i]
	}
	a := build(0)
	if len(a.replicas) != 3*3 || !slices.Equal(a.replicas, p.replicas) {
		t.Fatalf("a's replicas %v, dataset %v", a.replicas, p.replicas)
	}
	b := build(1)
	if len(p.replicas) != 5*3 || !slices.Equal(b.replicas, p.replicas) || !slices.Equal(b.replicas[:9], a.replicas) {
		t.Fatalf("b's replicas %v do not start with a's %v (dataset %v)", b.replicas, a.replicas, p.replicas)
	}
	if s.datasets["p"] != p {
		t.Fatal("p dropped before its last reader was built")
	}
	d := build(2)
	if len(d.replicas) != 4*3 || len(p.replicas) != 5*3 {
		t.Fatalf("d (no path) has %d replica entries and grew p to %d", len(d.replicas), len(p.replicas))
	}
	c := build(3)
	if !slices.Equal(c.replicas, b.replicas) || len(p.replicas) != 5*3 {
		t.Fatalf("c's replicas %v, want b's %v placed once (dataset now %d entries)", c.replicas, b.replicas, len(p.replicas))
	}
	if _, ok := s.datasets["p"]; ok {
		t.Fatal("p kept after its last reader was built")
	}
	build(4)
	if len(s.datasets) != 0 {
		t.Fatalf("datasets %v left after every job was built", s.datasets)
	}
	// A reader's view is capped: the dataset growing does not write into it.
	if cap(a.replicas) != len(a.replicas) {
		t.Fatalf("a's view has room to grow: len %d cap %d", len(a.replicas), cap(a.replicas))
	}
}

// Random readers of random paths, built in random order: every pair of jobs
// of one path agrees on the blocks both read, a dataset is as long as its
// longest reader built so far, and the datasets kept are exactly the paths
// with a reader not built yet.
func TestDatasetRandomReaders(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var b strings.Builder
		b.WriteString("seed: 1\ncluster:\n  racks: 4\n  nodes: [{count: 20, vcores: 2, memory_mb: 4096}]\nworkload:\n  jobs:\n")
		n := 5 + rng.IntN(40)
		for i := range n {
			path := ""
			if k := rng.IntN(6); k > 0 {
				path = fmt.Sprintf(", input_path: d%d", k)
			}
			fmt.Fprintf(&b, "    - {name: j%d, maps: %d%s}\n", i, 1+rng.IntN(12), path)
		}
		s, err := newSim(context.Background(), mustParse(t, b.String()), "none", Options{Registry: testRegistry()})
		if err != nil {
			t.Fatal(err)
		}
		built := make([]*job, n)
		longest := map[string]int{}
		for _, i := range rng.Perm(n) {
			spec := &s.sc.Jobs[i]
			j := s.buildJob(i, spec)
			built[i] = j
			if len(j.replicas) != len(j.maps)*int(j.repl) {
				t.Fatalf("seed %d job %d: %d replica entries for %d maps", seed, i, len(j.replicas), len(j.maps))
			}
			if p := spec.InputPath; p != "" {
				longest[p] = max(longest[p], len(j.replicas))
				if d := s.datasets[p]; d != nil && len(d.replicas) != longest[p] {
					t.Fatalf("seed %d path %s: dataset of %d entries, longest reader %d", seed, p, len(d.replicas), longest[p])
				}
			}
			for k, o := range built {
				if o == nil || k == i || o.spec.InputPath == "" || o.spec.InputPath != spec.InputPath {
					continue
				}
				m := min(len(o.replicas), len(j.replicas))
				if !slices.Equal(o.replicas[:m], j.replicas[:m]) {
					t.Fatalf("seed %d: jobs %d and %d of %s disagree on their shared blocks", seed, i, k, spec.InputPath)
				}
			}
			left := map[string]int{}
			for k := range n {
				if p := s.sc.Jobs[k].InputPath; p != "" && built[k] == nil {
					left[p]++
				}
			}
			if len(left) != len(s.datasets) {
				t.Fatalf("seed %d: %d datasets kept, %d paths with readers left", seed, len(s.datasets), len(left))
			}
			for p, d := range s.datasets {
				if d.readers != left[p] {
					t.Fatalf("seed %d path %s: %d readers counted, %d left", seed, p, d.readers, left[p])
				}
			}
		}
	}
}

// In a run, the task.pending events of jobs of one path name the same
// files on the same hosts; a job without a path reads /sim/<name>.
func TestDatasetSplitsInEvents(t *testing.T) {
	var log bytes.Buffer
	runSim(t, mustParse(t, datasetYAML), "none", Options{Registry: testRegistry(), Events: &log})
	apps := map[string]string{} // app id -> job name
	hosts := map[string][]string{}
	seen := map[string]map[string]bool{} // split path -> jobs that read it
	for _, ev := range readEvents(t, &log) {
		switch ev.Type {
		case events.AppSubmitted:
			apps[ev.App] = ev.Name
			want := "/sim/" + map[string]string{"a": "p", "b": "p", "c": "p", "d": "d", "e": "q/t1"}[ev.Name]
			if !slices.Equal(ev.InputPaths, []string{want}) {
				t.Errorf("%s: input paths %v, want [%s]", ev.Name, ev.InputPaths, want)
			}
		case events.TaskPending:
			if ev.Kind != events.Map {
				continue
			}
			sp := ev.Splits[0]
			if h, ok := hosts[sp.Path]; ok && !slices.Equal(h, sp.Hosts) {
				t.Errorf("%s: %s on %v, earlier on %v", apps[ev.App], sp.Path, sp.Hosts, h)
			}
			hosts[sp.Path] = sp.Hosts
			if seen[sp.Path] == nil {
				seen[sp.Path] = map[string]bool{}
			}
			seen[sp.Path][apps[ev.App]] = true
		}
	}
	for path, want := range map[string]string{
		"/sim/p/part-00000": "a b c", "/sim/p/part-00004": "b c", "/sim/d/part-00003": "d", "/sim/q/t1/part-00001": "e",
	} {
		var got []string
		for j := range seen[path] {
			got = append(got, j)
		}
		slices.Sort(got)
		if strings.Join(got, " ") != want {
			t.Errorf("%s read by %v, want %s", path, got, want)
		}
	}
	if len(hosts) != 5+4+2 {
		t.Errorf("%d distinct split paths, want 11 (p's 5, d's 4, q's 2)", len(hosts))
	}
}

// During a run the datasets kept are those with a reader not submitted
// yet, and none is left at the end.
func TestDatasetDroppedAfterLastReader(t *testing.T) {
	sc := mustParse(t, datasetYAML)
	ticks := 0
	s := runSim(t, sc, "none", Options{Registry: testRegistry(), onTick: func(s *sim) {
		ticks++
		left := map[string]int{}
		for i, j := range s.sc.Jobs {
			if j.InputPath != "" && (s.jobByIdx == nil || s.jobByIdx[i] == nil) {
				left[j.InputPath]++
			}
		}
		if len(left) != len(s.datasets) {
			t.Fatalf("at %d ms: datasets %v kept, readers left %v", s.now, s.datasets, left)
		}
		for p, d := range s.datasets {
			if d.readers != left[p] {
				t.Fatalf("at %d ms: %s has %d readers counted, %d left", s.now, p, d.readers, left[p])
			}
		}
	}})
	if ticks == 0 {
		t.Fatal("no policy tick")
	}
	if len(s.datasets) != 0 {
		t.Fatalf("datasets %v left at the end", s.datasets)
	}
}

// A scenario with shared paths gives the same results for a seed, and
// the shared data shows: the labelled scenario differs from the same jobs
// without paths.
func TestDatasetDeterministic(t *testing.T) {
	a := resultsJSON(t, mustParse(t, datasetYAML), []string{"none"}, Options{Registry: testRegistry()})
	b := resultsJSON(t, mustParse(t, datasetYAML), []string{"none"}, Options{Registry: testRegistry()})
	if !bytes.Equal(a, b) {
		t.Fatalf("same scenario and seed, different results:\n%s\n%s", a, b)
	}
	plain := strings.NewReplacer(", input_path: p", "", ", input_path: q/t1", "").Replace(datasetYAML)
	if c := resultsJSON(t, mustParse(t, plain), []string{"none"}, Options{Registry: testRegistry()}); bytes.Equal(a, c) {
		t.Fatal("results with and without input paths are identical: the paths changed nothing")
	}
}

func TestScenarioInputPath(t *testing.T) {
	base := "cluster:\n  nodes: [{vcores: 2, memory_mb: 2048}]\nworkload:\n  jobs:\n    - {input_gb: 1, input_path: %s}\n"
	sc := mustParse(t, fmt.Sprintf(base, "warehouse/t1"))
	if sc.Jobs[0].InputPath != "warehouse/t1" {
		t.Fatalf("input path %q", sc.Jobs[0].InputPath)
	}
	for v, want := range map[string]string{
		`""`:     "test.yaml:5: workload.jobs[0].input_path: input path is empty",
		"/abs":   "workload.jobs[0].input_path: input path \"/abs\" has an empty segment",
		"a/../b": "has a \"..\" segment",
		`"a b"`:  "not allowed",
		"[x]":    "workload.jobs[0].input_path: must be a scalar",
	} {
		_, err := ParseScenario("test.yaml", []byte(fmt.Sprintf(base, v)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("input_path %s: error %v, want %q", v, err, want)
		}
	}
}
