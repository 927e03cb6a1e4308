package learning

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rmsidecar/rmsidecar/profiles"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGoldenHints replays two short WordCount runs of the paper harness
// (both classifiers, seed 1) and compares every hint with
// testdata/<policy>-wordcount.hints.jsonl: a change of behaviour shows up
// as a diff (go test ./policy/learning -update to accept one). Running
// twice also checks that a seed gives the same hints.
func TestGoldenHints(t *testing.T) {
	for _, name := range []string{NameNB, NamePerceptron} {
		var outs [2][]byte
		for i := range outs {
			w := newPaperWorld(t, name, 1, profiles.NewMemory(), 1)
			w.record = true
			w.run(kindNamed("WordCount"), 56)
			w.run(kindNamed("WordCount"), 56)
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			for _, h := range w.hints {
				if err := enc.Encode(h); err != nil {
					t.Fatal(err)
				}
			}
			outs[i] = b.Bytes()
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Fatalf("%s: two runs with one seed gave different hints", name)
		}
		path := filepath.Join("testdata", name+"-wordcount.hints.jsonl")
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, outs[0], 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./policy/learning -update creates it)", err)
		}
		if !bytes.Equal(outs[0], want) {
			t.Errorf("%s: hints differ from %s (go test ./policy/learning -update to accept)", name, path)
		}
	}
}
