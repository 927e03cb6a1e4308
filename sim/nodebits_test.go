package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The policy tick's walk over nodeBits visits the same nodes in the same
// order as the loop over every node it replaces, including nodes that
// become dirty during the walk (an event emitted for one node can change
// another's usage): found when they lie ahead, left for the next tick when
// behind.
func TestNodeBitsWalkSameAsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 2))
	for trial := range 3000 {
		n := []int{0, 1, 63, 64, 65, 127, 128, 600, rng.IntN(300)}[trial%9]
		dirty, watch := make([]bool, n), make([]bool, n)
		pd, pw := rng.Float64(), rng.Float64()*0.2
		for i := range n {
			dirty[i], watch[i] = rng.Float64() < pd, rng.Float64() < pw
		}
		// adds[i]: the nodes that become dirty when node i is visited.
		adds := make([][]int32, n)
		for i := range adds {
			for rng.Float64() < 0.2 && n > 0 {
				adds[i] = append(adds[i], int32(rng.IntN(n)))
			}
		}

		// The loop that was replaced: every node, in order.
		ref := slices.Clone(dirty)
		var want []int
		for i := range n {
			if !ref[i] && !watch[i] {
				continue
			}
			want = append(want, i)
			ref[i] = false
			for _, k := range adds[i] {
				ref[k] = true
			}
		}

		d, w := newNodeBits(n), newNodeBits(n)
		for i := range n {
			if dirty[i] {
				d.add(int32(i))
			}
			if watch[i] {
				w.add(int32(i))
			}
		}
		var got []int
		for i := nextIn(d, w, 0); i >= 0; i = nextIn(d, w, i+1) {
			got = append(got, i)
			d.del(int32(i))
			for _, k := range adds[i] {
				d.add(k)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d, %d nodes: walk %v, scan %v", trial, n, got, want)
		}
		for i := range n {
			if has := d[i>>6]&(1<<(uint(i)&63)) != 0; has != ref[i] {
				t.Fatalf("trial %d: node %d left dirty %v, scan %v", trial, i, has, ref[i])
			}
		}
	}
}
