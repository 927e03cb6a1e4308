package report

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// bigResults is the size of a SWIM-day comparison: six policy stacks, 5,894
// jobs each and a timeline sample every simulated second of a day.
func bigResults() Results {
	res := Results{V: 1, Scenario: "swim-day", Seed: 1}
	for p := range 6 {
		r := Run{Policy: fmt.Sprintf("policy-%d", p), MakespanS: 86400 + float64(p)*100}
		for i := range 5894 {
			submit := float64(i) * 14.6
			r.Jobs = append(r.Jobs, Job{Name: fmt.Sprintf("job%d", i), SubmitS: submit, FinishS: submit + float64(1+(i*7919)%3000)})
		}
		for s := range 86400 {
			r.Timeline = append(r.Timeline, Sample{TS: float64(s), Maps: (s * 31) % 4800, Reduces: (s * 17) % 2400})
		}
		res.Runs = append(res.Runs, r)
	}
	return res
}

// BenchmarkWriteSWIMDay writes the whole report for bigResults and prints
// the size of the page and of results.json.
func BenchmarkWriteSWIMDay(b *testing.B) {
	res := bigResults()
	dir := b.TempDir()
	for b.Loop() {
		if err := Write(dir, res); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []string{"results.json", "report/index.html", "report/timeline.svg"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err == nil {
			b.ReportMetric(float64(fi.Size())/1e6, filepath.Base(f)+"_MB")
		}
	}
}
