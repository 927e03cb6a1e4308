package capacity

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
)

// pickByScan is the reference Pick: a scan of every node with better().
func pickByScan(nodes []*freeNode, need Need, ok func(*cluster.Node) bool, avoid ...string) *cluster.Node {
	var best *freeNode
	bestAvoided := true
	for _, f := range nodes {
		if !f.fits(need) || (ok != nil && !ok(f.node)) {
			continue
		}
		avoided := slices.Contains(avoid, f.node.ID)
		if best == nil || better(f, avoided, best, bestAvoided) {
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

// TestPickMatchesScan drives the heap-backed Pick and the reference scan
// through the same random rounds of picks: every choice must agree.
func TestPickMatchesScan(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := 1 + rng.IntN(40)
		var a, b Capacity
		var ids []string
		for i := range n {
			node := &cluster.Node{ID: fmt.Sprintf("n%02d", i)}
			v, m := rng.IntN(5), rng.IntN(5)*1024
			a.nodes = append(a.nodes, &freeNode{node: node, id: node.ID, idKey: idPrefix(node.ID), vcores: v, memoryMB: m})
			b.nodes = append(b.nodes, &freeNode{node: node, id: node.ID, idKey: idPrefix(node.ID), vcores: v, memoryMB: m})
			ids = append(ids, node.ID)
		}
		banned := ids[rng.IntN(n)]
		for pick := range 60 {
			need := Need{VCores: 1 + rng.IntN(2), MemoryMB: rng.IntN(3) * 1024}
			var ok func(*cluster.Node) bool
			if pick%3 == 0 {
				ok = func(x *cluster.Node) bool { return x.ID != banned }
			}
			avoid := []string{ids[rng.IntN(n)]}
			got := a.Pick(need, ok, avoid...)
			want := pickByScan(b.nodes, need, ok, avoid...)
			if got != want {
				t.Fatalf("seed %d pick %d: heap chose %v, scan chose %v", seed, pick, got, want)
			}
		}
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
	for b.Loop() {
		var c Capacity
		for _, n := range nodes {
			c.nodes = append(c.nodes, &freeNode{node: n, id: n.ID, idKey: idPrefix(n.ID), vcores: 4, memoryMB: 8192})
		}
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
	node := func(id string) *freeNode {
		return &freeNode{node: &cluster.Node{ID: id}, id: id, idKey: idPrefix(id), vcores: 2, memoryMB: 1024}
	}
	for _, a := range ids {
		for _, b := range ids {
			if got, want := better(node(a), false, node(b), false), a < b; got != want {
				t.Fatalf("better(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}
