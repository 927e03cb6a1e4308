package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestGoldenExample pins the example scenario's results.json, so a change
// of the model shows up as a diff (go test ./sim -run Golden -update to
// accept it).
func TestGoldenExample(t *testing.T) {
	sc := mustLoad(t, "testdata/example.yaml")
	res, err := Simulate(context.Background(), sc, []string{"none", "fakespec"},
		Options{Registry: testRegistry(fakeSpec{after: 15_000})})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/example.results.golden.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("results differ from %s (run with -update if the model change is intended)", golden)
	}
}
