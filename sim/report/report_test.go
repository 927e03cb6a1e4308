package report

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestGoldenOutputs(t *testing.T) {
	tests := []struct {
		file   string
		render func(io.Writer, Results) error
	}{
		{"results.json", WriteJSON},
		{"table.txt", WriteTable},
		{"runs.csv", WriteRunsCSV},
		{"jobs.csv", WriteJobsCSV},
		{"makespan.svg", WriteMakespanSVG},
		{"jct_cdf.svg", WriteJCTCDFSVG},
		{"slowdown_cdf.svg", WriteSlowdownCDFSVG},
		{"timeline.svg", WriteTimelineSVG},
		{"speculation.svg", WriteSpeculationSVG},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := tt.render(&a, fixture()); err != nil {
				t.Fatal(err)
			}
			if err := tt.render(&b, fixture()); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatal("two renderings of the same results differ")
			}
			golden(t, tt.file, a.Bytes())
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, fixture()); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, fixture()) {
		t.Errorf("round trip changed the results:\n%+v", got)
	}
	// The contract's field order, as in shared/interfaces.md.
	var out bytes.Buffer
	if err := WriteJSON(&out, Results{Scenario: "s", Seed: 1, Runs: []Run{{Policy: "yarn"}}}); err != nil {
		t.Fatal(err)
	}
	order := []string{`"v": 1`, `"scenario"`, `"seed"`, `"runs"`, `"policy"`, `"makespan_s"`, `"mean_jct_s"`, `"p95_jct_s"`,
		`"locality"`, `"spec"`, `"cross_rack_shuffle_bytes"`, `"utilization"`, `"jain"`, `"energy_kwh"`, `"jobs"`}
	s, last := out.String(), -1
	for _, key := range order {
		i := strings.Index(s, key)
		if i < 0 || i < last {
			t.Fatalf("key %s missing or out of contract order in\n%s", key, s)
		}
		last = i
	}
}

func TestReadJSONRejects(t *testing.T) {
	for _, in := range []string{`{"v":2,"runs":[]}`, `{"runs":[]}`, `{"v":1,"runs":{}}`, `not json`} {
		if _, err := ReadJSON(strings.NewReader(in)); err == nil {
			t.Errorf("ReadJSON(%s) accepted", in)
		}
	}
	// Unknown fields from a newer writer are fine.
	if _, err := ReadJSON(strings.NewReader(`{"v":1,"runs":[{"policy":"x","new_metric":3}]}`)); err != nil {
		t.Errorf("unknown field rejected: %v", err)
	}
}

func TestTableBaseline(t *testing.T) {
	tests := []struct {
		name     string
		policies []string
		want     string // the header of the relative column, "" for none
		baseRow  int
	}{
		{"yarn wherever it is", []string{"none", "yarn", "late"}, "vs yarn", 1},
		{"else the first run", []string{"late", "none"}, "vs late", 0},
		{"one run: no comparison", []string{"late"}, "", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res Results
			for i, p := range tt.policies {
				res.Runs = append(res.Runs, Run{Policy: p, MakespanS: float64(100 + 10*i)})
			}
			header, rows := summaryRows(res)
			if tt.want == "" {
				for _, h := range header {
					if strings.HasPrefix(h, "vs ") {
						t.Errorf("header %v has a comparison column", header)
					}
				}
				return
			}
			if header[2] != tt.want || rows[tt.baseRow][2] != "base" {
				t.Errorf("header %q, base row %v", header[2], rows[tt.baseRow])
			}
		})
	}
	// none is 1700.5 s against yarn's 1620 s: +5.0%.
	_, rows := summaryRows(fixture())
	if rows[0][2] != "+5.0%" || rows[2][2] != "-13.3%" {
		t.Errorf("relative makespans %q %q, want +5.0%% and -13.3%%", rows[0][2], rows[2][2])
	}
}

func TestCSVParses(t *testing.T) {
	var runs, jobs bytes.Buffer
	if err := WriteRunsCSV(&runs, fixture()); err != nil {
		t.Fatal(err)
	}
	if err := WriteJobsCSV(&jobs, fixture()); err != nil {
		t.Fatal(err)
	}
	rr, err := csv.NewReader(&runs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rr) != 4 || rr[2][0] != "yarn" || rr[2][2] != "1" || rr[1][1] != "1700.5" {
		t.Errorf("runs.csv rows %v", rr)
	}
	jr, err := csv.NewReader(&jobs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(jr) != 1+3*11 {
		t.Fatalf("jobs.csv has %d rows, want header + 33", len(jr))
	}
	if last := jr[11]; last[1] != "unfinished" || last[5] != "" {
		t.Errorf("unfinished job row %v, want an empty jct_s", last)
	}
}

func TestStats(t *testing.T) {
	xs := []float64{15, 20, 35, 40, 50}
	tests := []struct {
		p, want float64
	}{
		// Nearest-rank worked examples (5 values): the 30th percentile is
		// the 2nd value, the 40th the 2nd, the 50th the 3rd, the 100th the 5th.
		{30, 20}, {40, 20}, {50, 35}, {95, 50}, {100, 50}, {1, 15},
	}
	for _, tt := range tests {
		if got := Percentile(xs, tt.p); got != tt.want {
			t.Errorf("Percentile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := Mean(xs); got != 32 {
		t.Errorf("Mean = %v, want 32", got)
	}
	jain := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, 1, 1, 1}, 1},
		{[]float64{1, 0, 0, 0}, 0.25},
		{[]float64{1, 2, 3}, 36.0 / 42},
		{nil, 0},
	}
	for _, tt := range jain {
		if got := Jain(tt.xs); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Jain(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
	if got := JCTs([]Job{{SubmitS: 5, FinishS: 9}, {SubmitS: 5}, {SubmitS: 1, FinishS: 1.5}}); !reflect.DeepEqual(got, []float64{4, 0.5}) {
		t.Errorf("JCTs = %v", got)
	}
	mk, mean, p95 := JobStats(fixture().Runs[0].Jobs) // JCTs 12..1500, submits 0..180, last finish 180+1500
	if mk != 1680 || math.Abs(mean-329.2) > 1e-9 || p95 != 1500 {
		t.Errorf("JobStats = %v, %v, %v; want 1680, 329.2, 1500", mk, mean, p95)
	}
	if mk, _, _ := JobStats([]Job{{SubmitS: 3}}); mk != 0 {
		t.Errorf("no finished jobs: makespan %v", mk)
	}
	if Percentile(nil, 95) != 0 || Mean(nil) != 0 {
		t.Error("empty inputs should give 0")
	}
}

func TestSVGEmptyAndWellFormed(t *testing.T) {
	for _, res := range []Results{{}, {Runs: []Run{{Policy: "a<b"}}}, fixture()} {
		for name, draw := range svgWriters() {
			var b bytes.Buffer
			if err := draw(&b, res); err != nil {
				t.Fatal(err)
			}
			if err := wellFormedXML(b.Bytes()); err != nil {
				t.Errorf("%s with %d runs: not well-formed XML: %v", name, len(res.Runs), err)
			}
		}
	}
}

func TestCDFUsesLogScaleForWideSpreads(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJCTCDFSVG(&b, fixture()); err != nil { // JCTs from 9 s to 1500 s
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "log scale") {
		t.Error("JCTs over two decades should get a log axis")
	}
	narrow := Results{Runs: []Run{{Policy: "p", Jobs: []Job{{SubmitS: 0, FinishS: 10}, {SubmitS: 0, FinishS: 20}}}}}
	b.Reset()
	if err := WriteJCTCDFSVG(&b, narrow); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "log scale") {
		t.Error("JCTs within a decade should get a linear axis")
	}
}

func TestDownsampleKeepsPeaks(t *testing.T) {
	tl := make([]Sample, 10_000)
	for i := range tl {
		tl[i] = Sample{TS: float64(i), Maps: 1}
	}
	tl[4321].Maps = 99
	ts, maps, _ := downsample(tl)
	if len(ts) > maxSeriesPoints {
		t.Errorf("%d points, want at most %d", len(ts), maxSeriesPoints)
	}
	peak := 0.0
	for _, m := range maps {
		peak = max(peak, m)
	}
	if peak != 99 {
		t.Errorf("peak %v lost by downsampling", peak)
	}
}

func TestWriteAndHTML(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, fixture()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"results.json", "report/table.txt", "report/runs.csv", "report/jobs.csv",
		"report/makespan.svg", "report/jct_cdf.svg", "report/slowdown_cdf.svg", "report/timeline.svg", "report/speculation.svg", "report/index.html"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "report", ".*.tmp"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	res, err := ReadFile(filepath.Join(dir, "results.json"))
	if err != nil || !reflect.DeepEqual(res, fixture()) {
		t.Errorf("results.json reads back as %+v, %v", res, err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc := parseHTML(t, page)
	for _, id := range []string{"makespan", "jct-cdf", "slowdown-cdf", "timeline", "heatmap", "gantt", "speculation"} {
		fig := doc.find("figure", id)
		if fig == nil {
			t.Errorf("figure %s missing", id)
			continue
		}
		if svg := fig.child("svg"); svg == nil || svg.child("title") == nil {
			t.Errorf("figure %s has no embedded SVG plot", id)
		}
	}
	table := doc.find("table", "summary")
	if table == nil {
		t.Fatal("summary table missing")
	}
	body := table.child("tbody")
	if body == nil || len(body.all("tr")) != 3 {
		t.Fatalf("summary table should have one row per run")
	}
	firstCells := body.all("tr")[1].all("td")
	if len(firstCells) == 0 || firstCells[0].text != "yarn" || firstCells[2].text != "base" {
		t.Errorf("second row %v, want yarn as the baseline", firstCells)
	}
	if !bytes.Contains(page, []byte("hetero &amp; stragglers")) {
		t.Error("scenario name not escaped in the page")
	}
}

// node is a tiny HTML tree, enough to check the page's structure; the page
// is our own well-formed output, so encoding/xml in HTML mode parses it.
type node struct {
	name, id, text string
	kids           []*node
}

func (n *node) find(name, id string) *node {
	if n.name == name && n.id == id {
		return n
	}
	for _, k := range n.kids {
		if f := k.find(name, id); f != nil {
			return f
		}
	}
	return nil
}

func (n *node) child(name string) *node {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

func (n *node) all(name string) []*node {
	var out []*node
	for _, k := range n.kids {
		if k.name == name {
			out = append(out, k)
		}
	}
	return out
}

func parseHTML(t *testing.T, page []byte) *node {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(page))
	dec.Strict = false
	dec.AutoClose = xml.HTMLAutoClose
	dec.Entity = xml.HTMLEntity
	root := &node{}
	stack := []*node{root}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("index.html does not parse: %v", err)
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{name: tok.Name.Local}
			for _, a := range tok.Attr {
				if a.Name.Local == "id" {
					n.id = a.Value
				}
			}
			top.kids = append(top.kids, n)
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			top.text += strings.TrimSpace(string(tok))
		}
	}
	return root
}

func wellFormedXML(b []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := dec.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// svgWriters are the report's figures by name.
func svgWriters() map[string]func(io.Writer, Results) error {
	return map[string]func(io.Writer, Results) error{
		"makespan": WriteMakespanSVG, "cdf": WriteJCTCDFSVG, "slowdown": WriteSlowdownCDFSVG, "timeline": WriteTimelineSVG,
		"speculation": WriteSpeculationSVG, "heatmap": WriteHeatmapSVG, "gantt": WriteGanttSVG,
	}
}
