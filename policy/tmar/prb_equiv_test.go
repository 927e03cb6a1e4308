package tmar

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// pairNet is a Network that is not a RackNetwork: a bandwidth per ordered
// pair of machines.
type pairNet struct {
	bw  map[[2]int]float64
	lat float64
}

func (n pairNet) Bandwidth(a, b int) float64 { return n.bw[[2]int{a, b}] }
func (n pairNet) Latency(int, int) float64   { return n.lat }

// Random PRB instances full of ties (equal partitions, equal cores, equal
// machines), pieces on gone machines (-1), machines without cores, links
// without capacity, Run set and unset, on rack and pair networks: the
// plans and core vectors of BindPartitions and BindPartitionsShared are
// those of the code before (prb_ref_test.go), BindPartitionsShared's with
// a fresh state and with one reused from the instances before.
func TestBindPartitionsSameAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	var sc sharedScratch // reused by every other instance, of any size
	for iter := range 1500 {
		nm := 1 + rng.IntN(16)
		ms := make([]Machine, nm)
		racks := make([]string, nm)
		nr := 1 + rng.IntN(3)
		sPerGiB := make([]float64, nm)
		for i := range ms {
			cores := rng.IntN(5)
			if rng.IntN(8) > 0 {
				cores = max(cores, 1)
			}
			ms[i] = Machine{Name: fmt.Sprint("m", i), CoreFree: make([]float64, cores)}
			for c := range ms[i].CoreFree {
				ms[i].CoreFree[c] = pick(1, 1, 2.5, 3, 3+1e-10, 40)
			}
			racks[i] = fmt.Sprint("r", rng.IntN(nr))
			sPerGiB[i] = pick(20, 20, 30, 60)
		}
		var net Network = newRackNet(racks, pick(125e6, 125e6, 0), pick(125e6, 62.5e6, 0), pick(0, 0.0002))
		if rng.IntN(3) == 0 {
			pn := pairNet{bw: map[[2]int]float64{}, lat: 0.0002}
			for a := -1; a < nm; a++ {
				for b := -1; b < nm; b++ {
					pn.bw[[2]int{a, b}] = pick(125e6, 62.5e6, 1e9)
				}
			}
			net = pn
		}
		parts := make([]Partition, 1+rng.IntN(10))
		for k := range parts {
			parts[k] = Partition{ID: k, At: map[int]int64{}}
			for range 1 + rng.IntN(5) {
				b := int64(pick(0, 1e6, 5e8, 1e9, 1e9, 3e9))
				parts[k].At[rng.IntN(nm+1)-1] += b
				parts[k].Bytes += b
			}
			parts[k].Run = rng.IntN(3)
		}
		rSplit := int64(pick(1<<30, 3e8))
		now := pick(0, 1)
		exec := func(i int, bytes int64) float64 { return 1 + sPerGiB[i]*float64(bytes)/gib }
		links := SharedLinks{NICBps: pick(125e6, 125e6, 0), Protect: rng.IntN(2) == 0}

		// The same partitions as pieces (At nil, as partitions gives
		// them), in a random order.
		asPieces := make([]Partition, len(parts))
		for k, pt := range parts {
			asPieces[k] = Partition{ID: pt.ID, Bytes: pt.Bytes, Run: pt.Run, pieces: piecesOf(pt, nil)}
			rng.Shuffle(len(asPieces[k].pieces), func(i, j int) {
				asPieces[k].pieces[i], asPieces[k].pieces[j] = asPieces[k].pieces[j], asPieces[k].pieces[i]
			})
		}
		a := cloneMachines(ms)
		want := bindPartitionsRef(a, parts, net, rSplit, now, exec)
		for _, in := range [][]Partition{parts, asPieces} {
			b := cloneMachines(ms)
			got := BindPartitions(b, in, net, rSplit, now, exec)
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(a, b) {
				t.Fatalf("instance %d: BindPartitions differs\n got %v\nwant %v\n got cores %v\nwant cores %v", iter, got, want, b, a)
			}
		}
		a = cloneMachines(ms)
		want = bindPartitionsSharedRef(a, parts, net, links, rSplit, now, exec)
		for _, in := range [][]Partition{parts, asPieces} {
			b := cloneMachines(ms)
			var got []Binding
			if iter%2 == 0 {
				got = BindPartitionsShared(b, in, net, links, rSplit, now, exec)
			} else {
				got = bindPartitionsShared(&sc, b, in, net, links, rSplit, now, exec)
			}
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(a, b) {
				t.Fatalf("instance %d: BindPartitionsShared differs\n got %v\nwant %v\n got cores %v\nwant cores %v", iter, got, want, b, a)
			}
		}
	}
}

// Idle, alike machines (many ties: every machine's offer equals the first
// one's or is within 1e-10 of it, and a few are busy or slower), which
// BindPartitionsShared skips once they cannot beat the best offer: the
// plans and core vectors are those of the code before.
func TestBindPartitionsSharedTiesSameAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 21))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	var sc sharedScratch
	for iter := range 1500 {
		nm := 2 + rng.IntN(40)
		ms := make([]Machine, nm)
		racks := make([]string, nm)
		nr := 1 + rng.IntN(3)
		sPerGiB := make([]float64, nm)
		now := pick(0, 1, 5)
		for i := range ms {
			ms[i] = Machine{Name: fmt.Sprint("m", i), CoreFree: make([]float64, 1+rng.IntN(3))}
			for c := range ms[i].CoreFree {
				ms[i].CoreFree[c] = now
				if rng.IntN(10) == 0 {
					ms[i].CoreFree[c] = pick(now+1e-10, now+2, now-1)
				}
			}
			racks[i] = fmt.Sprint("r", rng.IntN(nr))
			sPerGiB[i] = 20
			if rng.IntN(10) == 0 {
				sPerGiB[i] = pick(20+1e-9, 30, 19.99)
			}
		}
		net := newRackNet(racks, 125e6, pick(125e6, 62.5e6), pick(0, 0.0002))
		parts := make([]Partition, 1+rng.IntN(6))
		for k := range parts {
			parts[k] = Partition{ID: k, At: map[int]int64{}}
			for range rng.IntN(4) {
				b := int64(pick(0, 1e6, 5e8, 1e9))
				parts[k].At[rng.IntN(nm+1)-1] += b
				parts[k].Bytes += b
			}
			parts[k].Run = rng.IntN(3)
		}
		exec := func(i int, bytes int64) float64 { return 1 + sPerGiB[i]*float64(bytes)/gib }
		links := SharedLinks{NICBps: 125e6, Protect: rng.IntN(2) == 0}
		a, b := cloneMachines(ms), cloneMachines(ms)
		want := bindPartitionsSharedRef(a, parts, net, links, 1<<30, now, exec)
		got := bindPartitionsShared(&sc, b, parts, net, links, 1<<30, now, exec)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(a, b) {
			t.Fatalf("instance %d: BindPartitionsShared differs\n got %v\nwant %v", iter, got, want)
		}
	}
}

// Random PRB instances on clusters of several blocks (prbBlocks) with the
// reducer time in the plugin's form (linearExec): racks contiguous, round
// robin or random (every other instance on as many machines as the one
// before, another rack network); most machines idle at now with alike
// rates (in some instances every core busy a while), some busy,
// slower or faster, a few without cores, NaN cores and infinite rates;
// partitions with pieces on a few machines (the senders' links contended
// as partitions are bound), on gone machines and of 0 bytes. The plans and
// core vectors of bindShared and bindPartitions, passing over blocks, are
// those of the code before (prb_ref_test.go: bindPartitionsSharedRef and
// bindPartitionsBefore), with state reused.
func TestBindBlocksSameAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 17))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	var sc sharedScratch
	var blocks prbBlocks
	nm := 0
	for iter := range 2000 {
		if iter%2 == 0 { // odd instances: the size before, other racks
			nm = 1 + rng.IntN(150)
		}
		now := pick(0, 1, 50)
		busy := rng.IntN(4) == 0 // every core busy a while: the links pruned
		ms := make([]Machine, nm)
		racks := make([]string, nm)
		nr := 1 + rng.IntN(8)
		layout := rng.IntN(3)
		sPerGiB := make([]float64, nm)
		for i := range ms {
			cores := 1 + rng.IntN(4)
			if rng.IntN(30) == 0 {
				cores = 0
			}
			ms[i] = Machine{Name: fmt.Sprint("m", i), CoreFree: make([]float64, cores)}
			for c := range ms[i].CoreFree {
				ms[i].CoreFree[c] = now
				if busy {
					ms[i].CoreFree[c] = now + 60*rng.Float64()
				}
				switch rng.IntN(12) {
				case 0:
					ms[i].CoreFree[c] = now + pick(1e-10, 3, 30, 200)
				case 1:
					ms[i].CoreFree[c] = now - pick(1, 1e-10)
				}
				if rng.IntN(400) == 0 {
					ms[i].CoreFree[c] = math.NaN()
				}
			}
			switch layout {
			case 0:
				racks[i] = fmt.Sprint("r", i*nr/nm)
			case 1:
				racks[i] = fmt.Sprint("r", i%nr)
			default:
				racks[i] = fmt.Sprint("r", rng.IntN(nr))
			}
			sPerGiB[i] = 20
			switch rng.IntN(8) {
			case 0:
				sPerGiB[i] = pick(20+1e-9, 19.99, 30, 10, 0)
			case 1:
				sPerGiB[i] = 20 + rng.Float64()
			}
			if rng.IntN(300) == 0 {
				sPerGiB[i] = pick(math.Inf(1), math.NaN())
			}
		}
		net := newRackNet(racks, pick(125e6, 125e6, 0), pick(125e6, 62.5e6), pick(0, 0.0002))
		parts := make([]Partition, 1+rng.IntN(12))
		for k := range parts {
			parts[k] = Partition{ID: k, At: map[int]int64{}}
			for range rng.IntN(6) {
				b := int64(pick(0, 1e6, 5e7, 5e8, 1e9, 3e9))
				parts[k].At[rng.IntN(nm+1)-1] += b
				parts[k].Bytes += b
			}
			parts[k].Run = rng.IntN(3)
		}
		rSplit := int64(pick(1<<30, 3e8))
		lin := &linearExec{overhead: pick(1, 0), sPerGiB: sPerGiB}
		links := SharedLinks{NICBps: pick(125e6, 125e6, 1e8, 0), Protect: rng.IntN(3) > 0}

		a, b := cloneMachines(ms), cloneMachines(ms)
		want := bindPartitionsBefore(a, parts, net, rSplit, now, lin.at)
		bl := &prbBlocks{} // reused by the instances after, in turn
		if iter%3 > 0 {
			bl = &blocks
		}
		// Odd instances give the partitions as pieces (At nil, as the
		// plugin's partitions does), in a random order.
		in := parts
		if iter%2 == 1 {
			in = make([]Partition, len(parts))
			for k, pt := range parts {
				in[k] = Partition{ID: pt.ID, Bytes: pt.Bytes, Run: pt.Run, pieces: piecesOf(pt, nil)}
				rng.Shuffle(len(in[k].pieces), func(i, j int) {
					in[k].pieces[i], in[k].pieces[j] = in[k].pieces[j], in[k].pieces[i]
				})
			}
		}
		got := bindPartitions(b, in, net, rSplit, now, lin.at, lin, bl)
		if !sameBindings(got, want) || !sameMachines(a, b) {
			t.Fatalf("instance %d: bindPartitions differs\n got %v\nwant %v\n got cores %v\nwant cores %v", iter, got, want, b, a)
		}
		a, b = cloneMachines(ms), cloneMachines(ms)
		want = bindPartitionsSharedRef(a, parts, net, links, rSplit, now, lin.at)
		got = bindShared(&sc, b, in, net, links, rSplit, now, lin.at, lin)
		if !sameBindings(got, want) || !sameMachines(a, b) {
			t.Fatalf("instance %d: bindShared differs\n got %v\nwant %v\n got cores %v\nwant cores %v", iter, got, want, b, a)
		}
	}
}

// sameBindings compares plans bit for bit (a NaN equals itself).
func sameBindings(a, b []Binding) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		x, y := a[k], b[k]
		if x.Partition != y.Partition || x.Machine != y.Machine || x.Reducers != y.Reducers || x.Bytes != y.Bytes ||
			!sameBits(x.Launch, y.Launch) || !sameBits(x.Start, y.Start) || !sameBits(x.Finish, y.Finish) {
			return false
		}
	}
	return true
}

// sameMachines compares core vectors bit for bit.
func sameMachines(a, b []Machine) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || len(a[i].CoreFree) != len(b[i].CoreFree) {
			return false
		}
		for c := range a[i].CoreFree {
			if !sameBits(a[i].CoreFree[c], b[i].CoreFree[c]) {
				return false
			}
		}
	}
	return true
}

func sameBits(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }

// prbBlocks.earliest, read by prune, is earliestOf over the machines'
// earliest cores (NaN when it leaves the choice to earliestOf): random
// vectors with machines without cores, infinite, NaN and zero times,
// changed and touched between reads.
func TestBlocksEarliestSameAsEarliestOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	var bl prbBlocks
	for iter := range 3000 {
		n := 1 + rng.IntN(70)
		ms := make([]Machine, n)
		early := make([]float64, n)
		racks := make([]string, n)
		rates := make([]float64, n)
		for i := range ms {
			ms[i].CoreFree = make([]float64, rng.IntN(3))
			early[i] = math.Inf(1)
			if len(ms[i].CoreFree) > 0 {
				early[i] = pick(5, 7, 7.5, 100, 0, math.Inf(1), 3+rng.Float64())
				if rng.IntN(200) == 0 {
					early[i] = math.NaN()
				}
			}
			racks[i] = fmt.Sprint("r", rng.IntN(3))
			rates[i] = 20
		}
		bl.reset(ms, early, nil, &linearExec{sPerGiB: rates}, newRackNet(racks, 1, 1, 0))
		for step := range 4 {
			if got := bl.earliest(); got == got && !sameBits(got, earliestOf(early)) {
				t.Fatalf("instance %d step %d: earliest %v, earliestOf %v of %v", iter, step, got, earliestOf(early), early)
			}
			for range rng.IntN(4) {
				i := rng.IntN(n)
				if len(ms[i].CoreFree) > 0 {
					early[i] = pick(6, 50, 0.5, 200)
					bl.touch(i)
				}
			}
		}
	}
}
