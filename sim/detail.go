package sim

import (
	"bytes"
	"encoding/csv"
	"strconv"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/sim/report"
)

// heatStartMS is the first width of a heatmap bucket; it doubles whenever
// the run outlasts report.HeatBuckets buckets.
const heatStartMS = 1000

// detail collects report.Detail while the run goes on, in memory bounded
// by the cluster (nodes x report.HeatBuckets), not by the run: the heatmap
// is folded as containers are accounted, the timeline stops at
// report.GanttMaxAttempts and the task rows are dropped past
// report.TasksMaxRows.
type detail struct {
	on bool

	bucketMS int64
	heat     [][]float64 // per node, vcore-ms per bucket

	bars  []report.GanttBar
	open  map[*attempt]int // recorded attempts still running -> bars index
	cut   bool
	cutMS int64

	rows        bytes.Buffer
	rowsW       *csv.Writer
	row         []string
	rowsN       int
	rowsTooMany bool
}

func (s *sim) initDetail() {
	d := &s.detail
	if s.opts.NoDetail {
		return
	}
	d.on = true
	d.bucketMS = heatStartMS
	d.heat = make([][]float64, len(s.nodes))
	for i := range d.heat {
		d.heat[i] = make([]float64, report.HeatBuckets)
	}
	d.open = map[*attempt]int{}
	d.rowsW = csv.NewWriter(&d.rows)
}

// heatAdd adds v vcores held on node n over [from, to) to the heatmap.
func (s *sim) heatAdd(n *node, from, to int64, v int) {
	d := &s.detail
	if !d.on || v == 0 || to <= from {
		return
	}
	for to > d.bucketMS*report.HeatBuckets {
		d.widen()
	}
	row := d.heat[n.idx]
	for b := from / d.bucketMS; from < to; b++ {
		end := min(to, (b+1)*d.bucketMS)
		row[b] += float64(v) * float64(end-from)
		from = end
	}
}

// widen doubles the bucket width, merging neighbouring buckets.
func (d *detail) widen() {
	for _, row := range d.heat {
		for b := range report.HeatBuckets / 2 {
			row[b] = row[2*b] + row[2*b+1]
		}
		clear(row[report.HeatBuckets/2:])
	}
	d.bucketMS *= 2
}

// launched records a new attempt in the timeline while it has room.
func (s *sim) detailLaunched(a *attempt) {
	d := &s.detail
	if !d.on || d.cut || a.node.idx >= report.GanttMaxNodes {
		return
	}
	if len(d.bars) >= report.GanttMaxAttempts {
		d.cut, d.cutMS = true, s.now
		return
	}
	d.open[a] = len(d.bars)
	d.bars = append(d.bars, report.GanttBar{Node: int(a.node.idx), StartS: float64(a.startMS) / 1000, EndS: -1,
		Reduce: a.task.kind == events.Reduce, Spec: a.spec, State: "RUNNING", Job: a.task.job.spec.Name, Attempt: a.id})
}

// ended closes the attempt's timeline bar and keeps its tasks.csv row.
func (s *sim) detailEnded(a *attempt, state string) {
	d := &s.detail
	if !d.on {
		return
	}
	if i, ok := d.open[a]; ok {
		delete(d.open, a)
		d.bars[i].EndS, d.bars[i].State = float64(s.now)/1000, state
	}
	d.rowsN++
	if d.rowsTooMany {
		return
	}
	if d.rowsN > report.TasksMaxRows {
		d.rowsTooMany = true
		d.rows = bytes.Buffer{}
		return
	}
	t := a.task
	d.row = append(d.row[:0], s.stack, t.job.id, t.id, a.id, string(t.kind), a.node.id, strconv.FormatBool(a.spec), string(a.loc),
		strconv.FormatFloat(float64(a.startMS)/1000, 'f', -1, 64), strconv.FormatFloat(float64(s.now)/1000, 'f', -1, 64),
		state, strconv.FormatInt(a.fetched, 10))
	_ = d.rowsW.Write(d.row) // into a bytes.Buffer: cannot fail
}

// detailResult is the run's report.Detail; end is the run's end.
func (s *sim) detailResult(end int64) *report.Detail {
	d := &s.detail
	if !d.on {
		return nil
	}
	out := &report.Detail{TasksN: d.rowsN}
	for _, n := range s.nodes {
		out.Nodes = append(out.Nodes, n.id)
		out.VCores = append(out.VCores, n.vcores)
	}
	// Buckets up to the run's end, in vcore-seconds.
	nb := min(report.HeatBuckets, int((end+d.bucketMS-1)/d.bucketMS))
	out.Heat = report.Heatmap{BucketS: float64(d.bucketMS) / 1000, EndS: float64(end) / 1000, VCoreS: make([][]float64, len(d.heat))}
	for i, row := range d.heat {
		r := make([]float64, nb)
		for b := range r {
			r[b] = row[b] / 1000
		}
		out.Heat.VCoreS[i] = r
	}
	g := report.Gantt{Nodes: min(len(s.nodes), report.GanttMaxNodes), Limit: report.GanttMaxAttempts, Cut: d.cut,
		UntilS: float64(end) / 1000, Bars: make([]report.GanttBar, len(d.bars))}
	if d.cut {
		g.UntilS = float64(d.cutMS) / 1000
	}
	copy(g.Bars, d.bars)
	for i := range g.Bars {
		if g.Bars[i].EndS < 0 { // still running: the run was interrupted
			g.Bars[i].EndS = float64(end) / 1000
		}
	}
	out.Gantt = g
	if !d.rowsTooMany {
		d.rowsW.Flush()
		out.Tasks = bytes.Clone(d.rows.Bytes())
		if out.Tasks == nil {
			out.Tasks = []byte{}
		}
	}
	return out
}
