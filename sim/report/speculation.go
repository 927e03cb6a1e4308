package report

import (
	"fmt"
	"io"
	"strconv"
)

// Colours of the speculation chart's metrics.
const (
	launchedColor = "#4e79a7"
	wonColor      = "#59a14f"
	wastedColor   = "#e15759"
)

// WriteSpeculationSVG draws each stack's speculation outcome: copies
// launched and copies that won (upper panel, grouped bars, the won share
// beside the won bar) and the container-seconds wasted by copies that lost
// or were killed (lower panel). Runs with identical outcomes share a row.
func WriteSpeculationSVG(w io.Writer, res Results) error {
	d := newSVG("Speculative copies per policy")
	ss := seriesOf(res)
	some := false
	for _, r := range res.Runs {
		some = some || r.Spec.Launched > 0 || r.Spec.WastedS > 0
	}
	if !some {
		d.noData("no speculative copies launched")
		return d.finish(w)
	}
	var wasted []float64
	for _, s := range ss {
		wasted = append(wasted, res.Runs[s.runs[0]].Spec.WastedS)
	}
	wastedText := numLabels(wasted, 4)
	var copies, waste []barRow
	for k, s := range ss {
		sp := res.Runs[s.runs[0]].Spec
		won := strconv.Itoa(sp.Won)
		if sp.Launched > 0 {
			won += fmt.Sprintf(" (%.0f%%)", 100*float64(sp.Won)/float64(sp.Launched))
		}
		copies = append(copies, barRow{name: s.label, bars: []bar{
			{value: float64(sp.Launched), color: launchedColor, label: strconv.Itoa(sp.Launched), tip: s.label + ": " + strconv.Itoa(sp.Launched) + " launched"},
			{value: float64(sp.Won), color: wonColor, label: won, tip: s.label + ": " + won + " won"},
		}})
		waste = append(waste, barRow{name: s.label, bars: []bar{
			{value: sp.WastedS, color: wastedColor, label: wastedText[k], tip: s.label + ": " + wastedText[k] + " container-s wasted"},
		}})
	}
	const panelTitle = 20.0 // room above a panel for its title
	top := float64(marginTop) + panelTitle
	d.text(minLeft, top-8, "start", `font-weight="bold"`, "copies launched and won")
	bottom := d.barChart(top, copies, "speculative copies", newLegend([]string{"launched", "won"}, []string{launchedColor, wonColor}))
	top = bottom + marginBelow + panelTitle
	d.text(minLeft, top-8, "start", `font-weight="bold"`, "container-seconds wasted by copies that lost or were killed")
	d.barChart(top, waste, "wasted container-seconds (vcores x s)", legendBox{})
	return d.finish(w)
}

// speculationRows is the page's speculation table, one row per run.
func speculationRows(res Results) (header []string, rows [][]string) {
	header = []string{"policy", "launched", "won", "won share", "wasted container-s", "wasted s per copy", "killed by hints"}
	for _, r := range res.Runs {
		share, per := "-", "-"
		if r.Spec.Launched > 0 {
			share = pct(float64(r.Spec.Won) / float64(r.Spec.Launched))
			per = f1(r.Spec.WastedS / float64(r.Spec.Launched))
		}
		rows = append(rows, []string{r.Policy, strconv.Itoa(r.Spec.Launched), strconv.Itoa(r.Spec.Won), share,
			f1(r.Spec.WastedS), per, strconv.Itoa(r.Killed)})
	}
	return header, rows
}
