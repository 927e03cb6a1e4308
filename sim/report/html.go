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
Data: <a href="../results.json">results.json</a>, <a href="runs.csv">runs.csv</a>, <a href="jobs.csv">jobs.csv</a>, <a href="table.txt">table.txt</a>.</p>
<h2>Summary</h2>
<table id="summary">
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<p>node-local: share of map attempts launched node-local; spec/won/wasted s: speculative copies launched, copies that finished first, container-seconds of losing copies; x-rack GB: shuffle bytes that crossed racks (10^9 bytes); util: mean cluster utilization; Jain: fairness index over jobs; vs: makespan change against the baseline run.</p>
{{range .Figures}}<figure id="{{.ID}}">
{{.SVG}}
<figcaption>{{.Caption}}</figcaption>
</figure>
{{end}}</body>
</html>
`))

type htmlFigure struct {
	ID, Caption string
	SVG         template.HTML
}

// figures renders the report's plots in page order.
func figures(res Results) ([]htmlFigure, error) {
	specs := []struct {
		id, caption string
		draw        func(io.Writer, Results) error
	}{
		{"makespan", "Makespan per policy (lower is better).", WriteMakespanSVG},
		{"jct-cdf", "Cumulative distribution of job completion times (further left is better).", WriteJCTCDFSVG},
		{"timeline", "Running map and reduce tasks over simulated time.", WriteTimelineSVG},
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

// WriteHTML writes the report page: the summary table and the three plots
// inline, with links to the JSON and CSV files Write puts beside it.
func WriteHTML(w io.Writer, res Results) error {
	figs, err := figures(res)
	if err != nil {
		return err
	}
	header, rows := summaryRows(res)
	data := struct {
		Scenario string
		Seed     uint64
		Runs     []Run
		Header   []string
		Rows     [][]string
		Figures  []htmlFigure
	}{orDash(res.Scenario), res.Seed, res.Runs, header, rows, figs}
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, data); err != nil {
		return fmt.Errorf("render html: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write html: %w", err)
	}
	return nil
}
