package report

import (
	"math"
	"testing"
)

func TestTickLabelsKeepDigits(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi float64
	}{
		{"unit", 0, 1},
		{"seconds", 0, 1700.5},
		{"narrow around 0.1235", 0.1234, 0.1236},
		{"1e-4 range", 0, 1e-4},
		{"1e-4 to 2e-4", 1e-4, 2e-4},
		{"tiny", 3e-9, 7e-9},
		{"a billion plus ten", 1e9, 1e9 + 10},
		{"huge", 0, 1.5e12},
		{"beyond 1e15", 0, 4.2e17},
		{"tens of thousands", 0, 25_000},
		{"negative to positive", -5, 5},
		{"negative narrow", -1.0002, -1.0001},
		{"one point", 42, 42},
		{"zero", 0, 0},
		{"float noise steps", 0, 0.7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := rangeAxis(tt.lo, tt.hi, "").place(100, 620, true)
			if len(a.ticks) < 2 {
				t.Fatalf("ticks %v", a.ticks)
			}
			lo, hi := saneRange(tt.lo, tt.hi)
			if a.ticks[0] > lo || a.ticks[len(a.ticks)-1] < hi {
				t.Errorf("ticks %v do not cover [%v, %v]", a.ticks, lo, hi)
			}
			gap := a.ticks[1] - a.ticks[0]
			seen := map[string]bool{}
			for i, l := range a.labels {
				if seen[l] {
					t.Errorf("label %q twice in %q (ticks %v)", l, a.labels, a.ticks)
				}
				seen[l] = true
				v, err := parseNum(l)
				if err != nil || math.Abs(v-a.ticks[i]) > gap*1e-6 {
					t.Errorf("label %q for tick %v (step %v): %v", l, a.ticks[i], gap, err)
				}
				if len(l) > 13 {
					t.Errorf("label %q too long", l)
				}
			}
			if !a.fits() {
				t.Errorf("labels %q crowd a 520 px axis", a.labels)
			}
		})
	}
}

func TestTickLabelExamples(t *testing.T) {
	tests := []struct {
		ticks []float64
		want  []string
	}{
		{[]float64{0, 500, 1000, 1500}, []string{"0", "500", "1000", "1500"}},
		{[]float64{0, 10000, 20000}, []string{"0", "10k", "20k"}},
		{[]float64{0, 0.5, 1, 1.5}, []string{"0", "0.5", "1", "1.5"}},
		{[]float64{0.1234, 0.1235, 0.1236}, []string{"0.1234", "0.1235", "0.1236"}},
		{[]float64{0, 2e-5, 4e-5}, []string{"0", "2e-5", "4e-5"}},
		{[]float64{1e9, 1e9 + 5, 1e9 + 10}, []string{"1G", "1.000000005G", "1.00000001G"}},
		{[]float64{0, 0.1, 0.2, 0.30000000000000004}, []string{"0", "0.1", "0.2", "0.3"}},
		{[]float64{1e15, 2e15}, []string{"1e15", "2e15"}},
	}
	for _, tt := range tests {
		got := tickLabels(tt.ticks)
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("tickLabels(%v) = %q, want %q", tt.ticks, got, tt.want)
				break
			}
		}
	}
	if got := numLabels([]float64{0.12341, 0.12342, 1700.5}, 3); got[0] == got[1] {
		t.Errorf("numLabels merged different values: %q", got)
	}
}
