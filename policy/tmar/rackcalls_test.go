package tmar

import (
	"math"
	"math/rand"
	"testing"
)

// rackTransferTimeRef is rackTransferTimeAt as it was, through the
// interface (TestRackCallsSameAsInterface).
func rackTransferTimeRef(to int, atTo int64, rs rackSums, net RackNetwork) float64 {
	r := net.RackOf(to)
	same := rs.rack(r) - atTo
	if r < 0 {
		same = 0
	}
	cross := rs.total - atTo - same
	if same <= 0 && cross <= 0 {
		return 0
	}
	if net.InRack() <= 0 || net.CrossRack() <= 0 {
		return math.Inf(1)
	}
	return net.Latency(-1, to) + float64(same)/net.InRack() + float64(cross)/net.CrossRack()
}

// otherRackNet is a RackNetwork that is not a rackNet, so rackCalls reads
// it through the interface.
type otherRackNet struct{ n rackNet }

func (o otherRackNet) Bandwidth(a, b int) float64 { return o.n.Bandwidth(a, b) }
func (o otherRackNet) Latency(a, b int) float64   { return o.n.Latency(a, b) }
func (o otherRackNet) RackOf(m int) int           { return o.n.RackOf(m) }
func (o otherRackNet) InRack() float64            { return o.n.in }
func (o otherRackNet) CrossRack() float64         { return o.n.cross }

// bandwidthRef is rackNet.Bandwidth as it was: rack names compared.
func bandwidthRef(n rackNet, a, b int) float64 {
	if a >= 0 && b >= 0 && n.racks[a] == n.racks[b] {
		return n.in
	}
	return n.cross
}

// remoteInRef is remoteIn as it was, every bandwidth through the interface.
func remoteInRef(to int, srcs []int, xs []float64, net Network) (total, worst float64, ok bool) {
	for k, s := range srcs {
		x := xs[k]
		if s == to || x <= 0 {
			continue
		}
		total += x
		bw := net.Bandwidth(s, to)
		if bw <= 0 {
			return 0, 0, false
		}
		worst = fmax(worst, x/bw)
	}
	return total, worst, true
}

// The direct reads of a rackNet (rackCalls, remoteIn, Bandwidth by
// rack number) give the bits of the interface calls they replace, on
// random racks, bandwidths (0 and +Inf included), pieces on departed (-1)
// and unknown machines, and for a RackNetwork that is not a rackNet.
func TestRackCallsSameAsInterface(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	pick := func(vs ...float64) float64 { return vs[rng.Intn(len(vs))] }
	for run := 0; run < 3000; run++ {
		n := 1 + rng.Intn(40)
		racks := make([]string, n)
		nr := 1 + rng.Intn(6)
		for i := range racks {
			racks[i] = string(rune('a' + rng.Intn(nr)))
		}
		rn := newRackNet(racks, pick(125e6, 0, math.Inf(1), 1e3*rng.Float64()), pick(40e6, 0, 62.5e6*rng.Float64()), pick(0, 0.0002, rng.Float64()))
		nets := []RackNetwork{rn, otherRackNet{rn}}
		// A partition's pieces, on machines of the model and off it.
		var pcs []piece
		srcs, xs := []int{}, []float64{}
		for m := -1; m < n; m++ {
			if rng.Intn(3) == 0 {
				b := int64(rng.Intn(3)) * int64(rng.Intn(1<<30))
				pcs = append(pcs, piece{m, b})
				srcs, xs = append(srcs, m), append(xs, float64(b)*pick(1, 0.5, 1.0/3))
			}
		}
		if rng.Intn(4) == 0 {
			pcs = append(pcs, piece{n + 5, 7})
		}
		for _, net := range nets {
			rc := rackCallsOf(net)
			dense := make([]int64, rng.Intn(n+1))
			rs := rc.sumDense(pcs, dense)
			ref := sumRacks(Partition{At: piecesMap(pcs)}, net)
			if rs.total != ref.total {
				t.Fatalf("run %d: total %d, want %d", run, rs.total, ref.total)
			}
			for to := -1; to < n+1; to++ {
				if got := rc.rackOf(to); got != net.RackOf(to) {
					t.Fatalf("run %d: rackOf(%d) %d, want %d", run, to, got, net.RackOf(to))
				}
				if to >= 0 && to < n && rs.rack(net.RackOf(to)) != ref.rack(net.RackOf(to)) {
					t.Fatalf("run %d: rack sum of %d differs", run, to)
				}
				for _, atTo := range []int64{0, int64(rng.Intn(1 << 20))} {
					got, want := rc.transferAt(to, atTo, &rs), rackTransferTimeRef(to, atTo, ref, net)
					if !sameBits(got, want) {
						t.Fatalf("run %d (%T): transferAt(%d, %d) %v, want %v", run, net, to, atTo, got, want)
					}
					if got2 := rackTransferTimeAt(to, atTo, rs, net); !sameBits(got2, want) {
						t.Fatalf("run %d: rackTransferTimeAt %v, want %v", run, got2, want)
					}
				}
				if to < 0 || to >= n {
					continue
				}
				for a := range n {
					if got, want := rn.Bandwidth(a, to), bandwidthRef(rn, a, to); !sameBits(got, want) {
						t.Fatalf("run %d: Bandwidth(%d, %d) %v, want %v", run, a, to, got, want)
					}
				}
				tot, worst, ok := remoteIn(to, srcs, xs, net, rc.rn)
				rt, rw, rok := remoteInRef(to, srcs, xs, net)
				if !sameBits(tot, rt) || !sameBits(worst, rw) || ok != rok {
					t.Fatalf("run %d: remoteIn(%d) %v %v %v, want %v %v %v", run, to, tot, worst, ok, rt, rw, rok)
				}
			}
			rc.clear(pcs, dense)
			for r, b := range dense {
				if b != 0 {
					t.Fatalf("run %d: rack %d left at %d", run, r, b)
				}
			}
		}
	}
}

// piecesMap is pcs as a Partition's At (a machine listed twice: its last).
func piecesMap(pcs []piece) map[int]int64 {
	at := map[int]int64{}
	for _, pc := range pcs {
		at[pc.machine] = pc.bytes
	}
	return at
}
