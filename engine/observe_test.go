package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// recorder is an observer that logs the events it sees, panicking on those
// whose id is in panics.
type recorder struct {
	name   string
	panics map[string]bool
	log    *[]string
}

func (r *recorder) Name() string { return r.name }
func (r *recorder) Observe(_ context.Context, ev *events.Event, _ cluster.View) {
	*r.log = append(*r.log, r.name+":"+ev.ID)
	if r.panics[ev.ID] {
		panic("observer bug on " + ev.ID)
	}
}

// TestObserveFromSameAsGuardEach holds Apply's observer loop (observeFrom,
// one recover for all) to a guard per observer: every observer sees every
// changed event in stack order, the ones after a panicking observer
// included, and each panic is counted to its observer. Random panics over
// five observers, twenty seeds.
func TestObserveFromSameAsGuardEach(t *testing.T) {
	for seed := range 20 {
		var got, want []string
		wantPanics := map[string]uint64{}
		var stack []policy.Plugin
		for k := range 5 {
			r := &recorder{name: fmt.Sprintf("o%d", k), panics: map[string]bool{}, log: &got}
			for i := range 3 {
				if (seed*7+k*3+i)%4 == 0 {
					r.panics[fmt.Sprint(i+1)] = true
				}
			}
			stack = append(stack, r)
		}
		e := New(policy.NewStack(stack...), Options{})
		evs := running()
		apply(t, e, evs)
		// The straightforward loop: each observer under its own recover.
		for i := range evs {
			for _, p := range stack {
				r := p.(*recorder)
				want = append(want, r.name+":"+evs[i].ID)
				if r.panics[evs[i].ID] {
					wantPanics[r.name]++
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("seed %d: observers saw\n%v\nwant\n%v", seed, got, want)
		}
		for _, p := range stack {
			if n := e.Stats().Panics[p.Name()]; n != wantPanics[p.Name()] {
				t.Fatalf("seed %d: %s panicked %d times, counted %d", seed, p.Name(), wantPanics[p.Name()], n)
			}
		}
	}
}
