package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestMeanCI95(t *testing.T) {
	tests := []struct {
		xs         []float64
		mean, half float64
	}{
		{[]float64{1, 2, 3, 4, 5}, 3, 2.776 * math.Sqrt(2.5) / math.Sqrt(5)}, // t(4) = 2.776
		{[]float64{10, 10, 10}, 10, 0},
		{[]float64{7}, 7, math.NaN()},
	}
	for _, tt := range tests {
		m, h := MeanCI95(tt.xs)
		if math.Abs(m-tt.mean) > 1e-9 || !(math.Abs(h-tt.half) < 1e-9 || math.IsNaN(h) && math.IsNaN(tt.half)) {
			t.Errorf("MeanCI95(%v) = %v ± %v, want %v ± %v", tt.xs, m, h, tt.mean, tt.half)
		}
	}
}

// TestSummarizeSeeds: changes against yarn are paired by seed, so a stack
// always 10 % faster shows -10 % ± 0 even when the seeds' makespans differ
// widely; a stack faster on one seed and slower on another is flagged.
func TestSummarizeSeeds(t *testing.T) {
	var perSeed []Results
	for i, base := range []float64{100, 200, 300} {
		noisy := base * []float64{0.9, 1.1, 1.0}[i]
		perSeed = append(perSeed, Results{Scenario: "s", Seed: uint64(i + 1), Runs: []Run{
			{Policy: "yarn", MakespanS: base, MeanJCTS: base},
			{Policy: "fast", MakespanS: 0.9 * base, MeanJCTS: 0.9 * base},
			{Policy: "noisy", MakespanS: noisy, MeanJCTS: noisy},
		}})
	}
	st := Summarize(perSeed)
	if st.Baseline != "yarn" || len(st.Stacks) != 3 || len(st.Seeds) != 3 {
		t.Fatalf("%+v", st)
	}
	fast, noisy := st.Stacks[1], st.Stacks[2]
	if math.Abs(fast.MakespanVsBase+0.1) > 1e-9 || fast.MakespanVsBaseCI > 1e-9 || fast.MakespanUnsure {
		t.Errorf("fast: %+v, want -10 %% ± 0, sure", fast)
	}
	if !noisy.MakespanUnsure || math.Abs(noisy.MakespanVsBase) > 1e-9 {
		t.Errorf("noisy: %+v, want 0 %% and the interval crossing 0", noisy)
	}
	if math.Abs(fast.MakespanS-180) > 1e-9 {
		t.Errorf("fast mean makespan %v, want 180", fast.MakespanS)
	}
	var b bytes.Buffer
	if err := WriteSeedTable(&b, "s", st); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"3 seeds (1..3)", "-10.0 ± 0.0%", "+0.0 ± ", "%*", "crosses 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestChangeCI(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want string
	}{
		{[]float64{-10, -12, -11}, "-11.0 ± 2.5 %"},
		{[]float64{-1, 2, 0.5}, "+0.5 ± 3.7 % *"},
		{[]float64{4}, "+4.0 % (one seed: no interval)"},
	} {
		if got := ChangeCI(c.in); got != c.want {
			t.Errorf("ChangeCI(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
