package dhsa

import (
	"slices"
	"testing"
)

// §2.1.1: "a tasktracker with the map/reduce slot configuration of 8/4 ...
// weights for map and reduce slots are 1 and 2 ... the maximum number of
// running map tasks can be 16 ... reduce tasks is at most 8/2 + 4 = 8".
func TestMaxRunningSlotWeights(t *testing.T) {
	tests := []struct {
		name                  string
		w                     Weights
		mapSlots, reduceSlots int
		wantMaps, wantReduces int
	}{
		{"paper 8/4 weights 1 and 2", Weights{1, 2}, 8, 4, 16, 8},
		{"uniform slots 8/4", Weights{1, 1}, 8, 4, 12, 12},
		{"1/11 config, uniform", Weights{1, 1}, 1, 11, 12, 12},
		{"reduce lighter than map", Weights{2, 1}, 8, 4, 10, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, r := tt.w.MaxRunning(tt.mapSlots, tt.reduceSlots)
			if m != tt.wantMaps || r != tt.wantReduces {
				t.Errorf("MaxRunning(%d, %d) = %d maps, %d reduces; want %d, %d",
					tt.mapSlots, tt.reduceSlots, m, r, tt.wantMaps, tt.wantReduces)
			}
		})
	}
}

// The four scenarios of §2.1.1 (N_M vs S_M, N_R vs S_R).
func TestClassify(t *testing.T) {
	tests := []struct {
		name           string
		nM, nR, sM, sR int
		want           Case
	}{
		{"case 1: both fit", 6, 4, 10, 10, Case1},
		{"case 1: exactly full", 10, 10, 10, 10, Case1},
		{"case 2: maps short, reduces idle", 15, 3, 10, 10, Case2},
		{"case 3: reduces short, maps idle", 4, 14, 10, 10, Case3},
		{"case 4: both short", 15, 12, 10, 10, Case4},
		{"maps short, reduce slots exactly used: nothing to lend", 15, 10, 10, 10, Case4},
		{"reduces short, map slots exactly used: nothing to lend", 10, 14, 10, 10, Case4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.nM, tt.nR, tt.sM, tt.sR); got != tt.want {
				t.Errorf("Classify(%d, %d, %d, %d) = %d, want %d", tt.nM, tt.nR, tt.sM, tt.sR, got, tt.want)
			}
		})
	}
}

func TestWaterfill(t *testing.T) {
	tests := []struct {
		name     string
		capacity int
		demand   []int
		weight   []float64
		want     []int
	}{
		{"all fit", 10, []int{3, 4}, []float64{1, 1}, []int{3, 4}},
		{"max-min: small demand satisfied, rest split", 36, []int{4, 50, 50}, []float64{1, 1, 1}, []int{4, 16, 16}},
		{"weighted", 30, []int{100, 100}, []float64{1, 2}, []int{10, 20}},
		{"rounding goes to largest remainder, then lower index", 10, []int{9, 9, 9}, []float64{1, 1, 1}, []int{4, 3, 3}},
		{"zero demand gets nothing", 10, []int{0, 20}, []float64{5, 1}, []int{0, 10}},
		{"no capacity", 0, []int{3}, []float64{1}, []int{0}},
		{"cascade: second round satisfies more", 20, []int{2, 7, 30}, []float64{1, 1, 1}, []int{2, 7, 11}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := waterfill(tt.capacity, tt.demand, tt.weight)
			if !slices.Equal(got, tt.want) {
				t.Errorf("waterfill(%d, %v, %v) = %v, want %v", tt.capacity, tt.demand, tt.weight, got, tt.want)
			}
			if s := sum(got); s > tt.capacity {
				t.Errorf("granted %d > capacity %d", s, tt.capacity)
			}
		})
	}
}
