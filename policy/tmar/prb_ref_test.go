package tmar

// The PRB code before the incremental changes, kept as the reference the
// current BindPartitions and BindPartitionsShared must plan exactly as
// (TestBindPartitionsSameAsRef).

import (
	"math"
	"sort"
)

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
func bindPartitionsRef(ms []Machine, parts []Partition, net Network, rSplit int64, now float64,
	reduceExec func(machine int, bytes int64) float64) []Binding {
	sorted := bySizeDesc(parts)
	rSplit = max(rSplit, 1)
	out := make([]Binding, 0, len(sorted))
	linkFree := make([]float64, len(ms))
	for i := range linkFree {
		linkFree[i] = now
	}
	rnet, isRack := net.(RackNetwork)
	for _, p := range sorted {
		var rs rackSums
		if isRack {
			rs = sumRacks(p, rnet)
		}
		nr := int(math.Ceil(float64(p.Bytes) / float64(rSplit)))
		nr = max(nr, 1)
		run := nr
		if p.Run > 0 {
			run = p.Run
		}
		per := p.Bytes / int64(run)
		best := Binding{Partition: p.ID, Machine: -1, Reducers: nr, Bytes: p.Bytes, Finish: math.Inf(1)}
		var bestCores []float64
		var bestArrive float64
		for i := range ms {
			if len(ms[i].CoreFree) == 0 {
				continue
			}
			arrive := now // all of it local
			var tt float64
			if isRack {
				tt = rackTransferTime(i, p, rs, rnet)
			} else {
				tt = transferTime(i, p, net)
			}
			if tt > 0 {
				arrive = linkFree[i] + tt // eq. 5 through i's link
			}
			cores := append([]float64(nil), ms[i].CoreFree...)
			sort.Float64s(cores)
			exec := reduceExec(i, per)
			// Algorithm 4 lines 7–12: reducers beyond the free cores queue
			// behind them; each reducer starts when a core frees and the
			// data has arrived (eq. 4).
			var start, finish, launch float64
			for r := range run {
				c := 0
				for k := 1; k < len(cores); k++ {
					if cores[k] < cores[c] {
						c = k
					}
				}
				s := math.Max(math.Max(cores[c], arrive), now)
				if r == 0 {
					start, launch = s, math.Max(cores[c], now)
				}
				cores[c] = s + exec
				finish = math.Max(finish, cores[c])
			}
			if finish < best.Finish-tieEpsilon {
				best = Binding{Partition: p.ID, Machine: i, Reducers: nr, Bytes: p.Bytes, Launch: launch, Start: start, Finish: finish}
				bestCores, bestArrive = cores, arrive
			}
		}
		if best.Machine < 0 {
			continue
		}
		ms[best.Machine].CoreFree = bestCores
		linkFree[best.Machine] = bestArrive
		out = append(out, best)
	}
	return out
}

// xfer is one reducer's transfer over one link in BindPartitionsShared:
// bytes from start, done (by the model's estimate) at end.
type refXfer struct {
	start, end, bytes float64
	owner             int // index of the reducer (refReducer) it feeds
}

// remaining is the share of x not yet sent at t, assuming a steady rate
// between its start and its estimated end.
func (x *refXfer) remaining(t float64) float64 {
	switch {
	case t >= x.end:
		return 0
	case t <= x.start || x.end <= x.start:
		return x.bytes
	}
	return x.bytes * (x.end - t) / (x.end - x.start)
}

// refReducer is one reducer placed by BindPartitionsShared.
type refReducer struct {
	machine, core int
	binding       int     // index into the output
	launch        float64 // container start: the fetch starts here
	shuffleEnd    float64
	exec          float64
	xfers         []int // into refPlan.xs
}

func (r *refReducer) finish() float64 { return r.shuffleEnd + r.exec }

// refPlan is BindPartitionsShared's state: per node, the transfers on its
// outgoing and incoming link, and per core the reducers queued on it.
type refPlan struct {
	cap, lat float64 // NIC bytes/s each way; L
	xs       []refXfer
	out, in  [][]int // machine -> indices into xs
	rs       []refReducer
	queue    [][][]int // machine -> core -> indices into rs, in start order
	coreFree [][]float64
}

// contend is how many bytes of a newcomer of x bytes, sent over
// [t0, t0+dur], compete with transfer j on their link: under processor
// sharing min(x, r_j) when j is running at t0 with r_j left; when j starts
// later, what x still has to send then (at a steady rate), up to j's bytes;
// nothing when j starts after x is done.
func (sp *refPlan) contend(j int, x, t0, dur float64) float64 {
	o := &sp.xs[j]
	if o.start <= t0 {
		return math.Min(x, o.remaining(t0))
	}
	if dur <= 0 || o.start >= t0+dur {
		return 0
	}
	return math.Min(x*(t0+dur-o.start)/dur, o.bytes)
}

// psDuration is how long x bytes starting at t0 take on a link shared,
// processor-sharing style, with the transfers bound to it (ours, eq. 5 with
// shared links): x plus what it contends with, at the link's capacity. The
// transfers running at t0 give a first estimate, which tells which of those
// starting later overlap it. harm is the latest finish of a core whose
// reducer the newcomer would delay (j ends contend / capacity later),
// counting the reducers queued behind it on that core.
func (sp *refPlan) psDuration(link []int, x, t0 float64) (dur, harm float64) {
	work := x
	for _, j := range link {
		if sp.xs[j].start <= t0 {
			work += sp.contend(j, x, t0, 0)
		}
	}
	first := work / sp.cap
	work = x
	for _, j := range link {
		work += sp.contend(j, x, t0, first)
	}
	dur = work / sp.cap
	for _, j := range link {
		c := sp.contend(j, x, t0, dur)
		if c <= 0 {
			continue
		}
		o := &sp.rs[sp.xs[j].owner]
		if late := sp.xs[j].end + c/sp.cap + sp.lat - o.shuffleEnd; late > 0 {
			harm = math.Max(harm, sp.coreFree[o.machine][o.core]+late)
		}
	}
	return dur, harm
}

// top2 keeps the largest and second largest of values keyed by machine,
// so the largest over all machines but one is O(1).
type refTop2 struct {
	v1, v2 float64
	k1     int
}

func (t *refTop2) add(k int, v float64) {
	switch {
	case v > t.v1:
		t.v2, t.v1, t.k1 = t.v1, v, k
	case v > t.v2:
		t.v2 = v
	}
}

// without is the largest value of a machine other than k.
func (t *refTop2) without(k int) float64 {
	if k == t.k1 {
		return t.v2
	}
	return t.v1
}

// senders is, for one partition and one launch time, the fetch time and the
// harm (see psDuration) on each sender's outgoing link: they do not depend
// on the receiving node but for its own piece, which it reads locally, so a
// partition computes them once per launch time rather than once per node.
type refSenders struct {
	dur, harm refTop2
}

func (sp *refPlan) senders(pieces map[int]float64, srcs []int, t0 float64) refSenders {
	out := refSenders{dur: refTop2{k1: -2}, harm: refTop2{k1: -2}}
	for _, s := range srcs {
		x := pieces[s]
		if s < 0 || x <= 0 {
			continue
		}
		d, h := sp.psDuration(sp.out[s], x, t0)
		out.dur.add(s, d)
		out.harm.add(s, h)
	}
	return out
}

// shuffleDuration is the fetch time of a reducer launched at t0 on to whose
// remote pieces are pieces (by machine; to's own piece is read locally):
// the slowest of its incoming link and the outgoing links of its sources
// (eq. 5 applied at both ends of every piece, out from senders), plus L;
// and the harm (psDuration) it does to the reducers already bound.
func (sp *refPlan) shuffleDuration(to int, pieces map[int]float64, srcs []int, t0 float64, out refSenders, net Network) (dur, harm float64) {
	var total, worst float64
	for _, s := range srcs {
		x := pieces[s]
		if s == to || x <= 0 {
			continue
		}
		total += x
		// A piece never beats its pair bandwidth (C_B).
		bw := net.Bandwidth(s, to)
		if bw <= 0 {
			return math.Inf(1), 0
		}
		worst = math.Max(worst, x/bw)
	}
	if total == 0 {
		return 0, 0
	}
	worst = math.Max(worst, out.dur.without(to))
	d, h := sp.psDuration(sp.in[to], total, t0)
	return sp.lat + math.Max(worst, d), math.Max(out.harm.without(to), h)
}

// addXfer puts a new transfer on a link and delays the transfers it
// contends with by contend / capacity (processor sharing), marking their
// owners in moved.
func (sp *refPlan) addXfer(link *[]int, x refXfer, moved map[int]bool) {
	d, _ := sp.psDuration(*link, x.bytes, x.start)
	for _, j := range *link {
		if c := sp.contend(j, x.bytes, x.start, d); c > 0 {
			sp.xs[j].end += c / sp.cap
			moved[sp.xs[j].owner] = true
		}
	}
	x.end = x.start + d
	sp.xs = append(sp.xs, x)
	*link = append(*link, len(sp.xs)-1)
	sp.rs[x.owner].xfers = append(sp.rs[x.owner].xfers, len(sp.xs)-1)
}

// settle recomputes a moved reducer's shuffle end from its transfers and
// shifts the reducers queued after it on its core by as much.
func (sp *refPlan) settle(ri int) {
	r := &sp.rs[ri]
	end := r.launch
	for _, j := range r.xfers {
		end = math.Max(end, sp.xs[j].end+sp.lat)
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
}

// prune drops from the links the transfers done by the time the first core
// frees (and no earlier than since): no reducer bound from now on launches
// before then, so they contend with nothing (see contend), and the links
// keep only what can still overlap. It returns that time.
func (sp *refPlan) prune(since float64) float64 {
	at := math.Inf(1)
	for _, cores := range sp.coreFree {
		for _, f := range cores {
			at = math.Min(at, f)
		}
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
// reducers the partition's transfers would delay.
func bindPartitionsSharedRef(ms []Machine, parts []Partition, net Network, links SharedLinks, rSplit int64, now float64,
	reduceExec func(machine int, bytes int64) float64) []Binding {
	sorted := bySizeDesc(parts)
	rSplit = max(rSplit, 1)
	capB := links.NICBps
	if capB <= 0 {
		capB = math.Inf(1)
	}
	// One L for every transfer: the latency of a pair is not known here
	// per piece (rackNet has one).
	sp := &refPlan{cap: capB, lat: net.Latency(-1, -1),
		out: make([][]int, len(ms)), in: make([][]int, len(ms)),
		queue: make([][][]int, len(ms)), coreFree: make([][]float64, len(ms))}
	for i := range ms {
		sp.queue[i] = make([][]int, len(ms[i].CoreFree))
		sp.coreFree[i] = append([]float64(nil), ms[i].CoreFree...)
	}
	out := make([]Binding, 0, len(sorted))
	pruned := now
	var coreBuf []float64
	for _, p := range sorted {
		pruned = sp.prune(pruned)
		nr := max(int(math.Ceil(float64(p.Bytes)/float64(rSplit))), 1)
		run := nr
		if p.Run > 0 {
			run = p.Run
		}
		per := p.Bytes / int64(run)
		pieces := make(map[int]float64, len(p.At))
		srcs := make([]int, 0, len(p.At))
		for s, b := range p.At {
			if b > 0 {
				pieces[s] = float64(b) / float64(run)
				srcs = append(srcs, s)
			}
		}
		sort.Ints(srcs)
		type plan struct {
			core                       []int
			launch, shuffle            []float64
			exec, start, finish, score float64
		}
		best, bestM := plan{finish: math.Inf(1), score: math.Inf(1)}, -1
		byLaunch := map[float64]refSenders{} // most nodes launch at the same times
		// Scratch reused across machines: a candidate's vectors become
		// best's, and best's old ones the next candidate's.
		var spare plan
		for i := range ms {
			if len(ms[i].CoreFree) == 0 {
				continue
			}
			coreBuf = append(coreBuf[:0], sp.coreFree[i]...)
			cores := coreBuf
			exec := reduceExec(i, per)
			c := plan{exec: exec, start: math.Inf(1), core: spare.core[:0], launch: spare.launch[:0], shuffle: spare.shuffle[:0]}
			for range run {
				k := 0
				for j := 1; j < len(cores); j++ {
					if cores[j] < cores[k] {
						k = j
					}
				}
				launch := math.Max(cores[k], now)
				snd, ok := byLaunch[launch]
				if !ok {
					snd = sp.senders(pieces, srcs, launch)
					byLaunch[launch] = snd
				}
				sh, harm := sp.shuffleDuration(i, pieces, srcs, launch, snd, net)
				if links.Protect {
					c.score = math.Max(c.score, harm)
				}
				c.core = append(c.core, k)
				c.launch = append(c.launch, launch)
				c.shuffle = append(c.shuffle, sh)
				c.start = math.Min(c.start, launch+sh)
				cores[k] = launch + sh + exec
				c.finish = math.Max(c.finish, cores[k])
			}
			c.score = math.Max(c.score, c.finish)
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
		moved := map[int]bool{}
		for r := range run {
			ri := len(sp.rs)
			launch := best.launch[r]
			sp.rs = append(sp.rs, refReducer{machine: bestM, core: best.core[r], binding: bi, launch: launch,
				shuffleEnd: launch + best.shuffle[r], exec: best.exec})
			var total float64
			for _, s := range srcs {
				x := pieces[s]
				if s == bestM || x <= 0 {
					continue
				}
				total += x
				if s >= 0 {
					sp.addXfer(&sp.out[s], refXfer{start: launch, bytes: x, owner: ri}, moved)
				}
			}
			if total > 0 {
				sp.addXfer(&sp.in[bestM], refXfer{start: launch, bytes: total, owner: ri}, moved)
			}
			sp.queue[bestM][best.core[r]] = append(sp.queue[bestM][best.core[r]], ri)
			sp.coreFree[bestM][best.core[r]] = sp.rs[ri].finish()
		}
		ids := make([]int, 0, len(moved))
		for ri := range moved {
			ids = append(ids, ri)
		}
		sort.Ints(ids)
		for _, ri := range ids {
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
		b.Launch = math.Min(b.Launch, r.launch)
		b.Start = math.Min(b.Start, r.shuffleEnd)
		b.Finish = math.Max(b.Finish, r.finish())
	}
	for i := range ms {
		ms[i].CoreFree = sp.coreFree[i]
	}
	return out
}

// bindPartitionsBefore is BindPartitions before it passed over blocks of
// machines (prbBlocks), kept as the reference TestBindBlocksSameAsRef holds
// bindPartitions to: with NaN core times it already planned otherwise than
// bindPartitionsRef (its lower bound skips and its sorted winner's cores).
func bindPartitionsBefore(ms []Machine, parts []Partition, net Network, rSplit int64, now float64,
	reduceExec func(machine int, bytes int64) float64) []Binding {
	sorted := bySizeDesc(parts)
	rSplit = max(rSplit, 1)
	out := make([]Binding, 0, len(sorted))
	linkFree := make([]float64, len(ms))
	for i := range linkFree {
		linkFree[i] = now
	}
	rnet, isRack := net.(RackNetwork)
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
	for pn, p := range sorted {
		pcs = piecesOf(p, pcs)
		var rs rackSums
		if isRack {
			rs = sumRacksDense(pcs, rnet, rackBytes)
		}
		for _, pc := range pcs {
			if m := pc.machine; m >= 0 && m < len(at) {
				at[m] = pc.bytes
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
		for i := range ms {
			if len(ms[i].CoreFree) == 0 {
				continue
			}
			exec := reduceExec(i, per)
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
				r := rnet.RackOf(i)
				if r < 0 || r >= len(rackTT) {
					tt = rackTransferTimeAt(i, 0, rs, rnet)
					break
				}
				if rackTTAt[r] != pn+1 {
					rackTT[r], rackTTAt[r] = rackTransferTimeAt(i, 0, rs, rnet), pn+1
				}
				tt = rackTT[r]
			default:
				tt = rackTransferTimeAt(i, at[i], rs, rnet)
			}
			if tt > 0 {
				arrive = linkFree[i] + tt // eq. 5 through i's link
			}
			var start, finish, launch float64
			if run == 1 {
				// queueReducers for one reducer, on the first earliest
				// core, without copying the cores.
				cs := ms[i].CoreFree
				c := cs[0]
				for _, f := range cs[1:] {
					if f < c {
						c = f
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
			clearRacks(pcs, rnet, rackBytes)
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
		out = append(out, best)
	}
	return out
}
