package cluster

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// sliceAdd is State.addSample as it was on a []LoadSample: the reference
// the ring must match.
func sliceAdd(h []LoadSample, smp LoadSample, limit int) ([]LoadSample, bool) {
	if k := len(h); k >= limit && h[k-1].TS < smp.TS {
		h = slices.Clone(h[k-limit:])
		copy(h, h[1:])
		h[len(h)-1] = smp
		return h, true
	}
	if k := len(h); k == 0 || h[k-1].TS < smp.TS {
		h = append(h, smp)
	} else {
		i := sort.Search(len(h), func(i int) bool { return h[i].TS >= smp.TS })
		if h[i].TS == smp.TS {
			return h, false
		}
		if len(h) >= limit && i == 0 {
			return h, false
		}
		h = slices.Insert(h, i, smp)
	}
	if len(h) > limit {
		h = h[len(h)-limit:]
	}
	return h, true
}

// sameSamples compares by bits, so NaN and -0 count.
func sameSamples(t *testing.T, step int, got History, want []LoadSample) {
	t.Helper()
	if got.Len() != len(want) {
		t.Fatalf("step %d: len %d, want %d", step, got.Len(), len(want))
	}
	for i, w := range want {
		g := got.At(i)
		if g.TS != w.TS || got.TS(i) != w.TS || math.Float64bits(g.Load1) != math.Float64bits(w.Load1) ||
			math.Float64bits(g.CPUUtil) != math.Float64bits(w.CPUUtil) {
			t.Fatalf("step %d: sample %d = %+v, want %+v", step, i, g, w)
		}
	}
	for _, ts := range []int64{math.MinInt64, -1, 0, 5} {
		if len(want) > 0 {
			ts = want[len(want)/2].TS + ts%3
		}
		wi := sort.Search(len(want), func(i int) bool { return want[i].TS >= ts })
		if gi := got.Search(ts); gi != wi {
			t.Fatalf("step %d: Search(%d) = %d, want %d", step, ts, gi, wi)
		}
	}
}

// value draws a load value: from a few (compact rings), from many (wide
// rings), and the values a comparison by == gets wrong.
func value(r *rand.Rand, many bool) float64 {
	if many {
		return r.Float64() * 100
	}
	switch r.IntN(20) {
	case 0:
		return math.NaN()
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return math.Inf(1)
	case 3:
		return 1.0 / 3
	}
	return float64(r.IntN(6)) / 4
}

// floatText is v as the bridge's loads are: a float32 printed shortest (as
// Java prints YARN's nodeCPUUsage) and parsed as a float64.
func floatText(v float64) float64 {
	f, err := strconv.ParseFloat(strconv.FormatFloat(float64(float32(v)), 'g', -1, 32), 64)
	if err != nil {
		panic(err)
	}
	return f
}

// TestHistoryMatchesSlice adds random samples, mostly in time order, some
// out of order or repeated, with phases of few and of many distinct values
// (many short decimals, now and then another value, in two of them),
// to a History and to the []LoadSample it replaces, and compares every
// sample, Search and the reported change after each add.
func TestHistoryMatchesSlice(t *testing.T) {
	for _, limit := range []int{1, 2, 3, 7, 64, 130} {
		r := rand.New(rand.NewPCG(uint64(limit), 7))
		var h History
		var ref []LoadSample
		ts := int64(r.IntN(1000))
		for step := range 10500 {
			many := (step/500)%3 == 1 // phases: few values, many, few
			switch k := r.IntN(100); {
			case k < 80:
				ts += int64(1 + r.IntN(2000))
			case k < 82:
				ts += 1 << 32 // past a compact ring's offsets
			}
			at := ts
			if r.IntN(10) == 0 {
				at -= int64(r.IntN(limit*2000 + 1)) // out of order or a repeat
			}
			smp := LoadSample{TS: at, Load1: value(r, many), CPUUtil: value(r, many)}
			switch phase := (step / 500) % 7; {
			case phase == 3 && r.IntN(100) > 0: // narrow, CPUUtil as float64
				smp.Load1 = floatText(r.Float64() * 40)
			case phase == 5 && r.IntN(100) > 0: // narrow, both as codes
				smp.Load1, smp.CPUUtil = floatText(r.Float64()*40), floatText(r.Float64())
			case phase == 6 && r.IntN(100) > 0: // narrow, CPUUtil derived (the bridge's)
				smp.Load1 = floatText(r.Float64() * 40)
				smp.CPUUtil = utilOf(smp.Load1, 32)
			}
			var want bool
			ref, want = sliceAdd(ref, smp, limit)
			if got := h.add(smp, limit); got != want {
				t.Fatalf("limit %d step %d: add(%+v) = %v, want %v", limit, step, smp, got, want)
			}
			sameSamples(t, step, h, ref)
		}
	}
}

// TestHistoryRingModes checks the layout the ring picks: compact for few
// values, wide for many, narrow for many short decimals (CPUUtil as float64
// when it is not one), compact again when the values settle, never a
// palette index past 255.
func TestHistoryRingModes(t *testing.T) {
	var h History
	util := func(v float64) float64 { return v / 2 }
	add := func(from, n int, v func(i int) float64) {
		for i := from; i < from+n; i++ {
			h.add(LoadSample{TS: int64(i) * 1000, Load1: v(i), CPUUtil: util(v(i))}, 200)
		}
	}
	add(0, 500, func(i int) float64 { return float64(i % 4) })
	if h.r.wide != nil || len(h.r.pal) > 8 {
		t.Fatalf("few values: wide %v, palette %d", h.r.wide != nil, len(h.r.pal))
	}
	add(500, 500, func(i int) float64 { return float64(i) / 3 })
	if h.r.wide == nil {
		t.Fatal("many values: want a wide ring")
	}
	util = func(v float64) float64 { return v * v / 7 }
	add(1000, 500, func(i int) float64 { return floatText(float64(i%100) / 7) })
	if h.r.wide != nil || h.r.idx != nil || len(h.r.pal) != 200 || len(h.r.off) != 400 {
		t.Fatal("many short decimals, CPUUtil other values: want a narrow ring, CPUUtil as float64")
	}
	util = func(v float64) float64 { return utilOf(v, 3) } // the bridge's busy/vcores
	add(1500, 500, func(i int) float64 { return floatText(float64(i%100) / 7) })
	if h.r.wide != nil || h.r.idx != nil || len(h.r.pal) != 1 || h.r.pal[0] != 3 || len(h.r.off) != 400 {
		t.Fatal("many short decimals, CPUUtil their share of 3: want a narrow ring, CPUUtil derived")
	}
	util = func(v float64) float64 { return v / 2 }
	add(2000, 500, func(i int) float64 { return float64(i) / 4 })
	if h.r.wide != nil || h.r.idx != nil || h.r.pal != nil || len(h.r.off) != 600 {
		t.Fatal("many short decimals and halves: want a narrow ring of codes")
	}
	add(2500, 500, func(i int) float64 { return float64(i) / 3 })
	if h.r.wide == nil {
		t.Fatal("many values again: want a wide ring")
	}
	add(3000, 1000, func(int) float64 { return 3 })
	if h.r.wide != nil {
		t.Fatal("values settled: want a compact ring again")
	}
}

// TestHistoryCloneAndJSON: clones of equal histories are deeply equal
// whatever their rings went through, and the JSON is the slice's.
func TestHistoryCloneAndJSON(t *testing.T) {
	var a, b History
	for i := range 300 {
		a.add(LoadSample{TS: int64(i), Load1: float64(i % 50), CPUUtil: 0.5}, 64)
	}
	for i := 299; i >= 200; i-- { // newest first: every add but the first is out of order
		b.add(LoadSample{TS: int64(i), Load1: float64(i % 50), CPUUtil: 0.5}, 64)
	}
	if !reflect.DeepEqual(a.Samples(), b.Samples()) {
		t.Fatal("the two histories should hold the same samples")
	}
	if !reflect.DeepEqual(a.Clone(), b.Clone()) {
		t.Error("clones of equal histories differ")
	}
	c := a.Clone()
	a.add(LoadSample{TS: 1000}, 64)
	if c.Len() != 64 || c.At(63).TS != 299 {
		t.Error("a clone changed with its original")
	}
	got, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(b.Samples())
	if string(got) != string(want) {
		t.Errorf("json %s, want %s", got, want)
	}
	var back History
	if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back.Samples(), b.Samples()) {
		t.Errorf("round trip: %v", err)
	}
	type node struct {
		H History `json:"history,omitzero"`
	}
	if out, _ := json.Marshal(node{}); string(out) != "{}" {
		t.Errorf("empty history: %s, want it left out", out)
	}
}

// TestDecCode: a decimal code, when there is one, decodes to the value's
// exact bits; every float32 printed shortest has one; negative values, -0,
// NaN and infinities have none.
func TestDecCode(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for range 200_000 {
		v := math.Float64frombits(r.Uint64())
		switch r.IntN(3) {
		case 0:
			v = r.Float64() * math.Pow(10, float64(r.IntN(12)-6))
		case 1:
			v = floatText(r.Float64() * math.Pow(10, float64(r.IntN(6)-2)))
			if c, ok := decCode(v); !ok || math.Float64bits(decValue(c)) != math.Float64bits(v) {
				t.Fatalf("decCode(%v) = %#x, %v: want a code of the same bits", v, c, ok)
			}
		}
		if c, ok := decCode(v); ok && math.Float64bits(decValue(c)) != math.Float64bits(v) {
			t.Fatalf("decCode(%v) = %#x decodes to %v", v, c, decValue(c))
		}
	}
	for _, v := range []float64{-1, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1 << 28, 1.0 / 3} {
		if c, ok := decCode(v); ok {
			t.Errorf("decCode(%v) = %#x, want none", v, c)
		}
	}
	for _, v := range []float64{0, 1, 0.1, 0.25, 3.7456734, 99999999, 2.68435455} {
		if _, ok := decCode(v); !ok {
			t.Errorf("decCode(%v): want a code", v)
		}
	}
}

// TestHistoryOfKeepsAnyOrder: a history read from a hand-made checkpoint,
// out of time order or with repeated times, reads back as it was.
func TestHistoryOfKeepsAnyOrder(t *testing.T) {
	in := []LoadSample{{TS: 5, Load1: 1}, {TS: 3, Load1: 2}, {TS: 3, CPUUtil: 1}, {TS: math.MinInt64}, {TS: math.MaxInt64}}
	for n := range len(in) + 1 {
		sameSamples(t, n, HistoryOf(in[:n]...), in[:n])
	}
}

// TestCheckpointForSave: CheckpointForSave is Checkpoint with the
// histories compact: filled, it equals Checkpoint; each node WithSamples
// writes Checkpoint's JSON; it restores to the same state; and it shares no
// ring with the state.
func TestCheckpointForSave(t *testing.T) {
	evs := readLog(t, sampleLog)
	s := build(evs)
	for i := range 100 { // many samples, few and many values
		ev := events.Event{ID: "x" + strconv.Itoa(i), Type: events.NodeHeartbeat, TS: s.Now() + int64(i)*1000,
			Node: s.Nodes()[i%len(s.Nodes())].ID, Load1: float64(i % 3), CPUUtil: float64(i) / 7}
		s.Apply(&ev)
	}
	want := s.Checkpoint()
	got := s.CheckpointForSave()
	var tmp NodeCk
	var buf []LoadSample
	for i := range got.Nodes {
		nc, b := got.Nodes[i].WithSamples(&tmp, buf)
		buf = b
		gj, err := json.Marshal(nc)
		if err != nil {
			t.Fatal(err)
		}
		wj, _ := json.Marshal(&want.Nodes[i])
		if string(gj) != string(wj) {
			t.Fatalf("node %d json\n got %s\nwant %s", i, gj, wj)
		}
	}
	restored, err := Restore(got)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := snapshotJSON(t, restored), snapshotJSON(t, s); g != w {
		t.Fatalf("restored snapshot differs\n got %s\nwant %s", g, w)
	}
	before := s.Nodes()[0].History.Samples()
	ev := events.Event{ID: "y", Type: events.NodeHeartbeat, TS: s.Now() + 1e6, Node: s.Nodes()[0].ID, Load1: 99}
	s.Apply(&ev)
	if !reflect.DeepEqual(got.Nodes[0].Node.History.Samples(), before) {
		t.Error("the checkpoint's history changed with the state")
	}
	got.FillHistories()
	if !reflect.DeepEqual(got, want) {
		t.Error("filled, CheckpointForSave differs from Checkpoint")
	}
}
