package report

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
)

// Plot geometry (pixels). The right margin holds the legend.
const (
	plotW        = 760
	plotH        = 420
	marginLeft   = 70
	marginRight  = 170
	marginTop    = 44
	marginBottom = 56
	// maxSeriesPoints bounds the points drawn per line so a day-long trace
	// still gives an SVG of a few hundred kilobytes.
	maxSeriesPoints = 400
)

// palette is Tableau 10: distinguishable, colour-blind friendlier than
// primaries. Run i always gets palette[i%10] in every plot.
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

func runColor(i int) string { return palette[i%len(palette)] }

// svgDoc accumulates one SVG document.
type svgDoc struct{ b bytes.Buffer }

func newSVG(title string) *svgDoc {
	d := &svgDoc{}
	fmt.Fprintf(&d.b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", plotW, plotH, plotW, plotH)
	fmt.Fprintf(&d.b, `<title>%s</title>`+"\n", esc(title))
	fmt.Fprintf(&d.b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", plotW, plotH)
	d.text(plotW/2, 24, "middle", "font-size=\"15\" font-weight=\"bold\"", title)
	return d
}

func (d *svgDoc) text(x, y float64, anchor, attrs, s string) {
	if attrs != "" {
		attrs = " " + attrs
	}
	fmt.Fprintf(&d.b, `<text x="%s" y="%s" text-anchor="%s"%s>%s</text>`+"\n", px(x), px(y), anchor, attrs, esc(s))
}

func (d *svgDoc) line(x1, y1, x2, y2 float64, stroke string, width float64) {
	fmt.Fprintf(&d.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"/>`+"\n", px(x1), px(y1), px(x2), px(y2), stroke, px(width))
}

func (d *svgDoc) polyline(xs, ys []float64, stroke string) {
	d.b.WriteString(`<polyline fill="none" stroke="` + stroke + `" stroke-width="2" points="`)
	for i := range xs {
		if i > 0 {
			d.b.WriteByte(' ')
		}
		d.b.WriteString(px(xs[i]) + "," + px(ys[i]))
	}
	d.b.WriteString(`"/>` + "\n")
}

func (d *svgDoc) finish(w io.Writer) error {
	d.b.WriteString("</svg>\n")
	if _, err := w.Write(d.b.Bytes()); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}

// legend lists the runs' policies with their colours in the right margin.
func (d *svgDoc) legend(res Results, top float64) {
	x := float64(plotW - marginRight + 16)
	for i, r := range res.Runs {
		y := top + float64(i)*18
		fmt.Fprintf(&d.b, `<rect x="%s" y="%s" width="12" height="12" fill="%s"/>`+"\n", px(x), px(y-10), runColor(i))
		d.text(x+18, y, "start", "", r.Policy)
	}
}

func (d *svgDoc) noData(msg string) {
	d.text(plotW/2, plotH/2, "middle", `fill="#666666"`, msg)
}

// axis maps data values to pixels, linearly or by log10.
type axis struct {
	lo, hi   float64 // data range
	p0, p1   float64 // pixel range (p1 < p0 for a y axis)
	log      bool
	ticks    []float64
	label    string
	tickText func(float64) string
}

func (a axis) pos(v float64) float64 {
	if a.log {
		v, lo, hi := math.Log10(max(v, a.lo)), math.Log10(a.lo), math.Log10(a.hi)
		return a.p0 + (v-lo)/(hi-lo)*(a.p1-a.p0)
	}
	if a.hi == a.lo {
		return a.p0
	}
	return a.p0 + (v-a.lo)/(a.hi-a.lo)*(a.p1-a.p0)
}

// linearAxis spans [0, hi] rounded up to a "nice" tick (1, 2 or 5 × 10^k).
func linearAxis(hi, p0, p1 float64, label string) axis {
	if !(hi > 0) || math.IsInf(hi, 0) {
		hi = 1
	}
	step := niceStep(hi / 5)
	top := math.Ceil(hi/step-1e-9) * step
	a := axis{lo: 0, hi: top, p0: p0, p1: p1, label: label, tickText: tickLabel}
	for v := 0.0; v <= top+step/2; v += step {
		a.ticks = append(a.ticks, v)
	}
	return a
}

// logAxis spans whole decades around [lo, hi] (lo > 0).
func logAxis(lo, hi, p0, p1 float64, label string) axis {
	dlo, dhi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if dhi == dlo {
		dhi++
	}
	a := axis{lo: math.Pow(10, dlo), hi: math.Pow(10, dhi), p0: p0, p1: p1, log: true, label: label, tickText: tickLabel}
	for e := dlo; e <= dhi; e++ {
		a.ticks = append(a.ticks, math.Pow(10, e))
	}
	return a
}

func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

// tickLabel prints tick values compactly: 1500 -> "1500", 25000 -> "25k",
// 2e6 -> "2M", 0.25 -> "0.25".
func tickLabel(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	default:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
}

// frame draws the axes, grid lines, ticks and axis labels.
func (d *svgDoc) frame(x, y axis) {
	for _, t := range y.ticks {
		py := y.pos(t)
		d.line(x.p0, py, x.p1, py, "#e0e0e0", 1)
		d.text(x.p0-6, py+4, "end", "", y.tickText(t))
	}
	for _, t := range x.ticks {
		pxx := x.pos(t)
		d.line(pxx, y.p0, pxx, y.p0+5, "#333333", 1)
		d.text(pxx, y.p0+18, "middle", "", x.tickText(t))
	}
	d.line(x.p0, y.p0, x.p1, y.p0, "#333333", 1)
	d.line(x.p0, y.p0, x.p0, y.p1, "#333333", 1)
	if x.label != "" {
		d.text((x.p0+x.p1)/2, y.p0+40, "middle", "", x.label)
	}
	if y.label != "" {
		fmt.Fprintf(&d.b, `<text x="%s" y="%s" text-anchor="middle" transform="rotate(-90 %s %s)">%s</text>`+"\n",
			px(18), px((y.p0+y.p1)/2), px(18), px((y.p0+y.p1)/2), esc(y.label))
	}
}

// WriteMakespanSVG draws one bar per run labelled with its makespan and,
// for the others, the change against the baseline (stock YARN, else the
// first run).
func WriteMakespanSVG(w io.Writer, res Results) error {
	d := newSVG("Makespan per policy")
	if len(res.Runs) == 0 {
		d.noData("no runs")
		return d.finish(w)
	}
	var hi float64
	for _, r := range res.Runs {
		hi = max(hi, r.MakespanS)
	}
	left, right := float64(marginLeft), float64(plotW-marginRight)
	y := linearAxis(hi, plotH-marginBottom, marginTop, "makespan (s)")
	slot := (right - left) / float64(len(res.Runs))
	x := axis{p0: left, p1: right, tickText: tickLabel}
	d.frame(x, y)
	bi := baseline(res)
	for i, r := range res.Runs {
		bw := slot * 0.6
		bx := left + float64(i)*slot + (slot-bw)/2
		top := y.pos(r.MakespanS)
		fmt.Fprintf(&d.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s: %s s</title></rect>`+"\n",
			px(bx), px(top), px(bw), px(y.p0-top), runColor(i), esc(r.Policy), f1(r.MakespanS))
		label := f1(r.MakespanS)
		if rel, ok := relMakespan(r, res.Runs[bi]); ok && i != bi {
			label += fmt.Sprintf(" (%+.0f%%)", (rel-1)*100)
		}
		d.text(bx+bw/2, top-6, "middle", "", label)
		d.text(bx+bw/2, y.p0+18, "middle", "", r.Policy)
	}
	d.legend(res, marginTop+12)
	return d.finish(w)
}

// WriteJCTCDFSVG draws the empirical CDF of job completion times, one line
// per run; the time axis is logarithmic when JCTs span over two decades
// (typical of SWIM traces, where most jobs are seconds and a few hours).
func WriteJCTCDFSVG(w io.Writer, res Results) error {
	d := newSVG("Job completion time CDF")
	series := make([][]float64, len(res.Runs))
	lo, hi := math.Inf(1), 0.0
	for i, r := range res.Runs {
		s := JCTs(r.Jobs)
		slices.Sort(s)
		series[i] = s
		if len(s) > 0 {
			lo, hi = min(lo, s[0]), max(hi, s[len(s)-1])
		}
	}
	if hi <= 0 {
		d.noData("no finished jobs")
		return d.finish(w)
	}
	left, right := float64(marginLeft), float64(plotW-marginRight)
	var x axis
	if pos := positiveMin(series); pos > 0 && hi/pos > 100 {
		x = logAxis(pos, hi, left, right, "job completion time (s, log scale)")
	} else {
		x = linearAxis(hi, left, right, "job completion time (s)")
	}
	y := linearAxis(1, plotH-marginBottom, marginTop, "fraction of jobs")
	y.tickText = func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	d.frame(x, y)
	for i, s := range series {
		if len(s) == 0 {
			continue
		}
		xs, ys := cdfPoints(s)
		for k := range xs {
			xs[k], ys[k] = x.pos(xs[k]), y.pos(ys[k])
		}
		d.polyline(xs, ys, runColor(i))
	}
	d.legend(res, marginTop+12)
	return d.finish(w)
}

func positiveMin(series [][]float64) float64 {
	m := math.Inf(1)
	for _, s := range series {
		for _, v := range s {
			if v > 0 {
				m = min(m, v)
				break // sorted: the first positive is the smallest
			}
		}
	}
	if math.IsInf(m, 1) {
		return 0
	}
	return m
}

// cdfPoints turns sorted values into a step CDF; past maxSeriesPoints
// values it samples evenly spaced quantiles instead of every step.
func cdfPoints(sorted []float64) (xs, ys []float64) {
	n := len(sorted)
	if n <= maxSeriesPoints/2 {
		for i, v := range sorted {
			xs = append(xs, v, v)
			ys = append(ys, float64(i)/float64(n), float64(i+1)/float64(n))
		}
		return xs, ys
	}
	for k := 1; k <= maxSeriesPoints; k++ {
		q := float64(k) / maxSeriesPoints
		idx := int(math.Ceil(q*float64(n))) - 1
		xs = append(xs, sorted[idx])
		ys = append(ys, q)
	}
	return xs, ys
}

// WriteTimelineSVG draws running maps (upper panel) and running reduces
// (lower panel) over simulated time, one line per run, from Run.Timeline.
func WriteTimelineSVG(w io.Writer, res Results) error {
	d := newSVG("Running tasks over time")
	var tmax float64
	var mmax, rmax int
	for _, r := range res.Runs {
		for _, s := range r.Timeline {
			tmax = max(tmax, s.TS)
			mmax, rmax = max(mmax, s.Maps), max(rmax, s.Reduces)
		}
	}
	if tmax <= 0 {
		d.noData("no timeline recorded")
		return d.finish(w)
	}
	left, right := float64(marginLeft), float64(plotW-marginRight)
	bottom := float64(plotH - marginBottom)
	mid := (float64(marginTop) + bottom) / 2
	x := linearAxis(tmax, left, right, "time (s)")
	yMaps := linearAxis(float64(mmax), mid-14, marginTop, "")
	yReds := linearAxis(float64(rmax), bottom, mid+14, "")
	// Upper panel: ticks only on the shared lower time axis.
	for _, t := range yMaps.ticks {
		d.line(left, yMaps.pos(t), right, yMaps.pos(t), "#e0e0e0", 1)
		d.text(left-6, yMaps.pos(t)+4, "end", "", tickLabel(t))
	}
	d.line(left, yMaps.p0, right, yMaps.p0, "#333333", 1)
	d.line(left, yMaps.p0, left, yMaps.p1, "#333333", 1)
	d.text(left+6, float64(marginTop)-4, "start", `font-weight="bold"`, "running maps")
	d.frame(x, yReds)
	d.text(left+6, yReds.p1-4, "start", `font-weight="bold"`, "running reduces")
	for i, r := range res.Runs {
		if len(r.Timeline) == 0 {
			continue
		}
		ts, maps, reds := downsample(r.Timeline)
		// Running counts hold until the next sample: draw steps, not slopes.
		var xs, ym, yr []float64
		for k := range ts {
			if k > 0 {
				xs, ym, yr = append(xs, x.pos(ts[k])), append(ym, yMaps.pos(maps[k-1])), append(yr, yReds.pos(reds[k-1]))
			}
			xs, ym, yr = append(xs, x.pos(ts[k])), append(ym, yMaps.pos(maps[k])), append(yr, yReds.pos(reds[k]))
		}
		d.polyline(xs, ym, runColor(i))
		d.polyline(xs, yr, runColor(i))
	}
	d.legend(res, marginTop+12)
	return d.finish(w)
}

// downsample keeps at most maxSeriesPoints samples, each the peak of its
// window (a mean would hide the bursts that matter for slot contention).
func downsample(tl []Sample) (ts, maps, reds []float64) {
	win := (len(tl) + maxSeriesPoints - 1) / maxSeriesPoints
	for i := 0; i < len(tl); i += win {
		end := min(i+win, len(tl))
		var m, r int
		for _, s := range tl[i:end] {
			m, r = max(m, s.Maps), max(r, s.Reduces)
		}
		ts = append(ts, tl[i].TS)
		maps = append(maps, float64(m))
		reds = append(reds, float64(r))
	}
	return ts, maps, reds
}

// px formats a pixel coordinate with one decimal: enough for a crisp plot,
// few enough bytes, and identical across platforms for golden files.
func px(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func esc(s string) string { return html.EscapeString(s) }
