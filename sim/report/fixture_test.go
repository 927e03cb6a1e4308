package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixture is a fixed three-run result: "none" first so the baseline is
// found by name ("yarn"), not by position; a scenario name that needs
// escaping; per-job detail and timelines of different lengths.
func fixture() Results {
	jobs := func(scale float64) []Job {
		var js []Job
		for i, d := range []float64{12, 30, 45, 70, 95, 130, 200, 410, 800, 1500} {
			js = append(js, Job{Name: "job" + string(rune('0'+i)), SubmitS: float64(i * 20), FinishS: float64(i*20) + d*scale, Type: "swim", Maps: 1 + i, Reduces: 1})
		}
		js = append(js, Job{Name: "unfinished", SubmitS: 300}) // FinishS 0: never finished
		return js
	}
	timeline := func(n int, peak int) []Sample {
		var tl []Sample
		for i := 0; i <= n; i++ {
			m := peak - (i*peak)/n
			tl = append(tl, Sample{TS: float64(i) * 1620 / float64(n), Maps: m, Reduces: (peak - m) / 3})
		}
		return tl
	}
	return Results{
		V:        1,
		Scenario: "hetero & stragglers",
		Seed:     7,
		Runs: []Run{
			{
				Policy: "none", MakespanS: 1700.5, MeanJCTS: 361.2, P50JCTS: 240, P95JCTS: 1500,
				Locality: Locality{Node: 0.62, Rack: 0.3, Off: 0.08}, CrossRackShuffleBytes: 12_500_000_000,
				Utilization: 0.553, Jain: 0.81234, EnergyKWh: 3.25, Jobs: jobs(1), Timeline: timeline(8, 40), Events: 120000,
			},
			{
				Policy: "yarn", MakespanS: 1620, MeanJCTS: 320.75, P50JCTS: 210.5, P95JCTS: 1320,
				Locality: Locality{Node: 0.71, Rack: 0.25, Off: 0.04}, Spec: Spec{Launched: 14, Won: 6, WastedS: 412.5},
				CrossRackShuffleBytes: 11_000_000_000, Utilization: 0.581, Jain: 0.84, EnergyKWh: 3.1,
				Jobs: jobs(0.9), Timeline: timeline(12, 36), Events: 118000, Hints: map[string]int{"speculate": 14, "kill": 8}, Killed: 8,
			},
			{
				Policy: "dhsa-pi+sepb+samr", MakespanS: 1404.25, MeanJCTS: 280, P50JCTS: 190, P95JCTS: 1111.1,
				Locality: Locality{Node: 0.8, Rack: 0.18, Off: 0.02}, Spec: Spec{Launched: 9, Won: 7, WastedS: 95},
				CrossRackShuffleBytes: 9_000_000_000, Utilization: 0.66, Jain: 0.9, EnergyKWh: 2.8,
				Jobs: jobs(0.75), Events: 101000, Extra: map[string]float64{"ratio_hints": 31},
			},
		},
	}
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./sim/report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./sim/report -update to accept)\n--- got ---\n%s", name, clip(got))
	}
}

func clip(b []byte) string {
	if len(b) > 3000 {
		return string(b[:3000]) + "\n..."
	}
	return string(b)
}
