package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
)

// SeedStats summarize a scenario simulated with several seeds: per stack,
// the mean and 95 % confidence half-width of its metrics, and its change
// against the baseline stack, paired by seed. A results.json extension.
type SeedStats struct {
	Seeds    []uint64   `json:"seeds"`
	Baseline string     `json:"baseline"`
	Stacks   []SeedStat `json:"stacks"`
}

// SeedStat is one stack over the seeds. CI fields are 95 % half-widths
// (Student's t over the seeds).
type SeedStat struct {
	Policy      string  `json:"policy"`
	N           int     `json:"n"`
	MakespanS   float64 `json:"makespan_s"`
	MakespanCI  float64 `json:"makespan_ci95"`
	MeanJCTS    float64 `json:"mean_jct_s"`
	MeanJCTCI   float64 `json:"mean_jct_ci95"`
	P95JCTS     float64 `json:"p95_jct_s"`
	SpecWon     float64 `json:"spec_won"`
	SpecLaunch  float64 `json:"spec_launched"`
	WastedS     float64 `json:"wasted_s"`
	NodeLocal   float64 `json:"node_local"`
	NodeLocalCI float64 `json:"node_local_ci95"`
	// Changes against the baseline stack: mean of the per-seed relative
	// changes (-0.05 = 5 % shorter) with their 95 % half-width; Unsure when
	// the interval holds 0 (no difference is shown).
	MakespanVsBase   float64 `json:"makespan_vs_baseline"`
	MakespanVsBaseCI float64 `json:"makespan_vs_baseline_ci95"`
	MakespanUnsure   bool    `json:"makespan_unsure,omitempty"`
	JCTVsBase        float64 `json:"mean_jct_vs_baseline"`
	JCTVsBaseCI      float64 `json:"mean_jct_vs_baseline_ci95"`
	JCTUnsure        bool    `json:"mean_jct_unsure,omitempty"`
}

// tCrit95 are Student's t two-sided 95 % critical values by degrees of
// freedom 1..30; beyond, the normal 1.96 is within 2 %.
var tCrit95 = [...]float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// MeanCI95 is the mean of xs and the half-width of its 95 % confidence
// interval (t over n-1 degrees of freedom); the half-width is NaN for fewer
// than two values.
func MeanCI95(xs []float64) (mean, half float64) {
	n := len(xs)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	mean = Mean(xs)
	if n < 2 {
		return mean, math.NaN()
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	t := 1.96
	if df := n - 1; df < len(tCrit95) {
		t = tCrit95[df]
	}
	return mean, t * sd / math.Sqrt(float64(n))
}

// Summarize folds one Results per seed (the same stacks in each) into
// SeedStats, comparing every stack with the baseline (stock YARN when
// present, else the first stack).
func Summarize(perSeed []Results) SeedStats {
	var st SeedStats
	if len(perSeed) == 0 || len(perSeed[0].Runs) == 0 {
		return st
	}
	base := baseline(perSeed[0])
	st.Baseline = perSeed[0].Runs[base].Policy
	for _, r := range perSeed {
		st.Seeds = append(st.Seeds, r.Seed)
	}
	for i, first := range perSeed[0].Runs {
		var mk, jct, p95, won, launched, wasted, local, vsMk, vsJCT []float64
		for _, res := range perSeed {
			if i >= len(res.Runs) || res.Runs[i].Policy != first.Policy {
				continue
			}
			r, b := res.Runs[i], res.Runs[base]
			mk = append(mk, r.MakespanS)
			jct = append(jct, r.MeanJCTS)
			p95 = append(p95, r.P95JCTS)
			won = append(won, float64(r.Spec.Won))
			launched = append(launched, float64(r.Spec.Launched))
			wasted = append(wasted, r.Spec.WastedS)
			local = append(local, r.Locality.Node)
			if b.MakespanS > 0 && b.MeanJCTS > 0 {
				vsMk = append(vsMk, r.MakespanS/b.MakespanS-1)
				vsJCT = append(vsJCT, r.MeanJCTS/b.MeanJCTS-1)
			}
		}
		s := SeedStat{Policy: first.Policy, N: len(mk)}
		s.MakespanS, s.MakespanCI = MeanCI95(mk)
		s.MeanJCTS, s.MeanJCTCI = MeanCI95(jct)
		s.P95JCTS = Mean(p95)
		s.SpecWon, s.SpecLaunch, s.WastedS = Mean(won), Mean(launched), Mean(wasted)
		s.NodeLocal, s.NodeLocalCI = MeanCI95(local)
		s.MakespanVsBase, s.MakespanVsBaseCI = MeanCI95(vsMk)
		s.JCTVsBase, s.JCTVsBaseCI = MeanCI95(vsJCT)
		if i != base {
			s.MakespanUnsure = crossesZero(s.MakespanVsBase, s.MakespanVsBaseCI)
			s.JCTUnsure = crossesZero(s.JCTVsBase, s.JCTVsBaseCI)
		}
		st.Stacks = append(st.Stacks, s)
	}
	return st
}

// ChangeCI formats per-seed changes in percent as their mean ± 95 % CI,
// marked " *" when the interval crosses zero (the claim tables of the
// paper scripts).
func ChangeCI(pctPerSeed []float64) string {
	m, h := MeanCI95(pctPerSeed)
	if math.IsNaN(h) {
		return fmt.Sprintf("%+.1f %% (one seed: no interval)", m)
	}
	star := ""
	if crossesZero(m, h) {
		star = " *"
	}
	return fmt.Sprintf("%+.1f ± %.1f %%%s", m, h, star)
}

func crossesZero(mean, half float64) bool {
	return math.IsNaN(half) || mean-half <= 0 && mean+half >= 0
}

// WriteSeedTable prints SeedStats: mean ± 95 % CI per metric and the change
// against the baseline, with a note where the interval crosses zero.
func WriteSeedTable(w io.Writer, scenario string, st SeedStats) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "scenario %s, %d seeds (%s), mean ± 95 %% CI; changes vs %s paired by seed\n",
		orDash(scenario), len(st.Seeds), seedRange(st.Seeds), st.Baseline)
	rows := [][]string{{"policy", "makespan s", "vs " + st.Baseline, "mean JCT s", "vs " + st.Baseline, "node-local", "spec", "won", "wasted s"}}
	notes := 0
	for _, s := range st.Stacks {
		vsMk, vsJCT := changePct(s.MakespanVsBase, s.MakespanVsBaseCI, s.MakespanUnsure), changePct(s.JCTVsBase, s.JCTVsBaseCI, s.JCTUnsure)
		if s.Policy == st.Baseline {
			vsMk, vsJCT = "base", "base"
		}
		if s.MakespanUnsure || s.JCTUnsure {
			notes++
		}
		rows = append(rows, []string{s.Policy, pm(s.MakespanS, s.MakespanCI, 1), vsMk, pm(s.MeanJCTS, s.MeanJCTCI, 1), vsJCT,
			pm(100*s.NodeLocal, 100*s.NodeLocalCI, 1) + "%", fmt.Sprintf("%.1f", s.SpecLaunch), fmt.Sprintf("%.1f", s.SpecWon), fmt.Sprintf("%.0f", s.WastedS)})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i == 0 {
				line.WriteString(c + pad)
			} else {
				line.WriteString("  " + pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	if notes > 0 {
		fmt.Fprintf(&b, "* the 95 %% interval of the change crosses 0: no difference shown at %d seeds\n", len(st.Seeds))
	}
	_, err := w.Write(b.Bytes())
	return err
}

func pm(mean, half float64, digits int) string {
	if math.IsNaN(half) {
		return fmt.Sprintf("%.*f", digits, mean)
	}
	return fmt.Sprintf("%.*f ± %.*f", digits, mean, digits, half)
}

func changePct(mean, half float64, unsure bool) string {
	s := fmt.Sprintf("%+.1f%%", 100*mean)
	if !math.IsNaN(half) {
		s = fmt.Sprintf("%+.1f ± %.1f%%", 100*mean, 100*half)
	}
	if unsure {
		s += "*"
	}
	return s
}

func seedRange(seeds []uint64) string {
	if len(seeds) == 0 {
		return "-"
	}
	return fmt.Sprintf("%d..%d", seeds[0], seeds[len(seeds)-1])
}
