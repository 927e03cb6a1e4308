package memlimit

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// simLimitBefore is cmd/rmsidecar/sim_memlimit.go's limit before it moved
// here: base, or 1.5 times the live heap when that is more.
func simLimitBefore(base int64, live uint64) int64 {
	want := base
	if live <= math.MaxInt64/2 && int64(live+live/2) > base {
		want = int64(live + live/2)
	}
	return want
}

// The simulator's limit is the one it had before, for any live heap.
func TestSimSameAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mib := range []int{1, 64, 1024, 4096} {
		p := Sim(mib)
		for i := range 20000 {
			var live uint64
			switch i % 3 {
			case 0:
				live = rng.Uint64N(4 << 30) // around the floor
			case 1:
				live = rng.Uint64N(1 << 50)
			default:
				live = uint64(int64(mib)<<20*2/3) + rng.Uint64N(4) - 2 // where 1.5 x live crosses the floor
			}
			nonHeap := rng.Uint64N(1 << 30) // the simulator's limit does not read it
			if got, want := p.Limit(Reading{Live: live, NonHeap: nonHeap}), simLimitBefore(int64(mib)<<20, live); got != want {
				t.Fatalf("Sim(%d) live %d: limit %d, want %d", mib, live, got, want)
			}
		}
	}
	if Sim(0).Enabled() || Sim(-1).Enabled() || Headroom(0).Enabled() {
		t.Error("mib <= 0 must set no limit")
	}
	if p := Sim(1024); p.GCPercent != 400 || p.Every != 500*time.Millisecond || p.AfterGC {
		t.Errorf("Sim pacing %+v, want GOGC 400 every 500 ms", p)
	}
}

// runtimeHeapGoal is the heap goal the runtime derives from a memory limit
// (runtime/mgcpacer.go, memoryLimitHeapGoal, Go 1.26), with no memory over
// the limit: the limit minus non-heap memory, minus 3 % of that (at
// least 1 MiB), never below the live heap.
func runtimeHeapGoal(limit int64, nonHeap, live uint64) uint64 {
	if nonHeap >= uint64(limit) {
		return live
	}
	goal := uint64(limit) - nonHeap
	headroom := goal / 100 * 3
	if headroom < 1<<20 {
		headroom = 1 << 20
	}
	if goal < headroom || goal-headroom < headroom {
		goal = headroom
	} else {
		goal -= headroom
	}
	return max(goal, live)
}

// Under the headroom policy the runtime's heap goal is the live heap plus
// max(minimum, fraction × live), whatever the non-heap memory, to within
// the runtime's own rounding.
func TestHeadroomGoal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, mib := range []int{1, 8, 32, 64} {
		p := Headroom(mib)
		for range 20000 {
			r := Reading{Live: rng.Uint64N(8 << 30), NonHeap: rng.Uint64N(1 << 30)}
			if rng.IntN(4) == 0 {
				r.Live = rng.Uint64N(64 << 20)
			}
			if rng.IntN(2) == 0 {
				r.AllocRate = float64(rng.Uint64N(2 << 30)) // bytes/s
			}
			limit := p.Limit(r)
			want := float64(r.Live) + max(float64(int64(mib)<<20), HeadroomFraction*float64(r.Live), r.AllocRate*RateWindow.Seconds())
			got := float64(runtimeHeapGoal(limit, r.NonHeap, r.Live))
			// The runtime's 3 % is of a value rounded down to 100 bytes,
			// and ours a float: a few hundred bytes either way.
			if got < want-256 || got > want+want/1000+256 {
				t.Fatalf("Headroom(%d) %+v: limit %d gives heap goal %.0f, want %.0f", mib, r, limit, got, want)
			}
		}
	}
	// Both policies at once: the larger term wins.
	p := Policy{Floor: 1 << 30, MinHeadroom: 1 << 20}
	if got := p.Limit(Reading{Live: 10 << 20}); got != 1<<30 {
		t.Errorf("floor 1 GiB over a small heap: %d", got)
	}
	if got := (Policy{MinHeadroom: 1 << 20}).Limit(Reading{Live: math.MaxUint64, NonHeap: math.MaxUint64}); got != math.MaxInt64 {
		t.Errorf("overflow: %d, want MaxInt64", got)
	}
	// A rate term alone is a policy in use.
	if r := (Policy{RateWindow: time.Second}); !r.Enabled() || r.Limit(Reading{Live: 1 << 20, AllocRate: 64 << 20}) < 65<<20 {
		t.Error("a policy with only RateWindow set must follow the allocation rate")
	}
}

func gcPercent() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }

// Start sets the limit and restores the previous one; with GOMEMLIMIT set
// or no policy it leaves the runtime's limit alone; GOGC in the environment
// keeps its pacing. (Moved from cmd/rmsidecar's TestStartMemLimit.)
func TestStartRestores(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	beforeGC := gcPercent()
	stop := Start(Sim(512))
	if got := debug.SetMemoryLimit(-1); got < 512<<20 {
		t.Errorf("limit %d during the run, want at least 512 MiB", got)
	}
	if got := gcPercent(); os.Getenv("GOGC") == "" && got != SimGCPercent {
		t.Errorf("GOGC %d under the limit, want %d", got, SimGCPercent)
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d after, want %d restored", got, before)
	}
	if got := gcPercent(); got != beforeGC {
		t.Errorf("GOGC %d after, want %d restored", got, beforeGC)
	}
	Start(Sim(0))()
	Start(Policy{})()
	t.Setenv("GOMEMLIMIT", "4GiB")
	Start(Sim(512))()
	stop = Start(Headroom(32))
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d with GOMEMLIMIT set, want %d untouched", got, before)
	}
	stop()
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "150")
	stop = Start(Sim(512))
	if got := gcPercent(); got != beforeGC {
		t.Errorf("GOGC %d with GOGC set in the environment, want %d untouched", got, beforeGC)
	}
	stop()
	t.Setenv("GOGC", "")
	stop = Start(Headroom(32))
	if got := gcPercent(); got != beforeGC {
		t.Errorf("GOGC %d under the headroom policy, want %d untouched", got, beforeGC)
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d after the headroom policy, want %d restored", got, before)
	}
}

// The headroom policy follows a live heap that grows right after the
// collection that found it (not only at the next tick), and under it a
// large live heap with steady garbage collects about once per headroom
// of garbage, not back to back.
func TestHeadroomFollowsLiveHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few hundred MB")
	}
	const mib = 16
	p := Headroom(mib)
	p.Every = time.Hour // only the collections move the limit
	stop := Start(p)
	defer stop()
	live := make([][]byte, 0, 1024)
	for range 1024 {
		live = append(live, make([]byte, 64<<10)) // 64 MiB live, with pointers to it
	}
	runtime.GC()
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) < 64<<20+mib<<20 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got < 64<<20+mib<<20 {
		t.Fatalf("limit %d MiB after a collection found 64 MiB live, want above %d MiB", got>>20, 64+mib)
	}
	cycles := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(cycles)
	c0 := cycles[0].Value.Uint64()
	const garbage = 640 << 20
	var sink []byte
	for range garbage / (32 << 10) {
		sink = make([]byte, 32<<10)
	}
	_ = sink
	metrics.Read(cycles)
	n := cycles[0].Value.Uint64() - c0
	// About garbage / headroom = 40 collections (the trigger comes before
	// the goal); a limit at the live heap would collect for every few
	// allocations.
	if n > 3*garbage/(mib<<20) {
		t.Errorf("%d collections for %d MiB of garbage over 64 MiB live, headroom %d MiB: back to back", n, garbage>>20, mib)
	}
	t.Logf("%d collections for %d MiB of garbage", n, garbage>>20)
	runtime.KeepAlive(live)
}
