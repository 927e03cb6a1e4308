// PRB, the reduce stage: Algorithms 3 and 4 (eq. 3-5) bind each partition
// to the node where its reducers finish first, as reduce-binding hints.

package tmar

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// rackNet is the C_B matrix and L vector of the configuration: one bandwidth
// within a rack, another across racks, one latency.
type rackNet struct {
	racks           []string
	rackIdx         []int
	in, cross, latS float64
}

func (n rackNet) Bandwidth(a, b int) float64 {
	// -1 is a node that has left: treat its data as remote.
	// rackIdx numbers the names (newRackNet): equal numbers, equal names.
	if a >= 0 && b >= 0 && n.rackIdx[a] == n.rackIdx[b] {
		return n.in
	}
	return n.cross
}

func (n rackNet) Latency(int, int) float64 { return n.latS }

// RackOf, InRack and CrossRack make rackNet a RackNetwork. Racks are
// compared by name; the index of a machine's rack name is its first
// machine with that name.
func (n rackNet) RackOf(m int) int {
	if m < 0 || m >= len(n.rackIdx) {
		return -1
	}
	return n.rackIdx[m]
}

func (n rackNet) InRack() float64 { return n.in }

func (n rackNet) CrossRack() float64 { return n.cross }

func newRackNet(racks []string, in, cross, latS float64) rackNet {
	first := map[string]int{}
	idx := make([]int, len(racks))
	for i, r := range racks {
		if _, ok := first[r]; !ok {
			first[r] = i
		}
		idx[i] = first[r]
	}
	return rackNet{racks: racks, rackIdx: idx, in: in, cross: cross, latS: latS}
}

// plan runs Algorithms 3 and 4 (PRB) for an app once every map has
// finished and reported its output: each partition, largest first, is bound
// to the node where its reducers finish first. It returns false while an
// output is missing. The plan is made once per app.
func (p *Plugin) plan(ctx context.Context, v cluster.View, a *cluster.App) bool {
	if _, ok := p.plans[a.ID]; ok {
		return true
	}
	if a.Finished() || a.Maps == 0 || a.Reduces == 0 || a.Count[events.Map].Succeeded < a.Maps {
		return false
	}
	if allReducersStarted(a) {
		// MapReduce's slow start launched every reducer while maps ran:
		// no reducer is left to place, and binding their partitions would
		// book cores for reducers the model already counts where they run
		// (a quarter of the plans in the FB-2010 trace's first 7 hours,
		// whose bindings were never sent). The empty plan is made once,
		// like any other: nil maps, which every reader takes as empty.
		p.plans[a.ID], p.planNode[a.ID] = nil, nil
		return true
	}
	ms := p.model(ctx, v) // also indexes nodes for partitions
	parts, ok := p.partitions(a)
	if !ok {
		return false
	}
	// The model's nodes and racks (indexNodes); the network of those racks
	// is made again only with a new node index.
	nodes := p.nodeAt
	if p.netGen != p.idxGen || len(p.net.racks) != len(ms) {
		p.net = newRackNet(slices.Clone(p.idxRacks), p.cfg.BandwidthBps, p.cfg.CrossRackBandwidthBps, p.cfg.LatencyMS/1000)
		p.netGen = p.idxGen
	}
	net := p.net
	jt := jobType(a)
	// Reduce_Matrix per machine, looked up once for the whole plan.
	sPerGiB := p.reduceSPerGBs(ctx, jt, nodes[:len(ms)], nil)
	lin := &linearExec{overhead: p.cfg.TaskOverheadS, sPerGiB: sPerGiB}
	exec := lin.at
	plan, where := map[int]Binding{}, map[int]string{}
	var bs []Binding
	// The machines holding a piece (-1: gone), counted with a stamp per
	// machine instead of a set.
	p.srcStamp++
	if len(p.srcMark) < len(ms)+1 {
		p.srcMark = make([]uint64, len(ms)+1)
	}
	sources, far := 0, map[int]bool(nil)
	for _, pt := range parts {
		for _, pc := range pt.pieces { // partitions gives no At
			m := pc.machine
			switch {
			case m >= -1 && m < len(ms):
				if p.srcMark[m+1] != p.srcStamp {
					p.srcMark[m+1] = p.srcStamp
					sources++
				}
			default: // not a machine of the model (partitions gives none)
				if far == nil {
					far = map[int]bool{}
				}
				if !far[m] {
					far[m] = true
					sources++
				}
			}
		}
	}
	p.early.stale() // binding updates the cores
	if p.sharedModel(a, len(parts), sources, len(ms)) {
		bs = bindShared(&p.sharedSc, ms, parts, net, SharedLinks{NICBps: p.cfg.BandwidthBps, Protect: p.cfg.ProtectLinks}, p.cfg.RSplitBytes, float64(v.Now())/1000, exec, lin)
	} else {
		bs = bindPartitions(ms, parts, net, p.cfg.RSplitBytes, float64(v.Now())/1000, exec, lin, &p.partBlocks)
	}
	for _, b := range bs {
		p.log.Debug().Str("app", a.ID).Int("partition", b.Partition).Str("node", ms[b.Machine].Name).
			Int("reducers", b.Reducers).Int64("bytes", b.Bytes).Float64("now", float64(v.Now())/1000).
			Float64("launch", b.Launch).Float64("start", b.Start).Float64("finish", b.Finish).Msg("tmar bind")
		plan[b.Partition], where[b.Partition] = b, ms[b.Machine].Name
	}
	p.plans[a.ID], p.planNode[a.ID] = plan, where
	if len(plan) > 0 {
		var last float64
		for _, b := range plan {
			last = fmax(last, b.Finish)
		}
		p.planJCTSum += last - float64(a.SubmitTS)/1000
		p.planApps++
	}
	return true
}

// allReducersStarted tells whether every one of a's reducers has started:
// none is pending, and as many are running or done as the app has.
func allReducersStarted(a *cluster.App) bool {
	c := a.Count[events.Reduce]
	return c != nil && c.Pending == 0 && c.Running+c.Succeeded >= a.Reduces
}

// sharedLinksWork bounds the work of BindPartitionsShared, counted as
// partitions x source nodes x (partitions + nodes): it revisits every
// transfer on a sender's link for each partition, where the paper's model
// sums per rack. 2e6 is about 40 ms a plan; the paper's jobs here stay
// under 1.2e6. At 5e7 (about a second) the first 1,500 SWIM jobs on 600
// nodes took 146 s of CPU instead of 80 s for the same mean JCT (18.0 s).
const sharedLinksWork = 2e6

// sharedModel tells whether PRB times the shuffle with BindPartitionsShared.
// That model assumes it sees every transfer; when the map outputs name fewer
// partitions than the job has reducers (the simulator lists at most 200 per
// output), the reducers it cannot bind share the links and cores unseen and
// the paper's per-destination vector planned better (WordCount at 30 hosts,
// 700 reducers: 1,531 s against 1,566 s). Beyond sharedLinksWork it is too
// slow for a plan made while the reducers wait.
func (p *Plugin) sharedModel(a *cluster.App, partitions, sources, machines int) bool {
	work := float64(partitions) * float64(sources) * float64(partitions+machines)
	return p.cfg.SharedLinks && partitions >= a.Reduces && work <= sharedLinksWork
}

// placeReducer names the node PRB bound the reducer's partition to, as soon
// as the reducer is requested: a binding that arrived with the next tick
// would come after the ResourceManager had already placed it. The place is
// a reservation (strict) like a map's, and the reducer's core is reserved
// until its planned finish.
func (p *Plugin) placeReducer(ctx context.Context, v cluster.View, t *cluster.Task) ([]policy.NodeScore, *policy.Status) {
	if t.Partition < 0 || !p.plan(ctx, v, t.App) {
		return nil, policy.NewStatus(policy.Skip, "partitions not bound yet (map outputs missing)")
	}
	b, ok := p.plans[t.App.ID][t.Partition]
	if !ok {
		return nil, policy.NewStatus(policy.Skip, "partition not in the PRB plan")
	}
	node := p.planNode[t.App.ID][t.Partition]
	p.reserve(t.ID, reservation{task: t, node: node, finish: b.Finish})
	return []policy.NodeScore{{Node: node, Score: 1}}, nil
}

// Bind is Algorithms 3 and 4 (PRB): once every map of an app has finished
// and reported its output, bind each partition, largest first, to the node
// where its reducers finish first, with ceil(size / R_split) reducers. The
// binding of a partition whose reducer has not started is renewed each
// tick, so it holds however long the reducer waits for its node; a renewal
// the engine has in force (a repeat it would drop) is left out (lapse.go).
//
// The returned slice is valid until the next call, which reuses its array
// (a tick's hold renewals were a third of the bytes the day allocated):
// the engine stamps the hints where they are (HintsAreScratch) and returns
// them from the tick, so the caller may read them until the next tick
// (TestEngineKeepsBindHintsInPlace).
func (p *Plugin) Bind(ctx context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	p.lapses.Begin(p.name)
	if p.cfg.Replan {
		p.replan(ctx, v)
	}
	out := p.holds(v)
	p.shrinkReserved()
	now := float64(v.Now()) / 1000
	for id := range p.plans {
		if a := v.App(id); a == nil || a.Finished() {
			delete(p.plans, id)
			delete(p.planNode, id)
			delete(p.redCounts, id)
			delete(p.bound, id)
		}
	}
	for id := range p.rates {
		if a := v.App(id); a == nil || a.Finished() {
			delete(p.rates, id)
			p.learnVer++
		}
	}
	for id := range p.outTotals { // an app whose end was not seen
		if a := v.App(id); a == nil || a.Finished() {
			delete(p.outTotals, id)
		}
	}
	for _, a := range v.Apps() {
		if a.Finished() || !p.plan(ctx, v, a) {
			continue
		}
		bs := p.boundOf(a.ID)
		// A binding in force in the engine is left out (see holds); the
		// app's reducers are read only when one may be renewed.
		todo := 0
		for k := range bs {
			b := &bs[k]
			b.send = !p.lapses.Wired() || !p.inForceNow(&b.lapse, b.target, b.content)
			if b.send {
				todo++
			}
		}
		if todo == 0 {
			continue
		}
		p.markStarted(a)
		for k := range bs {
			b := &bs[k]
			if !b.send || p.started(b.id) {
				continue
			}
			p.lapses.Returned(&b.lapse, lapseBinding)
			out = append(out, policy.Hint{Kind: policy.KindReduceBinding, App: a.ID, Partition: b.id,
				Node: b.node, Reducers: b.reducers,
				Reason: fmt.Sprintf("PRB: reducers finish at +%.1fs there (eq. 3-5)", b.finish-now)})
		}
	}
	// The next call reuses out's array (see hintBuf); what this call put
	// beyond the next one's hints is dropped then (holds).
	p.hintBuf = out
	return out, nil
}

// HintsAreScratch tells the engine that the hints Bind returns are its
// scratch, read by no one but the engine and the engine's caller before
// the next Bind: the engine stamps and keeps them where they are, instead
// of a copy of a tick's 400,000 hold renewals (116 MB at the FB-2010 day's
// peak).
func (*Plugin) HintsAreScratch() bool { return true }

// boundPart is a partition's binding as Bind renews it, with the target
// and content of its hint as the engine compares them.
type boundPart struct {
	id              int
	node            string
	reducers        int
	finish          float64
	target, content string
	lapse           policy.Lapse // in the engine (lapse.go)
	send            bool         // Bind's scratch: not in force in the engine
}

// boundOf is the app's plan in partition order, made once per plan: the
// plan does not change once made.
func (p *Plugin) boundOf(app string) []boundPart {
	if bs, ok := p.bound[app]; ok {
		return bs
	}
	plan := p.plans[app]
	bs := make([]boundPart, 0, len(plan))
	for id, b := range plan {
		bs = append(bs, boundPart{id: id, node: p.planNode[app][id], reducers: b.Reducers, finish: b.Finish})
	}
	slices.SortFunc(bs, func(x, y boundPart) int { return cmp.Compare(x.id, y.id) })
	for k := range bs {
		b := &bs[k]
		h := policy.Hint{Kind: policy.KindReduceBinding, App: app, Partition: b.id, Node: b.node, Reducers: b.reducers}
		b.target, b.content = p.hintKeyOf(&h)
	}
	p.bound[app] = bs
	return bs
}

// markStarted marks the partitions of a's reducers that are not pending,
// for started (a fresh stamp per call; ids beyond the dense range in a map).
func (p *Plugin) markStarted(a *cluster.App) {
	p.startStamp++
	clear(p.startFar)
	for _, t := range a.Tasks {
		if t.Kind != events.Reduce || t.State == cluster.TaskPending {
			continue
		}
		if id := t.Partition; id >= 0 && id < maxDenseID {
			if id >= len(p.startMark) {
				p.startMark = append(p.startMark, make([]uint64, id+1-len(p.startMark))...)
			}
			p.startMark[id] = p.startStamp
		} else {
			if p.startFar == nil {
				p.startFar = map[int]bool{}
			}
			p.startFar[id] = true
		}
	}
}

// started tells whether markStarted marked partition id.
func (p *Plugin) started(id int) bool {
	if id >= 0 && id < maxDenseID {
		return id < len(p.startMark) && p.startMark[id] == p.startStamp
	}
	return p.startFar[id]
}

// partitions gathers the app's partition sizes and where their pieces lie
// (machine -1: a node no longer running). The pieces are summed in a dense
// table (partition x machine, reused between plans) and each partition's
// pieces listed once from it (Partition.pieces, At nil: the PRB code reads
// either): summing into maps, one insertion per map output and partition,
// was most of a large job's plan, and a map per partition a fifth of it
// still. The result is partitionsRef's with its At listed
// (TestPartitionsSameAsRef), a piece of 0 bytes included.
func (p *Plugin) partitions(a *cluster.App) ([]Partition, bool) {
	for _, t := range a.Tasks {
		if t.Kind != events.Map {
			continue
		}
		if at := succeeded(t); at == nil || at.Output == nil {
			return nil, false // an output is still missing
		}
	}
	sc := &p.partScratch
	w := len(p.nodeAt) + 1 // column i+1 is machine i, column 0 machine -1
	for _, t := range a.Tasks {
		if t.Kind != events.Map {
			continue
		}
		at := succeeded(t)
		col := 0
		if i, ok := p.index[at.Node]; ok {
			col = i + 1
		}
		for _, o := range at.Output {
			// The partition's row: a dense id seen before in one load, else
			// made (sc.row) with its cells. A row's cells exist from its
			// making on, so the record is not checked against the table's
			// size each time (a third of the walk's instructions).
			var k int
			if id := o.ID; id >= 0 && id < len(sc.pos) && sc.pos[id] != 0 {
				k = int(sc.pos[id]) - 1
			} else {
				k = sc.row(id, w)
			}
			c := k*w + col
			sc.sums[c] += o.Bytes
			if !sc.has[c] {
				sc.has[c] = true
				sc.cols[k] = append(sc.cols[k], int32(col))
			}
		}
	}
	order := make([]int, len(sc.ids)) // rows by partition id
	for k := range order {
		order[k] = k
	}
	sort.Slice(order, func(x, y int) bool { return sc.ids[order[x]] < sc.ids[order[y]] })
	out := make([]Partition, 0, len(order))
	// Every partition's pieces share one array.
	n := 0
	for _, k := range order {
		n += len(sc.cols[k])
	}
	all := make([]piece, 0, n)
	for _, k := range order {
		// The row's cells with a piece, listed as first reported: the
		// row's width is the cluster's, its pieces the app's few maps'.
		sums, cols := sc.sums[k*w:(k+1)*w], sc.cols[k]
		from := len(all)
		part := Partition{ID: sc.ids[k]}
		for _, c := range cols {
			all = append(all, piece{int(c) - 1, sums[c]})
			part.Bytes += sums[c] // integers: the same sum in any order
		}
		part.pieces = all[from:len(all):len(all)]
		if !p.cfg.SpawnReducers {
			part.Run = 1
		}
		out = append(out, part)
	}
	// Leave the scratch zeroed for the next plan.
	for k := range sc.ids {
		for _, c := range sc.cols[k] {
			sc.sums[k*w+int(c)], sc.has[k*w+int(c)] = 0, false
		}
		sc.cols[k] = sc.cols[k][:0]
	}
	for _, id := range sc.ids {
		if id >= 0 && id < maxDenseID {
			sc.pos[id] = 0
		}
	}
	clear(sc.far)
	sc.ids = sc.ids[:0]
	return out, len(out) > 0
}

// maxDenseID bounds the partition ids partitions numbers through a slice;
// others (never seen from MapReduce, whose ids are 0..reduces-1) go
// through a map.
const maxDenseID = 1 << 16

// row is partition id's row, made on first sight (ids below maxDenseID
// through pos, others through far), with room for its w cells in sums and
// has and its list in cols.
func (sc *partScratch) row(id, w int) int {
	if id >= 0 && id < maxDenseID {
		if id >= len(sc.pos) {
			sc.pos = append(sc.pos, make([]int32, id+1-len(sc.pos))...)
		}
		if sc.pos[id] != 0 {
			return int(sc.pos[id]) - 1
		}
		sc.ids = append(sc.ids, id)
		sc.pos[id] = int32(len(sc.ids))
	} else {
		if sc.far == nil {
			sc.far = map[int]int{}
		}
		if k, ok := sc.far[id]; ok {
			return k
		}
		sc.ids = append(sc.ids, id)
		sc.far[id] = len(sc.ids) - 1
	}
	k := len(sc.ids) - 1
	if need := (k + 1) * w; need > len(sc.sums) {
		sc.sums = append(sc.sums, make([]int64, need-len(sc.sums))...)
		sc.has = append(sc.has, make([]bool, need-len(sc.has))...)
	}
	if k >= len(sc.cols) {
		sc.cols = append(sc.cols, make([][]int32, k+1-len(sc.cols))...)
	}
	return k
}

// partScratch is partitions' dense table, reused between plans.
type partScratch struct {
	pos  []int32     // partition id -> 1 + its row (ids below maxDenseID)
	far  map[int]int // other ids -> row
	ids  []int       // row -> partition id
	sums []int64     // row x (machines + 1) bytes
	has  []bool      // the same cells: a piece was reported there
	cols [][]int32   // row -> its cells with a piece, in order of first report
}

// Extra reports what the reduce-stage plan predicted (the simulator copies
// it into results.json's extra): tmar_plan_jct_s, the mean over planned apps
// of the completion PRB predicted when it bound their partitions (eq. 3-5
// and the cores then), to set beside the completion the run measured.
func (p *Plugin) Extra() map[string]float64 {
	if p.planApps == 0 {
		return nil
	}
	return map[string]float64{"tmar_plan_jct_s": p.planJCTSum / float64(p.planApps), "tmar_planned_apps": float64(p.planApps)}
}
