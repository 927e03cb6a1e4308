package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// structureFixtures are the results whose every figure is validated.
func structureFixtures() map[string]Results {
	instant := Results{Runs: []Run{{Policy: "x", Jobs: []Job{{Name: "a", SubmitS: 5, FinishS: 5}}}}}
	single := fixture()
	single.Runs = single.Runs[1:2]
	return map[string]Results{
		"fixture":             fixture(),
		"empty":               {},
		"run without jobs":    {Runs: []Run{{Policy: "a<b>&c"}}},
		"one run":             single,
		"instant jobs":        instant,
		"arrivals":            arrivals(),
		"identical runs":      twins(),
		"long names":          longNames(),
		"tiny times":          scaleTimes(longNames(), 1e-5),
		"huge times":          scaleTimes(fixture(), 1e13),
		"unfinished job only": {Runs: []Run{{Policy: "p", Jobs: []Job{{Name: "u", SubmitS: 3}}}, {Policy: "q"}}},
		"detail":              withDetail(fixture(), 12, false),
		"detail one node":     withDetail(single, 1, false),
		"detail 3000 nodes":   withDetail(fixture(), 3000, true),
		"detail long names":   withDetail(longNames(), 40, false),
		"detail tiny times":   withDetail(scaleTimes(fixture(), 1e-5), 8, false),
		"detail huge times":   withDetail(scaleTimes(fixture(), 1e13), 8, true),
	}
}

// svgProblems checks one figure: well-formed XML with an <svg> root and a
// positive finite viewBox, no NaN or Inf anywhere (numbers or text), no
// path or polyline without geometry, no negative sizes, and the text
// layout (inside the viewBox, no overlaps).
func svgProblems(b []byte) []string {
	numberRE := regexp.MustCompile(`[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?`)
	nonFinite := regexp.MustCompile(`(?i)\b(nan|[-+]?inf(inity)?)\b`)
	numeric := map[string]bool{ // attributes holding coordinates or lengths
		"x": true, "y": true, "x1": true, "y1": true, "x2": true, "y2": true, "width": true, "height": true,
		"cx": true, "cy": true, "r": true, "font-size": true, "stroke-width": true, "points": true, "d": true,
		"transform": true, "viewBox": true,
	}
	p, err := parseSVG(b)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	if vb := p.viewBox; !(vb[2] > 0 && vb[3] > 0) || math.IsInf(vb[2], 0) || math.IsInf(vb[3], 0) {
		out = append(out, fmt.Sprintf("viewBox %v", vb))
	}
	if m := nonFinite.FindString(string(b)); m != "" {
		out = append(out, fmt.Sprintf("%q in the SVG", m))
	}
	for _, a := range p.attrs {
		if !numeric[a.Name.Local] {
			continue
		}
		nums := numberRE.FindAllString(a.Value, -1)
		if len(nums) == 0 {
			out = append(out, fmt.Sprintf("%s=%q holds no number", a.Name.Local, a.Value))
		}
		for _, n := range nums {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				out = append(out, fmt.Sprintf("%s=%q: bad number %q", a.Name.Local, a.Value, n))
			}
			if (a.Name.Local == "width" || a.Name.Local == "height") && v < 0 {
				out = append(out, fmt.Sprintf("negative %s %q", a.Name.Local, a.Value))
			}
		}
	}
	out = append(out, p.empty...)
	return append(out, layoutProblems(p)...)
}

func validateSVG(t *testing.T, name string, b []byte) {
	t.Helper()
	for _, e := range svgProblems(b) {
		t.Errorf("%s: %s", name, e)
	}
}

func TestSVGProblemsCatches(t *testing.T) {
	const head = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">`
	good := head + `<polyline points="1,2 3,4"/><text x="10" y="20">ok</text></svg>`
	if got := svgProblems([]byte(good)); len(got) != 0 {
		t.Errorf("good SVG: %v", got)
	}
	for _, bad := range []string{
		head + `<polyline points="1,2 3,4">`,                                // not well-formed
		`<svg xmlns="http://www.w3.org/2000/svg"></svg>`,                    // no viewBox
		`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 0 10"></svg>`, // empty viewBox
		head + `<line x1="NaN" y1="0" x2="1" y2="1"/></svg>`,
		head + `<polyline points="1,+Inf 3,4"/></svg>`,
		head + `<text x="10" y="20">NaN%</text></svg>`,
		head + `<path d=""/></svg>`,
		head + `<polyline points=""/></svg>`,
		head + `<rect x="1" y="1" width="-3" height="2"/></svg>`,
		head + `<text x="10" y="20">abcdef</text><text x="20" y="20">x</text></svg>`,
	} {
		if len(svgProblems([]byte(bad))) == 0 {
			t.Errorf("no problem found in %s", bad)
		}
	}
}

func TestEveryFigureIsValidSVG(t *testing.T) {
	for fname, res := range structureFixtures() {
		t.Run(fname, func(t *testing.T) {
			dir := t.TempDir()
			if err := Write(dir, res); err != nil {
				t.Fatal(err)
			}
			files, err := filepath.Glob(filepath.Join(dir, ReportDir, "*.svg"))
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != len(svgWriters()) {
				t.Errorf("%d SVG files written, want %d (one per figure)", len(files), len(svgWriters()))
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				validateSVG(t, filepath.Base(f), b)
			}
			page, err := os.ReadFile(filepath.Join(dir, ReportDir, "index.html"))
			if err != nil {
				t.Fatal(err)
			}
			inline := strings.Split(string(page), "<svg ")[1:]
			if len(inline) != len(svgWriters()) {
				t.Errorf("index.html embeds %d SVGs, want %d", len(inline), len(svgWriters()))
			}
			for i, s := range inline {
				end := strings.Index(s, "</svg>")
				if end < 0 {
					t.Fatalf("inline SVG %d not closed", i)
				}
				validateSVG(t, fmt.Sprintf("index.html svg %d", i), []byte("<svg "+s[:end+len("</svg>")]))
			}
		})
	}
}
