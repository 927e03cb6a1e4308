// Place's choice by rack: when many maps of one job are placed at one
// instant (a job of 65,889 maps is placed map by map as it is submitted),
// each map's scan over every machine is replaced by a pass over the racks'
// least finishes, the racks holding a replica read machine by machine.

package tmar

import (
	"math"
	"slices"
)

// rackLeast is the least finish of a rack's machines with a core (a
// machine in the rack that holds no replica of the map: its finish reads
// the base column), the least machine index with it and the next larger
// finish; nan: some finish is NaN.
type rackLeast struct {
	m1, m2 float64
	i1     int
	nan    bool
}

// mergeLeast is the least of a and b as rackLeast keeps it: on equal
// finishes the lower machine index, m2 the next larger distinct finish.
func mergeLeast(a, b rackLeast) rackLeast {
	nan := a.nan || b.nan
	switch {
	case b.m1 < a.m1:
		b.m2 = min(b.m2, a.m1)
		b.nan = nan
		return b
	case a.m1 < b.m1:
		a.m2 = min(a.m2, b.m1)
		a.nan = nan
		return a
	}
	a.i1, a.m2, a.nan = min(a.i1, b.i1), min(a.m2, b.m2), nan
	return a
}

// leastNone is a rack without a machine with a core.
var leastNone = rackLeast{m1: math.Inf(1), m2: math.Inf(1), i1: math.MaxInt}

// rackPick keeps, per rack, the least finish of its machines for a base
// column (the map's time on each machine when it holds no replica in the
// rack: its off-rack column, or its only column when it names no host),
// between the Place calls that share that column, the machines' earliest
// cores (earliestCache, its fill generation) and the ready time. Only the
// rack of the machine a map went to is summarised again.
type rackPick struct {
	// What the summaries were made from.
	colGen, ecGen, idxGen uint64
	ready                 uint64 // bits
	off                   bool   // base is the off-rack column
	made                  bool
	// calls counts the Place calls with that key: the summaries are made
	// from the second on (an instant with one map scans once).
	calls int
	least []rackLeast // by rack number
	dirty []bool
}

// pickKey is what a rackPick's summaries are valid for.
type pickKey struct {
	colGen, ecGen, idxGen uint64
	ready                 float64
	off                   bool
}

// pick is the machine placeMap's scan (without the power tie-break) would
// choose for a map whose time on each machine is exec: base on every
// machine outside the racks except, exec on theirs; -1 when the racks'
// least finishes do not tell it (a NaN, no clear least finish, no machine,
// or the first call under key). byRack lists each rack's machines.
//
// The scan takes the first machine of the least finish when every other
// finish f has that least below f - tieEpsilon (it replaces its best only
// by such a finish, and no finish is below the least), so that is checked
// against the next larger finish, m2 (TestRackPickSameAsScan).
func (rp *rackPick) pick(ms []Machine, ec *earliestCache, exec, base []float64, byRack [][]int, except []int, k pickKey) int {
	rb := math.Float64bits(k.ready)
	if !rp.made || rp.colGen != k.colGen || rp.ecGen != k.ecGen || rp.idxGen != k.idxGen || rp.ready != rb || rp.off != k.off || len(rp.least) != len(byRack) {
		rp.colGen, rp.ecGen, rp.idxGen, rp.ready, rp.off = k.colGen, k.ecGen, k.idxGen, rb, k.off
		rp.made, rp.calls = true, 0
		rp.least = grown(rp.least, len(byRack))
		rp.dirty = grown(rp.dirty, len(byRack))
		for r := range rp.dirty {
			rp.dirty[r] = true
		}
	}
	rp.calls++
	if rp.calls < 2 {
		return -1
	}
	cores, frees := ec.cores[:len(ms)], ec.frees[:len(ms)]
	all := leastNone
	for r, machines := range byRack {
		if isIn(except, r) {
			for _, i := range machines {
				if cores[i] < 0 {
					continue
				}
				all = mergeLeast(all, leaf(fmax(frees[i], k.ready)+exec[i], i))
			}
			continue
		}
		if rp.dirty[r] {
			s := leastNone
			for _, i := range machines {
				if cores[i] < 0 {
					continue
				}
				s = mergeLeast(s, leaf(fmax(frees[i], k.ready)+base[i], i))
			}
			rp.least[r], rp.dirty[r] = s, false
		}
		all = mergeLeast(all, rp.least[r])
	}
	if all.nan || all.i1 == math.MaxInt || !(all.m1 < all.m2-tieEpsilon) {
		return -1
	}
	return all.i1
}

// placed marks the rack of machine i (its cores changed) for a new summary.
func (rp *rackPick) placed(rack int) {
	if rack >= 0 && rack < len(rp.dirty) {
		rp.dirty[rack] = true
	}
}

// leaf is one machine's finish as a rackLeast.
func leaf(f float64, i int) rackLeast {
	return rackLeast{m1: f, m2: math.Inf(1), i1: i, nan: f != f}
}

// isIn tells whether r is in rs (a map's few replica racks).
func isIn(rs []int, r int) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// pickRacks is rackPick's choice as placeMapPick reads it: the machine
// (-1: none) and the racks it was made from, whose least finishes bound
// TMaR*'s tie window.
type pickRacks struct {
	machine int
	rp      *rackPick
	byRack  [][]int
	except  []int
	buf     []int // window's list, reused
}

// window lists, in machine order, the machines with a core whose finish
// (written in fs) is within limit (not NaN): every machine of a rack in
// except, and of the others only the racks whose least finish is (rp's
// summaries, made by the pick that chose pr.machine, whose base column is
// exec outside except: a rack whose least is above limit has no machine
// within it).
func (pr *pickRacks) window(ms []Machine, ec *earliestCache, exec []float64, ready, limit float64, fs []float64) []int {
	cores, frees := ec.cores[:len(ms)], ec.frees[:len(ms)]
	win := pr.buf[:0]
	for r, machines := range pr.byRack {
		if !isIn(pr.except, r) && pr.rp.least[r].m1 > limit {
			continue
		}
		for _, i := range machines {
			if cores[i] < 0 {
				continue
			}
			if f := fmax(frees[i], ready) + exec[i]; !(f > limit) {
				fs[i] = f
				win = append(win, i)
			}
		}
	}
	slices.Sort(win)
	if win == nil {
		win = []int{}
	}
	pr.buf = win
	return win
}

// equal is placeMap's equal nodes of a choice the racks told, finishing at
// finish: the first maxAlts machines in machine order for which eq holds,
// appended to alts (empty). eq holds only for a machine whose finish is
// within sameFinishS of finish; outside except a machine's finish is at
// least its rack's least (the base column, the summary the pick made), so
// a rack whose least is above finish + sameFinishS is passed over.
func (pr *pickRacks) equal(eq func(i int) bool, finish float64, maxAlts int, alts []int) []int {
	for r, machines := range pr.byRack {
		if !isIn(pr.except, r) && pr.rp.least[r].m1-finish > sameFinishS {
			continue
		}
		for _, i := range machines {
			if eq(i) {
				alts = append(alts, i)
			}
		}
	}
	slices.Sort(alts)
	return alts[:min(len(alts), maxAlts)]
}
