package sim

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParseScenario: any scenario YAML either parses into a scenario with
// nodes and jobs, the same on a second parse, or fails with a
// *ScenarioError naming the file; it never panics.
func FuzzParseScenario(f *testing.F) {
	for _, p := range []string{"../scenarios/erul-sort.yaml", "../scenarios/dynamicmr-sort.yaml", "../scenarios/exmcp-grep.yaml"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("cluster:\n  nodes:\n    - {count: 4, vcores: 8, memory_mb: 8192}\nworkload:\n  jobs:\n    - {name: j, input_gb: 1, maps: 8, reduces: 2}\n"))
	f.Add([]byte("cluster:\n  nodes: [{count: 2, vcores: 4, memory_mb: 4096}]\nworkload:\n  trace: {format: swim, path: t.tsv, limit_jobs: 1}\n"))
	f.Add([]byte("cluster:\n  nodes: [{count: 2, vcores: 4, memory_mb: 4096}]\nstragglers: {node_degrade: [{node: 5}]}\nworkload: {jobs: [{maps: 1}]}\n"))
	f.Add([]byte("seed: -1\ncluster: [x]\nworkload: {jobs: [{features: {cpu: 11}}]}\n"))
	f.Add([]byte("a: &x [*x, *x]\n"))
	f.Add([]byte(""))
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.tsv"), []byte("job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t736346\t1700537\t432269\n"), 0o600); err != nil {
		f.Fatal(err)
	}
	name := filepath.Join(dir, "s.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, special := range []string{"/dev/", "/proc/", "/sys/"} {
			if bytes.Contains(data, []byte(special)) {
				return // a trace path there could block or never end
			}
		}
		sc, err := ParseScenario(name, data)
		if err != nil {
			se, ok := errors.AsType[*ScenarioError](err)
			if !ok || (se.File != name && se.File != "s.yaml") || se.Msg == "" {
				t.Fatalf("error %#v is not a *ScenarioError naming the file", err)
			}
			return
		}
		if len(sc.Cluster.Nodes) == 0 || len(sc.Jobs) == 0 {
			t.Fatalf("scenario without nodes or jobs: %+v", sc)
		}
		again, err := ParseScenario(name, data)
		if err != nil || !reflect.DeepEqual(sc, again) {
			t.Fatalf("second parse differs: %v", err)
		}
	})
}
