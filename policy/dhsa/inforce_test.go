package dhsa

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
)

// otherShaper emits, at some calls, ratio hints for DHSA's targets under
// another name: a copy of one DHSA's hints the engine emitted (same target
// and content, so it moves that hint's lapse) or one with other caps.
type otherShaper struct {
	rng  *rand.Rand
	seen []policy.Hint // DHSA's ratio hints the engine emitted
}

func (o *otherShaper) Name() string                  { return "other" }
func (o *otherShaper) ShapeOn(ev *events.Event) bool { return o.rng.IntN(40) == 0 }

func (o *otherShaper) Shape(context.Context, cluster.View) ([]policy.Hint, *policy.Status) {
	if len(o.seen) == 0 || o.rng.IntN(2) == 0 {
		return nil, nil
	}
	h := o.seen[o.rng.IntN(len(o.seen))]
	h.Policy, h.ID, h.TS, h.ExpiresTS, h.Reason = "", "", 0, 0, "other"
	if o.rng.IntN(2) == 0 {
		h.MaxMaps++
	}
	return []policy.Hint{h}, nil
}

// inForceRun is one engine of TestInForceSameEmitted: DHSA with or without
// the engine's InForce, and maybe another shaper.
type inForceRun struct {
	e     *engine.Engine
	other *otherShaper
}

func newInForceRun(t *testing.T, name string, cfg Config, wired bool, other, otherFirst bool, seed uint64, ttl int64) inForceRun {
	t.Helper()
	p, err := New(name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := inForceRun{}
	var o policy.Plugin
	if other {
		r.other = &otherShaper{rng: rand.New(rand.NewPCG(seed, 9))}
		o = r.other
	}
	opts := engine.Options{State: cluster.New(cluster.WithRetention(cluster.Retention{AfterMS: 1}))}
	if ttl > 0 {
		opts.TTL = map[policy.HintKind]int64{policy.KindRatio: ttl}
	}
	r.e = clustertest.InForceEngine(p, o, otherFirst, wired, opts)
	return r
}

// out copies the hints an Apply or Tick returned (valid until the next
// call) and shows the other shaper DHSA's ratio hints.
func (r inForceRun) out(hs []policy.Hint) []policy.Hint {
	c := slices.Clone(hs)
	for i := range c {
		if r.other != nil && c[i].Policy != "other" {
			r.other.seen = append(r.other.seen, c[i])
		}
	}
	return c
}

// Random event streams (shapeWorld: nodes of three sizes come, go and come
// back, apps in many queues submit, run and end tasks; explicit ticks;
// ratio TTLs of 60 s and 5 s; refreshes every 30 s and 5 s; scope queue
// and app; another shaper
// re-emitting or overwriting DHSA's queue and node hints before or after
// it): the engine emits the same hints, ids, times and reasons included,
// whether DHSA leaves out the hints the engine has in force
// (policy.InForce) or returns every one, and drops fewer repeats.
func TestInForceSameEmitted(t *testing.T) {
	ctx := context.Background()
	var repeats clustertest.Repeats
	for iter := range 30 {
		name := NamePI
		if iter%2 == 1 {
			name = NamePD
		}
		cfg := DefaultConfig()
		if iter%3 == 1 {
			cfg.NodeCapsRefresh = 5 * time.Second
		}
		if iter%8 == 5 {
			cfg.Pools = map[string]float64{"a": 3, "default": 2}
			cfg.MapSlots, cfg.ReduceSlots = 2, 1
		}
		if iter%6 == 4 {
			cfg.Scope = ScopeApp // node hints left out, app hints all returned
		}
		var ttl int64
		if iter%5 >= 3 {
			ttl = 5000
		}
		other, otherFirst := iter%4 >= 2, iter%8 >= 6
		seed := uint64(iter)
		runs := [2]inForceRun{newInForceRun(t, name, cfg, true, other, otherFirst, seed, ttl),
			newInForceRun(t, name, cfg, false, other, otherFirst, seed, ttl)}
		w := newShapeWorld(seed, true)
		for i := range 2500 {
			from := len(w.b.Log)
			_, ok := w.step()
			if i == 0 {
				from = 0 // the first nodes
			}
			tick := !ok || w.r.IntN(50) == 0
			var got [2][]policy.Hint
			for k, r := range runs {
				for j := from; j < len(w.b.Log); j++ {
					ev := w.b.Log[j]
					got[k] = append(got[k], r.out(r.e.Apply(ctx, &ev))...)
				}
				if tick {
					got[k] = append(got[k], r.out(r.e.Tick(ctx, w.b.Now()))...)
				}
			}
			if !reflect.DeepEqual(got[0], got[1]) {
				t.Fatalf("instance %d (%s, other %v first %v, ttl %d), step %d: with InForce\n%+v\nwithout\n%+v",
					iter, name, other, otherFirst, ttl, i, got[0], got[1])
			}
		}
		repeats.Add(t, iter, runs[0].e, runs[1].e)
		if h := runs[0].e.Stats().Hints; h[fmt.Sprintf("%s/%s", name, policy.KindRatio)] == 0 {
			t.Fatalf("instance %d: no ratio hints emitted: %v", iter, h)
		}
	}
	repeats.Check(t)
}
