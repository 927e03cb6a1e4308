// PRB's bounds by block of machines: a partition's offers are compared in
// machine order, so a block of machines that cannot beat the best offer so
// far is passed over whole instead of one machine at a time.

package tmar

import "math"

// linearExec is a reducer's Reduce_Matrix time in the form the plugin
// computes it: overhead + sPerGiB[machine] x GiB of input. PRB given the
// form (not only the function) bounds a block's times by its least rate.
type linearExec struct {
	overhead float64
	sPerGiB  []float64
}

// at is one reducer's time on machine i for bytes of input.
func (l *linearExec) at(i int, bytes int64) float64 {
	return l.overhead + l.sPerGiB[i]*float64(bytes)/gib
}

// prbBlock is how many machines a block of prbBlocks holds.
const prbBlock = 8

// prbBlocks is, per block of prbBlock machines in machine order, what
// bounds its offers for a partition: the least and greatest earliest core
// of its machines with cores (minM, maxM, from a vector the plan keeps),
// the least of a second vector (minL: BindPartitions' link-available
// times) and the least rate (minS). A block with a NaN among them, or a
// rate that is infinite, is odd: always scanned. Summaries of a block
// whose machine changed are made again when next read (dirty).
type prbBlocks struct {
	minM, maxM, minL, minS []float64
	oddM, oddS, dirty      []bool
	// srcAt: partition number + 1 when a machine of the block holds a
	// piece of that partition (its offers then differ machine by machine).
	srcAt []int
	// racks lists each rack (RackOf) with its machines, in machine order.
	racks []blockRack
	// racksOf is the rackIdx of the rackNet racks were made for; slot is
	// each machine's entry of racks while they are made.
	racksOf []int
	slot    []int
	// What the summaries are read from.
	ms           []Machine
	early, links []float64
}

// blockRack is a rack (RackOf) and its machines.
type blockRack struct {
	rack     int
	machines []int
}

// reset sizes bl for the machines of ms with the rates of lin and the
// racks of net, summarising every block from early (each machine's
// earliest core) and links (nil: none).
func (bl *prbBlocks) reset(ms []Machine, early, links []float64, lin *linearExec, net RackNetwork) {
	n := len(ms)
	nb := (n + prbBlock - 1) / prbBlock
	bl.ms, bl.early, bl.links = ms, early, links
	bl.minM, bl.maxM, bl.minL, bl.minS = grown(bl.minM, nb), grown(bl.maxM, nb), grown(bl.minL, nb), grown(bl.minS, nb)
	bl.oddM, bl.oddS, bl.dirty = grown(bl.oddM, nb), grown(bl.oddS, nb), grown(bl.dirty, nb)
	bl.srcAt = grown(bl.srcAt, nb)
	for b := range nb {
		s, odd := math.Inf(1), false
		for i := b * prbBlock; i < min(n, (b+1)*prbBlock); i++ {
			if v := lin.sPerGiB[i]; v != v || math.IsInf(v, 0) {
				odd = true
			} else {
				s = min(s, v)
			}
		}
		bl.minS[b], bl.oddS[b], bl.dirty[b] = s, odd, true
	}
	bl.rackList(net, n)
}

// rackList makes bl.racks for the n machines of net, unless they are
// those of the rackNet it was made for (racks are numbered by their first
// machine, rackIdx, which a rackNet never changes).
func (bl *prbBlocks) rackList(net RackNetwork, n int) {
	rn, ok := net.(rackNet)
	if ok && n > 0 && len(rn.rackIdx) == n && len(bl.racksOf) == n && &bl.racksOf[0] == &rn.rackIdx[0] {
		return
	}
	bl.racksOf = nil
	bl.slot = grown(bl.slot, n)
	for k := range bl.racks {
		bl.racks[k].machines = bl.racks[k].machines[:0]
	}
	racks := bl.racks[:0]
	for i := range n {
		r := net.RackOf(i)
		k := 0
		if ok && r >= 0 && r < n {
			// rackIdx: the rack of its first machine; its entry is made
			// there, and found again through that machine's slot.
			if r == i {
				k = len(racks)
			} else {
				k = bl.slot[r]
			}
		} else {
			for k < len(racks) && racks[k].rack != r {
				k++
			}
		}
		if k == len(racks) {
			if k < cap(racks) {
				racks = racks[:k+1]
				racks[k].rack = r
			} else {
				racks = append(racks, blockRack{rack: r})
			}
		}
		bl.slot[i] = k
		racks[k].machines = append(racks[k].machines, i)
	}
	bl.racks = racks
	if ok && n > 0 {
		bl.racksOf = rn.rackIdx
	}
}

// earliest is the earliest core of the machines (+Inf without one): NaN
// when a block has a NaN or the least is a zero (whose sign earliestOf
// chooses), so the caller asks earliestOf.
func (bl *prbBlocks) earliest() float64 {
	at := math.Inf(1)
	for b := range bl.dirty {
		bl.summary(b)
		if bl.oddM[b] {
			return math.NaN()
		}
		at = min(at, bl.minM[b])
	}
	if at == 0 {
		return math.NaN()
	}
	return at
}

// touch marks machine i's block for a new summary.
func (bl *prbBlocks) touch(i int) { bl.dirty[i/prbBlock] = true }

// summary makes block b's summary again when a machine of it changed.
func (bl *prbBlocks) summary(b int) {
	if bl.dirty[b] {
		bl.summarise(b)
	}
}

func (bl *prbBlocks) summarise(b int) {
	bl.dirty[b] = false
	mn, mx, ml, odd := math.Inf(1), math.Inf(-1), math.Inf(1), false
	for i := b * prbBlock; i < min(len(bl.ms), (b+1)*prbBlock); i++ {
		if len(bl.ms[i].CoreFree) == 0 {
			continue
		}
		m := bl.early[i]
		if m != m {
			odd = true
		}
		mn, mx = min(mn, m), max(mx, m)
		if bl.links != nil {
			l := bl.links[i]
			if l != l {
				odd = true
			}
			ml = min(ml, l)
		}
	}
	bl.minM[b], bl.maxM[b], bl.minL[b], bl.oddM[b] = mn, mx, ml, odd
}

// usable tells whether block b may be passed over for partition number pn
// (its summary made): no NaN, no infinite rate, no piece of the partition.
func (bl *prbBlocks) usable(b, pn int) bool {
	bl.summary(b)
	return !bl.oddM[b] && !bl.oddS[b] && bl.srcAt[b] != pn+1
}

// execLow bounds from below the reducer time (lin.at) of block b's
// machines for bytes >= 0 of input.
func (bl *prbBlocks) execLow(lin *linearExec, b int, bytes int64) float64 {
	return lin.overhead + bl.minS[b]*float64(bytes)/gib
}
