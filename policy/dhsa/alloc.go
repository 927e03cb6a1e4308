package dhsa

// Slots is a count of map and reduce slots (of a node or the cluster).
type Slots struct{ Map, Reduce int }

// PoolDemand is one pool's (queue's) demand in tasks: running plus pending
// maps and reduces.
type PoolDemand struct {
	Name    string
	Weight  float64
	Maps    int
	Reduces int
}

// Allocation is what DHSA grants one pool.
type Allocation struct {
	Name string
	// Maps and Reduces are the tasks the pool's demand is granted (its own
	// share plus what it borrows), never more than its demand.
	Maps, Reduces int
	// MaxMaps and MaxReduces are the caps emitted as a ratio hint: the grant
	// plus the headroom nobody demands now, so a task that turns up before
	// the next tick can start at once on an idle slot.
	MaxMaps, MaxReduces int
	// PoolCase is the pool's Case (a)–(d) of §2.1.2 (PD-DHSA only).
	PoolCase string
}

// Borrow holds the borrowing rules shared by both variants.
type Borrow struct {
	Weights Weights
	// PctMap is percentageOfBorrowedMapSlots: the fraction of idle map slots
	// reduces may take; PctReduce the fraction of idle reduce slots maps may
	// take (§2.1.1).
	PctMap, PctReduce float64
}

// mapsFromIdleReduce is how many maps may run on idle reduce slots.
func (b Borrow) mapsFromIdleReduce(idleReduce int) int {
	return b.Weights.mapsFromReduceSlots(b.PctReduce * float64(max(0, idleReduce)))
}

// reducesFromIdleMap is how many reduces may run on idle map slots.
func (b Borrow) reducesFromIdleMap(idleMap int) int {
	return b.Weights.reducesFromMapSlots(b.PctMap * float64(max(0, idleMap)))
}

func weightsOf(pools []PoolDemand, sc *scratch) []float64 {
	w := sc.floats(len(pools))
	for i, p := range pools {
		w[i] = p.Weight
		if !(w[i] > 0) {
			w[i] = 1
		}
	}
	return w
}

// AllocatePI is PI-DHSA (§2.1.1, Fig. 2) over the cluster's slots.
//
// Intra-phase: each phase's slots are shared among the pools by weighted
// max-min fairness on that phase's demand (HFS's rule, per phase). Inter-phase:
// idle slots of one phase, up to its borrow percentage and converted by the
// slot weights, are shared max-min among the pools' unmet demand of the other
// phase. Which phase lends is one of the four cases of Classify. It returns
// the allocations in the order of pools and the case.
func AllocatePI(pools []PoolDemand, slots Slots, b Borrow) ([]Allocation, Case) {
	return allocatePI(nil, pools, slots, b, nil)
}

// allocatePI is AllocatePI with its working slices lent by sc, its result
// in dst's array when it has room (Shape allocates again at every change of
// demand).
func allocatePI(dst []Allocation, pools []PoolDemand, slots Slots, b Borrow, sc *scratch) ([]Allocation, Case) {
	defer sc.reset()
	n := len(pools)
	w := weightsOf(pools, sc)
	dM, dR := sc.ints(n), sc.ints(n)
	var nM, nR int
	for i, p := range pools {
		dM[i], dR[i] = p.Maps, p.Reduces
		nM += p.Maps
		nR += p.Reduces
	}
	// (1) Intra-phase dynamic slot allocation.
	aM := sc.waterfill(slots.Map, dM, w)
	aR := sc.waterfill(slots.Reduce, dR, w)
	idleM, idleR := slots.Map-sum(aM), slots.Reduce-sum(aR)
	// (2) Inter-phase dynamic slot allocation: Case 2 lends idle reduce
	// slots to maps, Case 3 idle map slots to reduces; Cases 1 and 4 move
	// nothing because nobody is short or nothing is idle.
	uM, uR := unmet(dM, aM, sc), unmet(dR, aR, sc)
	budgetM, budgetR := b.mapsFromIdleReduce(idleR), b.reducesFromIdleMap(idleM)
	bM := sc.waterfill(budgetM, uM, w)
	bR := sc.waterfill(budgetR, uR, w)
	idleR -= b.Weights.reduceSlotsFor(sum(bM))
	idleM -= b.Weights.mapSlotsFor(sum(bR))
	hM, hR := headroom(idleM, idleR, budgetM-sum(bM), budgetR-sum(bR), b)
	out := resize(dst, n)
	for i, p := range pools {
		out[i] = Allocation{Name: p.Name, Maps: aM[i] + bM[i], Reduces: aR[i] + bR[i]}
		out[i].MaxMaps, out[i].MaxReduces = out[i].Maps+hM, out[i].Reduces+hR
	}
	return out, Classify(nM, nR, slots.Map, slots.Reduce)
}

// headroom is what any pool may still start on slots nobody demands: the
// idle slots of the phase plus what is left of the borrow budget on the
// other phase's idle slots (the percentages bound the borrowing in total,
// not per step).
func headroom(idleM, idleR, budgetM, budgetR int, b Borrow) (maps, reduces int) {
	idleM, idleR = max(0, idleM), max(0, idleR)
	maps = idleM + min(max(0, budgetM), b.Weights.mapsFromReduceSlots(float64(idleR)))
	reduces = idleR + min(max(0, budgetR), b.Weights.reducesFromMapSlots(float64(idleM)))
	return maps, reduces
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func unmet(demand, got []int, sc *scratch) []int {
	u := sc.ints(len(demand))
	for i := range demand {
		u[i] = max(0, demand[i]-got[i])
	}
	return u
}

// PoolCase names the Cases (a)–(d) of PD-DHSA's intra-pool allocation
// (§2.1.2) for a pool's demand and share.
func PoolCase(mapDemand, mapShare, reduceDemand, reduceShare int) string {
	switch {
	case mapDemand < mapShare && reduceDemand > reduceShare:
		return "a" // lend own idle map share to own reduces first
	case mapDemand > mapShare && reduceDemand < reduceShare:
		return "b" // lend own idle reduce share to own maps first
	case mapDemand <= mapShare && reduceDemand <= reduceShare:
		return "c" // enough of both; lend the rest to other pools
	}
	// Both short, or one short with the other exactly used: nothing idle
	// inside the pool, it borrows from other pools.
	return "d"
}

// AllocatePD is PD-DHSA (§2.1.2, Fig. 3) over the cluster's slots.
//
// Every active pool (one with demand) owns a weighted share of the map slots
// and of the reduce slots. Intra-pool: it serves its own maps from its map
// share and its own reduces from its reduce share, then lends its own idle
// share across phases to itself (Cases a and b). Inter-pool: what is still
// idle is pooled and shared with the pools whose demand exceeds their shares
// (Cases a, b, d), same phase first, then across phases within the borrow
// percentages, max-min fair by pool weight on the unmet demand.
func AllocatePD(pools []PoolDemand, slots Slots, b Borrow) []Allocation {
	return allocatePD(nil, pools, slots, b, nil)
}

// allocatePD is AllocatePD with its working slices lent by sc, its result in
// dst's array when it has room.
func allocatePD(dst []Allocation, pools []PoolDemand, slots Slots, b Borrow, sc *scratch) []Allocation {
	defer sc.reset()
	n := len(pools)
	w := weightsOf(pools, sc)
	// Shares: weighted split of each kind among active pools. A pool's
	// share is an entitlement, not capped by its demand of that phase,
	// because PD-DHSA pools are selfish across phases.
	active := sc.ints(n)
	for i, p := range pools {
		if p.Maps+p.Reduces > 0 {
			active[i] = 1 << 30
		}
	}
	shareM := sc.waterfill(slots.Map, active, w)
	shareR := sc.waterfill(slots.Reduce, active, w)
	out := resize(dst, n)
	uM, uR := sc.ints(n), sc.ints(n)
	// Slots no active pool owns (all of them when nobody has demand) are idle.
	idleM, idleR := slots.Map-sum(shareM), slots.Reduce-sum(shareR)
	for i, p := range pools {
		a := &out[i]
		a.Name = p.Name
		a.PoolCase = PoolCase(p.Maps, shareM[i], p.Reduces, shareR[i])
		// (1) Intra-pool: own shares first, then own idle share across phases.
		a.Maps, a.Reduces = min(p.Maps, shareM[i]), min(p.Reduces, shareR[i])
		ownIdleM, ownIdleR := shareM[i]-a.Maps, shareR[i]-a.Reduces
		switch a.PoolCase {
		case "a":
			r := min(p.Reduces-a.Reduces, b.reducesFromIdleMap(ownIdleM))
			a.Reduces += r
			ownIdleM -= b.Weights.mapSlotsFor(r)
		case "b":
			m := min(p.Maps-a.Maps, b.mapsFromIdleReduce(ownIdleR))
			a.Maps += m
			ownIdleR -= b.Weights.reduceSlotsFor(m)
		}
		idleM += max(0, ownIdleM)
		idleR += max(0, ownIdleR)
		uM[i], uR[i] = p.Maps-a.Maps, p.Reduces-a.Reduces
	}
	// (2) Inter-pool: same phase first ...
	gM := sc.waterfill(idleM, uM, w)
	gR := sc.waterfill(idleR, uR, w)
	idleM -= sum(gM)
	idleR -= sum(gR)
	for i := range out {
		out[i].Maps += gM[i]
		out[i].Reduces += gR[i]
		uM[i] -= gM[i]
		uR[i] -= gR[i]
	}
	// ... then across phases, within the borrow percentages.
	budgetM, budgetR := b.mapsFromIdleReduce(idleR), b.reducesFromIdleMap(idleM)
	xM := sc.waterfill(budgetM, uM, w)
	xR := sc.waterfill(budgetR, uR, w)
	idleR -= b.Weights.reduceSlotsFor(sum(xM))
	idleM -= b.Weights.mapSlotsFor(sum(xR))
	hM, hR := headroom(idleM, idleR, budgetM-sum(xM), budgetR-sum(xR), b)
	for i := range out {
		out[i].Maps += xM[i]
		out[i].Reduces += xR[i]
		out[i].MaxMaps, out[i].MaxReduces = out[i].Maps+hM, out[i].Reduces+hR
	}
	return out
}

// resize returns n zero Allocations, in dst's array when it has room.
func resize(dst []Allocation, n int) []Allocation {
	if cap(dst) < n {
		return make([]Allocation, n)
	}
	dst = dst[:n]
	clear(dst)
	return dst
}
