package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
)

// htmlPage is the report page: self-contained (plots inline as SVG, no
// scripts, no external assets), so it can be mailed or attached to a CI run.
var htmlPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rmsidecar simulation: {{.Scenario}}</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { padding: 4px 10px; border-bottom: 1px solid #ddd; }
th { text-align: right; background: #f4f4f4; }
td { text-align: right; font-variant-numeric: tabular-nums; }
th:first-child, td:first-child { text-align: left; }
figure { margin: 1.5em 0; }
</style>
</head>
<body>
<h1>Simulation report</h1>
<p>Scenario <b>{{.Scenario}}</b>, seed {{.Seed}}, {{len .Runs}} run(s).
Data: <a href="../results.json">results.json</a>, <a href="runs.csv">runs.csv</a>, <a href="jobs.csv">jobs.csv</a>{{if .Tasks}}, <a href="tasks.csv">tasks.csv</a>{{end}}, <a href="table.txt">table.txt</a>.
Figures: {{range $i, $f := .AllFigures}}{{if $i}}, {{end}}<a href="#{{$f.ID}}">{{$f.ID}}</a>{{end}}.{{if .NoTasks}}
<span id="no-tasks">tasks.csv left out: {{.NoTasks}}.</span>{{end}}</p>
{{if .Partial}}<p id="partial"><b>Partial results:</b> {{.Partial}}</p>
{{end}}{{if .Arrival}}<p id="arrival">Arrival-driven run: {{.Arrival}}. Makespan mostly measures when the last job arrived, so the job completion time and slowdown distributions come first.</p>
{{range .Lead}}<figure id="{{.ID}}">
{{.SVG}}
<figcaption>{{.Caption}}</figcaption>
</figure>
{{end}}{{end}}<h2>Summary</h2>
<table id="summary">
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{if .Identical}}<p id="identical">Identical outcomes, drawn once in the figures: {{range $i, $s := .Identical}}{{if $i}}; {{end}}{{$s}}{{end}}.</p>
{{end}}<p>node-local: share of map attempts launched node-local; spec/won/wasted s: speculative copies launched, copies that finished first, container-seconds of losing copies; x-rack GB: shuffle bytes that crossed racks (10^9 bytes); util: mean cluster utilization; Jain: fairness index over jobs; vs: makespan change against the baseline run.</p>
{{range .Figures}}<figure id="{{.ID}}">
{{.SVG}}
<figcaption>{{.Caption}}</figcaption>
</figure>
{{end}}<h2>Speculation</h2>
<table id="speculation-table">
<thead><tr>{{range .SpecHeader}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .SpecRows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<p>launched: speculative copies started; won: copies that finished before their original (the original was killed); wasted container-s: vcores x seconds of copies that lost and of attempts killed by kill hints (an original that lost to its copy is not counted); killed by hints: attempts killed by kill hints.</p>
</body>
</html>
`))

type htmlFigure struct {
	ID, Caption string
	SVG         template.HTML
}

// figureSpec is one plot of the page.
type figureSpec struct {
	id, caption string
	draw        func(io.Writer, Results) error
}

// figures renders the report's plots in page order: for an arrival-driven
// run (ArrivalDriven) the job completion time and slowdown CDFs lead and
// makespan comes last; otherwise makespan leads.
func figures(res Results) ([]htmlFigure, error) {
	makespan := figureSpec{"makespan", "Makespan per policy (lower is better).", WriteMakespanSVG}
	jct := figureSpec{"jct-cdf", "Cumulative distribution of job completion times (further left is better).", WriteJCTCDFSVG}
	slow := figureSpec{"slowdown-cdf", "Cumulative distribution of per-job slowdown: a job's completion time over the shortest any stack gave it (1 = the best stack for that job; further left is better). results.json holds no job's time alone on the cluster, so the best stack's time stands in for it.", WriteSlowdownCDFSVG}
	timeline := figureSpec{"timeline", "Running map and reduce tasks over simulated time.", WriteTimelineSVG}
	heat := figureSpec{"heatmap", "Node utilization: the share of each node's vcores held by containers per time bucket, one panel per policy (nodes grouped into rows past 64 nodes; buckets double in width as the run lengthens, at most 128).", WriteHeatmapSVG}
	gantt := figureSpec{"gantt", "Task timeline of the first policy: each attempt on the first 32 nodes as a bar, concurrent attempts on lanes within the node's row; at most 2000 attempts are kept, and past them the chart ends where the record is complete.", WriteGanttSVG}
	spec := figureSpec{"speculation", "Speculative copies per policy: launched and won (with the share that won), and the container-seconds wasted by copies that lost or were killed. The table below gives the same per run.", WriteSpeculationSVG}
	specs := []figureSpec{makespan, jct, slow, timeline, heat, gantt, spec}
	if ok, _ := ArrivalDriven(res); ok {
		specs = []figureSpec{jct, slow, timeline, heat, gantt, spec, makespan}
	}
	var out []htmlFigure
	for _, s := range specs {
		var b bytes.Buffer
		if err := s.draw(&b, res); err != nil {
			return nil, fmt.Errorf("plot %s: %w", s.id, err)
		}
		// The SVG is our own output with every text node escaped (esc).
		out = append(out, htmlFigure{ID: s.id, Caption: s.caption, SVG: template.HTML(b.String())})
	}
	return out, nil
}

// WriteHTML writes the report page: the summary table and the plots
// inline (for an arrival-driven run the two CDFs come before the table), with links to the JSON and CSV files Write puts beside it.
func WriteHTML(w io.Writer, res Results) error {
	figs, err := figures(res)
	if err != nil {
		return err
	}
	header, rows := summaryRows(res)
	arrival, why := ArrivalDriven(res)
	var lead []htmlFigure
	if arrival {
		lead, figs = figs[:2], figs[2:]
	}
	var identical []string
	for _, s := range seriesOf(res) {
		if len(s.runs) > 1 {
			identical = append(identical, s.label)
		}
	}
	specHeader, specRows := speculationRows(res)
	all := append(append([]htmlFigure{}, lead...), figs...)
	tasks, noTasks := tasksCSV(res)
	if len(res.Runs) == 0 {
		noTasks = ""
	}
	data := struct {
		Scenario   string
		Seed       uint64
		Runs       []Run
		Tasks      bool
		NoTasks    string
		AllFigures []htmlFigure
		Partial    string
		Arrival    string
		Lead       []htmlFigure
		Header     []string
		Rows       [][]string
		Identical  []string
		Figures    []htmlFigure
		SpecHeader []string
		SpecRows   [][]string
	}{orDash(res.Scenario), res.Seed, res.Runs, tasks, noTasks, all, partialNote(res), why, lead, header, rows, identical, figs, specHeader, specRows}
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, data); err != nil {
		return fmt.Errorf("render html: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write html: %w", err)
	}
	return nil
}

// partialNote says what an interrupted run's results hold ("" when the
// run completed).
func partialNote(res Results) string {
	m := res.Meta
	if m == nil || !m.Partial {
		return ""
	}
	s := fmt.Sprintf("the simulation was interrupted; %d of %d jobs had finished (summed over the runs). Job metrics are over the finished jobs, time-based ones over the simulated time reached.", m.JobsDone, m.JobsTotal)
	if m.SeedsTotal > 0 {
		s += fmt.Sprintf(" %d of %d seeds finished; the confidence intervals are over those.", m.SeedsDone, m.SeedsTotal)
	}
	return s
}
