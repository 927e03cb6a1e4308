package erul

import (
	"context"
	"math"
	"testing"

	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// A replica host whose backup time is +Inf (an overflowed eq. 15 estimate)
// neither panics nor wins, whichever order the replica hosts are ranged in:
// the tie clause used to read the best slot before there was one, so the
// outcome depended on the map's order. The finite host (n3) wins every time.
func TestTargetWithInfiniteBackupTimeEveryOrder(t *testing.T) {
	s := newScenario("a", 6)
	att := s.run("a", events.Map, 4, "n1", events.NodeLocal, t0, "n2", "n3")
	p := build(t, NewMCP, policy.Handle{})
	e := engine.New(policy.NewStack(p), engine.Options{})
	for i := range s.evs {
		e.Apply(context.Background(), &s.evs[i])
	}
	v := e.State()
	at := v.Attempt(att)
	if at == nil {
		t.Fatal("attempt not in the state")
	}
	table := capTable{caps: map[string]*[numClasses]float64{
		"n1": {}, "n2": {}, "n3": {}, "n4": {},
	}}
	table.caps["n2"][DataLocal] = math.Inf(1)
	table.caps["n3"][DataLocal] = 0.5
	table.threshold[DataLocal] = math.Inf(1)
	c := candidate{at: at, class: DataLocal, rem: 240, data: 128}
	for i := range 200 {
		order, _ := p.freeSlots(v)
		tg := p.newTargets(order, table)
		var (
			h  policy.Hint
			ok bool
		)
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("try %d: panic %v", i, r)
				}
			}()
			h, ok = p.consider(v, c, tg, 0, t0)
		}()
		if !ok || h.Node != "n3" || h.EstBackupMS != 64_000 {
			t.Fatalf("try %d: hint %+v %v, want a backup on n3 in 64 s", i, h, ok)
		}
		clear(p.holds)
	}
	// With the infinite host the only fast one, no backup is proposed.
	table.caps["n3"][DataLocal] = 0
	order, _ := p.freeSlots(v)
	if h, ok := p.consider(v, c, p.newTargets(order, table), 0, t0); ok {
		t.Fatalf("hint %+v, want none: the only target never finishes", h)
	}
}
