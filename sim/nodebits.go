package sim

import "math/bits"

// nodeBits is a set of node indexes, one bit a node. The policy tick walks
// the nodes whose heartbeat event may be due through it (the dirty ones and
// those with a background load) instead of reading every node's record: on
// the FB-2009 day that loop over 600 records was 8 % of the run's L1 data
// misses, nearly all for nodes with nothing to report.
type nodeBits []uint64

func newNodeBits(n int) nodeBits { return make(nodeBits, (n+63)/64) }

func (b nodeBits) add(i int32) { b[i>>6] |= 1 << (uint(i) & 63) }

func (b nodeBits) del(i int32) { b[i>>6] &^= 1 << (uint(i) & 63) }

// nextIn returns the least index at or after i in a or in w (of one
// length), or -1. It reads the words when called, so an index added
// behind i since the last call is found.
func nextIn(a, w nodeBits, i int) int {
	k := i >> 6
	if k >= len(a) {
		return -1
	}
	m := (a[k] | w[k]) & (^uint64(0) << (uint(i) & 63))
	for m == 0 {
		k++
		if k == len(a) {
			return -1
		}
		m = a[k] | w[k]
	}
	return k<<6 + bits.TrailingZeros64(m)
}
