package actuate

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/rmsidecar/rmsidecar/policy"
)

func seqs(c Changes) []string {
	var out []string
	for _, e := range c.Hints {
		out = append(out, e.Hint.ID)
	}
	return out
}

func TestPullChanges(t *testing.T) {
	p := NewPull(4)
	deliver := func(h policy.Hint) {
		t.Helper()
		if err := p.Deliver(context.Background(), h); err != nil {
			t.Fatal(err)
		}
	}
	deliver(policy.Hint{ID: "n1", Kind: policy.KindNodeClass, Node: "nm1:8041", MapSlow: true, TS: 1})
	deliver(policy.Hint{ID: "a1", Kind: policy.KindPlace, App: "app_a", Task: "t1", TS: 2, ExpiresTS: 100})
	deliver(policy.Hint{ID: "b1", Kind: policy.KindSpeculate, App: "app_b", Task: "t9", TS: 3})
	deliver(policy.Hint{ID: "a2", Kind: policy.KindPlace, App: "app_a", Task: "t1", TS: 4, ExpiresTS: 200}) // replaces a1

	for _, tc := range []struct {
		name      string
		after     uint64
		f         HintFilter
		want      []string
		wantReset bool
	}{
		{"snapshot of everything in force, newest per target", 0, HintFilter{Now: 50}, []string{"n1", "b1", "a2"}, true},
		{"snapshot for one app keeps app-less hints", 0, HintFilter{App: "app_a", Now: 50}, []string{"n1", "a2"}, true},
		{"snapshot by kind", 0, HintFilter{Kinds: []policy.HintKind{policy.KindSpeculate}}, []string{"b1"}, true},
		{"snapshot leaves out expired hints", 0, HintFilter{App: "app_a", Now: 200}, []string{"n1"}, true},
		{"changes after a cursor, in order", 1, HintFilter{}, []string{"a1", "b1", "a2"}, false},
		{"changes for one app", 2, HintFilter{App: "app_a"}, []string{"a2"}, false},
		{"nothing new", 4, HintFilter{}, nil, false},
		{"a cursor from the future is a reset", 9, HintFilter{Now: 50}, []string{"n1", "b1", "a2"}, true},
	} {
		c := p.Changes(tc.after, tc.f)
		if got := seqs(c); !slices.Equal(got, tc.want) || c.Reset != tc.wantReset || c.Cursor != 4 {
			t.Errorf("%s: got %v reset=%v cursor=%d, want %v reset=%v cursor=4", tc.name, got, c.Reset, c.Cursor, tc.want, tc.wantReset)
		}
	}

	// The ring holds 4: after two more, a reader at cursor 1 missed seq 2
	// and gets a snapshot instead of a silent gap.
	deliver(policy.Hint{ID: "c1", Kind: policy.KindRatio, App: "app_c", MaxMaps: 1, MaxReduces: 0, TS: 5})
	deliver(policy.Hint{ID: "c2", Kind: policy.KindRatio, App: "app_c", MaxMaps: 2, MaxReduces: 0, TS: 6})
	if c := p.Changes(1, HintFilter{Now: 50}); !c.Reset || !slices.Equal(seqs(c), []string{"n1", "b1", "a2", "c2"}) {
		t.Errorf("behind the ring: %v reset=%v, want snapshot [n1 b1 a2 c2]", seqs(c), c.Reset)
	}
	if c := p.Changes(2, HintFilter{}); c.Reset || !slices.Equal(seqs(c), []string{"b1", "a2", "c1", "c2"}) {
		t.Errorf("at the ring's edge: %v reset=%v", seqs(c), c.Reset)
	}
}

func TestPullWaitWakesOnDelivery(t *testing.T) {
	p := NewPull(4)
	select {
	case <-p.Wait(0):
		t.Fatal("woke with nothing delivered")
	default:
	}
	w := p.Wait(0)
	go func() { _ = p.Deliver(context.Background(), policy.Hint{ID: "x", Kind: policy.KindKill}) }()
	select {
	case <-w:
	case <-time.After(10 * time.Second):
		t.Fatal("not woken by a delivery")
	}
	select {
	case <-p.Wait(0): // a cursor behind answers at once
	default:
		t.Fatal("a reader behind the newest hint must not wait")
	}
}

func TestPullBoundsTargets(t *testing.T) {
	p := NewPull(2) // 200 targets at most
	for i := range 1000 {
		_ = p.Deliver(context.Background(), policy.Hint{ID: "h", Kind: policy.KindPlace, App: "a", Task: string(rune('a'+i%26)) + string(rune(i)), TS: int64(i)})
	}
	if n := len(p.current); n > 200 {
		t.Fatalf("%d targets kept, want at most 200", n)
	}
}
