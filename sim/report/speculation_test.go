package report

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestSpeculationChart(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSpeculationSVG(&b, fixture()); err != nil {
		t.Fatal(err)
	}
	// Bars carry their value in a tooltip: width by tooltip.
	bars := map[string]float64{}
	re := regexp.MustCompile(`<rect x="[^"]+" y="[^"]+" width="([^"]+)" height="[^"]+" fill="[^"]+"><title>([^<]+)</title>`)
	for _, m := range re.FindAllStringSubmatch(b.String(), -1) {
		w, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		bars[m[2]] = w
	}
	for _, tip := range []string{"none: 0 launched", "none: 0 won", "yarn: 14 launched", "yarn: 6 (43%) won",
		"dhsa-pi+sepb+samr: 9 launched", "dhsa-pi+sepb+samr: 7 (78%) won", "yarn: 412.5 container-s wasted", "dhsa-pi+sepb+samr: 95 container-s wasted"} {
		if _, ok := bars[tip]; !ok {
			t.Errorf("no bar %q in %v", tip, bars)
		}
	}
	if r := bars["yarn: 14 launched"] / bars["dhsa-pi+sepb+samr: 9 launched"]; r < 14.0/9-0.01 || r > 14.0/9+0.01 {
		t.Errorf("launched bars in ratio %v, want 14/9", r)
	}
	if r := bars["yarn: 412.5 container-s wasted"] / bars["dhsa-pi+sepb+samr: 95 container-s wasted"]; r < 412.5/95-0.01 || r > 412.5/95+0.01 {
		t.Errorf("wasted bars in ratio %v, want 412.5/95", r)
	}
	checkTextLayout(t, "speculation", b.Bytes())

	b.Reset()
	if err := WriteSpeculationSVG(&b, Results{Runs: []Run{{Policy: "none"}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no speculative copies launched") {
		t.Error("no speculation should say so")
	}
}

func TestSpeculationTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, fixture()); err != nil {
		t.Fatal(err)
	}
	table := parseHTML(t, b.Bytes()).find("table", "speculation-table")
	if table == nil {
		t.Fatal("speculation table missing")
	}
	var got []string
	for _, tr := range table.child("tbody").all("tr") {
		var cells []string
		for _, td := range tr.all("td") {
			cells = append(cells, td.text)
		}
		got = append(got, strings.Join(cells, "|"))
	}
	want := []string{
		"none|0|0|-|0.0|-|0",
		"yarn|14|6|42.9%|412.5|29.5|8",
		"dhsa-pi+sepb+samr|9|7|77.8%|95.0|10.6|0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("speculation table\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
