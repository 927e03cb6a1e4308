package report

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestArrivalDriven(t *testing.T) {
	jobs := func(submits ...float64) []Job {
		var js []Job
		for i, s := range submits {
			js = append(js, Job{Name: "j" + string(rune('a'+i)), SubmitS: s, FinishS: s + 100})
		}
		return js
	}
	tests := []struct {
		name string
		res  Results
		want bool
	}{
		{"batch at 0", Results{Runs: []Run{{Jobs: jobs(0, 0, 0)}}}, false},
		{"staggered a little", Results{Runs: []Run{{Jobs: jobs(0, 10, 20)}}}, false},
		{"half of the makespan is not more than half", Results{Runs: []Run{{Jobs: jobs(0, 100)}}}, false}, // span 100 of 200
		{"arrivals over the run", Results{Runs: []Run{{Jobs: jobs(0, 300, 600, 900)}}}, true},
		{"unfinished arrivals count", Results{Runs: []Run{{Jobs: append(jobs(0), Job{Name: "late", SubmitS: 90})}}}, true},
		{"no jobs", Results{Runs: []Run{{}}}, false},
		{"no runs", Results{}, false},
		{"--trace", Results{Meta: &Meta{Args: []string{"sim", "--trace", "swim:x.tsv"}}, Runs: []Run{{Jobs: jobs(0)}}}, true},
		{"--trace=", Results{Meta: &Meta{Args: []string{"--trace=rumen:x.json"}}}, true},
		{"--scenario", Results{Meta: &Meta{Args: []string{"--scenario", "s.yaml"}}, Runs: []Run{{Jobs: jobs(0, 0)}}}, false},
	}
	for _, tt := range tests {
		got, why := ArrivalDriven(tt.res)
		if got != tt.want || got == (why == "") {
			t.Errorf("%s: ArrivalDriven = %v, %q; want %v", tt.name, got, why, tt.want)
		}
	}
}

func TestSlowdowns(t *testing.T) {
	run := func(policy string, jcts ...float64) Run {
		r := Run{Policy: policy, MakespanS: jcts[0]}
		for i, d := range jcts {
			name := "j"
			if i == 2 {
				name = "k"
			}
			j := Job{Name: name, SubmitS: float64(i), FinishS: float64(i) + d}
			if d < 0 { // unfinished
				j.FinishS = 0
			}
			r.Jobs = append(r.Jobs, j)
		}
		return r
	}
	// Jobs "j"#0, "j"#1 (a repeated name: matched by occurrence) and "k".
	res := Results{Runs: []Run{run("a", 10, 40, 30), run("b", 20, 20, -1), run("c", 5, 80, 60)}}
	got := Slowdowns(res)
	want := [][]float64{{2, 2, 1}, {4, 1}, {1, 4, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Slowdowns = %v, want %v", got, want)
	}
	if Slowdowns(Results{Runs: []Run{run("a", 10)}}) != nil {
		t.Error("one run: slowdowns should be nil")
	}
	twin := run("a", 10, 20)
	other := twin
	other.Policy = "b"
	if Slowdowns(Results{Runs: []Run{twin, other}}) != nil {
		t.Error("two identical runs: slowdowns should be nil")
	}
	for _, s := range Slowdowns(fixture()) {
		for _, v := range s {
			if v < 1 || math.IsNaN(v) {
				t.Fatalf("slowdown %v below 1", v)
			}
		}
	}
}

// arrivals is the fixture with its jobs submitted over most of the run.
func arrivals() Results {
	res := fixture()
	for i := range res.Runs {
		jobs := make([]Job, len(res.Runs[i].Jobs))
		for k, j := range res.Runs[i].Jobs {
			shift := float64(k) * 150
			j.SubmitS += shift
			if j.FinishS > 0 {
				j.FinishS += shift
			}
			jobs[k] = j
		}
		res.Runs[i].Jobs = jobs
	}
	return res
}

// pageOrder lists the page's figures and the summary table in document
// order.
func pageOrder(t *testing.T, res Results) []string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, res); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *node)
	walk = func(n *node) {
		if n.name == "figure" || (n.name == "table" && n.id == "summary") {
			out = append(out, n.id)
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(parseHTML(t, b.Bytes()))
	return out
}

func TestArrivalReportLeadsWithCDFs(t *testing.T) {
	if ok, _ := ArrivalDriven(arrivals()); !ok {
		t.Fatal("arrivals() is not arrival-driven")
	}
	got := strings.Join(pageOrder(t, arrivals()), " ")
	if !strings.HasPrefix(got, "jct-cdf slowdown-cdf summary ") || !strings.HasSuffix(got, " makespan") {
		t.Errorf("arrival-driven page order %q: want the JCT and slowdown CDFs first, makespan last", got)
	}
	got = strings.Join(pageOrder(t, fixture()), " ")
	if !strings.HasPrefix(got, "summary makespan jct-cdf slowdown-cdf") {
		t.Errorf("batch page order %q: want makespan first", got)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, arrivals()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `id="arrival"`) {
		t.Error("arrival-driven page does not say why it leads with the CDFs")
	}
}
