package dhsa

import (
	"testing"
)

var uniform = Borrow{Weights: Weights{1, 1}, PctMap: 1, PctReduce: 1}

type grant struct{ maps, reduces, maxMaps, maxReduces int }

func grants(as []Allocation) []grant {
	out := make([]grant, len(as))
	for i, a := range as {
		out[i] = grant{a.Maps, a.Reduces, a.MaxMaps, a.MaxReduces}
	}
	return out
}

func equalGrants(a, b []grant) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// PI-DHSA on one pool with 10 map and 10 reduce slots: each of the four
// cases of §2.1.1 and the borrow percentages.
func TestAllocatePIFourCases(t *testing.T) {
	slots := Slots{Map: 10, Reduce: 10}
	tests := []struct {
		name     string
		maps, rs int
		b        Borrow
		wantCase Case
		want     grant
	}{
		// Case 1: no borrowing; every idle slot is headroom for either phase.
		{"case 1", 6, 4, uniform, Case1, grant{6, 4, 6 + 4 + 6, 4 + 6 + 4}},
		// Case 2: reduces first on reduce slots, then 5 idle reduce slots run maps.
		{"case 2", 15, 3, uniform, Case2, grant{15, 3, 15 + 2, 3 + 2}},
		// Case 3: idle map slots run reduces.
		{"case 3", 4, 14, uniform, Case3, grant{4, 14, 4 + 2, 14 + 2}},
		// Case 4: busy; no slot moves.
		{"case 4", 15, 12, uniform, Case4, grant{10, 10, 10, 10}},
		// percentageOfBorrowedReduceSlots 0.5: of 7 idle reduce slots 3 go to maps
		// (floor 3.5); the rest stays reserved for incoming reduces.
		{"case 2, half the idle reduce slots", 15, 3, Borrow{Weights{1, 1}, 1, 0.5}, Case2, grant{13, 3, 13 + 0, 3 + 4}},
		// percentageOfBorrowedMapSlots 0: reduces never take map slots.
		{"case 3, no map slot borrowing", 4, 14, Borrow{Weights{1, 1}, 0, 1}, Case3, grant{4, 10, 4 + 6, 10}},
		// Slot weights 1 and 2: 6 idle map slots run 3 reduces.
		{"case 3, reduce weight 2", 4, 14, Borrow{Weights{1, 2}, 1, 1}, Case3, grant{4, 13, 4, 13}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as, c := AllocatePI([]PoolDemand{{Name: "q", Weight: 1, Maps: tt.maps, Reduces: tt.rs}}, slots, tt.b)
			if c != tt.wantCase {
				t.Errorf("case = %d, want %d", c, tt.wantCase)
			}
			if got := grants(as)[0]; got != tt.want {
				t.Errorf("grant = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Fig. 7 of §3.2.1, steps 6–12: pool 1 has only reduces left, pools 2 and 3
// only maps. PI-DHSA is fair per phase: pools 2 and 3 share all map slots,
// pool 1 holds all reduce slots. PD-DHSA is fair per pool: pool 1's reduces
// take pool 1's own idle map share first (intra-pool, case a), pools 2 and 3
// run maps on their own idle reduce share (case b); each pool holds a third.
func TestPIVersusPDFig7(t *testing.T) {
	slots := Slots{Map: 18, Reduce: 18}
	pools := []PoolDemand{
		{Name: "pool1", Weight: 1, Maps: 0, Reduces: 20},
		{Name: "pool2", Weight: 1, Maps: 30, Reduces: 0},
		{Name: "pool3", Weight: 1, Maps: 30, Reduces: 0},
	}
	pi, c := AllocatePI(pools, slots, uniform)
	if c != Case4 {
		t.Errorf("PI case = %d, want 4 (both phases short)", c)
	}
	wantPI := []grant{{0, 18, 0, 18}, {9, 0, 9, 0}, {9, 0, 9, 0}}
	if got := grants(pi); !equalGrants(got, wantPI) {
		t.Errorf("PI-DHSA = %+v, want %+v", got, wantPI)
	}
	pd := AllocatePD(pools, slots, uniform)
	wantPD := []grant{{0, 12, 0, 12}, {12, 0, 12, 0}, {12, 0, 12, 0}}
	if got := grants(pd); !equalGrants(got, wantPD) {
		t.Errorf("PD-DHSA = %+v, want %+v", got, wantPD)
	}
	for i, want := range []string{"a", "b", "b"} {
		if pd[i].PoolCase != want {
			t.Errorf("%s pool case = %q, want %q", pd[i].Name, pd[i].PoolCase, want)
		}
	}
}

// PD-DHSA inter-pool allocation: a case-c pool lends both kinds of idle
// share to a case-d pool (Fig. 3, §2.1.2 (2)).
func TestAllocatePDInterPool(t *testing.T) {
	slots := Slots{Map: 18, Reduce: 18}
	pools := []PoolDemand{
		{Name: "small", Weight: 1, Maps: 2, Reduces: 1},
		{Name: "big", Weight: 1, Maps: 30, Reduces: 30},
	}
	pd := AllocatePD(pools, slots, uniform)
	want := []grant{{2, 1, 2, 1}, {16, 17, 16, 17}}
	if got := grants(pd); !equalGrants(got, want) {
		t.Errorf("PD-DHSA = %+v, want %+v", got, want)
	}
	if pd[0].PoolCase != "c" || pd[1].PoolCase != "d" {
		t.Errorf("pool cases = %q, %q; want c, d", pd[0].PoolCase, pd[1].PoolCase)
	}
}

// An idle pool (no demand) owns no share under PD-DHSA, so the active pools
// split the cluster; weights split shares.
func TestAllocatePDWeightsAndIdlePools(t *testing.T) {
	slots := Slots{Map: 12, Reduce: 12}
	pools := []PoolDemand{
		{Name: "a", Weight: 1, Maps: 40, Reduces: 40},
		{Name: "b", Weight: 2, Maps: 40, Reduces: 40},
		{Name: "idle", Weight: 5},
	}
	pd := AllocatePD(pools, slots, uniform)
	want := []grant{{4, 4, 4, 4}, {8, 8, 8, 8}, {0, 0, 0, 0}}
	if got := grants(pd); !equalGrants(got, want) {
		t.Errorf("PD-DHSA = %+v, want %+v", got, want)
	}
}

func TestPoolCase(t *testing.T) {
	tests := []struct {
		mD, mS, rD, rS int
		want           string
	}{
		{2, 6, 10, 6, "a"},
		{10, 6, 2, 6, "b"},
		{6, 6, 6, 6, "c"},
		{0, 6, 0, 6, "c"},
		{10, 6, 10, 6, "d"},
		{6, 6, 10, 6, "d"},
	}
	for _, tt := range tests {
		if got := PoolCase(tt.mD, tt.mS, tt.rD, tt.rS); got != tt.want {
			t.Errorf("PoolCase(map %d/%d, reduce %d/%d) = %q, want %q", tt.mD, tt.mS, tt.rD, tt.rS, got, tt.want)
		}
	}
}

// The paper's §3.2.2 claim in miniature: under DHSA one job's grant does not
// depend on the map/reduce split of the same number of slots, as long as
// the other phase has nothing to run (pure map phase, then pure reduce phase).
func TestGrantInsensitiveToSplit(t *testing.T) {
	for mapSlots := 10; mapSlots <= 110; mapSlots += 10 {
		slots := Slots{Map: mapSlots, Reduce: 120 - mapSlots}
		for _, d := range []PoolDemand{{Name: "q", Maps: 500}, {Name: "q", Reduces: 500}} {
			pi, _ := AllocatePI([]PoolDemand{d}, slots, uniform)
			pd := AllocatePD([]PoolDemand{d}, slots, uniform)
			for name, a := range map[string]Allocation{"PI": pi[0], "PD": pd[0]} {
				if a.Maps+a.Reduces != 120 {
					t.Errorf("%s %d/%d slots, demand %+v: granted %d maps %d reduces, want 120 in all",
						name, slots.Map, slots.Reduce, d, a.Maps, a.Reduces)
				}
			}
		}
	}
}

// With no demand anywhere every slot is idle headroom, under both variants
// (a just-submitted app before its first task is pending).
func TestAllocateNoDemand(t *testing.T) {
	slots := Slots{Map: 60, Reduce: 60}
	pools := []PoolDemand{{Name: "pool1", Weight: 1}}
	want := []grant{{0, 0, 120, 120}}
	pi, _ := AllocatePI(pools, slots, uniform)
	if got := grants(pi); !equalGrants(got, want) {
		t.Errorf("PI-DHSA = %+v, want %+v", got, want)
	}
	if got := grants(AllocatePD(pools, slots, uniform)); !equalGrants(got, want) {
		t.Errorf("PD-DHSA = %+v, want %+v", got, want)
	}
}
