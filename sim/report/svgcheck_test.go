package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

// box is a text's estimated extent in viewBox coordinates.
type box struct {
	x0, y0, x1, y1 float64
	s              string
}

func (a box) overlaps(b box) bool {
	const tol = 0.5 // px: touching is not overlapping
	return a.x0 < b.x1-tol && b.x0 < a.x1-tol && a.y0 < b.y1-tol && b.y0 < a.y1-tol
}

// parsedSVG is what the checks need from an SVG document.
type parsedSVG struct {
	viewBox [4]float64
	texts   []box
	attrs   []xml.Attr // every attribute of every element
	empty   []string   // drawing elements without geometry
}

// parseSVG decodes b with encoding/xml and estimates every <text> box the
// way the renderer lays text out: 0.6 em per character, ascent 0.8 em,
// descent 0.25 em, text-anchor, inherited font-size and a rotate()
// transform.
func parseSVG(b []byte) (parsedSVG, error) {
	var p parsedSVG
	dec := xml.NewDecoder(bytes.NewReader(b))
	type frame struct {
		name string
		fs   float64
		text *xml.StartElement
		buf  string
	}
	stack := []frame{{fs: 16}}
	root := true
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return p, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			fs := stack[len(stack)-1].fs
			for _, a := range tok.Attr {
				p.attrs = append(p.attrs, a)
				if a.Name.Local == "font-size" {
					if v, err := strconv.ParseFloat(a.Value, 64); err == nil {
						fs = v
					}
				}
			}
			if root {
				if tok.Name.Local != "svg" {
					return p, fmt.Errorf("root element %s", tok.Name.Local)
				}
				f := strings.Fields(attr(tok, "viewBox"))
				if len(f) != 4 {
					return p, fmt.Errorf("viewBox %q", attr(tok, "viewBox"))
				}
				for i := range f {
					v, err := strconv.ParseFloat(f[i], 64)
					if err != nil {
						return p, fmt.Errorf("viewBox %q: %v", attr(tok, "viewBox"), err)
					}
					p.viewBox[i] = v
				}
				root = false
			}
			switch tok.Name.Local {
			case "path":
				if strings.TrimSpace(attr(tok, "d")) == "" {
					p.empty = append(p.empty, "path without d")
				}
			case "polyline", "polygon":
				if len(strings.Fields(attr(tok, "points"))) < 2 {
					p.empty = append(p.empty, tok.Name.Local+" with fewer than 2 points")
				}
			}
			f := frame{name: tok.Name.Local, fs: fs}
			if tok.Name.Local == "text" {
				t := tok.Copy()
				f.text = &t
			}
			stack = append(stack, f)
		case xml.CharData:
			stack[len(stack)-1].buf += string(tok)
		case xml.EndElement:
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.text != nil {
				bx, err := textBox(*top.text, top.fs, top.buf)
				if err != nil {
					return p, err
				}
				p.texts = append(p.texts, bx)
			}
		}
	}
	return p, nil
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func textBox(e xml.StartElement, fs float64, s string) (box, error) {
	x, err1 := strconv.ParseFloat(attr(e, "x"), 64)
	y, err2 := strconv.ParseFloat(attr(e, "y"), 64)
	if err1 != nil || err2 != nil {
		return box{}, fmt.Errorf("text %q: x %q y %q", s, attr(e, "x"), attr(e, "y"))
	}
	w := 0.6 * fs * float64(len([]rune(s)))
	x0 := x
	switch attr(e, "text-anchor") {
	case "middle":
		x0 = x - w/2
	case "end":
		x0 = x - w
	}
	corners := [][2]float64{{x0, y - 0.8*fs}, {x0 + w, y - 0.8*fs}, {x0, y + 0.25*fs}, {x0 + w, y + 0.25*fs}}
	if tr := attr(e, "transform"); tr != "" {
		var a, cx, cy float64
		if _, err := fmt.Sscanf(tr, "rotate(%g %g %g)", &a, &cx, &cy); err != nil {
			return box{}, fmt.Errorf("text %q: transform %q: %v", s, tr, err)
		}
		sin, cos := math.Sincos(a * math.Pi / 180)
		for i, c := range corners {
			dx, dy := c[0]-cx, c[1]-cy
			corners[i] = [2]float64{cx + dx*cos - dy*sin, cy + dx*sin + dy*cos}
		}
	}
	b := box{x0: math.Inf(1), y0: math.Inf(1), x1: math.Inf(-1), y1: math.Inf(-1), s: s}
	for _, c := range corners {
		b.x0, b.x1 = min(b.x0, c[0]), max(b.x1, c[0])
		b.y0, b.y1 = min(b.y0, c[1]), max(b.y1, c[1])
	}
	return b, nil
}

// checkTextLayout fails t when two <text> boxes of the SVG intersect or a
// text leaves the viewBox.
func checkTextLayout(t *testing.T, name string, svg []byte) {
	t.Helper()
	p, err := parseSVG(svg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, e := range layoutProblems(p) {
		t.Errorf("%s: %s", name, e)
	}
}

func layoutProblems(p parsedSVG) []string {
	var out []string
	vb := p.viewBox
	for i, a := range p.texts {
		if a.x0 < vb[0] || a.y0 < vb[1] || a.x1 > vb[0]+vb[2] || a.y1 > vb[1]+vb[3] {
			out = append(out, fmt.Sprintf("text %q at [%.1f,%.1f]-[%.1f,%.1f] leaves the viewBox %v", a.s, a.x0, a.y0, a.x1, a.y1, vb))
		}
		for _, b := range p.texts[i+1:] {
			if a.overlaps(b) {
				out = append(out, fmt.Sprintf("texts %q and %q overlap", a.s, b.s))
			}
		}
	}
	return out
}

// longNames is a comparison of many stacks with long names.
func longNames() Results {
	names := []string{
		"yarn+dhsa-pd+sepb+prescheduling", "yarn", "late+sepb+tmar-prb+tmar-rb+erul", "dhsa-pi+sepb+samr",
		"none", "late", "erul+exmcp+learning-scheduler-with-a-very-long-name", "yarn+dhsa-pd+sepb+prescheduling+late",
		"tmar", "mcp+exmcp", "a", "averyveryveryveryveryveryverylongpolicynamewithoutanyplus",
	}
	res := fixture()
	base := res.Runs
	res.Runs = nil
	for i, n := range names {
		r := base[i%len(base)]
		r.Policy = n
		r.MakespanS += float64(i) * 37.5
		r.Spec = Spec{Launched: 10 + 3*i, Won: i, WastedS: 1234.5 * float64(i)}
		res.Runs = append(res.Runs, r)
	}
	return res
}

func TestLabelsNeverOverlap(t *testing.T) {
	for _, n := range []int{1, 2, 3, 6, 12} {
		res := longNames()
		res.Runs = res.Runs[:n]
		for name, draw := range svgWriters() {
			var b bytes.Buffer
			if err := draw(&b, res); err != nil {
				t.Fatal(err)
			}
			checkTextLayout(t, fmt.Sprintf("%s, %d runs", name, n), b.Bytes())
		}
	}
	for _, f := range []float64{1, 1e-7, 1e-4, 1.0001, 1e9, 1e16} {
		for name, draw := range svgWriters() {
			var b bytes.Buffer
			if err := draw(&b, scaleTimes(longNames(), f)); err != nil {
				t.Fatal(err)
			}
			checkTextLayout(t, fmt.Sprintf("%s, times x %g", name, f), b.Bytes())
		}
	}
}

// scaleTimes multiplies every time and duration of res by f.
func scaleTimes(res Results, f float64) Results {
	out := res
	out.Runs = nil
	for _, r := range res.Runs {
		r.MakespanS *= f
		r.Spec.WastedS *= f
		jobs := make([]Job, len(r.Jobs))
		for i, j := range r.Jobs {
			j.SubmitS *= f
			j.FinishS *= f
			jobs[i] = j
		}
		r.Jobs = jobs
		tl := make([]Sample, len(r.Timeline))
		for i, s := range r.Timeline {
			s.TS *= f
			tl[i] = s
		}
		r.Timeline = tl
		out.Runs = append(out.Runs, r)
	}
	return out
}

func TestWrapLabel(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"yarn", []string{"yarn"}},
		{"yarn+dhsa-pd+sepb+prescheduling", []string{"yarn+dhsa-pd+", "sepb+", "prescheduling"}},
		{"abcdefghijklmnopqrstuvwxyz", []string{"abcdefghijklmn", "opqrstuvwxyz"}},
		{"a = b (identical)", []string{"a = b", "(identical)"}},
	}
	for _, tt := range tests {
		// 14 characters a line at 12 px.
		got := wrapLabel(tt.in, 14*0.6*12, 12)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrapLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestLayoutCheckerCatches makes sure the checker above fails what it
// should: overlapping texts, a rotated text crossing another, text outside.
func TestLayoutCheckerCatches(t *testing.T) {
	tests := []struct {
		name, body string
		overlap    bool
		outside    bool
	}{
		{"apart", `<text x="10" y="20">abc</text><text x="10" y="40">abc</text>`, false, false},
		{"same line", `<text x="10" y="20">abcdef</text><text x="40" y="20">x</text>`, true, false},
		{"end anchor", `<text x="60" y="20" text-anchor="end">abcdef</text><text x="62" y="20">x</text>`, false, false},
		{"rotated", `<text x="18" y="50" text-anchor="middle" transform="rotate(-90 18 50)">a long title</text><text x="14" y="50">x</text>`, true, false},
		{"outside", `<text x="95" y="20">abcdef</text>`, false, true},
	}
	for _, tt := range tests {
		p, err := parseSVG([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" font-size="12">` + tt.body + `</svg>`))
		if err != nil {
			t.Fatal(err)
		}
		overlap, outside := false, false
		for i, a := range p.texts {
			if a.x0 < 0 || a.y0 < 0 || a.x1 > 100 || a.y1 > 100 {
				outside = true
			}
			for _, b := range p.texts[i+1:] {
				overlap = overlap || a.overlaps(b)
			}
		}
		if overlap != tt.overlap || outside != tt.outside {
			t.Errorf("%s: overlap %v outside %v, want %v %v", tt.name, overlap, outside, tt.overlap, tt.outside)
		}
	}
}
