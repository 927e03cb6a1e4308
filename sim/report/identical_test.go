package report

import (
	"bytes"
	"strings"
	"testing"
)

// twins is the fixture with "late" and "late+samr" added as exact copies
// of yarn's outcome (different names, events, hints and extras).
func twins() Results {
	res := fixture()
	a, b := res.Runs[1], res.Runs[1]
	a.Policy, a.Events, a.Extra = "late", 1, map[string]float64{"x": 1}
	b.Policy, b.Hints = "late+samr", nil
	res.Runs = append(res.Runs, a, b)
	return res
}

func TestIdenticalRunsDrawnOnce(t *testing.T) {
	const label = "yarn = late = late+samr (identical)"
	ss := seriesOf(twins())
	if len(ss) != 3 || ss[1].label != label || len(ss[1].runs) != 3 || ss[2].label != "dhsa-pi+sepb+samr" {
		t.Fatalf("series %+v", ss)
	}
	tests := []struct {
		name   string
		draw   func(w *bytes.Buffer, res Results) error
		marker string
		want   int // drawn marks for 3 distinct outcomes
	}{
		{"makespan", func(w *bytes.Buffer, r Results) error { return WriteMakespanSVG(w, r) }, "<rect x=", 3},
		{"cdf", func(w *bytes.Buffer, r Results) error { return WriteJCTCDFSVG(w, r) }, "<polyline", 3},
		{"timeline", func(w *bytes.Buffer, r Results) error { return WriteTimelineSVG(w, r) }, "<polyline", 4}, // dhsa has no timeline
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := tt.draw(&b, twins()); err != nil {
			t.Fatal(err)
		}
		p, err := parseSVG(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, x := range p.texts {
			texts = append(texts, x.s)
		}
		joined := strings.Join(texts, " ")
		if !strings.Contains(joined, "yarn = late = late+samr") || !strings.Contains(joined, "(identical)") {
			t.Errorf("%s: no %q label in %q", tt.name, label, texts)
		}
		marks := strings.Count(b.String(), tt.marker)
		if tt.name == "makespan" {
			marks = strings.Count(b.String(), "<title>") - 1 // bars carry a tooltip
		}
		if marks != tt.want {
			t.Errorf("%s: %d marks, want %d", tt.name, marks, tt.want)
		}
		checkTextLayout(t, tt.name, b.Bytes())
	}
}

func TestIdenticalRunsNeedEverything(t *testing.T) {
	base := fixture().Runs[1]
	changes := map[string]func(*Run){
		"makespan":   func(r *Run) { r.MakespanS++ },
		"one job":    func(r *Run) { r.Jobs = append([]Job(nil), r.Jobs...); r.Jobs[3].FinishS += 0.001 },
		"locality":   func(r *Run) { r.Locality.Rack += 0.01 },
		"spec":       func(r *Run) { r.Spec.Won-- },
		"timeline":   func(r *Run) { r.Timeline = r.Timeline[1:] },
		"energy":     func(r *Run) { r.EnergyKWh *= 1.0001 },
		"cross-rack": func(r *Run) { r.CrossRackShuffleBytes++ },
	}
	for name, change := range changes {
		other := base
		other.Policy = "other"
		change(&other)
		if identicalRuns(base, other) {
			t.Errorf("a different %s counts as identical", name)
		}
	}
	same := base
	same.Policy, same.Events, same.Hints, same.Extra = "other", 5, map[string]int{"kill": 1}, map[string]float64{"k": 2}
	if !identicalRuns(base, same) {
		t.Error("same outcome with different name, events, hints and extras not identical")
	}
}
