package report

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Plot geometry (pixels). Figures are at least minW x minH; a figure grows
// to fit long labels, a tall legend or many bars instead of letting text
// overlap.
const (
	minW        = 760
	minH        = 420
	plotAreaW   = 520 // plot width when nothing else asks for room
	plotAreaH   = 320 // plot height of line charts
	marginTop   = 44
	marginBelow = 56 // under the plot: tick labels and the axis title
	minLeft     = 70
	yTitleX     = 18 // centre of the rotated y-axis title
	fontSize    = 12.0
	titleSize   = 15.0
	// charEm is the text width estimate: 0.6 em per character, a safe
	// upper bound for sans-serif digits and lower-case letters.
	charEm    = 0.6
	lineH     = 15.0 // distance between the baselines of wrapped lines
	legendMax = 220  // legend labels wrap past this width (px)
	barLabMax = 200  // bar labels wrap past this width (px)
	legendGap = 16   // plot to legend
	edgePad   = 10   // legend or value labels to the figure's right edge
	// maxSeriesPoints bounds the points drawn per line so a day-long trace
	// still gives an SVG of a few hundred kilobytes.
	maxSeriesPoints = 400
)

// palette is Tableau 10: distinguishable, colour-blind friendlier than
// primaries. Run i always gets palette[i%10] in every plot.
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

func runColor(i int) string { return palette[i%len(palette)] }

// textWidth estimates the rendered width of s at font size fs.
func textWidth(s string, fs float64) float64 {
	return charEm * fs * float64(utf8.RuneCountInString(s))
}

func maxWidth(lines []string, fs float64) float64 {
	var w float64
	for _, l := range lines {
		w = max(w, textWidth(l, fs))
	}
	return w
}

// wrapLabel breaks s into lines no wider than maxW at font size fs. Lines
// break after '+', ',' or a space (policy stacks read "a+b+c"); a piece
// longer than a line is cut.
func wrapLabel(s string, maxW, fs float64) []string {
	perLine := max(1, int(maxW/(charEm*fs)))
	if utf8.RuneCountInString(s) <= perLine {
		return []string{s}
	}
	var pieces []string
	start := 0
	for i, r := range s {
		if r == '+' || r == ',' || r == ' ' {
			pieces = append(pieces, s[start:i+utf8.RuneLen(r)])
			start = i + utf8.RuneLen(r)
		}
	}
	if start < len(s) {
		pieces = append(pieces, s[start:])
	}
	var lines []string
	var cur string
	flush := func() {
		if t := strings.TrimRight(cur, " "); t != "" {
			lines = append(lines, t)
		}
		cur = ""
	}
	for _, p := range pieces {
		if utf8.RuneCountInString(cur)+utf8.RuneCountInString(strings.TrimRight(p, " ")) <= perLine {
			cur += p
			continue
		}
		flush()
		for rs := []rune(p); len(rs) > 0; {
			n := min(len(rs), perLine)
			if n == len(rs) {
				cur = string(rs)
				break
			}
			lines = append(lines, string(rs[:n]))
			rs = rs[n:]
		}
	}
	flush()
	if len(lines) == 0 {
		return []string{""}
	}
	return lines
}

// svgDoc accumulates one SVG document; its size is known only once the
// plot is laid out, so the header is written by finish.
type svgDoc struct {
	title string
	w, h  float64
	b     bytes.Buffer
}

func newSVG(title string) *svgDoc { return &svgDoc{title: title, w: minW, h: minH} }

func (d *svgDoc) text(x, y float64, anchor, attrs, s string) {
	if attrs != "" {
		attrs = " " + attrs
	}
	fmt.Fprintf(&d.b, `<text x="%s" y="%s" text-anchor="%s"%s>%s</text>`+"\n", px(x), px(y), anchor, attrs, esc(s))
}

func (d *svgDoc) line(x1, y1, x2, y2 float64, stroke string, width float64) {
	fmt.Fprintf(&d.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"/>`+"\n", px(x1), px(y1), px(x2), px(y2), stroke, px(width))
}

func (d *svgDoc) rect(x, y, w, h float64, fill, tip string) {
	if tip != "" {
		fmt.Fprintf(&d.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>`+"\n", px(x), px(y), px(w), px(h), fill, esc(tip))
		return
	}
	fmt.Fprintf(&d.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", px(x), px(y), px(w), px(h), fill)
}

func (d *svgDoc) polyline(xs, ys []float64, stroke string) {
	if len(xs) == 0 {
		return
	}
	if len(xs) == 1 { // a single point: a dot, not an empty line
		xs, ys = append(xs, xs[0]), append(ys, ys[0])
	}
	d.b.WriteString(`<polyline fill="none" stroke="` + stroke + `" stroke-width="2" stroke-linecap="round" points="`)
	for i := range xs {
		if i > 0 {
			d.b.WriteByte(' ')
		}
		d.b.WriteString(px(xs[i]) + "," + px(ys[i]))
	}
	d.b.WriteString(`"/>` + "\n")
}

func (d *svgDoc) finish(w io.Writer) error {
	var out bytes.Buffer
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" font-family="sans-serif" font-size="%s">`+"\n",
		px(d.w), px(d.h), px(d.w), px(d.h), px(fontSize))
	fmt.Fprintf(&out, `<title>%s</title>`+"\n", esc(d.title))
	fmt.Fprintf(&out, `<rect width="%s" height="%s" fill="#ffffff"/>`+"\n", px(d.w), px(d.h))
	fmt.Fprintf(&out, `<text x="%s" y="24" text-anchor="middle" font-size="%s" font-weight="bold">%s</text>`+"\n", px(d.w/2), px(titleSize), esc(d.title))
	out.Write(d.b.Bytes())
	out.WriteString("</svg>\n")
	if _, err := w.Write(out.Bytes()); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}

func (d *svgDoc) noData(msg string) {
	d.text(d.w/2, d.h/2, "middle", `fill="#666666"`, msg)
}

// series is one line or bar of a plot: a run, or several runs whose
// outcomes are identical (drawn once, labelled "a = b (identical)").
type series struct {
	runs  []int // indices into Results.Runs; the first is drawn
	label string
	color string
}

// seriesOf is one series per distinct outcome, in run order: a run
// identical to an earlier one joins its series, which is then labelled
// "a = b (identical)" and drawn once in the first run's colour.
func seriesOf(res Results) []series {
	var out []series
next:
	for i, r := range res.Runs {
		for k := range out {
			if identicalRuns(res.Runs[out[k].runs[0]], r) {
				out[k].runs = append(out[k].runs, i)
				continue next
			}
		}
		out = append(out, series{runs: []int{i}, color: runColor(i)})
	}
	for k, s := range out {
		names := make([]string, len(s.runs))
		for j, i := range s.runs {
			names[j] = res.Runs[i].Policy
		}
		out[k].label = strings.Join(names, " = ")
		if len(names) > 1 {
			out[k].label += " (identical)"
		}
	}
	return out
}

// identicalRuns reports whether two runs had the same outcome: makespan,
// JCT statistics, locality, speculation, cross-rack bytes, utilization,
// fairness, energy, kills, every job's times and the timeline. The policy
// name, the events and hints counted and the policy-specific extras are
// not compared: they describe how a stack worked, not what it achieved.
func identicalRuns(a, b Run) bool {
	return a.MakespanS == b.MakespanS && a.MeanJCTS == b.MeanJCTS && a.P50JCTS == b.P50JCTS && a.P95JCTS == b.P95JCTS &&
		a.Locality == b.Locality && a.Spec == b.Spec && a.CrossRackShuffleBytes == b.CrossRackShuffleBytes &&
		a.Utilization == b.Utilization && a.Jain == b.Jain && a.EnergyKWh == b.EnergyKWh && a.Killed == b.Killed &&
		slices.Equal(a.Jobs, b.Jobs) && slices.Equal(a.Timeline, b.Timeline)
}

// legendBox is a laid-out legend: one swatch per entry, its label wrapped.
type legendBox struct {
	lines  [][]string
	colors []string
	w, h   float64
}

func newLegend(labels, colors []string) legendBox {
	l := legendBox{colors: colors}
	for _, s := range labels {
		ls := wrapLabel(s, legendMax, fontSize)
		l.lines = append(l.lines, ls)
		l.w = max(l.w, 18+maxWidth(ls, fontSize))
		l.h += float64(len(ls)-1)*lineH + 20
	}
	return l
}

func seriesLegend(ss []series) legendBox {
	var labels, colors []string
	for _, s := range ss {
		labels, colors = append(labels, s.label), append(colors, s.color)
	}
	return newLegend(labels, colors)
}

// draw puts the legend's top-left corner at (x, top).
func (l legendBox) draw(d *svgDoc, x, top float64) {
	y := top + 12
	for i, ls := range l.lines {
		d.rect(x, y-10, 12, 12, l.colors[i], "")
		for k, s := range ls {
			d.text(x+18, y+float64(k)*lineH, "start", "", s)
		}
		y += float64(len(ls)-1)*lineH + 20
	}
}

// axis maps data values to pixels, linearly or by log10.
type axis struct {
	lo, hi   float64 // axis range (the data's widened to ticks)
	dlo, dhi float64 // data range
	p0, p1   float64 // pixel range (p1 < p0 for a y axis)
	log      bool
	ticks    []float64
	labels   []string // one per tick
	label    string
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

func (a axis) labelWidth() float64 { return maxWidth(a.labels, fontSize) }

// place sets the pixel range; a horizontal axis that would crowd its tick
// labels takes the next coarser step until they fit.
func (a axis) place(p0, p1 float64, horizontal bool) axis {
	a.p0, a.p1 = p0, p1
	if !horizontal {
		return a
	}
	if a.log { // label every k-th decade
		all := slices.Clone(a.labels)
		for k := 2; !a.fits() && k < len(all); k++ {
			for i := range a.labels {
				a.labels[i] = ""
				if i%k == 0 {
					a.labels[i] = all[i]
				}
			}
		}
		return a
	}
	for len(a.ticks) > 2 && !a.fits() {
		step := a.ticks[1] - a.ticks[0]
		b := rangeAxisStep(a.dlo, a.dhi, niceStep(step*1.001), a.label)
		b.p0, b.p1 = p0, p1
		a = b
	}
	return a
}

// fits reports whether neighbouring tick labels of a horizontal axis keep
// 8 px apart.
// (Empty labels are skipped.)
func (a axis) fits() bool {
	prev := -1
	for i := range a.ticks {
		if a.labels[i] == "" {
			continue
		}
		if prev >= 0 {
			gap := math.Abs(a.pos(a.ticks[i]) - a.pos(a.ticks[prev]))
			if gap < (textWidth(a.labels[i], fontSize)+textWidth(a.labels[prev], fontSize))/2+8 {
				return false
			}
		}
		prev = i
	}
	return true
}

// linearAxis spans [0, hi] rounded up to a "nice" tick (1, 2 or 5 × 10^k).
func linearAxis(hi float64, label string) axis { return rangeAxis(0, hi, label) }

// rangeAxis spans [lo, hi] widened to "nice" ticks (1, 2 or 5 × 10^k
// apart, about five of them).
func rangeAxis(lo, hi float64, label string) axis {
	lo, hi = saneRange(lo, hi)
	return rangeAxisStep(lo, hi, niceStep((hi-lo)/5), label)
}

// saneRange replaces a range that cannot be drawn (empty, inverted, not
// finite) by one that can.
func saneRange(lo, hi float64) (float64, float64) {
	if math.IsNaN(lo) || math.IsInf(lo, 0) {
		lo = 0
	}
	if math.IsNaN(hi) || math.IsInf(hi, 0) || hi < lo {
		hi = lo
	}
	if hi == lo {
		if lo == 0 {
			return 0, 1
		}
		d := math.Abs(lo) * 1e-3
		return lo - d, hi + d
	}
	return lo, hi
}

func rangeAxisStep(lo, hi, step float64, label string) axis {
	k0, k1 := math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9)
	a := axis{lo: k0 * step, hi: k1 * step, dlo: lo, dhi: hi, label: label}
	// k·m·10^e with an exact integer k·m and an exact power of ten: the
	// nearest double to the decimal tick (k·step drifts: 3·0.1 is not 0.3).
	e := math.Floor(math.Log10(step) + 1e-9)
	m := math.Round(step / math.Pow(10, e))
	for k := k0; k <= k1; k++ {
		t := k * m * math.Pow(10, e)
		if e < 0 {
			t = k * m / math.Pow(10, -e)
		}
		a.ticks = append(a.ticks, t)
	}
	a.lo, a.hi = a.ticks[0], a.ticks[len(a.ticks)-1]
	a.labels = tickLabels(a.ticks)
	return a
}

// logAxis spans whole decades around [lo, hi] (lo > 0).
func logAxis(lo, hi float64, label string) axis {
	dlo, dhi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if dhi == dlo {
		dhi++
	}
	a := axis{lo: math.Pow(10, dlo), hi: math.Pow(10, dhi), log: true, label: label}
	for e := dlo; e <= dhi; e++ {
		a.ticks = append(a.ticks, math.Pow(10, e))
	}
	a.labels = tickLabels(a.ticks)
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

// tickLabels prints ticks with the fewest significant digits that keep
// every label distinct and within a millionth of the tick spacing of its
// tick, so no two ticks read alike however narrow or wide the range.
// Values of 10^4 and more take a suffix (25000 -> "25k", 2e6 -> "2M", G,
// T); an axis whose ticks are all below 10^-3 or reach 10^15 is written
// in e notation ("1.5e-5").
func tickLabels(ticks []float64) []string {
	var maxAbs float64
	gap := math.Inf(1)
	for i, t := range ticks {
		maxAbs = max(maxAbs, math.Abs(t))
		if i > 0 && ticks[i] != ticks[i-1] {
			gap = min(gap, math.Abs(ticks[i]-ticks[i-1]))
		}
	}
	if math.IsInf(gap, 1) {
		gap = max(maxAbs, 1)
	}
	expo := maxAbs >= 1e15 || (maxAbs > 0 && maxAbs < 1e-3)
	labels := make([]string, len(ticks))
	for sig := 1; sig <= 17; sig++ {
		ok := true
		seen := make(map[string]float64, len(ticks))
		for i, t := range ticks {
			labels[i] = fmtNum(t, sig, expo)
			if v, err := parseNum(labels[i]); err != nil || math.Abs(v-t) > gap*1e-6 {
				ok = false
			}
			if prev, dup := seen[labels[i]]; dup && prev != t {
				ok = false
			}
			seen[labels[i]] = t
		}
		if ok {
			break
		}
	}
	return labels
}

// numLabels prints values (bar labels) with at least minSig significant
// digits, more where two different values would otherwise read alike.
func numLabels(vals []float64, minSig int) []string {
	var maxAbs float64
	for _, v := range vals {
		maxAbs = max(maxAbs, math.Abs(v))
	}
	expo := maxAbs >= 1e15 || (maxAbs > 0 && maxAbs < 1e-3)
	labels := make([]string, len(vals))
	for sig := minSig; sig <= 17; sig++ {
		ok := true
		seen := make(map[string]float64, len(vals))
		for i, v := range vals {
			labels[i] = fmtNum(v, sig, expo)
			if prev, dup := seen[labels[i]]; dup && prev != v {
				ok = false
			}
			seen[labels[i]] = v
		}
		if ok {
			break
		}
	}
	return labels
}

// numSuffix scales large values: the first suffix whose bound the value
// reaches.
type numSuffix struct {
	bound, scale float64
	suffix       string
}

func numSuffixes() []numSuffix {
	return []numSuffix{{1e12, 1e12, "T"}, {1e9, 1e9, "G"}, {1e6, 1e6, "M"}, {1e4, 1e3, "k"}}
}

// fmtNum writes v with sig significant digits, trailing zeros dropped:
// in e notation when expo, else with a k/M/G/T suffix from 10^4 up.
func fmtNum(v float64, sig int, expo bool) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64) // "0", "NaN", "+Inf": never drawn
	}
	if expo {
		s := strconv.FormatFloat(v, 'e', sig-1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		sign := ""
		if exp[0] == '-' {
			sign = "-"
		}
		exp = strings.TrimLeft(exp[1:], "0")
		if exp == "" {
			return trimZeros(mant)
		}
		return trimZeros(mant) + "e" + sign + exp
	}
	scale, suffix := 1.0, ""
	for _, s := range numSuffixes() {
		if math.Abs(v) >= s.bound {
			scale, suffix = s.scale, s.suffix
			break
		}
	}
	m := v / scale
	dec := max(0, sig-1-int(math.Floor(math.Log10(math.Abs(m)))))
	return trimZeros(strconv.FormatFloat(m, 'f', dec, 64)) + suffix
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// parseNum reads a label fmtNum wrote.
func parseNum(s string) (float64, error) {
	scale := 1.0
	for _, x := range numSuffixes() {
		if strings.HasSuffix(s, x.suffix) {
			s, scale = strings.TrimSuffix(s, x.suffix), x.scale
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	return v * scale, err
}

// leftFor is the left margin that holds y tick labels of width w beside
// the rotated y-axis title.
func leftFor(w float64) float64 { return max(minLeft, yTitleX+fontSize+w+10) }

// lineLayout lays out a line chart with the legend beside the plot: the
// plot is plotAreaW x plotAreaH or taller for a tall legend, the left
// margin fits the y tick labels, the figure is at least minW wide.
type lineLayout struct {
	left, right, top, bottom float64
	legend                   legendBox
}

func newLineLayout(d *svgDoc, legend legendBox, yLabelW float64) lineLayout {
	l := lineLayout{top: marginTop, legend: legend}
	l.bottom = l.top + max(plotAreaH, legend.h)
	l.left = leftFor(yLabelW)
	l.right = l.left + plotAreaW
	d.w = l.right + legendGap + legend.w + edgePad
	if d.w < minW {
		l.right += minW - d.w
		d.w = minW
	}
	d.h = l.bottom + marginBelow
	return l
}

// frame draws the axes, grid lines, ticks and axis labels.
func (d *svgDoc) frame(x, y axis) {
	for i, t := range y.ticks {
		py := y.pos(t)
		d.line(x.p0, py, x.p1, py, "#e0e0e0", 1)
		d.text(x.p0-6, py+4, "end", "", y.labels[i])
	}
	for i, t := range x.ticks {
		pxx := x.pos(t)
		d.line(pxx, y.p0, pxx, y.p0+5, "#333333", 1)
		if x.labels[i] != "" {
			d.text(pxx, y.p0+18, "middle", "", x.labels[i])
		}
	}
	d.line(x.p0, y.p0, x.p1, y.p0, "#333333", 1)
	d.line(x.p0, y.p0, x.p0, y.p1, "#333333", 1)
	if x.label != "" {
		d.text((x.p0+x.p1)/2, y.p0+40, "middle", "", x.label)
	}
	if y.label != "" {
		d.yTitle(y.label, (y.p0+y.p1)/2)
	}
}

func (d *svgDoc) yTitle(s string, cy float64) {
	fmt.Fprintf(&d.b, `<text x="%s" y="%s" text-anchor="middle" transform="rotate(-90 %s %s)">%s</text>`+"\n",
		px(yTitleX), px(cy), px(yTitleX), px(cy), esc(s))
}

// bar is one bar of a horizontal bar chart.
type bar struct {
	value float64
	color string
	label string // printed right of the bar
	tip   string
}

// barRow is one labelled row of a horizontal bar chart: one bar, or a
// group of bars (one per metric).
type barRow struct {
	name string
	bars []bar
}

// barChart draws rows of horizontal bars, names left of the plot (wrapped,
// never overlapping: the row height grows with the lines), values right of
// each bar, and the legend (if any) beside the plot.
//
// The chart's plot starts at top; barChart widens the figure to fit (at
// least minW), sets its height to end below the chart and returns the
// plot's bottom edge, so several charts can be stacked.
func (d *svgDoc) barChart(top float64, rows []barRow, xTitle string, legend legendBox) float64 {
	names := make([][]string, len(rows))
	var nameW, valW float64
	nBars := 1
	for i, r := range rows {
		names[i] = wrapLabel(r.name, barLabMax, fontSize)
		nameW = max(nameW, maxWidth(names[i], fontSize))
		nBars = max(nBars, len(r.bars))
	}
	var hi float64
	for _, r := range rows {
		for _, b := range r.bars {
			hi = max(hi, b.value)
			valW = max(valW, textWidth(b.label, fontSize))
		}
	}
	barH := 16.0
	if nBars > 1 {
		barH = 12
	}
	rowHs := make([]float64, len(rows))
	var plotH float64
	for i := range rows {
		rowHs[i] = max(float64(nBars)*(barH+2)+12, float64(len(names[i])-1)*lineH+24)
		plotH += rowHs[i]
	}
	if legend.h > 0 {
		plotH = max(plotH, legend.h)
	}
	bottom := top + plotH
	left := max(minLeft, nameW+16)
	right := left + plotAreaW
	legendX := right + valW + 8 + legendGap
	w := legendX + legend.w + edgePad
	if legend.h == 0 {
		w = right + valW + 8 + edgePad
	}
	if w < minW {
		right += minW - w
		legendX += minW - w
		w = minW
	}
	d.w = max(d.w, w)
	d.h = bottom + marginBelow
	x := linearAxis(hi, xTitle).place(left, right, true)
	for i, t := range x.ticks {
		pxx := x.pos(t)
		d.line(pxx, top, pxx, bottom, "#e0e0e0", 1)
		d.line(pxx, bottom, pxx, bottom+5, "#333333", 1)
		d.text(pxx, bottom+18, "middle", "", x.labels[i])
	}
	d.line(left, bottom, right, bottom, "#333333", 1)
	d.line(left, bottom, left, top, "#333333", 1)
	d.text((left+right)/2, bottom+40, "middle", "", xTitle)
	y := top
	for i, r := range rows {
		cy := y + rowHs[i]/2
		first := cy - float64(len(names[i])-1)*lineH/2 + 4
		for k, s := range names[i] {
			d.text(left-8, first+float64(k)*lineH, "end", "", s)
		}
		groupH := float64(len(r.bars)) * (barH + 2)
		by := cy - groupH/2
		for _, b := range r.bars {
			end := x.pos(b.value)
			d.rect(left, by+1, end-left, barH, b.color, b.tip)
			if b.label != "" {
				d.text(end+4, by+1+barH/2+4, "start", "", b.label)
			}
			by += barH + 2
		}
		y += rowHs[i]
	}
	if legend.h > 0 {
		legend.draw(d, legendX, top)
	}
	return bottom
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
	bi := baseline(res)
	var rows []barRow
	ss := seriesOf(res)
	var spans []float64
	for _, s := range ss {
		spans = append(spans, res.Runs[s.runs[0]].MakespanS)
	}
	values := numLabels(spans, 5)
	for k, s := range ss {
		r := res.Runs[s.runs[0]]
		label := values[k]
		if rel, ok := relMakespan(r, res.Runs[bi]); ok && !slices.Contains(s.runs, bi) {
			label += fmt.Sprintf(" (%+.0f%%)", (rel-1)*100)
		}
		rows = append(rows, barRow{name: s.label, bars: []bar{{value: r.MakespanS, color: s.color, label: label,
			tip: s.label + ": " + values[k] + " s"}}})
	}
	d.barChart(marginTop, rows, "makespan (s)", legendBox{})
	return d.finish(w)
}

// WriteJCTCDFSVG draws the empirical CDF of job completion times, one line
// per run; the time axis is logarithmic when JCTs span over two decades
// (typical of SWIM traces, where most jobs are seconds and a few hours).
func WriteJCTCDFSVG(w io.Writer, res Results) error {
	ss := seriesOf(res)
	values := make([][]float64, len(ss))
	for i, s := range ss {
		values[i] = JCTs(res.Runs[s.runs[0]].Jobs)
	}
	return writeCDF(w, "Job completion time CDF", "job completion time (s)", 0, "no finished jobs", ss, values)
}

// writeCDF draws one empirical CDF per series; a linear x axis starts at
// from (0 for times, 1 for slowdowns).
func writeCDF(w io.Writer, title, xTitle string, from float64, empty string, ss []series, values [][]float64) error {
	d := newSVG(title)
	series := make([][]float64, len(values))
	hi := 0.0
	for i, v := range values {
		s := slices.Clone(v)
		slices.Sort(s)
		series[i] = s
		if len(s) > 0 {
			hi = max(hi, s[len(s)-1])
		}
	}
	if hi <= 0 {
		d.noData(empty)
		return d.finish(w)
	}
	var x axis
	if pos := positiveMin(series); pos > 0 && hi/pos > 100 {
		x = logAxis(pos, hi, strings.TrimSuffix(xTitle, ")")+", log scale)")
	} else {
		x = rangeAxis(from, hi, xTitle)
	}
	y := linearAxis(1, "fraction of jobs")
	for i, t := range y.ticks {
		y.labels[i] = strconv.FormatFloat(t, 'f', 1, 64)
	}
	l := newLineLayout(d, seriesLegend(ss), y.labelWidth())
	y = y.place(l.bottom, l.top, false)
	x = x.place(l.left, l.right, true)
	d.frame(x, y)
	for i, s := range series {
		if len(s) == 0 {
			continue
		}
		xs, ys := cdfPoints(s)
		for k := range xs {
			xs[k], ys[k] = x.pos(xs[k]), y.pos(ys[k])
		}
		d.polyline(xs, ys, ss[i].color)
	}
	l.legend.draw(d, l.right+legendGap, l.top)
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
	ss := seriesOf(res)
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
	yMaps := linearAxis(float64(mmax), "")
	yReds := linearAxis(float64(rmax), "")
	l := newLineLayout(d, seriesLegend(ss), max(yMaps.labelWidth(), yReds.labelWidth()))
	left, right := l.left, l.right
	mid := (l.top + l.bottom) / 2
	x := linearAxis(tmax, "time (s)").place(left, right, true)
	yMaps = yMaps.place(mid-14, l.top, false)
	yReds = yReds.place(l.bottom, mid+14, false)
	// Upper panel: ticks only on the shared lower time axis.
	for i, t := range yMaps.ticks {
		d.line(left, yMaps.pos(t), right, yMaps.pos(t), "#e0e0e0", 1)
		d.text(left-6, yMaps.pos(t)+4, "end", "", yMaps.labels[i])
	}
	d.line(left, yMaps.p0, right, yMaps.p0, "#333333", 1)
	d.line(left, yMaps.p0, left, yMaps.p1, "#333333", 1)
	d.text(left+6, l.top-4, "start", `font-weight="bold"`, "running maps")
	d.frame(x, yReds)
	d.text(left+6, yReds.p1-4, "start", `font-weight="bold"`, "running reduces")
	for _, s := range ss {
		r := res.Runs[s.runs[0]]
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
		d.polyline(xs, ym, s.color)
		d.polyline(xs, yr, s.color)
	}
	l.legend.draw(d, right+legendGap, l.top)
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
