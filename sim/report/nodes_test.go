package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// withDetail gives every run of res a synthetic, deterministic per-node
// detail on nodes nodes: a heatmap of 40 buckets over the run, five
// attempts per node on the timeline (maps, reduces, a speculative copy, a
// killed attempt; still running ones when running is set) and their
// tasks.csv rows. Past GanttMaxNodes nodes the timeline is cut at 80 % of
// the run, as the simulator cuts it at GanttMaxAttempts.
func withDetail(res Results, nodes int, running bool) Results {
	out := res
	out.Runs = nil
	for ri, r := range res.Runs {
		end := r.MakespanS
		if end <= 0 {
			end = 100
		}
		dt := &Detail{}
		for i := range nodes {
			dt.Nodes = append(dt.Nodes, fmt.Sprintf("node-%04d", i+1))
			dt.VCores = append(dt.VCores, 8)
		}
		bucket := end / 40
		nb := int(math.Ceil(end/bucket - 1e-9))
		dt.Heat = Heatmap{BucketS: bucket, EndS: end}
		for i := range nodes {
			row := make([]float64, nb)
			for b := range row {
				u := float64((i*7+b*3+ri)%11) / 10
				row[b] = 8 * bucket * min(1, u)
			}
			dt.Heat.VCoreS = append(dt.Heat.VCoreS, row)
		}
		g := Gantt{Nodes: min(nodes, GanttMaxNodes), Limit: GanttMaxAttempts, UntilS: end}
		if nodes > GanttMaxNodes {
			g.Cut, g.UntilS = true, end*0.8
		}
		var rows bytes.Buffer
		cw := csv.NewWriter(&rows)
		for n := range g.Nodes {
			for k := range 5 {
				s := float64(k)*end/5 + float64(n%7)*end/100
				b := GanttBar{Node: n, StartS: s, EndS: s + end/6 + float64(k%3)*end/30, Reduce: k >= 3, Spec: k == 2,
					State: "SUCCEEDED", Job: "job" + strconv.Itoa(k), Attempt: fmt.Sprintf("attempt_1_%04d_m_%06d_0", k+1, n)}
				if k == 1 && n%3 == 0 {
					b.State = "KILLED"
				}
				if running && k == 4 {
					b.State, b.EndS = "RUNNING", end
				}
				g.Bars = append(g.Bars, b)
				if b.State != "RUNNING" {
					_ = cw.Write([]string{r.Policy, "application_1_000" + strconv.Itoa(k+1), "task_x", b.Attempt, map[bool]string{true: "REDUCE", false: "MAP"}[b.Reduce],
						dt.Nodes[n], strconv.FormatBool(b.Spec), "NODE_LOCAL", num(b.StartS), num(b.EndS), b.State, "0"})
					dt.TasksN++
				}
			}
		}
		cw.Flush()
		dt.Gantt = g
		dt.Tasks = rows.Bytes()
		r.Detail = dt
		out.Runs = append(out.Runs, r)
	}
	return out
}

func TestNodeFiguresGolden(t *testing.T) {
	res := withDetail(fixture(), 6, false)
	for _, tt := range []struct {
		file   string
		render func(w *bytes.Buffer, res Results) error
	}{
		{"heatmap.svg", func(w *bytes.Buffer, res Results) error { return WriteHeatmapSVG(w, res) }},
		{"gantt.svg", func(w *bytes.Buffer, res Results) error { return WriteGanttSVG(w, res) }},
		{"tasks.csv", func(w *bytes.Buffer, res Results) error { return WriteTasksCSV(w, res) }},
	} {
		t.Run(tt.file, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := tt.render(&a, res); err != nil {
				t.Fatal(err)
			}
			if err := tt.render(&b, res); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatal("two renderings differ")
			}
			golden(t, tt.file, a.Bytes())
		})
	}
}

// TestHeatmapGroupsNodes: past heatMaxRows nodes, rows are groups of nodes
// (the figure stays the same size whatever the cluster), and the
// utilization of a row is its nodes' busy vcore-seconds over theirs.
func TestHeatmapGroupsNodes(t *testing.T) {
	dt := withDetail(fixture(), 3000, false).Runs[0].Detail
	util, labels, group := heatRows(dt)
	if group != 47 || len(util) != 64 || labels[0] != "1-47" || labels[63] != "2962-3000" {
		t.Fatalf("group %d, %d rows, labels %q..%q", group, len(util), labels[0], labels[len(labels)-1])
	}
	// Row 0, bucket 0: nodes 0..46, u = (7i mod 11)/10.
	var want float64
	for i := range 47 {
		want += float64((i*7)%11) / 10
	}
	if got := util[0][0]; math.Abs(got-want/47) > 1e-12 {
		t.Errorf("row 0 bucket 0 = %v, want %v", got, want/47)
	}
	var b bytes.Buffer
	if err := WriteHeatmapSVG(&b, withDetail(fixture(), 3000, false)); err != nil {
		t.Fatal(err)
	}
	validateSVG(t, "heatmap 3000 nodes", b.Bytes())
	if n := strings.Count(b.String(), "<rect"); n > 3*64*40+50 {
		t.Errorf("%d rects for 3 panels of 64 x 40 cells", n)
	}
	if !strings.Contains(b.String(), "nodes (47 per row)") {
		t.Error("grouping not said on the axis")
	}
}

// TestHeatmapLastBucketIsPartial: the last bucket is divided by the part of
// it the run covered, so a node busy to the end reads 100 %, not less.
func TestHeatmapLastBucketIsPartial(t *testing.T) {
	dt := &Detail{Nodes: []string{"n1"}, VCores: []int{4}, Heat: Heatmap{BucketS: 10, EndS: 25, VCoreS: [][]float64{{40, 40, 20}}}}
	util, _, _ := heatRows(dt)
	if fmt.Sprint(util[0]) != "[1 1 1]" {
		t.Errorf("utilization %v, want [1 1 1]", util[0])
	}
}

func TestGanttSaysWhatItHolds(t *testing.T) {
	var b bytes.Buffer
	if err := WriteGanttSVG(&b, withDetail(fixture(), 600, true)); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	validateSVG(t, "gantt cut", b.Bytes())
	for _, want := range []string{"attempts on nodes 1-32 of 600", "first 2000 attempts, complete up to 1360.4 s (run: 1700.5 s)", "running at interruption", "node-0032"} {
		if !strings.Contains(s, want) {
			t.Errorf("gantt lacks %q", want)
		}
	}
	if strings.Contains(s, "node-0033") {
		t.Error("gantt draws a node past its record")
	}
}

func TestTasksCSVOnlyWhenKept(t *testing.T) {
	dir := t.TempDir()
	small := withDetail(fixture(), 4, false)
	if err := Write(dir, small); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, ReportDir, TasksFile))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+3*4*5 || rows[0][0] != "policy" || rows[0][1] != "app" || rows[1][0] != "none" || rows[len(rows)-1][0] != "dhsa-pi+sepb+samr" {
		t.Fatalf("tasks.csv: %d rows, first %v", len(rows), rows[:2])
	}
	page, _ := os.ReadFile(filepath.Join(dir, ReportDir, "index.html"))
	if !bytes.Contains(page, []byte(`href="tasks.csv"`)) {
		t.Error("index.html does not link tasks.csv")
	}
	// A run too large to keep its rows: no tasks.csv (the old one is
	// removed), and the page says why.
	big := withDetail(fixture(), 4, false)
	big.Runs[1].Detail.Tasks, big.Runs[1].Detail.TasksN = nil, 123456
	if err := Write(dir, big); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ReportDir, TasksFile)); !os.IsNotExist(err) {
		t.Errorf("tasks.csv left behind: %v", err)
	}
	page, _ = os.ReadFile(filepath.Join(dir, ReportDir, "index.html"))
	if bytes.Contains(page, []byte(`href="tasks.csv"`)) || !bytes.Contains(page, []byte("yarn ended 123456 attempts")) {
		t.Error("index.html should say why tasks.csv is missing and not link it")
	}
}

func TestPartialResultsSaySo(t *testing.T) {
	res := fixture()
	res.Meta = &Meta{Partial: true, JobsDone: 25, JobsTotal: 33, SeedsDone: 2, SeedsTotal: 5}
	var tbl, page bytes.Buffer
	if err := WriteTable(&tbl, res); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tbl.String(), "PARTIAL: the simulation was interrupted; 25 of 33 jobs") {
		t.Errorf("table:\n%s", tbl.String())
	}
	res.Runs[0].Unfinished = 3
	_, rows := summaryRows(res)
	if rows[0][2] != "-" {
		t.Errorf("an interrupted run compared by makespan: %q", rows[0][2])
	}
	doc := parseHTML(t, page.Bytes())
	if p := doc.find("p", "partial"); p == nil || !strings.Contains(p.text, "2 of 5 seeds finished") {
		t.Errorf("partial note missing from the page")
	}
}
