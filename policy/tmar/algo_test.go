package tmar

import (
	"math"
	"testing"
)

// table1 builds the four resources of the paper's Table 1 / Fig. 5: one core
// each, a unit task taking 1, 2, 4 and 5 s, drawing 400, 300, 150 and 50 W.
func table1() ([]Machine, func(int) float64) {
	exec := []float64{1, 2, 4, 5}
	watts := []float64{400, 300, 150, 50}
	ms := make([]Machine, 4)
	for i := range ms {
		ms[i] = Machine{Name: []string{"R1", "R2", "R3", "R4"}[i], CoreFree: []float64{0}, PowerMaxW: watts[i]}
	}
	return ms, func(m int) float64 { return exec[m] }
}

func counts(ps []Placement, n int) []int {
	c := make([]int, n)
	for _, p := range ps {
		c[p.Machine]++
	}
	return c
}

func makespan(ps []Placement) float64 {
	var m float64
	for _, p := range ps {
		m = math.Max(m, p.Finish)
	}
	return m
}

func energy(ps []Placement, ms []Machine, exec func(int) float64) float64 {
	var e float64
	for _, p := range ps {
		e += exec(p.Machine) * ms[p.Machine].PowerMaxW
	}
	return e
}

// TestTable1Algorithm1 reproduces the paper's Fig. 5 with Algorithm 1: the
// eight equal tasks finish by time 5, the fast 400 W resource doing most.
func TestTable1Algorithm1(t *testing.T) {
	ms, exec := table1()
	ps := MapSchedule(ms, 8, 0, exec, PowerTie{})
	if got := makespan(ps); got != 5 {
		t.Fatalf("makespan = %v, want 5 (paper Fig. 5)", got)
	}
	if c := counts(ps, 4); c[0] != 5 || c[1] != 2 || c[2] != 1 || c[3] != 0 {
		t.Fatalf("tasks per resource = %v, want [5 2 1 0]", c)
	}
}

// TestTable1TMaRStar: Algorithm 2 breaks the tie for T8 between R1 (1 s at
// 400 W) and R4 (5 s at 50 W) in favour of R4 — "5 × 50 vs 1 × 400" — at the
// same makespan of 5, and the cluster uses less energy.
func TestTable1TMaRStar(t *testing.T) {
	msA, exec := table1()
	plain := MapSchedule(msA, 8, 0, exec, PowerTie{})
	msB, _ := table1()
	power := MapSchedule(msB, 8, 0, exec, PowerTie{Power: true})
	if got := makespan(power); got != 5 {
		t.Fatalf("TMaR* makespan = %v, want 5 (unchanged)", got)
	}
	if last := power[7]; last.Machine != 3 || last.Finish != 5 {
		t.Fatalf("T8 went to %s finishing at %v, want R4 at 5", msB[last.Machine].Name, last.Finish)
	}
	if c := counts(power, 4); c[3] != 1 || c[0] != 4 {
		t.Fatalf("TMaR* tasks per resource = %v, want R1 4 and R4 1", c)
	}
	eA, eB := energy(plain, msA, exec), energy(power, msB, exec)
	if eB >= eA || eA-eB != 400-250 {
		t.Fatalf("energy TMaR %v J, TMaR* %v J: want TMaR* lower by 150 J", eA, eB)
	}
}

// TestPAS checks eq. 2 and the added-energy comparison of Algorithm 2.
func TestPAS(t *testing.T) {
	m := Machine{CoreFree: []float64{0, 0, 10, 10}, PowerIdleW: 100, PowerMaxW: 300}
	if got := m.pas(0.5); got != 200 {
		t.Fatalf("PAS(0.5) = %v, want 100 + 200*0.5 = 200", got)
	}
	// Two of four cores busy at t=5; one more raises U from 0.5 to 0.75:
	// +50 W for 10 s.
	if got := m.addedEnergy(5, 10); got != 500 {
		t.Fatalf("added energy = %v, want 500 J", got)
	}
}

func TestMapScheduleContinuesFromBusyCores(t *testing.T) {
	ms := []Machine{{CoreFree: []float64{8}}, {CoreFree: []float64{0}}}
	// Machine 0 is 4x faster but busy until 8; machine 1 takes 10 s per task.
	ps := MapSchedule(ms, 2, 0, func(m int) float64 { return []float64{2.5, 10}[m] }, PowerTie{})
	if ps[0].Machine != 1 || ps[0].Finish != 10 {
		t.Fatalf("first task: %+v, want machine 1 finishing at 10 (8+2.5=10.5 is later)", ps[0])
	}
	if ps[1].Machine != 0 || ps[1].Finish != 10.5 {
		t.Fatalf("second task: %+v, want machine 0 at 10.5", ps[1])
	}
}

type uniformNet struct{ bw, lat float64 }

func (n uniformNet) Bandwidth(int, int) float64 { return n.bw }
func (n uniformNet) Latency(int, int) float64   { return n.lat }

// TestPRBHandWorked is a hand-worked PRB layout: three machines of two cores
// (m2 reduces at half speed), 100 MB/s links with 1 ms latency, R_split 128 MB.
//
//	P0 = 300 MB (200 MB on m0, 100 MB on m1) -> N_R = ceil(300/128) = 3 reducers of 100 MB (10 s each on m0, m1).
//	  m0: data ready at 0.001+100/100 = 1.001 s; two reducers 1.001->11.001, the third 11.001->21.001.
//	  m1: ready at 2.001 (200 MB from m0); finishes 22.001. m2: 20 s reducers, finishes 42.001. -> m0.
//	P1 = 100 MB on m2 -> one reducer.
//	  m0: cores free at 11.001 -> 21.001; m1: 1.001 -> 11.001; m2 (local, 20 s): 0 -> 20. -> m1.
func TestPRBHandWorked(t *testing.T) {
	const mb = 1_000_000
	ms := []Machine{{CoreFree: []float64{0, 0}}, {CoreFree: []float64{0, 0}}, {CoreFree: []float64{0, 0}}}
	parts := []Partition{
		{ID: 1, Bytes: 100 * mb, At: map[int]int64{2: 100 * mb}},
		{ID: 0, Bytes: 300 * mb, At: map[int]int64{0: 200 * mb, 1: 100 * mb}},
	}
	speed := []float64{1, 1, 2}
	exec := func(m int, b int64) float64 { return float64(b) / (10 * mb) * speed[m] }
	bs := BindPartitions(ms, parts, uniformNet{bw: 100 * mb, lat: 0.001}, 128*mb, 0, exec)
	if len(bs) != 2 {
		t.Fatalf("bindings = %+v", bs)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if b := bs[0]; b.Partition != 0 || b.Machine != 0 || b.Reducers != 3 || !near(b.Start, 1.001) || !near(b.Finish, 21.001) {
		t.Fatalf("largest partition first, on m0 with 3 reducers finishing 21.001; got %+v", b)
	}
	if b := bs[1]; b.Partition != 1 || b.Machine != 1 || b.Reducers != 1 || !near(b.Finish, 11.001) {
		t.Fatalf("P1 on m1 finishing 11.001; got %+v", b)
	}
	if !near(ms[0].CoreFree[0]+ms[0].CoreFree[1], 21.001+11.001) {
		t.Fatalf("m0 cores not updated: %v", ms[0].CoreFree)
	}
}

// PlanMaps follows Algorithm 1 for which core goes next and, of the maps
// left, gives that core one stored on it: two 1-core machines in one rack,
// machine 0 twice as fast; reading a split from the other machine costs 1 s.
func TestPlanMapsKeepsMapsLocal(t *testing.T) {
	rd := [3]float64{0, 1, 2}
	cases := []struct {
		name     string
		tasks    []MapTask
		machines []int     // machine of each task, by task index
		finish   []float64 // finish of each task, by task index
	}{
		{
			// Machine 0 (2 s) takes both of its own maps before machine 1
			// (4 s) takes its: finishes 2, 4 on m0 and 4 on m1.
			name:     "each core its own maps",
			tasks:    []MapTask{{Local: []int{1}, Read: rd}, {Local: []int{0}, Read: rd}, {Local: []int{0}, Read: rd}},
			machines: []int{1, 0, 0},
			finish:   []float64{4, 2, 4},
		},
		{
			// All three maps are on m1: m0 reads remotely (3 s a map) and
			// still finishes first twice (3, 6), m1 takes one (4).
			name:     "remote when that finishes first",
			tasks:    []MapTask{{Local: []int{1}, Read: rd}, {Local: []int{1}, Read: rd}, {Local: []int{1}, Read: rd}},
			machines: []int{0, 1, 0},
			finish:   []float64{3, 4, 6},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms := []Machine{{CoreFree: []float64{0}}, {CoreFree: []float64{0}}}
			ps := PlanMaps(ms, []int{0, 0}, c.tasks, 0, func(m int) float64 { return []float64{2, 4}[m] }, PowerTie{})
			if len(ps) != len(c.tasks) {
				t.Fatalf("placements = %+v", ps)
			}
			for _, p := range ps {
				if p.Machine != c.machines[p.Task] || p.Finish != c.finish[p.Task] {
					t.Errorf("task %d on m%d finishing %v, want m%d at %v", p.Task, p.Machine, p.Finish, c.machines[p.Task], c.finish[p.Task])
				}
			}
		})
	}
}

// Within widens Algorithm 2's tie: a 1-core 400 W machine finishing a task
// at 5 and a 50 W one finishing it at 5.5.
func TestPowerTieWithin(t *testing.T) {
	for _, c := range []struct {
		name string
		tie  PowerTie
		want int
	}{
		{"Algorithm 1", PowerTie{}, 0},
		{"Algorithm 2, equal times only", PowerTie{Power: true}, 0},
		{"Algorithm 2, within 1 s", PowerTie{Power: true, Within: 1}, 1},
		{"Algorithm 2, within 0.4 s", PowerTie{Power: true, Within: 0.4}, 0},
		// A third machine is busy until 6: the plan's makespan is already 6,
		// so 5.5 is within it.
		{"Algorithm 2, within the makespan", PowerTie{Power: true, WithinMakespan: true}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms := []Machine{{CoreFree: []float64{0}, PowerMaxW: 400}, {CoreFree: []float64{0}, PowerMaxW: 50},
				{CoreFree: []float64{6}, PowerMaxW: 400}}
			ps := MapSchedule(ms, 1, 0, func(m int) float64 { return []float64{5, 5.5, 5}[m] }, c.tie)
			if len(ps) != 1 || ps[0].Machine != c.want {
				t.Fatalf("placed %+v, want machine %d", ps, c.want)
			}
		})
	}
}

// TestBindPartitionsShared checks the shared-link model of the shuffle on
// hand-worked layouts: 100 MB/s NICs and pair bandwidth, no latency. m0 and
// m1 hold map output but have no free core (no candidates); exec is in s/GB.
func TestBindPartitionsShared(t *testing.T) {
	const mb = 1_000_000
	type want struct {
		part, machine  int
		start, finish  float64
		launch, before float64 // launch; before: finish the paper's model (BindPartitions) plans
	}
	src := func() []Machine { return []Machine{{}, {}} } // m0, m1: sources only
	cases := []struct {
		name    string
		cores   [][]float64 // m2, m3, ...: CoreFree
		sPerGB  []float64   // by machine
		parts   []Partition
		protect bool
		want    []want
	}{{
		// Two equal partitions, all of it on m0: whichever nodes they go
		// to, both pieces leave through m0's link. P0 on m2 alone would
		// arrive at 10 s; P1 shares m0's link from 0, so both arrive at
		// 20 s (1000 + 1000 MB at 100 MB/s) and P0's estimate is revised.
		// P1 on m2 behind P0 would fetch alone from 20 s and finish at 40.
		name:   "sender link shared",
		cores:  [][]float64{{0}, {0}},
		sPerGB: []float64{0, 0, 10, 10},
		parts: []Partition{
			{ID: 0, Bytes: 1000 * mb, At: map[int]int64{0: 1000 * mb}},
			{ID: 1, Bytes: 1000 * mb, At: map[int]int64{0: 1000 * mb}},
		},
		want: []want{{0, 2, 20, 30, 0, 20}, {1, 3, 20, 30, 0, 20}},
	}, {
		// The local piece costs no transfer: on m2 where all of it lies
		// the partition starts at once.
		name:   "local bytes are free",
		cores:  [][]float64{{0}, {0}},
		sPerGB: []float64{0, 0, 10, 5},
		parts:  []Partition{{ID: 0, Bytes: 1000 * mb, At: map[int]int64{2: 1000 * mb}}},
		want:   []want{{0, 2, 0, 10, 0, 10}},
	}, {
		// A reducer fetches once its container runs: m2's core frees at
		// 50 s, so the 10 s fetch ends at 60 (the paper's eq. 4 takes the
		// later of core 50 and arrival 10: start 50, finish 60).
		name:   "fetch starts at launch",
		cores:  [][]float64{{50}},
		sPerGB: []float64{0, 0, 10},
		parts:  []Partition{{ID: 0, Bytes: 1000 * mb, At: map[int]int64{0: 1000 * mb}}},
		want:   []want{{0, 2, 60, 70, 50, 60}},
	}, {
		// P0 (2 GB from m0) goes to the fast m2: 20 s fetch + 20 s. P1
		// (500 MB from m1) would finish first on m2's second core (shares
		// m2's link with P0: 10 s fetch + 5 s = 15) but push P0 to 45;
		// on the slow m3 it finishes at 5 + 15 = 20, P0 stays at 40.
		name:   "earliest finish takes the shared link",
		cores:  [][]float64{{0, 0}, {0, 0}},
		sPerGB: []float64{0, 0, 10, 30},
		parts: []Partition{
			{ID: 0, Bytes: 2000 * mb, At: map[int]int64{0: 2000 * mb}},
			{ID: 1, Bytes: 500 * mb, At: map[int]int64{1: 500 * mb}},
		},
		want: []want{{0, 2, 25, 45, 0, 40}, {1, 2, 10, 15, 0, 20}},
	}, {
		name:   "protect keeps it off a larger partition's link",
		cores:  [][]float64{{0, 0}, {0, 0}},
		sPerGB: []float64{0, 0, 10, 30},
		parts: []Partition{
			{ID: 0, Bytes: 2000 * mb, At: map[int]int64{0: 2000 * mb}},
			{ID: 1, Bytes: 500 * mb, At: map[int]int64{1: 500 * mb}},
		},
		protect: true,
		want:    []want{{0, 2, 20, 40, 0, 40}, {1, 3, 5, 20, 0, 20}},
	}}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			build := func() []Machine {
				ms := src()
				for _, cf := range c.cores {
					ms = append(ms, Machine{CoreFree: append([]float64(nil), cf...)})
				}
				return ms
			}
			exec := func(m int, b int64) float64 { return float64(b) / 1e9 * c.sPerGB[m] }
			net := uniformNet{bw: 100 * mb}
			ms := build()
			bs := BindPartitionsShared(ms, c.parts, net, SharedLinks{NICBps: 100 * mb, Protect: c.protect}, 4000*mb, 0, exec)
			paper := BindPartitions(build(), c.parts, net, 4000*mb, 0, exec)
			if len(bs) != len(c.want) || len(paper) != len(c.want) {
				t.Fatalf("bindings = %+v, paper's %+v", bs, paper)
			}
			var last float64
			for i, w := range c.want {
				b := bs[i]
				if b.Partition != w.part || b.Machine != w.machine || !near(b.Start, w.start) || !near(b.Finish, w.finish) || !near(b.Launch, w.launch) {
					t.Errorf("binding %d = %+v, want partition %d on m%d launch %v start %v finish %v", i, b, w.part, w.machine, w.launch, w.start, w.finish)
				}
				if p := paper[i]; p.Partition != w.part || !near(p.Finish, w.before) {
					t.Errorf("paper's binding %d = %+v, want partition %d finishing %v", i, p, w.part, w.before)
				}
				last = math.Max(last, b.Finish)
			}
			// The cores end where the plan says.
			var free float64
			for _, m := range ms {
				for _, f := range m.CoreFree {
					free = math.Max(free, f)
				}
			}
			if !near(free, last) {
				t.Errorf("latest core free = %v, want the plan's last finish %v", free, last)
			}
		})
	}
}
