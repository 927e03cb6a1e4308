package sim

import (
	"math"
	"testing"
)

// A task slowed by a degradation window midway runs longer, and its work
// done (hence its reported progress) drops only when the window opens.
func TestDegradeWindowIntegration(t *testing.T) {
	n := &node{degrade: []window{{from: 10_000, to: 1 << 50, factor: 0.5}}}
	for _, tc := range []struct {
		name            string
		start           int64
		work, speed     float64
		wantEnd         int64
		probe           int64
		wantDoneAtProbe float64
	}{
		{"before the window", 0, 5_000, 1, 5_000, 2_500, 2_500},
		{"across the window", 0, 20_000, 1, 30_000, 10_000, 10_000},
		{"inside the window", 20_000, 10_000, 2, 30_000, 25_000, 5_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runFor(n, tc.start, tc.work, tc.speed); got != tc.wantEnd {
				t.Fatalf("runFor = %d, want %d", got, tc.wantEnd)
			}
			if got := workBetween(n, tc.start, tc.wantEnd, tc.speed); got != tc.work {
				t.Fatalf("work over the whole run = %v, want %v", got, tc.work)
			}
			if got := workBetween(n, tc.start, tc.probe, tc.speed); got != tc.wantDoneAtProbe {
				t.Fatalf("work done at %d = %v, want %v", tc.probe, got, tc.wantDoneAtProbe)
			}
		})
	}
}

func TestSkewFractions(t *testing.T) {
	f := skewFractions(4, 0)
	for _, x := range f {
		if x != 0.25 {
			t.Fatalf("skew 0 must be uniform: %v", f)
		}
	}
	f = skewFractions(3, 1) // 1, 1/2, 1/3 normalised by 11/6
	want := []float64{6.0 / 11, 3.0 / 11, 2.0 / 11}
	for i := range f {
		if d := f[i] - want[i]; d > 1e-12 || d < -1e-12 {
			t.Fatalf("skew 1: %v, want %v", f, want)
		}
	}
	j := &job{reduces: make([]*task, 3), nparts: 3, frac: f, floorSum: map[int64]int64{}}
	var sum int64
	for p := range 3 {
		sum += j.partBytes(1_000_003, p)
	}
	if sum != 1_000_003 {
		t.Fatalf("partitions sum to %d, want the whole output", sum)
	}
}

// The cluster's slot counts idealS takes, counted once per run, are what
// counting them for each job gives (node records keep their physical size
// through a run; node-capacity hints change capV and capM only).
func TestIdealSWithRunSlots(t *testing.T) {
	s := runSim(t, mustParse(t, heteroYAML), "none", Options{Registry: testRegistry()})
	mapSlots, redSlots := s.slots(s.sc.YARN.MapContainer), s.slots(s.sc.YARN.ReduceContainer)
	n := 0
	for _, j := range s.jobs {
		if !j.finished {
			continue
		}
		n++
		want := math.Ceil(float64(j.nMaps)/float64(max(1, s.slots(s.sc.YARN.MapContainer))))*float64(j.sumMapMS)/float64(max(1, j.nMaps))/1000 +
			math.Ceil(float64(j.nReds)/float64(max(1, s.slots(s.sc.YARN.ReduceContainer))))*float64(j.sumRedMS)/float64(max(1, j.nReds))/1000
		if got := idealS(j, mapSlots, redSlots); got != want {
			t.Fatalf("%s: idealS %v, per job %v", j.id, got, want)
		}
	}
	if n == 0 {
		t.Fatal("no finished job")
	}
}
