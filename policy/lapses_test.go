package policy

import (
	"math"
	"testing"
)

// fakeInForce is an engine's InForce with one hint in force per target.
type fakeInForce struct {
	now    int64
	ttl    int64
	others uint64
	until  map[string]int64 // target+content -> lapse
	asked  int
}

func (f *fakeInForce) Now() int64                     { return f.now }
func (f *fakeInForce) TTL(HintKind) int64             { return f.ttl }
func (f *fakeInForce) Others(HintKind, string) uint64 { return f.others }
func (f *fakeInForce) Until(target, content string) int64 {
	f.asked++
	if at, ok := f.until[target+"|"+content]; ok && at > f.now {
		return at
	}
	return math.MinInt64
}

// A lapse is asked of the engine once per span, Returned sets it for the
// TTL, another policy's emission or a new InForce forgets it, and an
// unwired Lapses records nothing.
func TestLapses(t *testing.T) {
	f := &fakeInForce{now: 1000, ttl: 500, until: map[string]int64{"q|a": 1200}}
	l := NewLapses(KindRatio)
	l.Use(f)
	l.Begin("me")
	var at Lapse
	if l.Known(at) {
		t.Fatal("a zero Lapse is known")
	}
	l.Ask(&at, "q", "a")
	if !l.Known(at) || !l.Live(at) || f.asked != 1 {
		t.Fatalf("asked: known %v live %v, %d asks; want known, live, 1", l.Known(at), l.Live(at), f.asked)
	}
	f.now = 1200
	l.Begin("me")
	if !l.Known(at) || l.Live(at) {
		t.Fatal("at 1200 a lapse of 1200 must be known and lapsed in the same span")
	}
	l.Returned(&at, 0)
	if at.At != 1700 || !l.Live(at) {
		t.Fatalf("returned at 1200 with TTL 500: lapse %d, want 1700 and live", at.At)
	}
	f.others++ // another policy emitted the kind: a new span
	l.Begin("me")
	if l.Known(at) {
		t.Fatal("a lapse is still known after another policy's emission")
	}
	l.Returned(&at, 0)
	l.Use(f)
	l.Begin("me")
	if l.Known(at) {
		t.Fatal("a lapse is still known after a new InForce")
	}
	off := NewLapses(KindRatio)
	off.Use(nil)
	off.Begin("me")
	var z Lapse
	if off.Wired() {
		t.Fatal("a nil InForce is wired")
	}
	off.Returned(&z, 0)
	if z != (Lapse{}) {
		t.Fatalf("unwired Returned recorded %+v", z)
	}
}
