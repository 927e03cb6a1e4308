package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// startFlow starts a fetch of bytes over links at time 0.
func startFlow(nw *network, bytes int64, links ...int32) int32 {
	var l [4]int32
	copy(l[:], links)
	return nw.start(0, &attempt{}, false, bytes, l, len(links))
}

// Processor sharing on one link: two flows share it equally until the
// smaller one ends, then the other gets the whole link.
func TestLinkProcessorSharing(t *testing.T) {
	const gbps = 1.0
	capB := gbps * 1e9 / 8 / 1000 // bytes per ms
	for _, tc := range []struct {
		name  string
		sizes []int64 // flows started at t=0 on the same link
		want  []int64 // completion times, ms
	}{
		{"alone", []int64{125_000_000}, []int64{1000}},
		{"equal pair", []int64{125_000_000, 125_000_000}, []int64{2000, 2000}},
		{"small then large", []int64{125_000_000, 250_000_000}, []int64{2000, 3000}},
		{"three", []int64{125_000_000, 125_000_000, 250_000_000}, []int64{3000, 3000, 4000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nw := &network{links: []link{{capB: capB, at: -1}}}
			ids := make([]int32, len(tc.sizes))
			for i, b := range tc.sizes {
				ids[i] = startFlow(nw, b, 0)
			}
			done := map[int32]int64{}
			l := &nw.links[0]
			for l.members > 0 {
				at := nw.nextDone(l)
				for {
					id := nw.due(l, at)
					if id < 0 {
						break
					}
					done[id] = at
					nw.finish(at, id)
				}
			}
			for i, id := range ids {
				if got := done[id]; got != tc.want[i] {
					t.Errorf("flow %d (%d bytes) done at %d ms, want %d", i, tc.sizes[i], got, tc.want[i])
				}
			}
		})
	}
}

// Equal share per link: a fetch into a node that already receives two
// flows gets a third of that NIC even though its sender is idle, and the
// receiver's NIC is never oversubscribed.
func TestFlowBottleneck(t *testing.T) {
	capB := 1e9 / 8 / 1000
	nw := &network{links: []link{{capB: capB, at: -1}, {capB: capB, at: -1}, {capB: capB, at: -1}}}
	// links: 0 = receiver NIC in, 1 = busy sender out, 2 = idle sender out
	startFlow(nw, 1<<40, 1, 0)
	startFlow(nw, 1<<40, 1, 0)
	id := startFlow(nw, 125_000_000, 2, 0)
	if f := nw.flows[id]; f.serving() != 0 {
		t.Fatalf("served by link %d, want the receiver's NIC (0)", f.serving())
	}
	l := &nw.links[0]
	if got := nw.nextDone(l); got != 3000 {
		t.Fatalf("done at %d ms, want 3000 (a third of the NIC)", got)
	}
	// When one of the other flows ends at 1.5 s, the share rises to a half.
	var other int32
	for i := range nw.flows {
		if int32(i) != id && nw.flows[i].att != nil {
			other = int32(i)
			break
		}
	}
	nw.finish(1500, other)
	// 62.5 MB served by 1.5 s at C/3; the other 62.5 MB at C/2 takes 1 s.
	if got := nw.nextDone(l); got != 2500 {
		t.Fatalf("done at %d ms after the share grew, want 2500", got)
	}
	nw.finish(2500, id)
	if l.traverse != 1 || l.members != 0 {
		t.Fatalf("after finish: traverse %d members %d", l.traverse, l.members)
	}
}

// With rack_fetch_pairs below a job's maps x reduces, reducers fetch per
// source rack: fewer fetches, the same bytes.
func TestRackFetch(t *testing.T) {
	perNode := runSim(t, mustParse(t, heteroYAML), "none", Options{Registry: testRegistry()})
	grouped := mustParse(t, heteroYAML)
	grouped.Cluster.Network.RackFetchPairs = 1
	perRack := runSim(t, grouped, "none", Options{Registry: testRegistry()})
	for i, j := range perRack.jobs {
		if !j.rackFetch || perNode.jobs[i].rackFetch {
			t.Fatalf("%s: rackFetch %v per rack, %v per node", j.id, j.rackFetch, perNode.jobs[i].rackFetch)
		}
		if j.produced != j.shuffled || j.produced != perNode.jobs[i].produced {
			t.Errorf("%s: produced %d, fetched %d (per node: %d)", j.id, j.produced, j.shuffled, perNode.jobs[i].produced)
		}
	}
	if a, b := perRack.m.byKind[evLinkDone], perNode.m.byKind[evLinkDone]; a >= b {
		t.Errorf("per-rack fetching took %d link events, per node %d", a, b)
	}
}

// A fetch index, hashed or dense, finds a source's latest entry in a fetch
// list as a map does, through reuse across lists, and only while that entry
// is still listed (at or after the list's head, which moves as fetches
// start).
func TestFetchIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dense := range []bool{false, true} {
		x := &fetchIndex{}
		if dense {
			x.dense = make([]int32, 300)
		}
		for list := range 50 {
			ref := map[int32]int32{}
			var q []pendFetch
			head := 0
			for range rng.IntN(2000) {
				if head < len(q) && rng.IntN(3) == 0 {
					head += 1 + rng.IntN(len(q)-head)
				}
				src := int32(rng.IntN(300))
				i, ok := x.lookup(src, q, head)
				ri, rok := ref[src]
				rok = rok && int(ri) >= head
				if ok != rok || ok && i != ri {
					t.Fatalf("dense %v list %d: lookup(%d) = %d, %v; want %d, %v", dense, list, src, i, ok, ri, rok)
				}
				if !ok || rng.IntN(4) == 0 {
					x.set(src, int32(len(q)))
					ref[src] = int32(len(q))
					q = append(q, pendFetch{src: src})
				}
			}
			x.reset()
		}
	}
}

// A link's cached head tag is its list's first tag through random inserts
// (often at the head or tied) and removals of the head or of any entry,
// and the list stays sorted by (tag, id) as a plain sort orders it.
func TestLinkHeadTag(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		l := &link{}
		var ref []hent
		id := int32(0)
		for step := range 500 {
			if len(ref) > 0 && rng.IntN(5) < 2 {
				k := 0
				if rng.IntN(3) == 0 {
					k = rng.IntN(len(ref)) // a cancelled fetch
				}
				remove(l, ref[k].id)
				ref = slices.Delete(ref, k, k+1)
			} else {
				e := hent{tag: float64(rng.IntN(50)), id: id}
				id++
				insert(l, e)
				ref = append(ref, e)
				slices.SortFunc(ref, func(a, b hent) int {
					if a.less(b) {
						return -1
					}
					return 1
				})
			}
			if got := l.tags[l.head:]; !slices.Equal(got, ref) {
				t.Fatalf("round %d step %d: list %v, want %v", round, step, got, ref)
			}
			if len(ref) > 0 && l.headTag != ref[0].tag {
				t.Fatalf("round %d step %d: head tag %v, want %v", round, step, l.headTag, ref[0].tag)
			}
		}
	}
}

// notBefore, the multiplication that spares most reschedules nextDone's
// division, never claims a completion at or after a time the division puts
// before it: random link states, with times at and around the exact
// answer, where rounding would show.
func TestNotBeforeAgreesWithNextDone(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	caps := []float64{1e9 / 8 / 1000, 10e9 / 8 / 1000, 40e9 / 8 / 1000, 3.3e9 / 8 / 1000}
	nw := &network{}
	yes, due := 0, 0 // due: yes at nextDone itself
	for range 200_000 {
		l := newLink(caps[rng.IntN(len(caps))])
		l.members = 1 + rng.IntN(8)
		l.traverse = l.members + rng.IntN(8)
		l.vAt = rng.Int64N(1 << 40)
		l.v = rng.Float64() * math.Pow(10, float64(rng.IntN(13)))
		l.headTag = l.v + (rng.Float64()-0.1)*math.Pow(10, float64(rng.IntN(12)))
		l.tags = []hent{{tag: l.headTag}}
		want := nw.nextDone(&l)
		for _, at := range []int64{want - 2, want - 1, want, want + 1, want + 2, l.vAt, l.vAt + 1, l.vAt + rng.Int64N(1<<20)} {
			if nw.notBefore(&l, at) {
				yes++
				if at == want && at > l.vAt {
					due++
				}
				if want >= 0 && want < at {
					t.Fatalf("link %+v: notBefore(%d) but nextDone = %d", l, at, want)
				}
			}
		}
	}
	if yes == 0 || due == 0 {
		t.Fatalf("notBefore answered %d times, %d at nextDone", yes, due)
	}
}

// start serves a flow at the first of its links of least share capB /
// traverse, as the division-per-link choice it replaced: random links of
// few capacities (ties of capacity and of share are common) and loads.
func TestStartServesLeastShare(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	caps := []float64{125_000, 125_000, 1_250_000, 250_000, 62_500, 1e9 / 8 / 1000 / 3}
	for range 50_000 {
		nw := &network{}
		n := 1 + rng.IntN(4)
		links := make([]int32, n)
		for i := range n {
			l := newLink(caps[rng.IntN(len(caps))])
			l.traverse = rng.IntN(12)
			if rng.IntN(3) == 0 {
				l.traverse = 4 * rng.IntN(3) // equal shares across capacities
			}
			nw.links = append(nw.links, l)
			links[i] = int32(i)
		}
		want, bestShare := int32(-1), math.Inf(1)
		for _, li := range links {
			l := nw.links[li]
			if share := l.capB / float64(l.traverse+1); share < bestShare {
				want, bestShare = li, share
			}
		}
		id := startFlow(nw, 1000, links...)
		if got := nw.flows[id].serving(); got != want {
			t.Fatalf("links %+v: served by %d, want %d", nw.links, got, want)
		}
	}
}

// An attempt's fetches in flight (flowBuf, then flowMore past its size)
// keep the order and contents of a plain slice under random starts and
// ends, up to more than flowBuf holds (ParallelCopies above its default).
func TestFlowListSameAsSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 3))
	for trial := range 2000 {
		var a attempt
		var ref []int32
		limit := 1 + rng.IntN(3*DefaultParallelCopies)
		next := int32(0)
		for range 200 {
			if len(ref) < limit && (len(ref) == 0 || rng.IntN(2) == 0) {
				a.addFlow(next)
				ref = append(ref, next)
				next++
			} else {
				i := rng.IntN(len(ref))
				a.removeFlow(ref[i])
				ref = slices.Delete(ref, i, i+1)
			}
			if !slices.Equal(a.inFlight(), ref) || a.nFlight() != len(ref) {
				t.Fatalf("trial %d (limit %d): in flight %v (%d), want %v", trial, limit, a.inFlight(), a.nFlight(), ref)
			}
		}
	}
}

// rescheduleLinks does what reschedule does link by link, in order, but
// the skipped link: random link states (with and without a pending event,
// empty links) give the same links and the same queued events.
func TestRescheduleLinksSameAsEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	pushed := 0
	for trial := range 20_000 {
		base := make([]link, 6)
		for i := range base {
			l := newLink(float64(1 + rng.IntN(3)*1000))
			if rng.IntN(4) > 0 {
				l.members = 1 + rng.IntN(4)
				l.traverse = l.members + rng.IntN(4)
				l.v = float64(rng.IntN(1e6))
				l.vAt = rng.Int64N(1000)
				l.headTag = l.v + float64(rng.IntN(1e7))
			}
			if rng.IntN(2) == 0 {
				l.at, l.ver = rng.Int64N(20_000), uint32(rng.IntN(5))
			}
			base[i] = l
		}
		var links [4]int32
		nl := 1 + rng.IntN(4)
		for k, li := range rng.Perm(len(base))[:nl] {
			links[k] = int32(li)
		}
		skip := int32(-1)
		if rng.IntN(2) == 0 {
			skip = links[rng.IntN(nl)]
		}
		run := func(each bool) ([]link, []item) {
			s := &sim{now: 500}
			s.net.links = slices.Clone(base)
			if each {
				for _, li := range links[:nl] {
					if li != skip {
						s.reschedule(li)
					}
				}
			} else {
				s.rescheduleLinks(links, int8(nl), skip)
			}
			var q []item
			for s.q.len() > 0 {
				q = append(q, s.q.pop())
			}
			return s.net.links, q
		}
		wantL, wantQ := run(true)
		gotL, gotQ := run(false)
		pushed += len(wantQ)
		if !slices.EqualFunc(gotL, wantL, func(a, b link) bool { return a.at == b.at && a.ver == b.ver }) || !slices.Equal(gotQ, wantQ) {
			t.Fatalf("trial %d: links %v skip %d: queued %v, want %v", trial, links[:nl], skip, gotQ, wantQ)
		}
	}
	if pushed == 0 {
		t.Fatal("no completion event queued: the test does not exercise rescheduleDue")
	}
	t.Logf("%d completion events queued", pushed)
}
