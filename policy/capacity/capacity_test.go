package capacity

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
)

// refNode is the reference's view of a node: its free capacity, by itself.
type refNode struct {
	node             *cluster.Node
	vcores, memoryMB int
}

// pickByScan is the reference Pick: a scan of every node, keeping the best
// by (not avoided, most vcores, most memory, smallest id) compared in full.
func pickByScan(nodes []*refNode, need Need, ok func(*cluster.Node) bool, avoid ...string) *cluster.Node {
	var best *refNode
	bestAvoided := true
	for _, f := range nodes {
		if f.vcores < need.VCores || f.memoryMB < need.MemoryMB || (ok != nil && !ok(f.node)) {
			continue
		}
		avoided := slices.Contains(avoid, f.node.ID)
		if best == nil || refBetter(f, avoided, best, bestAvoided) {
			best, bestAvoided = f, avoided
		}
	}
	if best == nil {
		return nil
	}
	best.vcores -= need.VCores
	best.memoryMB -= need.MemoryMB
	return best.node
}

func refBetter(f *refNode, fAvoided bool, b *refNode, bAvoided bool) bool {
	switch {
	case fAvoided != bAvoided:
		return !fAvoided
	case f.vcores != b.vcores:
		return f.vcores > b.vcores
	case f.memoryMB != b.memoryMB:
		return f.memoryMB > b.memoryMB
	}
	return f.node.ID < b.node.ID
}

// refSlots is the reference Slots over the reference's nodes.
func refSlots(nodes []*refNode, need Need) int {
	total := 0
	for _, f := range nodes {
		k := f.vcores / max(1, need.VCores)
		if need.MemoryMB > 0 {
			k = min(k, f.memoryMB/need.MemoryMB)
		}
		total += max(0, k)
	}
	return total
}

// TestPickMatchesScan drives the heap-backed picks (Pick, PickID,
// PickIDAvoiding) and the reference scan through the same random rounds of
// picks: every choice must agree. Ids share long prefixes in some rounds,
// so ties go past the id keys.
func TestPickMatchesScan(t *testing.T) {
	keyed := 0 // picks by PickIDAvoiding
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := 1 + rng.IntN(60)
		prefix := []string{"n", "ip-10-0-0-", "a"}[rng.IntN(3)]
		var nodes []*cluster.Node
		var vs, ms []int
		var ref []*refNode
		var ids []string
		for i := range n {
			node := &cluster.Node{ID: fmt.Sprintf("%s%d", prefix, rng.IntN(1000)*100+i)}
			v, m := rng.IntN(5), rng.IntN(5)*1024
			nodes, vs, ms = append(nodes, node), append(vs, v), append(ms, m)
			ref = append(ref, &refNode{node: node, vcores: v, memoryMB: m})
			ids = append(ids, node.ID)
		}
		a := fromNodes(nodes, vs, ms)
		banned := ids[rng.IntN(n)]
		for pick := range 80 {
			need := Need{VCores: 1 + rng.IntN(2), MemoryMB: rng.IntN(3) * 1024}
			var ok func(*cluster.Node) bool
			if pick%3 == 0 {
				ok = func(x *cluster.Node) bool { return x.ID != banned }
			}
			avoid := []string{ids[rng.IntN(n)]}
			if pick%5 == 0 {
				avoid = append(avoid, ids[rng.IntN(n)])
			}
			var got *cluster.Node
			switch {
			case ok == nil && len(avoid) == 1 && pick%4 == 1:
				var id string
				got, id = a.PickIDAvoiding(need, AvoidOf(avoid[0]))
				if got != nil && id != got.ID || got == nil && id != "" {
					t.Fatalf("seed %d pick %d: PickIDAvoiding gave %v and id %q", seed, pick, got, id)
				}
				keyed++
			case pick%2 == 0:
				got = a.Pick(need, ok, avoid...)
			default:
				var id string
				got, id = a.PickID(need, ok, avoid...)
				if got != nil && id != got.ID || got == nil && id != "" {
					t.Fatalf("seed %d pick %d: PickID gave %v and id %q", seed, pick, got, id)
				}
			}
			want := pickByScan(ref, need, ok, avoid...)
			if got != want {
				t.Fatalf("seed %d pick %d: heap chose %v, scan chose %v", seed, pick, got, want)
			}
			if g, w := a.Slots(need), refSlots(ref, need); g != w {
				t.Fatalf("seed %d pick %d: %d slots, scan %d", seed, pick, g, w)
			}
		}
	}
	if keyed < 3000 {
		t.Fatalf("only %d picks by PickIDAvoiding", keyed)
	}
}

// BenchmarkPick10kNodes is one speculation round on a large cluster: the
// capacity snapshot of 10,000 equal nodes (ties broken by id) and 2,000 picks,
// each avoiding the node its task runs on (spread over the cluster, as in the
// yarn scan of `rmsidecar bench`).
func BenchmarkPick10kNodes(b *testing.B) {
	nodes := make([]*cluster.Node, 10_000)
	for i := range nodes {
		nodes[i] = &cluster.Node{ID: fmt.Sprintf("n%05d", i)}
	}
	vs, ms := slices.Repeat([]int{4}, len(nodes)), slices.Repeat([]int{8192}, len(nodes))
	for b.Loop() {
		c := fromNodes(nodes, vs, ms)
		for i := range 2000 {
			c.Pick(Need{VCores: 1, MemoryMB: 1024}, nil, nodes[i*7%len(nodes)].ID)
		}
	}
}

// TestBetterOrdersIDsAsStrings: between nodes of equal free capacity, better
// prefers the smaller id exactly as string comparison does, including ids
// that share long prefixes, are prefixes of each other or hold zero bytes.
func TestBetterOrdersIDsAsStrings(t *testing.T) {
	ids := []string{"", "a", "a\x00", "a\x00b", "ab", "abcdefgh", "abcdefgh\x00", "abcdefghi", "abcdefgi",
		"nm1.bench:8041", "nm10.bench:8041", "nm100.bench:8041", "nm1000.bench:8041", "nm1000.bench:8042", "\xff", "\xff\xff"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = "a\x00b\xffz"[rng.IntN(5)]
		}
		ids = append(ids, string(b))
	}
	nodes := make([]*cluster.Node, len(ids))
	for i, id := range ids {
		nodes[i] = &cluster.Node{ID: id}
	}
	c := fromNodes(nodes, slices.Repeat([]int{2}, len(ids)), slices.Repeat([]int{1024}, len(ids)))
	for i, a := range ids {
		for j, b := range ids {
			if got, want := c.better(&c.free[i], &c.free[j]), a < b; got != want {
				t.Fatalf("better(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}

// TestSinkKeepsHeapOrder takes random needs from the best entry of random
// heaps (equal capacities in some, so ties go to the ids) and checks after
// every sink that no entry is better than its parent.
func TestSinkKeepsHeapOrder(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 11))
		n := 1 + rng.IntN(300)
		var nodes []*cluster.Node
		var vs, ms []int
		for i := range n {
			nodes = append(nodes, &cluster.Node{ID: fmt.Sprintf("nm%d.x", rng.IntN(1000)*1000+i)})
			vs, ms = append(vs, 8+rng.IntN(1+int(seed%3))), append(ms, 1024*(8+rng.IntN(2)))
		}
		c := fromNodes(nodes, vs, ms)
		for range 2 * n {
			f := c.topFits(Need{VCores: 1})
			if f == nil {
				break
			}
			c.takeTop(f, Need{VCores: 1, MemoryMB: rng.IntN(2) * 512})
			for i := 1; i < len(c.free); i++ {
				if c.better(&c.free[i], &c.free[(i-1)/2]) {
					t.Fatalf("seed %d: entry %d better than its parent", seed, i)
				}
			}
		}
	}
}
