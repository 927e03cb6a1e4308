package sim

import (
	"context"
	"encoding/json"
	"testing"
)

func mustLoad(t *testing.T, path string) *Scenario {
	t.Helper()
	sc, err := LoadScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestExampleRuns(t *testing.T) {
	sc := mustLoad(t, "testdata/example.yaml")
	r, err := Run(context.Background(), sc, "none", Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(r, "", " ")
	t.Logf("%s", b)
}
