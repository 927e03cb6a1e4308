package sim

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/policy/plugins"
	"github.com/rmsidecar/rmsidecar/sim/trace"
)

const slsSample = "trace/testdata/sls-4jobs.json"

// TestSLSSample runs the SLS sample under yarn and late: each stack gives
// byte-identical results and task rows twice over, the cluster is the
// trace's recorded hosts, and every map runs its recorded container
// duration (plus the launch overhead), as a Rumen task does.
func TestSLSSample(t *testing.T) {
	reg := plugins.NewRegistry()
	for _, stack := range []string{"yarn", "late"} {
		t.Run(stack, func(t *testing.T) {
			run := func() (*Scenario, []byte, []byte) {
				sc, err := ScenarioFromTrace("sls", slsSample, 0, 1)
				if err != nil {
					t.Fatal(err)
				}
				var tasks bytes.Buffer
				res, err := Simulate(context.Background(), sc, []string{stack}, Options{Registry: reg, Tasks: &tasks})
				if err != nil {
					t.Fatal(err)
				}
				b, err := json.Marshal(res)
				if err != nil {
					t.Fatal(err)
				}
				return sc, b, tasks.Bytes()
			}
			sc, res1, tasks1 := run()
			_, res2, tasks2 := run()
			if !bytes.Equal(res1, res2) || !bytes.Equal(tasks1, tasks2) {
				t.Fatal("two runs of the same seed differ")
			}
			if n := sc.Cluster.NodeCount(); n != 4 {
				t.Errorf("%d nodes, want the sample's 4 recorded hosts", n)
			}
			if len(sc.Jobs) != 4 {
				t.Fatalf("%d jobs, want 4 (one of them with job.count 2)", len(sc.Jobs))
			}
			checkRecordedDurations(t, sc, tasks1)
		})
	}
}

// checkRecordedDurations: every first-attempt map that won took its
// recorded duration after the launch overhead (the simulated nodes run at
// speed 1, node-local reads cost nothing), and every reduce at least its.
func checkRecordedDurations(t *testing.T, sc *Scenario, csvRows []byte) {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(csvRows)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	overheadMS := int64(sc.YARN.TaskOverheadS * 1000)
	var maps, reduces int
	for _, r := range rows[1:] {
		app, task, kind, spec, loc, state := r[0], r[1], r[3], r[5], r[6], r[9]
		if state != "SUCCEEDED" || spec != "false" {
			continue
		}
		ji, _ := strconv.Atoi(app[strings.LastIndexByte(app, '_')+1:])
		ti, _ := strconv.Atoi(task[strings.LastIndexByte(task, '_')+1:])
		rec := recordedTask(sc.Jobs[ji-1], kind, ti)
		start, _ := strconv.ParseFloat(r[7], 64)
		end, _ := strconv.ParseFloat(r[8], 64)
		took := int64(math.Round((end - start) * 1000))
		switch {
		case kind == "map" && loc == "node":
			maps++
			if took != overheadMS+rec.DurationMS {
				t.Errorf("%s took %d ms, want %d recorded + %d overhead", task, took, rec.DurationMS, overheadMS)
			}
		case kind == "reduce":
			reduces++
			if took < overheadMS+rec.DurationMS {
				t.Errorf("%s took %d ms, less than %d recorded + %d overhead", task, took, rec.DurationMS, overheadMS)
			}
		}
	}
	if maps == 0 || reduces != 2 {
		t.Errorf("checked %d node-local maps and %d reduces, want some and the sample's 2", maps, reduces)
	}
}

// recordedTask is job j's i-th recorded task of the kind.
func recordedTask(j trace.Job, kind string, i int) trace.Task {
	for _, k := range j.Tasks {
		if k.Kind == kind {
			if i == 0 {
				return k
			}
			i--
		}
	}
	return trace.Task{}
}

// TestSLSTraceInputs: a num.nodes object adds SLS's generated nodes to the
// recorded hosts, a scenario's workload.trace takes format sls, and an SLS
// error names the file, line and key.
func TestSLSTraceInputs(t *testing.T) {
	dir := t.TempDir()
	sample, err := os.ReadFile(slsSample)
	if err != nil {
		t.Fatal(err)
	}
	withNodes := filepath.Join(dir, "nodes.json")
	if err := os.WriteFile(withNodes, append([]byte(`{"num.nodes": 6, "num.racks": 2}`+"\n"), sample...), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := ScenarioFromTrace("sls", withNodes, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := sc.Cluster.NodeCount(); n != 10 {
		t.Errorf("%d nodes, want 6 generated + 4 recorded", n)
	}
	if sc, err := ScenarioFromTrace("sls", withNodes, 7, 1); err != nil || sc.Cluster.NodeCount() != 7 {
		t.Errorf("--nodes 7: %v", err)
	}

	abs, err := filepath.Abs(slsSample)
	if err != nil {
		t.Fatal(err)
	}
	yml := "cluster:\n  racks: 1\n  nodes: [{count: 4, vcores: 8, memory_mb: 16384}]\nworkload:\n  trace: {format: sls, path: " + abs + ", limit_jobs: 3}\n"
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	sc = mustLoad(t, filepath.Join(dir, "s.yaml"))
	if len(sc.Jobs) != 3 || sc.Jobs[2].Name != "job_etl_1" {
		t.Fatalf("limit_jobs 3: %d jobs", len(sc.Jobs))
	}
	if _, err := Run(context.Background(), sc, "none", Options{Registry: testRegistry()}); err != nil {
		t.Fatal(err)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\"job.id\": \"j\",\n \"job.tasks\": [{\"container.type\": \"shuffle\", \"duration.ms\": 5}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ScenarioFromTrace("sls", bad, 0, 1)
	if want := `2:35: job.tasks[0].container.type: "shuffle": want map or reduce`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to contain %s", err, want)
	}
}
