// The map stage: the machine model of the current instant and Algorithm 1
// (Algorithm 2 for tmar-power) over the pending maps, as place hints.

package tmar

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// sameFinishS: a strict map hold also names the nodes where the map would
// finish within this many seconds of the chosen one at the same locality
// (ours). The plan does not care which of them runs it, and the first to
// heartbeat takes it instead of the map waiting for one node's heartbeat
// (on a homogeneous cluster every idle node holding a replica is such a
// node). The model follows whichever starts it: a started map counts on the
// node it runs on.
const sameFinishS = 0.1

// minProgress is the progress from which an overdue running attempt's end
// is extrapolated from its progress rate.
const minProgress = 0.05

// model returns the machine model at the view's instant: each running
// node's cores, busy until its running attempts are expected to end or until
// the maps this policy placed and that have not started yet are done.
func (p *Plugin) model(ctx context.Context, v cluster.View) []Machine {
	if p.modelAt == v.Now() && p.machines != nil {
		return p.machines
	}
	now := float64(v.Now()) / 1000
	p.modelAt = v.Now()
	p.machines = p.machines[:0]
	p.nodeAt = p.nodeAt[:0]
	p.execKey = execKey{} // the machines changed: Place's cached Map_Matrix column is stale
	p.early.stale()
	p.beginReducerApps()
	var app appRows // the rows and rate of the last running map's app
	p.modelNodes(ctx, v, now, &app)
	// Placements of ours still pending keep their cores, taken in order of
	// finish (then task id) so the model never depends on map order.
	hs := p.holdSc.hs[:0] // reused: holdCores copies what it keeps
	// In order of submission (kept for replan): an app's reservations,
	// tasks and app one after another, where the map's order was random.
	// While replanning, the maps being re-planned count as not placed:
	// replan's walk over the same order left them out of replanKept
	// (nothing reserves or drops one in between), so this pass does not
	// read every map of a large job a second time.
	rs := p.replanKept
	if !p.replanning {
		rs = p.bySubmit.sorted()
	}
	for _, r := range rs {
		if r.task.State != cluster.TaskPending || r.task.App.Finished() {
			p.unreserve(r.task.ID, r) // started (its attempt is counted above), or its app is over
			continue
		}
		if r.finish <= now {
			continue // overdue and not started: kept for the next re-plan
		}
		if i, ok := p.index[r.node]; ok {
			hs = append(hs, held{i, r.finish})
		}
	}
	holdCores(p.machines, hs, &p.holdSc)
	p.holdSc.hs = hs
	// What modelNodes and holdCores left off the instant: for Place's
	// fill (fillModel).
	for _, h := range hs {
		p.early.touched = append(p.early.touched, h.machine)
	}
	p.early.model, p.early.modelNow = true, now
	return p.machines
}

// modelNodes makes the model's machines, one per running node with a
// core: each core free at now, or when the running attempt on it is
// expected to end. It also indexes the nodes (indexNodes). The model is
// made at every new instant (tens of thousands of times a day) while
// most nodes run nothing, so the per-node work is kept small: every core
// of the buffer is set to now in one fill instead of node by node, each
// machine is written in place, and the test of indexNodes (the same nodes
// as the index's) is made in this pass (TestModelNodesSameAsRef).
func (p *Plugin) modelNodes(ctx context.Context, v cluster.View, now float64, app *appRows) {
	nodes := v.Nodes()
	buf := p.coreBuf[:cap(p.coreBuf)]
	fillFloats(buf, now)
	p.machines = slices.Grow(p.machines[:0], len(nodes))
	p.nodeAt = slices.Grow(p.nodeAt[:0], len(nodes))
	same := p.index != nil
	used := 0
	p.early.touched = p.early.touched[:0]
	for _, n := range nodes {
		if n.State != cluster.NodeRunning {
			continue
		}
		cores := n.VCores / p.cfg.ContainerVCores
		if cores <= 0 {
			continue
		}
		if used+cores > len(buf) {
			// More cores than any model before: a buffer for all of
			// them, and the machines made again in it.
			total := 0
			for _, n := range nodes {
				if n.State == cluster.NodeRunning {
					total += max(0, n.VCores/p.cfg.ContainerVCores)
				}
			}
			p.coreBuf = make([]float64, 0, total)
			p.modelNodes(ctx, v, now, app)
			return
		}
		k := len(p.machines)
		if same {
			same = k < len(p.idxNodes) && n == p.idxNodes[k] && sameString(n.ID, p.idxIDs[k]) && sameString(n.Rack, p.idxRacks[k])
		}
		cf := buf[used : used+cores : used+cores]
		used += cores
		p.machines = p.machines[:k+1]
		m := &p.machines[k]
		m.Name, m.CoreFree, m.PowerIdleW, m.PowerMaxW = n.ID, cf, n.PowerIdleW, n.PowerMaxW
		p.nodeAt = append(p.nodeAt, n)
		if len(n.Running) > 0 {
			p.busyCores(ctx, n, cf, now, app)
			p.early.touched = append(p.early.touched, k)
		}
	}
	p.indexNodes(same && len(p.machines) == len(p.idxNodes))
}

// busyCores sets cf's first cores, one per attempt running on n (in the
// node's order, as many as there are cores), to when the attempt is
// expected to end, no earlier than now.
func (p *Plugin) busyCores(ctx context.Context, n *cluster.Node, cf []float64, now float64, app *appRows) {
	busy := 0
	for _, at := range n.Running {
		if busy >= len(cf) {
			break
		}
		var est float64
		if at.Task.Kind == events.Map {
			est = p.mapExecOf(ctx, app, at.Task, n)
		} else {
			est = p.reducerEst(ctx, at.Task, n)
		}
		cf[busy] = attemptEnd(at, est, now)
		busy++
	}
}

// reducerEst is the time the model expects reducer t to run on n: the
// fixed overhead and its partition's GB at the job type's Reduce_Matrix
// rate there.
func (p *Plugin) reducerEst(ctx context.Context, t *cluster.Task, n *cluster.Node) float64 {
	return p.cfg.TaskOverheadS + p.reduceSPerGB(ctx, jobType(t.App), n)*p.reducerGBOf(t)
}

// attemptEnd is when running attempt at, expected to take est seconds, is
// expected to end, seen at now: est after its start, or, once that is
// past (a reducer waiting for maps, a slow node, a straggler), by its
// progress rate, remaining = elapsed x (1 - progress) / progress. An
// overdue attempt whose progress tells nothing (below minProgress) is
// expected to take est again from now: it still holds its core. Counting
// that core free at now put maps on nodes whose every core held a reducer
// waiting for them: on the FB-2010 day (3,000 nodes) the cluster's 24,000
// cores held 23,752-23,982 such reducers from simulated 6h04m while
// hundreds of thousands of maps waited, held to those nodes
// (TestModelOverdueBusy).
func attemptEnd(at *cluster.Attempt, est, now float64) float64 {
	end := float64(at.StartTS)/1000 + est
	if end > now {
		return end
	}
	if at.Progress >= minProgress && at.ProgressTS > at.StartTS {
		el := float64(at.ProgressTS-at.StartTS) / 1000
		return fmax(now, float64(at.ProgressTS)/1000+el*(1-at.Progress)/at.Progress)
	}
	return now + est
}

// fillFloats sets every element of b to x, doubling the copied prefix.
func fillFloats(b []float64, x float64) {
	if len(b) == 0 {
		return
	}
	b[0] = x
	for k := 1; k < len(b); k *= 2 {
		copy(b[k:], b[:k])
	}
}

// sameString is a == b, without comparing the bytes of one string with
// themselves (the index keeps the node's own id and rack strings).
func sameString(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// held is what the model reads of a reservation: its machine and finish.
type held struct {
	machine int
	finish  float64
}

// modelReplanning is model built while replanning (without the maps being
// re-planned); the flag is down again however model returns.
func (p *Plugin) modelReplanning(ctx context.Context, v cluster.View, kept []*reservation) []Machine {
	p.replanning, p.replanKept = true, kept
	defer func() { p.replanning, p.replanKept = false, nil }()
	return p.model(ctx, v)
}

// replanSplit is replan's walk over the reservations in order of
// submission (bySubmission, kept between ticks): the maps not started,
// which it re-plans, and the others (kept), which its model holds.
func (p *Plugin) replanSplit() (pending, kept []*reservation) {
	pending, kept = p.replanRs[:0], p.replanKeptBuf[:0]
	for _, r := range p.bySubmit.sorted() {
		if r.task.Kind == events.Map && r.task.State == cluster.TaskPending {
			pending = append(pending, r)
		} else {
			kept = append(kept, r)
		}
	}
	return pending, kept
}

// holdCores keeps the cores of the reservations hs (in any order): each
// takes its machine's earliest core until its finish, in order of finish
// then task id. A reservation touches only its machine's cores, and two
// with the same finish update them alike, so in order of finish per
// machine is that order (TestHoldCoresPerMachine). The reservations are
// put in buckets by machine (a counting sort in sc, instead of sorting
// them all by machine and finish: the model of every instant held every
// planned map), and only a machine's own few are sorted by finish.
func holdCores(ms []Machine, hs []held, sc *holdScratch) {
	if len(hs) == 0 {
		return
	}
	n := len(ms)
	sc.end = grown(sc.end, n+1)
	end := sc.end
	for _, r := range hs {
		end[r.machine+1]++
	}
	for i := 1; i <= n; i++ {
		end[i] += end[i-1] // end[m] is where machine m's bucket starts
	}
	sc.by = slices.Grow(sc.by[:0], len(hs))[:len(hs)]
	by := sc.by
	for _, r := range hs {
		by[end[r.machine]] = r
		end[r.machine]++ // ends at the bucket's end
	}
	// The buckets lie in machine order in by: walked bucket by bucket,
	// not machine by machine (most machines hold none).
	for from := 0; from < len(by); {
		m := by[from].machine
		bucket := by[from:end[m]]
		from = end[m]
		if len(bucket) > 1 {
			slices.SortFunc(bucket, func(a, b held) int { return cmp.Compare(a.finish, b.finish) })
		}
		for _, r := range bucket {
			mc := &ms[m]
			c, free := mc.earliest()
			mc.CoreFree[c] = fmax(free, r.finish)
		}
	}
}

// holdScratch is holdCores' buckets, reused between models.
type holdScratch struct {
	end []int
	by  []held
	hs  []held // model's list of the reservations held
}

// indexNodes indexes the model's machines by node id and host name, and
// numbers their racks in order of first sight; the indexes of the model
// before are kept when its machines were the same nodes (ids and racks) in
// the same order, as they are most of the time (same: modelNodes tells).
func (p *Plugin) indexNodes(same bool) {
	if same {
		return
	}
	p.idxGen++
	p.index = make(map[string]int, len(p.nodeAt))
	p.hostIdx = make(map[string]int, 2*len(p.nodeAt))
	p.rackIx = p.rackIx[:0]
	p.idxNodes, p.idxIDs, p.idxRacks = p.idxNodes[:0], p.idxIDs[:0], p.idxRacks[:0]
	rackNo := map[string]int{}
	for i, n := range p.nodeAt {
		p.index[n.ID] = i
		p.hostIdx[n.ID], p.hostIdx[hostOf(n.ID)] = i, i
		r, ok := rackNo[n.Rack]
		if !ok {
			r = len(rackNo)
			rackNo[n.Rack] = r
		}
		p.rackIx = append(p.rackIx, r)
		p.idxNodes, p.idxIDs, p.idxRacks = append(p.idxNodes, n), append(p.idxIDs, n.ID), append(p.idxRacks, n.Rack)
	}
}

// reducerGB is the input of one reducer of t's partition as PRB planned it,
// else the job's mean partition (what the model can know before binding).
func (p *Plugin) reducerGB(t *cluster.Task) float64 {
	if b, ok := p.plans[t.App.ID][t.Partition]; ok {
		return float64(b.Bytes) / gib / float64(max(1, p.reducersOf(t.App)[t.Partition]))
	}
	return p.meanReducerGB(t.App)
}

// meanReducerGB is reducerGB of a partition PRB did not plan: the app's
// mean partition.
func (p *Plugin) meanReducerGB(a *cluster.App) float64 {
	if a.Reduces > 0 {
		return float64(p.outputTotal(a)) / gib / float64(a.Reduces)
	}
	return 0
}

// reducerApp is what reducerGB reads of an app, kept for one model: its
// plan, its reducers per partition (red, once asked) and its mean
// partition (mean, once asked). Nothing they are read from changes while
// the model is built.
type reducerApp struct {
	plan          map[int]Binding
	red           map[int]int
	mean          float64
	redOK, meanOK bool
}

// reducerApps holds the model's reducerApp per app (at: index into apps).
type reducerApps struct {
	at   map[*cluster.App]int32
	apps []reducerApp
}

// beginReducerApps forgets the reducerApps of the model before.
func (p *Plugin) beginReducerApps() {
	if p.redApps.at == nil {
		p.redApps.at = map[*cluster.App]int32{}
	}
	clear(p.redApps.at)
	clear(p.redApps.apps) // no plan kept past its model
	p.redApps.apps = p.redApps.apps[:0]
}

// reducerGBOf is reducerGB(t) read through the model's reducerApps: the
// app's plan, reducer counts and output total were looked up by app id
// for every running reducer of every model (TestReducerGBOfSameAsReducerGB).
func (p *Plugin) reducerGBOf(t *cluster.Task) float64 {
	ra := &p.redApps
	k, ok := ra.at[t.App]
	if !ok {
		k = int32(len(ra.apps))
		ra.apps = append(ra.apps, reducerApp{plan: p.plans[t.App.ID]})
		ra.at[t.App] = k
	}
	e := &ra.apps[k]
	if b, ok := e.plan[t.Partition]; ok {
		if !e.redOK {
			e.red, e.redOK = p.reducersOf(t.App), true
		}
		return float64(b.Bytes) / gib / float64(max(1, e.red[t.Partition]))
	}
	if !e.meanOK {
		e.mean, e.meanOK = p.meanReducerGB(t.App), true
	}
	return e.mean
}

// reducerCount is an app's reducers per partition as counted over its
// tasks, with what the count was made from: the app's task list (its length
// and first task) and no task.pending since (Observe drops the entry on one:
// a pending event may set a task's kind and partition).
type reducerCount struct {
	tasks  int
	first  *cluster.Task
	byPart map[int]int
}

// reducersOf is the app's reducers per partition, counted again only when
// its tasks changed: an app with 100,000 maps was walked at every model
// rebuild while one of its reducers ran.
func (p *Plugin) reducersOf(a *cluster.App) map[int]int {
	if c, ok := p.redCounts[a.ID]; ok && c.tasks == len(a.Tasks) && len(a.Tasks) > 0 && c.first == a.Tasks[0] {
		return c.byPart
	}
	c := &reducerCount{tasks: len(a.Tasks), byPart: map[int]int{}}
	if len(a.Tasks) > 0 {
		c.first = a.Tasks[0]
	}
	for _, x := range a.Tasks {
		if x.Kind == events.Reduce {
			c.byPart[x.Partition]++
		}
	}
	p.redCounts[a.ID] = c
	return c.byPart
}

// localityOn is t's locality on one node, from the model's host and rack
// index (O(replicas)); a node outside the model is looked up in the view.
func (p *Plugin) localityOn(t *cluster.Task, node string, v cluster.View) events.Locality {
	if t.Kind != events.Map {
		return ""
	}
	i, ok := p.index[node]
	if !ok || i >= len(p.rackIx) {
		return locality(v.Node(node), splitHosts(t), v)
	}
	loc := events.Locality("")
	for _, sp := range t.Splits {
		for _, h := range sp.Hosts {
			j, ok := p.hostIdx[h]
			switch {
			case ok && j == i:
				return events.NodeLocal
			case ok && p.rackIx[j] == p.rackIx[i]:
				loc = events.RackLocal
			case loc == "":
				loc = events.OffRack
			}
		}
	}
	return loc
}

// Place is Algorithm 1 (Algorithm 2 for tmar-power) for one pending map:
// the next task of the job goes to the core that finishes it first, and the
// core-available vector is updated (line 6), so successive calls continue
// the same schedule.
func (p *Plugin) Place(ctx context.Context, v cluster.View, t *cluster.Task) ([]policy.NodeScore, *policy.Status) {
	if t.Kind == events.Reduce {
		return p.placeReducer(ctx, v, t)
	}
	if t.Kind != events.Map {
		return nil, policy.NewStatus(policy.Skip, "not a map or a reduce")
	}
	ms := p.model(ctx, v)
	if len(ms) == 0 {
		return nil, policy.NewStatus(policy.Skip, "no running nodes")
	}
	now := float64(v.Now()) / 1000
	// Map_Matrix plus reading the split there: the plan keeps maps
	// data-local when that costs no finish time. One evaluation per
	// machine: the ranking below and Algorithm 1 both read it. The
	// Map_Matrix column (and its sums with the rack-local and off-rack
	// reads) is the same for every map of the app with this split size
	// until the model or the matrices change, so the maps of a job
	// submitted together share it.
	col := p.mapColumn(ctx, t)
	lv := p.levelCodes(t)
	execOn := p.execOnLevels(lv, col, p.execColRack, p.execColOff, p.execBuf)
	p.execBuf = execOn
	if !p.early.ok || len(p.early.cores) != len(ms) {
		if p.early.model {
			p.early.fillModel(ms)
		} else {
			p.early.fill(ms)
		}
	}
	// Each machine's earliest core comes from p.early, for the ranking
	// and for Algorithm 1. The ranking of every machine by the finish
	// time this task would have there (not strict) is taken before the
	// Algorithm 1 choice updates the chosen core.
	type cand struct {
		i      int
		finish float64
	}
	var cands []cand
	if !p.cfg.Strict {
		for i := range ms {
			if f := p.early.frees[i]; !math.IsInf(f, 1) {
				cands = append(cands, cand{i, fmax(f, now) + execOn[i]})
			}
		}
	}
	maxAlts := 0
	if p.cfg.Strict && !p.powerAware { // TMaR*'s choice among equal finishes is by power
		maxAlts = max(0, p.cfg.TopNodes-1)
	}
	// Outside the racks holding a replica, every machine reads the same
	// column: its racks' least finishes are kept between the maps of the
	// column (rackpick.go).
	base, off, except := p.execCol, false, []int(nil)
	if p.lvInput {
		base, off, except = p.execColOff, true, p.replRacks
	}
	byRack := p.rackMachines()
	pr := &p.pickRacks
	pr.rp, pr.byRack, pr.except = &p.rackPick, byRack, except
	pr.machine = p.rackPick.pick(ms, &p.early, execOn, base, byRack, except,
		pickKey{colGen: p.colGen, ecGen: p.early.gen, idxGen: p.idxGen, ready: now, off: off})
	best, fs, alts, ok := placeMapPick(ms, &p.early, execOn, lv, p.localBuf, now, p.tie(), maxAlts, p.finBuf, p.altBuf, pr)
	p.finBuf, p.altBuf = fs, alts
	if !ok {
		return nil, policy.NewStatus(policy.Skip, "no free core")
	}
	p.rackPick.placed(p.rackIx[best.Machine]) // its cores changed
	res := reservation{task: t, node: ms[best.Machine].Name, finish: best.Finish}
	for _, a := range alts {
		res.alts = append(res.alts, ms[a].Name)
	}
	p.reserve(t.ID, res)
	p.log.Debug().Str("task", t.ID).Str("node", ms[best.Machine].Name).Float64("now", now).
		Float64("start", best.Start).Float64("finish", best.Finish).Msg("tmar plan")
	if !p.cfg.Strict { // a strict hint lists no ranked alternatives
		sort.SliceStable(cands, func(a, b int) bool { return cands[a].finish < cands[b].finish })
	}
	bestLv := lvLocality[lv[best.Machine]]
	scores := []policy.NodeScore{{Node: ms[best.Machine].Name, Score: 1, Locality: bestLv}}
	for _, a := range res.alts {
		scores = append(scores, policy.NodeScore{Node: a, Score: 1, Locality: bestLv})
	}
	for _, c := range cands {
		if len(scores) >= p.cfg.TopNodes || p.cfg.Strict {
			break
		}
		if c.i == best.Machine {
			continue
		}
		// Score decays with the extra finish time over the best choice.
		s := 1 / (1 + c.finish - best.Finish)
		scores = append(scores, policy.NodeScore{Node: ms[c.i].Name, Score: s, Locality: lvLocality[lv[c.i]]})
	}
	return scores, nil
}

// Locality levels of a map on each machine, as levelCodes gives them.
const (
	lvNone uint8 = iota // no known input: no read cost
	lvNode              // node-local
	lvRack              // rack-local
	lvOff               // off-rack
)

var lvLocality = [...]events.Locality{lvNone: "", lvNode: events.NodeLocal, lvRack: events.RackLocal, lvOff: events.OffRack}

// levelCodes is levels as codes, in a buffer reused between calls: for
// each machine of the current model, the locality of t's input there. It
// leaves in p.localBuf the node-local machines in machine order, and in
// p.replRacks the racks holding a replica (p.lvInput: some host is
// named, else every level is lvNone). Every
// machine is off-rack but those of the replicas' racks (rackMachines), so
// only those are visited after the off-rack fill.
func (p *Plugin) levelCodes(t *cluster.Task) []uint8 {
	n := len(p.machines)
	out := slices.Grow(p.lvBuf[:0], n)[:n]
	p.lvBuf = out
	// The racks holding a replica, marked by rack number with a stamp new
	// to this call.
	if len(p.rackMark) < n {
		p.rackMark = make([]uint64, n)
	}
	p.rackStamp++
	hosts := 0
	local, racks := p.localBuf[:0], p.replRacks[:0]
	for _, sp := range t.Splits {
		for _, h := range sp.Hosts {
			hosts++
			if i, ok := p.hostIdx[h]; ok && !slices.Contains(local, i) {
				local = append(local, i)
				r := p.rackIx[i]
				if r >= len(p.rackMark) {
					p.rackMark = append(p.rackMark, make([]uint64, r+1-len(p.rackMark))...)
				}
				if p.rackMark[r] != p.rackStamp {
					p.rackMark[r] = p.rackStamp
					racks = append(racks, r)
				}
			}
		}
	}
	slices.Sort(local)
	if local == nil {
		local = []int{} // not nil: the list is known (empty)
	}
	p.localBuf = local
	p.replRacks, p.lvInput = racks, hosts > 0
	if hosts == 0 {
		clear(out) // no known input, no read cost
		return out
	}
	if len(p.offFill) != n {
		p.offFill = slices.Repeat([]uint8{lvOff}, n)
	}
	copy(out, p.offFill)
	byRack := p.rackMachines()
	for _, r := range racks {
		for _, i := range byRack[r] {
			out[i] = lvRack
		}
	}
	for _, i := range local {
		out[i] = lvNode
	}
	return out
}

// rackMachines is the model's machines by rack number (rackIx), made
// again with a new node index.
func (p *Plugin) rackMachines() [][]int {
	if p.byRackOK && p.byRackGen == p.idxGen && p.byRackN == len(p.rackIx) {
		return p.byRack
	}
	for r := range p.byRack {
		p.byRack[r] = p.byRack[r][:0]
	}
	for i, r := range p.rackIx {
		if r >= len(p.byRack) {
			p.byRack = append(p.byRack, make([][]int, r+1-len(p.byRack))...)
		}
		p.byRack[r] = append(p.byRack[r], i)
	}
	p.byRackOK, p.byRackGen, p.byRackN = true, p.idxGen, len(p.rackIx)
	return p.byRack
}

// execOnLevels is the map's execution time on each machine at its level lv
// (levelCodes, whose racks and node-local machines it reads): col
// node-local or without a known input, colRack rack-local, colOff
// off-rack, in buf.
func (p *Plugin) execOnLevels(lv []uint8, col, colRack, colOff, buf []float64) []float64 {
	n := len(lv)
	out := slices.Grow(buf[:0], n)[:n]
	if !p.lvInput { // no known input: every level lvNone
		copy(out, col[:n])
		return out
	}
	copy(out, colOff[:n])
	byRack := p.rackMachines()
	for _, r := range p.replRacks {
		for _, i := range byRack[r] {
			out[i] = colRack[i]
		}
	}
	for _, i := range p.localBuf {
		out[i] = col[i]
	}
	return out
}

func splitHosts(t *cluster.Task) map[string]bool {
	hosts := map[string]bool{}
	for _, s := range t.Splits {
		for _, h := range s.Hosts {
			hosts[h] = true
		}
	}
	return hosts
}

// hostOf strips the NodeManager port from a node id ("host:8041").
func hostOf(node string) string {
	if i := strings.LastIndexByte(node, ':'); i > 0 {
		return node[:i]
	}
	return node
}

func locality(n *cluster.Node, hosts map[string]bool, v cluster.View) events.Locality {
	if n == nil || len(hosts) == 0 {
		return ""
	}
	if hosts[hostOf(n.ID)] || hosts[n.ID] {
		return events.NodeLocal
	}
	for _, other := range v.RackNodes(n.Rack) {
		if hosts[hostOf(other.ID)] || hosts[other.ID] {
			return events.RackLocal
		}
	}
	return events.OffRack
}

// replan runs Algorithm 1 again, as one batch (PlanMaps), over every map
// TMaR planned that has not started: from the cores as they are now and the
// Map_Matrix as learned so far, apps in submission order, each map taking
// the core that finishes it first and each core a map local to it when one
// is left. The new plan replaces the old reservations; holds then renews or
// moves the strict place hints.
func (p *Plugin) replan(ctx context.Context, v cluster.View) {
	rs, kept := p.replanSplit()
	defer func() {
		clear(rs) // no reservation kept past the call
		clear(kept)
		p.replanRs, p.replanKeptBuf = rs[:0], kept[:0]
	}()
	if len(rs) == 0 {
		p.dropQueues() // no job left to keep queues for
		return
	}
	// The model is rebuilt without them (model skips them while
	// replanning); their reservations are replaced below, and those of the
	// maps the plan leaves out dropped.
	p.modelAt = -1
	ms := p.modelReplanning(ctx, v, kept)
	placed := grown(p.replanPlaced, len(rs))
	p.replanPlaced = placed
	now := float64(v.Now()) / 1000
	// The model's index (indexNodes): machine i is node p.nodeAt[i], its
	// rack number p.rackIx[i], and hostIdx finds it by node id and host.
	rack, nodes, byHost := p.rackIx, p.nodeAt, p.hostIdx
	for lo := 0; lo < len(rs); {
		hi := lo
		for hi < len(rs) && rs[hi].task.App == rs[lo].task.App {
			hi++
		}
		batch := rs[lo:hi]
		mts := slices.Grow(p.replanMts[:0], len(batch))[:len(batch)]
		for k, r := range batch {
			mts[k] = p.mapTaskOf(r, byHost)
		}
		// Maps of one job are alike (the paper's premise): its first
		// stands for the batch.
		execOn := p.mapExecs(ctx, batch[0].task, nodes[:len(ms)], p.replanExec)
		p.replanExec = execOn
		exec := func(i int) float64 { return execOn[i] }
		p.early.stale() // PlanMaps updates the cores
		for _, pl := range p.planBatch(batch, mts, ms, rack, now, exec) {
			// The new plan replaces the reservation in place (model kept
			// it while replanning).
			r := batch[pl.Task]
			r.node, r.alts, r.finish = ms[pl.Machine].Name, nil, pl.Finish
			placed[lo+pl.Task] = true
		}
		p.replanMts = mts[:0] // its split lists are the reservations' (mapTaskOf)
		lo = hi
	}
	p.dropQueues()
	for k, r := range rs {
		if !placed[k] {
			p.unreserve(r.task.ID, r)
		}
	}
}

// shrinkReserved copies the reservations into a map of their size once they
// are far fewer than at their peak: a Go map keeps the table of its largest
// size, and every pass over it (each tick's re-plan, model and holds) walks
// that table, so one large job left every later tick walking its 100,000
// empty slots. The reservations are the same; no pass depends on the
// order of a map.
func (p *Plugin) shrinkReserved() {
	if p.reservedPeak < 1024 || len(p.reserved)*8 > p.reservedPeak {
		return
	}
	m := make(map[string]*reservation, len(p.reserved))
	maps.Copy(m, p.reserved)
	p.reserved, p.reservedPeak = m, len(m)
}

// hintBufKeep is the capacity (hints, about 290 bytes each) holds keeps
// however few hints a call makes.
const hintBufKeep = 16 << 10

// holds renews the strict place hints of planned maps that have not started:
// a hold lasts as long as the plan, not just one hint lifetime. A hold
// whose hint the engine reports in force (p.lapses) is left out: the
// engine would drop it as a repeat, and building it was most of the tick's
// hints (TestInForceSameEmitted).
func (p *Plugin) holds(v cluster.View) []policy.Hint {
	if !p.cfg.Strict {
		return nil
	}
	now := float64(v.Now()) / 1000
	rs := p.byID.sorted() // by task id, kept between ticks
	send, locs := p.sendBuf[:0], p.locBuf[:0]
	nodesN := 0
	for _, r := range rs {
		if r.finish <= now || r.task.State != cluster.TaskPending {
			continue
		}
		loc := p.holdLocality(r, v)
		if p.lapses.Wired() && p.holdInForce(r, loc) {
			continue
		}
		send, locs = append(send, r), append(locs, loc)
		nodesN += 1 + len(r.alts)
		p.holdReturned(r, loc)
	}
	// The hints go in the array of the last Bind's (see Bind), zeroed
	// first so no hint of that call keeps its strings past this one. An
	// array far larger than this call needs (a backlog's 400,000 renewals,
	// 116 MB, long placed) is let go instead.
	clear(p.hintBuf)
	if c := cap(p.hintBuf); c > hintBufKeep && len(send) < c/8 {
		p.hintBuf = nil
	}
	out := slices.Grow(p.hintBuf[:0], len(send))
	// The hints' nodes share one array and their reasons one string, made
	// for this call (one allocation each instead of one per hint); each
	// hint's slice is capped at its own nodes.
	nodeBuf := make([]policy.NodeScore, 0, nodesN)
	reasons, ends := p.reasonBuf[:0], p.endsBuf[:0] // scratch: the string is a copy
	for k, r := range send {
		at := len(nodeBuf)
		nodeBuf = appendHoldNodes(nodeBuf, r, locs[k])
		// fmt's %.1f is strconv's 'f' with precision 1.
		reasons = append(reasons, "TMaR plan: finishes at +"...)
		reasons = strconv.AppendFloat(reasons, r.finish-now, 'f', 1, 64)
		reasons = append(reasons, "s there (Algorithms 1, 3)"...)
		ends = append(ends, len(reasons))
		out = append(out, holdHint(r, nodeBuf[at:len(nodeBuf):len(nodeBuf)]))
	}
	all := string(reasons)
	p.reasonBuf, p.endsBuf = reasons, ends
	clear(send) // no reservation kept past the call
	p.sendBuf, p.locBuf = send[:0], locs[:0]
	from := 0
	for k := range out {
		out[k].Reason = all[from:ends[k]]
		from = ends[k]
	}
	return out
}

// holdHint is r's hold naming nodes, without its reason.
func holdHint(r *reservation, nodes []policy.NodeScore) policy.Hint {
	return policy.Hint{Kind: policy.KindPlace, App: r.task.App.ID, Task: r.task.ID, Strict: true, Nodes: nodes}
}

// appendHoldNodes appends the nodes r's hold names: its node, then the
// equal ones, all at the locality loc.
func appendHoldNodes(b []policy.NodeScore, r *reservation, loc events.Locality) []policy.NodeScore {
	b = append(b, policy.NodeScore{Node: r.node, Score: 1, Locality: loc})
	for _, a := range r.alts {
		b = append(b, policy.NodeScore{Node: a, Score: 1, Locality: loc})
	}
	return b
}

// holdInForce tells whether r's hold, with the locality loc, is in force
// in the engine. r.hold is the engine's hint for the task when known (see
// lapses): what it was made from (the node, equal nodes and locality, of
// which a hold's content is made) and its lapse. The engine is asked only
// when that is not known; a hold made from other nodes or another
// locality is another content, not in force.
func (p *Plugin) holdInForce(r *reservation, loc events.Locality) bool {
	k := &r.hold
	if !p.lapses.Known(k.lapse) || k.task != r.task {
		h := holdHint(r, appendHoldNodes(nil, r, loc))
		// Not in force, it is returned and holdReturned sets k again.
		*k = holdKey{task: r.task, node: r.node, alts: r.alts, loc: loc}
		target, content := p.hintKeyOf(&h)
		p.lapses.Ask(&k.lapse, target, content)
		return p.lapses.Live(k.lapse)
	}
	if k.node != r.node || k.loc != loc || !slices.Equal(k.alts, r.alts) {
		return false
	}
	return p.lapses.Live(k.lapse)
}

// holdReturned records that r's hold, with the locality loc, is returned
// not in force: the engine emits it.
func (p *Plugin) holdReturned(r *reservation, loc events.Locality) {
	if !p.lapses.Wired() {
		return
	}
	r.hold = holdKey{task: r.task, node: r.node, alts: r.alts, loc: loc}
	p.lapses.Returned(&r.hold.lapse, lapsePlace)
}

// hintKeyOf is h's target and content as the engine compares them
// (policy.AppendTarget, policy.AppendContent), in one allocation.
func (p *Plugin) hintKeyOf(h *policy.Hint) (target, content string) {
	b := policy.AppendTarget(p.keyBuf[:0], h)
	nt := len(b)
	b = policy.AppendContent(b, h)
	p.keyBuf = b
	s := string(b)
	return s[:nt], s[nt:]
}

// holdLocality is localityOn(r.task, r.node, v), kept in r while what it
// read is the same: the node index (its generation), the node and the
// task's splits (the same slice). A node outside the index is looked up in
// the view each time.
func (p *Plugin) holdLocality(r *reservation, v cluster.View) events.Locality {
	t := r.task
	var splits *events.Split
	if len(t.Splits) > 0 {
		splits = &t.Splits[0]
	}
	if r.locOK && r.locGen == p.idxGen && r.locNode == r.node && r.locSplits == splits && r.locN == len(t.Splits) {
		return r.loc
	}
	loc := p.localityOn(t, r.node, v)
	if i, ok := p.index[r.node]; ok && i < len(p.rackIx) {
		r.locOK, r.locGen, r.locNode, r.locSplits, r.locN, r.loc = true, p.idxGen, r.node, splits, len(t.Splits), loc
	} else {
		r.locOK = false
	}
	return loc
}

// mapTaskOf is the re-plan's MapTask of r's map: the model's machines
// holding its splits (sorted) and its read costs. It is kept in r while
// the node index (its generation) and the task's splits (the same slice)
// are: the re-plan read every pending map's splits at every tick.
func (p *Plugin) mapTaskOf(r *reservation, byHost map[string]int) MapTask {
	t := r.task
	var splits *events.Split
	if len(t.Splits) > 0 {
		splits = &t.Splits[0]
	}
	if r.mt.ok && r.mt.gen == p.idxGen && r.mt.splits == splits && r.mt.n == len(t.Splits) {
		return r.mt.task
	}
	var local []int
	for _, sp := range t.Splits {
		for _, h := range sp.Hosts {
			if i, ok := byHost[h]; ok && !slices.Contains(local, i) {
				local = append(local, i)
			}
		}
	}
	sort.Ints(local)
	mt := MapTask{Local: local, Read: [3]float64{0, p.readCost(t, events.RackLocal), p.readCost(t, events.OffRack)}}
	r.mt = mapTaskMemo{ok: true, gen: p.idxGen, splits: splits, n: len(t.Splits), task: mt}
	return mt
}
