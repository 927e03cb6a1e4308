package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/policy"
)

// randomBinder returns random hints from a small pool (so repeats, changed
// contents and lapsed hints all occur) and asks its InForce about each one
// before returning it.
type randomBinder struct {
	name   string
	rng    *rand.Rand
	f      policy.InForce
	asked  []bool        // last call: InForce's answer per hint returned
	ret    []policy.Hint // last call: the hints returned
	others uint64        // last call: Others(place, name)
	now    int64
}

func (b *randomBinder) Name() string                { return b.name }
func (b *randomBinder) UseInForce(f policy.InForce) { b.f = f }
func (b *randomBinder) Bind(context.Context, cluster.View) ([]policy.Hint, *policy.Status) {
	var hs []policy.Hint
	b.asked = b.asked[:0]
	b.now, b.others = b.f.Now(), b.f.Others(policy.KindPlace, b.name)
	for range b.rng.IntN(6) {
		h := policy.Hint{Kind: policy.KindPlace, App: "a1", Task: fmt.Sprint("t", b.rng.IntN(4)),
			Nodes: []policy.NodeScore{{Node: fmt.Sprint("n", b.rng.IntN(2)), Score: 1}}}
		if b.rng.IntN(3) == 0 {
			h = policy.Hint{Kind: policy.KindReduceBinding, App: "a1", Partition: b.rng.IntN(3), Node: fmt.Sprint("n", b.rng.IntN(2))}
		}
		dup := false
		for _, o := range hs {
			dup = dup || o.Kind == h.Kind && o.Task == h.Task && o.Partition == h.Partition
		}
		if dup {
			continue // one hint per target in a call, as the plugins return them
		}
		target := string(policy.AppendTarget(nil, &h))
		until := b.f.Until(target, string(policy.AppendContent(nil, &h)))
		if until != math.MinInt64 && until <= b.now {
			panic(fmt.Sprintf("Until %d not after Now %d", until, b.now))
		}
		b.asked = append(b.asked, until > b.now)
		hs = append(hs, h)
	}
	b.ret = append(b.ret[:0], hs...)
	return hs, nil
}

// Two binders returning random repeats at random times, some past the
// TTLs: a hint InForce reports in force is exactly one the engine drops as
// a repeat, Now is the tick's time, and Others counts the other binder's
// emitted hints of the kind.
func TestInForceIsEmitsTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	ctx := context.Background()
	for iter := range 50 {
		a := &randomBinder{name: "a", rng: rand.New(rand.NewPCG(uint64(iter), 1))}
		b := &randomBinder{name: "b", rng: rand.New(rand.NewPCG(uint64(iter), 2))}
		e := New(policy.NewStack(a, b), Options{TTL: map[policy.HintKind]int64{policy.KindPlace: 5000, policy.KindReduceBinding: 20_000}})
		if a.f == nil || b.f == nil {
			t.Fatal("engine.New gave a plugin no InForce")
		}
		now := int64(1000)
		for step := range 200 {
			now += 1000 * int64(1+rng.IntN(4))
			before := e.Stats()
			out := e.Tick(ctx, now)
			if a.now != now || b.now != now {
				t.Fatalf("instance %d step %d: Now %d, %d, want %d", iter, step, a.now, b.now, now)
			}
			if want := before.Hints["b/place"]; a.others != want {
				t.Fatalf("instance %d step %d: Others(place, a) = %d, want %d", iter, step, a.others, want)
			}
			// The hints out are those InForce did not report, in order.
			var want []policy.Hint
			for _, bd := range []*randomBinder{a, b} {
				for k, in := range bd.asked {
					if !in {
						want = append(want, bd.ret[k])
					}
				}
			}
			if len(out) != len(want) {
				t.Fatalf("instance %d step %d: %d hints emitted, InForce reported %d not in force", iter, step, len(out), len(want))
			}
			for k := range out {
				if w := want[k]; out[k].Kind != w.Kind || out[k].Task != w.Task || out[k].Partition != w.Partition || out[k].Content() != w.Content() {
					t.Fatalf("instance %d step %d: emitted %+v, want %+v", iter, step, out[k], w)
				}
			}
			emitted, asked := len(want), len(a.asked)+len(b.asked)
			if got := e.Stats().Suppressed - before.Suppressed; int(got) != asked-emitted {
				t.Fatalf("instance %d step %d: %d suppressed, InForce reported %d in force", iter, step, got, asked-emitted)
			}
		}
	}
}
