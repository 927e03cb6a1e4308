// Algorithms 3 and 4 (PRB): partition-to-node binding with eq. 3-5.

package tmar

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// Partition is one reduce partition: its total size and where its
// sub-partitions (map outputs) lie, by machine index.
type Partition struct {
	ID    int
	Bytes int64
	// At maps machine index -> bytes of this partition stored there.
	At map[int]int64
	// pieces, when At is nil, are At's entries (one per machine) in a
	// slice: the plugin's partitions gives them so, as a map per partition
	// (made, filled and iterated) was a fifth of a plan. Every reader is
	// indifferent to their order, as to a map's.
	pieces []piece
	// Run is how many reducer tasks will actually process the partition
	// when the executor cannot spawn N_R of them (a MapReduce job's reducer
	// count is fixed at submission: one reducer per partition); 0 means the
	// paper's N_R = ceil(size / R_split) run.
	Run int
}

// Network gives the bandwidth (bytes/s) and latency (s) between machines:
// the paper's C_B matrix and L vector.
type Network interface {
	Bandwidth(from, to int) float64
	Latency(from, to int) float64
}

// RackNetwork is a Network with one bandwidth within a rack, one across
// racks and one latency. BindPartitions then sums each partition's pieces
// per rack once instead of per machine pair (same result, O(racks) per
// machine). Machine -1 (gone) is in no rack.
type RackNetwork interface {
	Network
	RackOf(machine int) int // -1 for none
	InRack() float64
	CrossRack() float64
}

// rackSums is a partition's bytes per rack, for a RackNetwork: by rack
// number in dense when it is within it, else in byRack.
type rackSums struct {
	total  int64
	byRack map[int]int64
	dense  []int64
}

// rack is rack r's bytes.
func (rs *rackSums) rack(r int) int64 {
	if r >= 0 && r < len(rs.dense) {
		return rs.dense[r]
	}
	return rs.byRack[r]
}

// piece is one machine's bytes of a partition (an entry of Partition.At).
type piece struct {
	machine int
	bytes   int64
}

// piecesOf lists p.At in buf (reused), so the passes over a partition's
// pieces read a slice instead of iterating the map each time.
func piecesOf(p Partition, buf []piece) []piece {
	buf = buf[:0]
	if p.At == nil {
		return append(buf, p.pieces...)
	}
	for m, b := range p.At {
		buf = append(buf, piece{m, b})
	}
	return buf
}

// sumRacksDense is sumRacks over the partition's pieces (piecesOf) with the
// racks numbered below len(dense) summed in dense (zeroed; clearRacks zeroes
// it again), others in a map. The sums are of integers: the same in any
// order.
func sumRacksDense(pcs []piece, net RackNetwork, dense []int64) rackSums {
	return rackCallsOf(net).sumDense(pcs, dense)
}

// sumDense is sumRacksDense through c.
func (c rackCalls) sumDense(pcs []piece, dense []int64) rackSums {
	rs := rackSums{dense: dense}
	for _, pc := range pcs {
		rs.total += pc.bytes
		switch r := c.rackOf(pc.machine); {
		case r >= 0 && r < len(dense):
			dense[r] += pc.bytes
		case r >= 0:
			if rs.byRack == nil {
				rs.byRack = map[int]int64{}
			}
			rs.byRack[r] += pc.bytes
		}
	}
	return rs
}

// clearRacks zeroes what sumRacksDense summed into dense.
func clearRacks(pcs []piece, net RackNetwork, dense []int64) {
	rackCallsOf(net).clear(pcs, dense)
}

// clear is clearRacks through c.
func (c rackCalls) clear(pcs []piece, dense []int64) {
	for _, pc := range pcs {
		if r := c.rackOf(pc.machine); r >= 0 && r < len(dense) {
			dense[r] = 0
		}
	}
}

func sumRacks(p Partition, net RackNetwork) rackSums {
	rs := rackSums{byRack: map[int]int64{}}
	for _, pc := range piecesOf(p, nil) {
		rs.total += pc.bytes
		if r := net.RackOf(pc.machine); r >= 0 {
			rs.byRack[r] += pc.bytes
		}
	}
	return rs
}

// Binding is the outcome of PRB for one partition.
type Binding struct {
	Partition int
	Machine   int
	Reducers  int // N_R, the paper's reducer count for the partition
	Bytes     int64
	// Launch is when the first reducer's container starts (BindPartitionsShared:
	// its fetch starts then); Start is when its execution starts (eq. 4).
	Launch float64
	Start  float64
	Finish float64
}

// bySizeDesc is Algorithm 3 line 3: the partitions sorted by size, largest
// first (ties by id, so the plan never depends on input order).
func bySizeDesc(parts []Partition) []Partition {
	sorted := append([]Partition(nil), parts...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Bytes != sorted[j].Bytes {
			return sorted[i].Bytes > sorted[j].Bytes
		}
		return sorted[i].ID < sorted[j].ID
	})
	return sorted
}

// BindPartitions is Algorithm 3 with PRB (Algorithm 4): partitions sorted by
// size, largest first (line 3); for each, N_R = ceil(size / rSplit), and on
// every machine the reducers' finish time (eq. 3) = start (eq. 4: the later
// of the machine's cores being free and all sub-partitions having arrived,
// eq. 5) + execution of N_R reducers; the machine with the minimum wins and
// its core-available vector is updated (Algorithm 3 line 7). reduceExec
// gives one reducer's execution time for a given input on a machine
// (Reduce_Matrix). now is the earliest start.
//
// Ours: every sub-partition reaches a machine through its one network link,
// so the transfer of eq. 5 is the sum over the remote pieces, and the link
// is busy with the partitions already bound there (a link-available vector
// kept like the core-available one); when a partition sets Run, that many
// reducers execute it (N_R is still reported).
func BindPartitions(ms []Machine, parts []Partition, net Network, rSplit int64, now float64,
	reduceExec func(machine int, bytes int64) float64) []Binding {
	return bindPartitions(ms, parts, net, rSplit, now, reduceExec, nil, nil)
}

// bindPartitions is BindPartitions; with lin (reduceExec is then lin.at)
// and a rackNet, blocks of machines whose reducers cannot finish before
// the best so far are passed over whole (prbBlocks, in bl when not nil,
// reused between plans).
func bindPartitions(ms []Machine, parts []Partition, net Network, rSplit int64, now float64,
	reduceExec func(machine int, bytes int64) float64, lin *linearExec, bl *prbBlocks) []Binding {
	sorted := bySizeDesc(parts)
	rSplit = max(rSplit, 1)
	out := make([]Binding, 0, len(sorted))
	linkFree := make([]float64, len(ms))
	for i := range linkFree {
		linkFree[i] = now
	}
	rnet, isRack := net.(RackNetwork)
	rc := rackCallsOf(rnet)
	// A machine's reducers are timed on a scratch copy of its cores: the
	// loop below takes the least time each step, so the times do not
	// depend on the order of the cores; only the winner's vector is made
	// as Algorithm 3 line 7 leaves it (sorted, then updated).
	var cores []float64
	// On a RackNetwork a machine holding no piece of the partition has the
	// transfer time of its rack (rackTransferTime reads nothing else).
	rackTT := make([]float64, len(ms))
	rackTTAt := make([]int, len(ms)) // partition number + 1 the entry is for
	// Each machine's earliest core, kept as the winners' cores change.
	coreMin := make([]float64, len(ms))
	for i := range ms {
		coreMin[i] = earliestOf(ms[i].CoreFree)
	}
	// at is the partition's pieces by machine (p.At, read for every
	// machine), filled and cleared per partition.
	at := make([]int64, len(ms))
	rackBytes := make([]int64, len(ms)) // sumRacksDense's, by rack
	var pcs []piece                     // the partition's pieces (piecesOf)
	// Blocks on a rackNet only: with its one latency a rack's transfer
	// time is the same for each of its machines.
	if _, one := net.(rackNet); lin == nil || !one {
		bl = nil
	} else {
		if bl == nil {
			bl = &prbBlocks{}
		}
		bl.reset(ms, coreMin, linkFree, lin, rnet)
	}
	for pn, p := range sorted {
		pcs = piecesOf(p, pcs)
		var rs rackSums
		if isRack {
			rs = rc.sumDense(pcs, rackBytes)
		}
		for _, pc := range pcs {
			if m := pc.machine; m >= 0 && m < len(at) {
				at[m] = pc.bytes
				if bl != nil && pc.bytes != 0 {
					bl.srcAt[m/prbBlock] = pn + 1
				}
			}
		}
		nr := int(math.Ceil(float64(p.Bytes) / float64(rSplit)))
		nr = max(nr, 1)
		run := nr
		if p.Run > 0 {
			run = p.Run
		}
		per := p.Bytes / int64(run)
		best := Binding{Partition: p.ID, Machine: -1, Reducers: nr, Bytes: p.Bytes, Finish: math.Inf(1)}
		var bestArrive, bestExec float64
		// ttLow bounds from below the transfer time of a machine holding no
		// piece (its rack's, rackTransferTimeAt) over every rack; ok is
		// false when a machine may arrive at now (a transfer time not
		// above 0, a machine in no rack, a NaN).
		ttLow, ttOK, ttMade := 0.0, false, false
		lowTT := func() (float64, bool) {
			if ttMade {
				return ttLow, ttOK
			}
			ttMade, ttLow, ttOK = true, math.Inf(1), true
			for _, rk := range bl.racks {
				r, i := rk.rack, rk.machines[0]
				if r < 0 || r >= len(rackTT) {
					ttOK = false
					break
				}
				if rackTTAt[r] != pn+1 {
					rackTT[r], rackTTAt[r] = rc.transferAt(i, 0, &rs), pn+1
				}
				if t := rackTT[r]; t > 0 {
					ttLow = min(ttLow, t)
				} else {
					ttOK = false
					break
				}
			}
			return ttLow, ttOK
		}
		// blockLoses tells that no machine of block b finishes before best
		// (each would be skipped below or lose): the block holds no piece,
		// so each reducer starts no earlier than the block's earliest core,
		// now and (when every rack transfers) the block's earliest link plus
		// the least rack transfer time, and runs no shorter than the
		// block's least rate gives (per >= 0).
		blockLoses := func(b int) bool {
			if per < 0 || !bl.usable(b, pn) {
				return false
			}
			arrive := now
			if t, ok := lowTT(); ok {
				arrive = bl.minL[b] + t
			}
			lb := fmax(fmax(bl.minM[b], arrive), now) + bl.execLow(lin, b, per)
			return lb >= best.Finish-tieEpsilon
		}
		for i := 0; i < len(ms); i++ {
			if bl != nil && i%prbBlock == 0 && blockLoses(i/prbBlock) {
				i += prbBlock - 1
				continue
			}
			if len(ms[i].CoreFree) == 0 {
				continue
			}
			var exec float64
			if lin != nil {
				exec = lin.at(i, per) // reduceExec, called directly
			} else {
				exec = reduceExec(i, per)
			}
			// The reducers finish no earlier than the first one's core
			// (and now) plus its execution: when that cannot beat the
			// best, the transfer is not timed.
			if lb := fmax(coreMin[i], now) + exec; lb >= best.Finish-tieEpsilon {
				continue
			}
			arrive := now // all of it local
			var tt float64
			switch {
			case !isRack:
				tt = transferTime(i, p, net)
			case at[i] == 0:
				// rackTransferTime with nothing on i: a function of i's rack.
				r := -1 // rc.rackOf(i), read here (too large to inline)
				if rc.idx == nil && rc.net != nil {
					r = rc.rackOf(i)
				} else if i < len(rc.idx) {
					r = rc.idx[i]
				}
				if r < 0 || r >= len(rackTT) {
					tt = rc.transferAt(i, 0, &rs)
					break
				}
				if rackTTAt[r] != pn+1 {
					rackTT[r], rackTTAt[r] = rc.transferAt(i, 0, &rs), pn+1
				}
				tt = rackTT[r]
			default:
				tt = rc.transferAt(i, at[i], &rs)
			}
			if tt > 0 {
				arrive = linkFree[i] + tt // eq. 5 through i's link
			}
			var start, finish, launch float64
			if run == 1 {
				// queueReducers for one reducer, on the first earliest
				// core, without copying the cores: its time is coreMin's
				// but for a NaN or a zero (whose sign earliestOf chooses).
				c := coreMin[i]
				if c != c || c == 0 {
					cs := ms[i].CoreFree
					c = cs[0]
					for _, f := range cs[1:] {
						if f < c {
							c = f
						}
					}
				}
				start = fmax(fmax(c, arrive), now)
				launch = fmax(c, now)
				finish = fmax(0, start+exec)
			} else {
				cores = append(cores[:0], ms[i].CoreFree...)
				start, finish, launch = queueReducers(cores, run, arrive, now, exec)
			}
			if finish < best.Finish-tieEpsilon {
				best = Binding{Partition: p.ID, Machine: i, Reducers: nr, Bytes: p.Bytes, Launch: launch, Start: start, Finish: finish}
				bestArrive, bestExec = arrive, exec
			}
		}
		for _, pc := range pcs {
			if m := pc.machine; m >= 0 && m < len(at) {
				at[m] = 0
			}
		}
		if isRack {
			rc.clear(pcs, rackBytes)
		}
		if best.Machine < 0 {
			continue
		}
		bestCores := append([]float64(nil), ms[best.Machine].CoreFree...)
		sort.Float64s(bestCores)
		queueReducers(bestCores, run, bestArrive, now, bestExec)
		ms[best.Machine].CoreFree = bestCores
		coreMin[best.Machine] = earliestOf(bestCores)
		linkFree[best.Machine] = bestArrive
		if bl != nil {
			bl.touch(best.Machine)
		}
		out = append(out, best)
	}
	return out
}

// earliestOf is the earliest of a machine's core times (+Inf without
// cores): the fold of fmin over them. Idle cores are equal, and fmin of
// equal numbers leaves the inlined path, so the common case is a plain
// comparison; a NaN or a zero (whose sign math.Min chooses) takes the fold.
func earliestOf(cores []float64) float64 {
	at := math.Inf(1)
	for _, f := range cores {
		if f < at {
			at = f
		} else if f != f {
			return earliestFold(cores)
		}
	}
	if at == 0 {
		return earliestFold(cores)
	}
	return at
}

// earliestFold is earliestOf as the fold of fmin.
func earliestFold(cores []float64) float64 {
	at := math.Inf(1)
	for _, f := range cores {
		at = fmin(at, f)
	}
	return at
}

// queueReducers is Algorithm 4 lines 7–12 on one machine's cores: run
// reducers of exec seconds, those beyond the free cores queued behind
// them; each starts when a core frees and the data has arrived (eq. 4).
// It updates cores and returns the first reducer's start and launch and
// the last finish.
func queueReducers(cores []float64, run int, arrive, now, exec float64) (start, finish, launch float64) {
	for r := range run {
		c := 0
		for k := 1; k < len(cores); k++ {
			if cores[k] < cores[c] {
				c = k
			}
		}
		s := fmax(fmax(cores[c], arrive), now)
		if r == 0 {
			start, launch = s, fmax(cores[c], now)
		}
		cores[c] = s + exec
		finish = fmax(finish, cores[c])
	}
	return start, finish, launch
}

// SharedLinks parameterises BindPartitionsShared: every node has one full
// duplex link (NIC) of NICBps each way, which the transfers crossing it share.
type SharedLinks struct {
	NICBps float64
	// Protect (ours, beyond eq. 3): a node's offer is the later of the
	// partition's finish there and the finish of every core whose reducer
	// its transfers would slow down, so a partition does not win a node by
	// stealing the links of the larger partitions bound before it. Ties on
	// that go to the earliest finish of the partition itself.
	Protect bool
}

// xfer is one reducer's transfer over one link in BindPartitionsShared:
// bytes from start, done (by the model's estimate) at end.
type xfer struct {
	start, end, bytes float64
	owner             int // index of the reducer (boundReducer) it feeds
}

// remaining is the share of x not yet sent at t, assuming a steady rate
// between its start and its estimated end.
func (x *xfer) remaining(t float64) float64 {
	switch {
	case t >= x.end:
		return 0
	case t <= x.start || x.end <= x.start:
		return x.bytes
	}
	return x.bytes * (x.end - t) / (x.end - x.start)
}

// boundReducer is one reducer placed by BindPartitionsShared.
type boundReducer struct {
	machine, core int
	binding       int     // index into the output
	launch        float64 // container start: the fetch starts here
	shuffleEnd    float64
	exec          float64
	xfers         []int // into sharedPlan.xs
}

func (r *boundReducer) finish() float64 { return r.shuffleEnd + r.exec }

// sharedPlan is BindPartitionsShared's state: per node, the transfers on its
// outgoing and incoming link, and per core the reducers queued on it.
type sharedPlan struct {
	cap, lat float64 // NIC bytes/s each way; L
	xs       []xfer
	out, in  [][]int // machine -> indices into xs
	rs       []boundReducer
	queue    [][][]int // machine -> core -> indices into rs, in start order
	coreFree [][]float64
	machMin  []float64 // machine -> its earliest core (+Inf without cores), kept by refreshMin
	// blocks, when not nil, summarises machMin by block (prbBlocks).
	blocks *prbBlocks
	// cont is psDuration's contend per transfer of the link it timed.
	cont []float64
	// moved is the reducers delayed by the binding being made.
	moved movedSet
}

// refreshMin recomputes machine m's earliest core after coreFree[m] changed.
func (sp *sharedPlan) refreshMin(m int) {
	sp.machMin[m] = earliestOf(sp.coreFree[m])
	if sp.blocks != nil {
		sp.blocks.touch(m)
	}
}

// contend is how many bytes of a newcomer of x bytes, sent over
// [t0, t0+dur], compete with transfer j on their link: under processor
// sharing min(x, r_j) when j is running at t0 with r_j left; when j starts
// later, what x still has to send then (at a steady rate), up to j's bytes;
// nothing when j starts after x is done.
func (sp *sharedPlan) contend(j int, x, t0, dur float64) float64 {
	o := &sp.xs[j]
	if o.start <= t0 {
		return fmin(x, o.remaining(t0))
	}
	if dur <= 0 || o.start >= t0+dur {
		return 0
	}
	return fmin(x*(t0+dur-o.start)/dur, o.bytes)
}

// psDuration is how long x bytes starting at t0 take on a link shared,
// processor-sharing style, with the transfers bound to it (ours, eq. 5 with
// shared links): x plus what it contends with, at the link's capacity. The
// transfers running at t0 give a first estimate, which tells which of those
// starting later overlap it. harm is the latest finish of a core whose
// reducer the newcomer would delay (j ends contend / capacity later),
// counting the reducers queued behind it on that core.
//
// contend of a transfer running at t0 does not depend on the duration, so
// it is computed once (the first pass) and read back by the other two,
// which add the same values in the same order; sp.cont is left holding
// contend(j, x, t0, dur) for every j of link, in link order (addXfer
// reads it). TestPsDurationSameAsRef.
func (sp *sharedPlan) psDuration(link []int, x, t0 float64) (dur, harm float64) {
	cont := slices.Grow(sp.cont[:0], len(link))[:len(link)]
	sp.cont = cont
	work := x
	for k, j := range link {
		o := &sp.xs[j]
		if o.start <= t0 {
			c := fmin(x, o.remaining(t0)) // contend(j, x, t0, any)
			cont[k] = c
			work += c
		}
	}
	first := work / sp.cap
	work = x
	for k, j := range link {
		if o := &sp.xs[j]; o.start <= t0 {
			work += cont[k]
		} else {
			work += sp.contend(j, x, t0, first)
		}
	}
	dur = work / sp.cap
	for k, j := range link {
		o := &sp.xs[j]
		c := cont[k]
		if !(o.start <= t0) {
			c = sp.contend(j, x, t0, dur)
			cont[k] = c
		}
		if c <= 0 {
			continue
		}
		r := &sp.rs[o.owner]
		if late := o.end + c/sp.cap + sp.lat - r.shuffleEnd; late > 0 {
			harm = fmax(harm, sp.coreFree[r.machine][r.core]+late)
		}
	}
	return dur, harm
}

// top2 keeps the largest and second largest of values keyed by machine,
// so the largest over all machines but one is O(1).
type top2 struct {
	v1, v2 float64
	k1     int
}

func (t *top2) add(k int, v float64) {
	switch {
	case v > t.v1:
		t.v2, t.v1, t.k1 = t.v1, v, k
	case v > t.v2:
		t.v2 = v
	}
}

// without is the largest value of a machine other than k.
func (t *top2) without(k int) float64 {
	if k == t.k1 {
		return t.v2
	}
	return t.v1
}

// senders is, for one partition and one launch time, the fetch time and the
// harm (see psDuration) on each sender's outgoing link: they do not depend
// on the receiving node but for its own piece, which it reads locally, so a
// partition computes them once per launch time rather than once per node.
type senders struct {
	dur, harm top2
}

func (sp *sharedPlan) senders(srcs []int, xs []float64, t0 float64) senders {
	out := senders{dur: top2{k1: -2}, harm: top2{k1: -2}}
	for k, s := range srcs {
		x := xs[k]
		if s < 0 || x <= 0 {
			continue
		}
		d, h := sp.psDuration(sp.out[s], x, t0)
		out.dur.add(s, d)
		out.harm.add(s, h)
	}
	return out
}

// remoteIn is what a reducer on to fetches of the pieces xs on srcs (by
// machine; to's own piece is read locally): their bytes, and the time of
// the slowest alone at its pair bandwidth (a piece never beats C_B); ok is
// false when a remote piece has no bandwidth.
// Net's bandwidths are read from rn directly when it has racks (net is
// then rn; see rackCalls).
func remoteIn(to int, srcs []int, xs []float64, net Network, rn *rackNet) (total, worst float64, ok bool) {
	direct := rn != nil && rn.rackIdx != nil
	for k, s := range srcs {
		x := xs[k]
		if s == to || x <= 0 {
			continue
		}
		total += x
		var bw float64
		if direct {
			bw = rn.Bandwidth(s, to)
		} else {
			bw = net.Bandwidth(s, to)
		}
		if bw <= 0 {
			return 0, 0, false
		}
		worst = fmax(worst, x/bw)
	}
	return total, worst, true
}

// shuffleDuration is the fetch time of a reducer launched at t0 on to whose
// remote pieces are what remoteIn gave (total, worst, ok): the slowest of
// its incoming link and the outgoing links of its sources (eq. 5 applied at
// both ends of every piece, out from senders), plus L; and the harm
// (psDuration) it does to the reducers already bound.
func (sp *sharedPlan) shuffleDuration(to int, total, worst float64, ok bool, t0 float64, out senders) (dur, harm float64) {
	if !ok {
		return math.Inf(1), 0
	}
	if total == 0 {
		return 0, 0
	}
	worst = fmax(worst, out.dur.without(to))
	d, h := sp.psDuration(sp.in[to], total, t0)
	return sp.lat + fmax(worst, d), fmax(out.harm.without(to), h)
}

// movedSet is the reducers a binding's transfers delayed, each once: a
// flag per reducer and the list in the order marked, where a map was made
// and hashed into for every partition bound (TestMovedSetSameAsMap).
type movedSet struct {
	at  []bool // by index into sharedPlan.rs
	ids []int
}

// add marks reducer ri.
func (m *movedSet) add(ri int) {
	if ri >= len(m.at) {
		m.at = append(m.at, make([]bool, ri+1-len(m.at))...)
	}
	if !m.at[ri] {
		m.at[ri] = true
		m.ids = append(m.ids, ri)
	}
}

// drain is the reducers marked since the last drain, in increasing order
// (the order settle ran them in over the map's sorted keys); the set is
// empty again, and the slice is valid until the next add.
func (m *movedSet) drain() []int {
	ids := m.ids
	sort.Ints(ids)
	for _, ri := range ids {
		m.at[ri] = false
	}
	m.ids = m.ids[:0]
	return ids
}

// addXfer puts a new transfer on a link and delays the transfers it
// contends with by contend / capacity (processor sharing), marking their
// owners in moved.
func (sp *sharedPlan) addXfer(link *[]int, x xfer, moved *movedSet) {
	d, _ := sp.psDuration(*link, x.bytes, x.start)
	// psDuration left contend(j, x.bytes, x.start, d) in sp.cont; each j
	// is once on a link and its contend reads only xs[j], so the ends moved
	// below do not change the others'.
	for k, j := range *link {
		if c := sp.cont[k]; c > 0 {
			sp.xs[j].end += c / sp.cap
			moved.add(sp.xs[j].owner)
		}
	}
	x.end = x.start + d
	sp.xs = append(sp.xs, x)
	*link = append(*link, len(sp.xs)-1)
	sp.rs[x.owner].xfers = append(sp.rs[x.owner].xfers, len(sp.xs)-1)
}

// settle recomputes a moved reducer's shuffle end from its transfers and
// shifts the reducers queued after it on its core by as much.
func (sp *sharedPlan) settle(ri int) {
	r := &sp.rs[ri]
	end := r.launch
	for _, j := range r.xfers {
		end = fmax(end, sp.xs[j].end+sp.lat)
	}
	if end <= r.shuffleEnd {
		return
	}
	r.shuffleEnd = end
	q := sp.queue[r.machine][r.core]
	prev := r.finish()
	after := false
	for _, k := range q {
		if k == ri {
			after = true
			continue
		}
		if !after {
			continue
		}
		n := &sp.rs[k]
		d := prev - n.launch
		if d <= 0 {
			break
		}
		n.launch += d
		n.shuffleEnd += d
		for _, j := range n.xfers {
			sp.xs[j].start += d
			sp.xs[j].end += d
		}
		prev = n.finish()
	}
	last := q[len(q)-1]
	sp.coreFree[r.machine][r.core] = sp.rs[last].finish()
	sp.refreshMin(r.machine)
}

// prune drops from the links the transfers done by the time the first core
// frees (and no earlier than since): no reducer bound from now on launches
// before then, so they contend with nothing (see contend), and the links
// keep only what can still overlap. It returns that time.
func (sp *sharedPlan) prune(since float64) float64 {
	at := math.NaN()
	if sp.blocks != nil {
		at = sp.blocks.earliest()
	}
	if at != at {
		at = earliestOf(sp.machMin)
	}
	if math.IsInf(at, 1) || at <= since {
		return since
	}
	keep := func(link []int) []int {
		out := link[:0]
		for _, j := range link {
			if sp.xs[j].end > at {
				out = append(out, j)
			}
		}
		return out
	}
	for i := range sp.out {
		sp.out[i], sp.in[i] = keep(sp.out[i]), keep(sp.in[i])
	}
	return at
}

// BindPartitionsShared is BindPartitions (Algorithms 3 and 4, eq. 3–5) with
// a model of the shuffle as the simulator (and Hadoop) runs it. Ours, where
// the paper's eq. 5 takes one transfer alone:
//   - a reducer fetches only once its container runs, so its transfer starts
//     when its core frees (eq. 4's resource time), not at binding;
//   - eq. 5 applies at both ends of every piece: a piece crosses its
//     sender's outgoing link and the reducer's incoming link, each a NIC of
//     links.NICBps that every concurrent transfer shares (processor sharing:
//     see psDuration); a node that ran many maps must send most of its output
//     out through its one link;
//   - transfers bound later slow down the ones already bound, so a
//     partition's estimate (and the core queue behind it) is revised as
//     later partitions are bound;
//   - only remote bytes cost transfer time; the local piece is read in place.
//
// The node choice is eq. 3's minimum finish over these times; with
// links.Protect (ours) the later of that finish and the finish of the
// reducers the partition's transfers would delay. The machines' CoreFree
// vectors are updated in place (as Algorithm 3 line 7 leaves them).
func BindPartitionsShared(ms []Machine, parts []Partition, net Network, links SharedLinks, rSplit int64, now float64,
	reduceExec func(machine int, bytes int64) float64) []Binding {
	return bindPartitionsShared(&sharedScratch{}, ms, parts, net, links, rSplit, now, reduceExec)
}

// sharedScratch is BindPartitionsShared's per-machine state, reused between
// the plans of a plugin instead of made for each (eight vectors of the
// cluster's size a plan, most plans binding one or a few partitions).
type sharedScratch struct {
	out, in            [][]int
	queue              [][][]int
	coreFree           [][]float64
	machMin            []float64
	rackFetch          []sharedFetch
	rackFetchAt, srcAt []int
	blocks             prbBlocks
	cont               []float64 // sharedPlan.cont
}

// sharedFetch is what a reducer on a machine fetches (remoteIn).
type sharedFetch struct {
	total, worst float64
	ok           bool
}

// bindPartitionsShared is BindPartitionsShared with its per-machine state
// in sc (whatever a plan before left there is reset).
func bindPartitionsShared(sc *sharedScratch, ms []Machine, parts []Partition, net Network, links SharedLinks, rSplit int64, now float64,
	reduceExec func(machine int, bytes int64) float64) []Binding {
	return bindShared(sc, ms, parts, net, links, rSplit, now, reduceExec, nil)
}

// bindShared is bindPartitionsShared; with lin (reduceExec is then
// lin.at) and a rackNet, blocks of machines that cannot beat the best
// offer so far are passed over whole (prbBlocks, blockLoses).
func bindShared(sc *sharedScratch, ms []Machine, parts []Partition, net Network, links SharedLinks, rSplit int64, now float64,
	reduceExec func(machine int, bytes int64) float64, lin *linearExec) []Binding {
	sorted := bySizeDesc(parts)
	rSplit = max(rSplit, 1)
	capB := links.NICBps
	if capB <= 0 {
		capB = math.Inf(1)
	}
	// One L for every transfer: the latency of a pair is not known here
	// per piece (rackNet has one).
	n := len(ms)
	sc.out, sc.in = slices.Grow(sc.out[:0], n)[:n], slices.Grow(sc.in[:0], n)[:n]
	for i := range n {
		sc.out[i], sc.in[i] = sc.out[i][:0], sc.in[i][:0]
	}
	sc.queue = grown(sc.queue, n) // made per machine that gets a reducer
	sc.coreFree, sc.machMin = grown(sc.coreFree, n), grown(sc.machMin, n)
	sp := &sharedPlan{cap: capB, lat: net.Latency(-1, -1),
		out: sc.out, in: sc.in, queue: sc.queue, coreFree: sc.coreFree, machMin: sc.machMin, cont: sc.cont}
	defer func() { sc.cont = sp.cont }()
	// The plan updates the machines' vectors in place: a copy of each (600
	// allocations a plan on the FB-2009 cluster, most of them for machines
	// that get no reducer) was what replaced them at the end.
	for i := range ms {
		sp.coreFree[i] = ms[i].CoreFree
		sp.refreshMin(i)
	}
	// On a rackNet a machine holding no piece of the partition fetches what
	// every such machine of its rack fetches (remoteIn reads nothing else).
	rn, isRackNet := net.(rackNet)
	var rnp *rackNet // remoteIn's
	if isRackNet {
		rnp = &rn
	}
	var bl *prbBlocks
	if lin != nil && isRackNet && sp.lat >= 0 {
		bl = &sc.blocks
		bl.reset(ms, sp.machMin, nil, lin, rn)
		sp.blocks = bl
	}
	type fetch = sharedFetch
	sc.rackFetch = grown(sc.rackFetch, n)
	sc.rackFetchAt = grown(sc.rackFetchAt, n) // partition number + 1 the entry is for
	sc.srcAt = grown(sc.srcAt, n)             // partition number + 1 when the machine holds a piece
	rackFetch, rackFetchAt, srcAt := sc.rackFetch, sc.rackFetchAt, sc.srcAt
	var xs []float64
	var pcs []piece // the partition's pieces (piecesOf)
	out := make([]Binding, 0, len(sorted))
	pruned := now
	var coreBuf []float64
	for pn, p := range sorted {
		pruned = sp.prune(pruned)
		nr := max(int(math.Ceil(float64(p.Bytes)/float64(rSplit))), 1)
		run := nr
		if p.Run > 0 {
			run = p.Run
		}
		per := p.Bytes / int64(run)
		// The pieces of more than 0 bytes, by machine (srcs), and their
		// bytes per reducer (xs).
		pcs = piecesOf(p, pcs)
		k := 0
		for _, pc := range pcs {
			if pc.bytes > 0 {
				pcs[k] = pc
				k++
			}
		}
		pcs = pcs[:k]
		slices.SortFunc(pcs, func(a, b piece) int { return cmp.Compare(a.machine, b.machine) })
		srcs := make([]int, len(pcs))
		xs = xs[:0] // the pieces, by srcs
		for k, pc := range pcs {
			s := pc.machine
			srcs[k] = s
			xs = append(xs, float64(pc.bytes)/float64(run))
			if s >= 0 && s < len(srcAt) {
				srcAt[s] = pn + 1
				if bl != nil {
					bl.srcAt[s/prbBlock] = pn + 1
				}
			}
		}
		type plan struct {
			core                       []int
			launch, shuffle            []float64
			exec, start, finish, score float64
		}
		best, bestM := plan{finish: math.Inf(1), score: math.Inf(1)}, -1
		byLaunch := map[float64]senders{} // most nodes launch at the same times
		lastLaunch, lastSnd := math.NaN(), senders{}
		// Scratch reused across machines: a candidate's vectors become
		// best's, and best's old ones the next candidate's.
		var spare plan
		// cannotWin tells that an offer whose score and finish are at least
		// lb loses to best under the comparison below: its score is not
		// below best's by more than tieEpsilon, nor its finish below best's
		// (a score is never below its finish). A machine of an idle cluster
		// that ties the first one is skipped; only a score above best's by
		// more than tieEpsilon was before.
		cannotWin := func(lb float64) bool { return lb >= best.score-tieEpsilon }
		// firstLoses tells that an offer whose first reducer launches at
		// launch, fetches in (remote bytes, lat >= 0) and runs exec loses to
		// best: shuffleDuration's fetch is no shorter than L plus the
		// slowest of the pieces alone, the senders' links at launch (the
		// one of machine i's own piece left out) and its own link alone,
		// and its harm (Protect) no less than the senders' harm. The
		// finish bound fin bounds the offer's finish and score, the harm
		// bound its score only; the comparison below then picks it
		// neither by a lower score nor, within the tie, by an earlier
		// finish (best's score is not below its finish).
		firstLoses := func(launch, exec float64, in fetch, snd senders, i int, protect bool) bool {
			lo := sp.lat + fmax(fmax(in.worst, snd.dur.without(i)), in.total/sp.cap)
			fin := launch + lo + exec
			score := fin
			if protect {
				score = fmax(snd.harm.without(i), fin)
			}
			return score >= best.score-tieEpsilon && (score > best.score+tieEpsilon || fin >= best.finish-tieEpsilon)
		}
		// sendersAt is the senders at launch, as the offers below find them.
		sendersAt := func(launch float64) senders {
			if launch == lastLaunch {
				return lastSnd
			}
			snd, ok := byLaunch[launch]
			if !ok {
				snd = sp.senders(srcs, xs, launch)
				byLaunch[launch] = snd
			}
			lastLaunch, lastSnd = launch, snd
			return snd
		}
		// fetchOf is what a machine of rack r holding no piece fetches.
		fetchOf := func(r, i int) fetch {
			if rackFetchAt[r] != pn+1 {
				rackFetch[r].total, rackFetch[r].worst, rackFetch[r].ok = remoteIn(i, srcs, xs, net, rnp)
				rackFetchAt[r] = pn + 1
			}
			return rackFetch[r]
		}
		// The fetch of every machine holding no piece, bounded from below
		// over the racks (rackLow, made when a block is first read): the
		// least lo2 of the check below, the least slowest piece and the
		// least total; remote when every such machine fetches bytes.
		type rackLow struct {
			lo2, worst, total float64
			remote, made      bool
		}
		var low rackLow
		lowOf := func() rackLow {
			if low.made {
				return low
			}
			low = rackLow{lo2: math.Inf(1), worst: math.Inf(1), total: math.Inf(1), remote: true, made: true}
			for _, rk := range bl.racks {
				for _, m := range rk.machines {
					if rk.rack < 0 { // not fetched by rack (none on a rackNet)
						low.remote = false
						return low
					}
					if srcAt[m] == pn+1 {
						continue
					}
					f := fetchOf(rk.rack, m)
					if !f.ok || f.total <= 0 {
						low.remote = false
						return low
					}
					low.lo2 = min(low.lo2, sp.lat+fmax(f.worst, f.total/sp.cap))
					low.worst, low.total = min(low.worst, f.worst), min(low.total, f.total)
					break
				}
			}
			return low
		}
		// blockLoses tells that every offer of block b loses to best (each
		// machine would be skipped below, or its offer lose): the block
		// holds no piece, so each machine fetches its rack's pieces
		// (lowOf), its reducer runs no shorter than the block's least
		// rate gives (per >= 0) and launches no earlier than the block's
		// earliest core; when every machine launches at now, the
		// senders' links and harm then bound it further (firstLoses).
		blockLoses := func(b int) bool {
			if per < 0 || !bl.usable(b, pn) {
				return false
			}
			e := bl.execLow(lin, b, per)
			lw := lowOf()
			if !lw.remote {
				return cannotWin(fmax(bl.minM[b], now) + e)
			}
			if !(bl.maxM[b] <= now) {
				return cannotWin(fmax(bl.minM[b], now) + lw.lo2 + e)
			}
			// Every machine launches at now; none is a sender, so the
			// senders' slowest link and harm are the ones it reads.
			snd := sendersAt(now)
			fin := now + (sp.lat + fmax(fmax(lw.worst, snd.dur.v1), lw.total/sp.cap)) + e
			score := fin
			if links.Protect {
				score = fmax(snd.harm.v1, fin)
			}
			return score >= best.score-tieEpsilon && (score > best.score+tieEpsilon || fin >= best.finish-tieEpsilon)
		}
	machines:
		for i := 0; i < len(ms); i++ {
			if bl != nil && i%prbBlock == 0 && blockLoses(i/prbBlock) {
				i += prbBlock - 1
				continue
			}
			if len(ms[i].CoreFree) == 0 {
				continue
			}
			var exec float64
			if lin != nil {
				exec = lin.at(i, per) // reduceExec, called directly
			} else {
				exec = reduceExec(i, per)
			}
			// The machine's offer is no earlier than its first reducer's
			// launch (its earliest core) plus its execution: the shuffle
			// only adds. When that is already past the best offer, the
			// comparison below cannot pick it, and its transfers (the
			// senders' links at its launch time above all) are not timed.
			if lb := fmax(sp.machMin[i], now) + exec; sp.lat >= 0 && cannotWin(lb) {
				continue
			}
			var in fetch
			if r := rn.RackOf(i); isRackNet && srcAt[i] != pn+1 && r >= 0 {
				in = fetchOf(r, i)
			} else {
				in.total, in.worst, in.ok = remoteIn(i, srcs, xs, net, rnp)
			}
			// With remote bytes the first reducer's fetch (shuffleDuration)
			// takes at least L plus the slower of its slowest piece alone
			// and all of them through its link alone (what it contends
			// with only adds), so its finish, and the offer, are no
			// earlier than this bound (each sum and max below is one the
			// offer's arithmetic makes with larger or equal operands).
			if sp.lat >= 0 && in.ok && in.total > 0 {
				lo := sp.lat + fmax(in.worst, in.total/sp.cap)
				if lb := fmax(sp.machMin[i], now) + lo + exec; cannotWin(lb) {
					continue
				}
			}
			cores := sp.coreFree[i] // read only; a scratch copy when reducers queue
			if run > 1 {
				coreBuf = append(coreBuf[:0], cores...)
				cores = coreBuf
			}
			c := plan{exec: exec, start: math.Inf(1), core: spare.core[:0], launch: spare.launch[:0], shuffle: spare.shuffle[:0]}
			for r := range run {
				k := 0
				for j := 1; j < len(cores); j++ {
					if cores[j] < cores[k] {
						k = j
					}
				}
				launch := fmax(cores[k], now)
				snd := sendersAt(launch)
				if r == 0 && sp.lat >= 0 && in.ok && in.total > 0 && firstLoses(launch, exec, in, snd, i, links.Protect) {
					// Most machines are skipped here: the senders' links
					// (or the reducers they would delay) are the same for
					// every machine launching then.
					continue machines
				}
				sh, harm := sp.shuffleDuration(i, in.total, in.worst, in.ok, launch, snd)
				if links.Protect {
					c.score = fmax(c.score, harm)
				}
				c.core = append(c.core, k)
				c.launch = append(c.launch, launch)
				c.shuffle = append(c.shuffle, sh)
				c.start = fmin(c.start, launch+sh)
				fin := launch + sh + exec
				if run > 1 {
					cores[k] = fin
				}
				c.finish = fmax(c.finish, fin)
			}
			c.score = fmax(c.score, c.finish)
			if c.score < best.score-tieEpsilon || (c.score <= best.score+tieEpsilon && c.finish < best.finish-tieEpsilon) {
				best, spare, bestM = c, best, i
			} else {
				spare = c
			}
		}
		if bestM < 0 {
			continue
		}
		bi := len(out)
		out = append(out, Binding{Partition: p.ID, Machine: bestM, Reducers: nr, Bytes: p.Bytes})
		moved := &sp.moved
		for r := range run {
			ri := len(sp.rs)
			launch := best.launch[r]
			sp.rs = append(sp.rs, boundReducer{machine: bestM, core: best.core[r], binding: bi, launch: launch,
				shuffleEnd: launch + best.shuffle[r], exec: best.exec})
			var total float64
			for k, s := range srcs {
				x := xs[k]
				if s == bestM || x <= 0 {
					continue
				}
				total += x
				if s >= 0 {
					sp.addXfer(&sp.out[s], xfer{start: launch, bytes: x, owner: ri}, moved)
				}
			}
			if total > 0 {
				sp.addXfer(&sp.in[bestM], xfer{start: launch, bytes: total, owner: ri}, moved)
			}
			if sp.queue[bestM] == nil { // made for the machines that get a reducer
				sp.queue[bestM] = make([][]int, len(sp.coreFree[bestM]))
			}
			sp.queue[bestM][best.core[r]] = append(sp.queue[bestM][best.core[r]], ri)
			sp.coreFree[bestM][best.core[r]] = sp.rs[ri].finish()
			sp.refreshMin(bestM)
		}
		for _, ri := range moved.drain() {
			sp.settle(ri)
		}
	}
	// The estimates as revised by every later binding.
	for i := range out {
		out[i].Launch, out[i].Start, out[i].Finish = math.Inf(1), math.Inf(1), 0
	}
	for ri := range sp.rs {
		r := &sp.rs[ri]
		b := &out[r.binding]
		b.Launch = fmin(b.Launch, r.launch)
		b.Start = fmin(b.Start, r.shuffleEnd)
		b.Finish = fmax(b.Finish, r.finish())
	}
	for i := range ms {
		ms[i].CoreFree = sp.coreFree[i]
	}
	return out
}

// rackTransferTime is transferTime on a RackNetwork from per-rack sums.
func rackTransferTime(to int, p Partition, rs rackSums, net RackNetwork) float64 {
	var atTo int64
	for _, pc := range piecesOf(p, nil) {
		if pc.machine == to {
			atTo = pc.bytes
		}
	}
	return rackTransferTimeAt(to, atTo, rs, net)
}

// rackTransferTimeAt is rackTransferTime given the partition's bytes on
// to (atTo).
func rackTransferTimeAt(to int, atTo int64, rs rackSums, net RackNetwork) float64 {
	return rackCallsOf(net).transferAt(to, atTo, &rs)
}

// rackCalls reads a RackNetwork, a rackNet directly (rn): through the
// interface each of its methods went through a wrapper that copies the
// rackNet, and RackOf, InRack, CrossRack and Latency called so were about
// 3 % of the day's instructions under tmar (PRB's scan of every machine).
type rackCalls struct {
	rn  *rackNet // nil: not a rackNet
	idx []int    // rn's rackIdx
	net RackNetwork
}

// rackCallsOf reads net (nil: no RackNetwork).
func rackCallsOf(net RackNetwork) rackCalls {
	if rn, ok := net.(rackNet); ok {
		return rackCalls{rn: &rn, idx: rn.rackIdx}
	}
	return rackCalls{net: net}
}

// rackOf is RackOf (rackNet.RackOf's reading when rn is set).
func (c rackCalls) rackOf(m int) int {
	if c.idx != nil || c.net == nil {
		if uint(m) < uint(len(c.idx)) {
			return c.idx[m]
		}
		return -1
	}
	return c.net.RackOf(m)
}

// transferAt is rackTransferTimeAt: the same operations in the same order.
func (c rackCalls) transferAt(to int, atTo int64, rs *rackSums) float64 {
	r := c.rackOf(to)
	same := rs.rack(r) - atTo
	if r < 0 {
		same = 0
	}
	cross := rs.total - atTo - same
	if same <= 0 && cross <= 0 {
		return 0
	}
	var in, crossBW, lat float64
	if c.rn != nil {
		in, crossBW, lat = c.rn.in, c.rn.cross, c.rn.latS
	} else {
		in, crossBW = c.net.InRack(), c.net.CrossRack()
		if in > 0 && crossBW > 0 {
			lat = c.net.Latency(-1, to)
		}
	}
	if in <= 0 || crossBW <= 0 {
		return math.Inf(1)
	}
	return lat + float64(same)/in + float64(cross)/crossBW
}

// transferTime is eq. 5 over all sub-partitions: L_ab + size / BW_ab for
// each remote piece. The pieces share the receiving link, so their times
// add up (ours; read per piece, the slowest alone would be the bound).
func transferTime(to int, p Partition, net Network) float64 {
	var total, lat float64
	// Deterministic order over the map.
	pcs := piecesOf(p, nil)
	slices.SortFunc(pcs, func(a, b piece) int { return cmp.Compare(a.machine, b.machine) })
	for _, pc := range pcs {
		from := pc.machine
		if from == to || pc.bytes == 0 {
			continue
		}
		bw := net.Bandwidth(from, to)
		if bw <= 0 {
			return math.Inf(1)
		}
		total += float64(pc.bytes) / bw
		lat = fmax(lat, net.Latency(from, to))
	}
	return lat + total
}
