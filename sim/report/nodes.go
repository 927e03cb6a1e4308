package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Heatmap and timeline geometry.
const (
	heatMaxRows   = 64  // node rows drawn at most; more nodes are grouped
	heatPanelH    = 256 // preferred panel height (px)
	heatLevels    = 20  // colour steps (5 % each)
	ganttLaneMinH = 3.0 // height of one lane of concurrent attempts
	labelGap      = 15.0
)

// heatColor is level k of heatLevels on a white-to-dark-blue ramp.
func heatColor(k int) string {
	f := float64(k) / heatLevels
	lo, hi := [3]float64{0xf7, 0xfb, 0xff}, [3]float64{0x08, 0x30, 0x6b}
	var c [3]int
	for i := range c {
		c[i] = int(math.Round(lo[i] + (hi[i]-lo[i])*f))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// heatRows groups a detail's nodes into at most heatMaxRows rows: the
// utilization of each row per bucket (busy vcore-seconds over the vcore-
// seconds the row's nodes had in the bucket's part of the run) and labels.
func heatRows(dt *Detail) (util [][]float64, labels []string, group int) {
	n := len(dt.Heat.VCoreS)
	if n == 0 {
		return nil, nil, 0
	}
	group = (n + heatMaxRows - 1) / heatMaxRows
	nb := len(dt.Heat.VCoreS[0])
	h := dt.Heat
	for lo := 0; lo < n; lo += group {
		hi := min(n, lo+group)
		row := make([]float64, nb)
		var vc float64
		for i := lo; i < hi; i++ {
			if i < len(dt.VCores) {
				vc += float64(dt.VCores[i])
			}
		}
		for b := range row {
			width := min(h.BucketS, h.EndS-float64(b)*h.BucketS)
			var busy float64
			for i := lo; i < hi; i++ {
				if b < len(h.VCoreS[i]) {
					busy += h.VCoreS[i][b]
				}
			}
			if vc > 0 && width > 0 {
				row[b] = math.Min(1, math.Max(0, busy/(vc*width)))
			}
		}
		util = append(util, row)
		name := func(i int) string {
			if i < len(dt.Nodes) {
				return dt.Nodes[i]
			}
			return strconv.Itoa(i + 1)
		}
		if group == 1 {
			labels = append(labels, name(lo))
		} else {
			labels = append(labels, fmt.Sprintf("%d-%d", lo+1, hi))
		}
	}
	return util, labels, group
}

// WriteHeatmapSVG draws each run's node utilization over simulated time:
// one panel per run (identical runs once), a row per node (or per group of
// nodes past heatMaxRows), a column per time bucket, the colour the share
// of the row's vcores held by containers.
func WriteHeatmapSVG(w io.Writer, res Results) error {
	d := newSVG("Node utilization over time")
	type panel struct {
		label  []string
		util   [][]float64
		labels []string
		group  int
		dt     *Detail
	}
	var panels []panel
	var tmax float64
	var rowLabW float64
	for _, s := range seriesOf(res) {
		dt := res.Runs[s.runs[0]].Detail
		if dt == nil || len(dt.Heat.VCoreS) == 0 || dt.Heat.BucketS <= 0 {
			continue
		}
		util, labels, group := heatRows(dt)
		panels = append(panels, panel{label: wrapLabel(s.label, plotAreaW, fontSize), util: util, labels: labels, group: group, dt: dt})
		tmax = max(tmax, dt.Heat.EndS)
		rowLabW = max(rowLabW, maxWidth(labels, fontSize))
	}
	if len(panels) == 0 || tmax <= 0 {
		d.noData("no per-node detail recorded")
		return d.finish(w)
	}
	var lvls []string
	var cols []string
	for _, k := range []int{0, 5, 10, 15, 20} {
		lvls = append(lvls, strconv.Itoa(k*100/heatLevels)+"% busy")
		cols = append(cols, heatColor(k))
	}
	legend := newLegend(lvls, cols)
	left := leftFor(rowLabW)
	right := left + plotAreaW
	d.w = right + legendGap + legend.w + edgePad
	if d.w < minW {
		right += minW - d.w
		d.w = minW
	}
	x := linearAxis(tmax, "simulated time (s)").place(left, right, true)
	y := float64(marginTop)
	var bottom float64
	for _, p := range panels {
		for k, s := range p.label {
			d.text(left, y+12+float64(k)*lineH, "start", `font-weight="bold"`, s)
		}
		top := y + 12 + float64(len(p.label)-1)*lineH + 8
		rows := len(p.util)
		rowH := math.Max(3, math.Min(14, math.Floor(heatPanelH/float64(rows))))
		d.rect(left, top, right-left, rowH*float64(rows), "#ffffff", "")
		every := int(math.Ceil(labelGap / rowH))
		h := p.dt.Heat
		for r, row := range p.util {
			ry := top + float64(r)*rowH
			if r%every == 0 {
				d.text(left-6, ry+rowH/2+4, "end", "", p.labels[r])
			}
			// Runs of cells at the same colour level are one rectangle.
			for b := 0; b < len(row); {
				k := int(math.Round(row[b] * heatLevels))
				e := b + 1
				for e < len(row) && int(math.Round(row[e]*heatLevels)) == k {
					e++
				}
				if k > 0 {
					x0 := x.pos(float64(b) * h.BucketS)
					x1 := x.pos(math.Min(float64(e)*h.BucketS, h.EndS))
					d.rect(x0, ry, math.Max(0, x1-x0), rowH, heatColor(k), "")
				}
				b = e
			}
		}
		bottom = top + rowH*float64(rows)
		d.line(left, bottom, right, bottom, "#333333", 1)
		d.line(left, top, left, bottom, "#333333", 1)
		y = bottom + 10
	}
	for i, t := range x.ticks {
		pxx := x.pos(t)
		d.line(pxx, bottom, pxx, bottom+5, "#333333", 1)
		if x.labels[i] != "" {
			d.text(pxx, bottom+18, "middle", "", x.labels[i])
		}
	}
	d.text((left+right)/2, bottom+40, "middle", "", x.label)
	yt := "node"
	if g := panels[0].group; g > 1 {
		yt = fmt.Sprintf("nodes (%d per row)", g)
	}
	d.yTitle(yt, (marginTop+bottom)/2)
	legend.draw(d, right+legendGap, marginTop)
	d.h = max(bottom+marginBelow, marginTop+legend.h+edgePad)
	return d.finish(w)
}

// ganttColors: map, reduce, speculative copy that won, attempt killed (lost
// its race or killed by a hint), attempt still running when the run was
// interrupted.
var ganttColors = struct{ mapC, redC, specC, killC, runC string }{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#bab0ac"}

// WriteGanttSVG draws the first run's task timeline: a row per node (the
// first Gantt.Nodes nodes), concurrent attempts on lanes within it, up to
// the time the record is complete (Gantt.UntilS).
func WriteGanttSVG(w io.Writer, res Results) error {
	d := newSVG("Task timeline per node")
	var run *Run
	if len(res.Runs) > 0 {
		run = &res.Runs[0]
	}
	if run == nil || run.Detail == nil || run.Detail.Gantt.Nodes == 0 || run.Detail.Gantt.UntilS <= 0 {
		d.noData("no task timeline recorded")
		return d.finish(w)
	}
	dt := run.Detail
	g := dt.Gantt
	// Lanes: the first lane free at the attempt's start (bars are in launch
	// order, so by start time per node).
	lane := make([]int, len(g.Bars))
	lanes := make([]int, g.Nodes)
	ends := make([][]float64, g.Nodes)
	for i, b := range g.Bars {
		if b.Node < 0 || b.Node >= g.Nodes {
			lane[i] = -1
			continue
		}
		e := ends[b.Node]
		k := 0
		for k < len(e) && e[k] > b.StartS {
			k++
		}
		if k == len(e) {
			e = append(e, 0)
		}
		e[k] = b.EndS
		ends[b.Node] = e
		lane[i] = k
		lanes[b.Node] = max(lanes[b.Node], k+1)
	}
	maxLanes := 1
	for _, l := range lanes {
		maxLanes = max(maxLanes, l)
	}
	laneH := math.Max(ganttLaneMinH, math.Min(8, math.Floor(24/float64(maxLanes))))
	rowH := math.Max(labelGap, float64(maxLanes)*laneH+4)
	var names []string
	for i := range g.Nodes {
		if i < len(dt.Nodes) {
			names = append(names, dt.Nodes[i])
		} else {
			names = append(names, strconv.Itoa(i+1))
		}
	}
	legend := newLegend([]string{"map", "reduce", "speculative copy (won)", "killed or lost a race", "running at interruption"},
		[]string{ganttColors.mapC, ganttColors.redC, ganttColors.specC, ganttColors.killC, ganttColors.runC})
	left := leftFor(maxWidth(names, fontSize))
	right := left + plotAreaW
	d.w = right + legendGap + legend.w + edgePad
	if d.w < minW {
		right += minW - d.w
		d.w = minW
	}
	// What the chart holds, under the title.
	var notes []string
	notes = append(notes, fmt.Sprintf("%s: attempts on nodes 1-%d of %d", run.Policy, g.Nodes, len(dt.Nodes)))
	if g.Cut {
		notes = append(notes, fmt.Sprintf("first %d attempts, complete up to %s s (run: %s s)", g.Limit, fmtNum(g.UntilS, 5, false), fmtNum(dt.Heat.EndS, 5, false)))
	}
	var noteLines []string
	for _, n := range notes {
		noteLines = append(noteLines, wrapLabel(n, d.w-2*edgePad, fontSize)...)
	}
	for k, s := range noteLines {
		d.text(d.w/2, 42+float64(k)*lineH, "middle", `fill="#444444"`, s)
	}
	top := 42 + float64(len(noteLines)-1)*lineH + 16
	bottom := top + rowH*float64(g.Nodes)
	x := linearAxis(g.UntilS, "simulated time (s)").place(left, right, true)
	for r := range g.Nodes {
		ry := top + float64(r)*rowH
		if r%2 == 1 {
			d.rect(left, ry, right-left, rowH, "#f6f6f6", "")
		}
		d.text(left-6, ry+rowH/2+4, "end", "", names[r])
	}
	for i, b := range g.Bars {
		if lane[i] < 0 || b.StartS >= g.UntilS {
			continue
		}
		c := ganttColors.mapC
		switch {
		case b.State == "RUNNING":
			c = ganttColors.runC
		case b.State != "SUCCEEDED":
			c = ganttColors.killC
		case b.Spec:
			c = ganttColors.specC
		case b.Reduce:
			c = ganttColors.redC
		}
		x0, x1 := x.pos(b.StartS), x.pos(math.Min(b.EndS, g.UntilS))
		ry := top + float64(b.Node)*rowH + 2 + float64(lane[i])*laneH
		d.rect(x0, ry, math.Max(0.5, x1-x0), laneH-0.5, c, fmt.Sprintf("%s %s %s-%s s %s", b.Job, b.Attempt,
			strconv.FormatFloat(b.StartS, 'f', -1, 64), strconv.FormatFloat(b.EndS, 'f', -1, 64), b.State))
	}
	for i, t := range x.ticks {
		pxx := x.pos(t)
		d.line(pxx, bottom, pxx, bottom+5, "#333333", 1)
		if x.labels[i] != "" {
			d.text(pxx, bottom+18, "middle", "", x.labels[i])
		}
	}
	d.line(left, bottom, right, bottom, "#333333", 1)
	d.line(left, top, left, bottom, "#333333", 1)
	d.text((left+right)/2, bottom+40, "middle", "", x.label)
	d.yTitle("node", (top+bottom)/2)
	legend.draw(d, right+legendGap, top)
	d.h = max(bottom+marginBelow, top+legend.h+edgePad)
	return d.finish(w)
}

// tasksCSV reports whether report/tasks.csv can be written (every run
// kept its attempt rows) and, if not, why.
func tasksCSV(res Results) (ok bool, why string) {
	if len(res.Runs) == 0 {
		return false, "no runs"
	}
	for _, r := range res.Runs {
		switch {
		case r.Detail == nil:
			return false, "no per-attempt detail recorded"
		case r.Detail.Tasks == nil:
			return false, fmt.Sprintf("%s ended %d attempts, more than the %d kept for the report; rmsidecar sim --tasks-out FILE streams the first stack's", r.Policy, r.Detail.TasksN, TasksMaxRows)
		}
	}
	return true, ""
}

// WriteTasksCSV writes every run's attempts (policy first, then
// TasksColumns); only the header when a run kept no rows (see tasksCSV).
func WriteTasksCSV(w io.Writer, res Results) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	if err := cw.Write(append([]string{"policy"}, TasksColumns...)); err != nil {
		return fmt.Errorf("write tasks csv: %w", err)
	}
	cw.Flush()
	if ok, _ := tasksCSV(res); ok {
		for _, r := range res.Runs {
			b.Write(r.Detail.Tasks)
		}
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write tasks csv: %w", err)
	}
	return nil
}
