// Map_Matrix and Reduce_Matrix: what TMaR learns from finished attempts
// (the paper's preprocessing stage, continued online) and the estimates it
// reads from them.

package tmar

import (
	"context"
	"maps"
	"slices"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// matrices are one job type's learned rows of Map_Matrix and Reduce_Matrix.
//
// Ours, where the paper profiles one job on every node: a map's time is
// TaskOverheadS + R x split GB x F[node], R the job's seconds per GB on a
// node of factor 1 and F the node's factor for the job type. Jobs of one
// type differ in R (their splits, selectivity, code), so learning seconds per
// map or per GB per node directly would make a node look fast or slow by
// the last job it ran; F is learned relative to each job's own R instead.
type matrices struct {
	// Map is seconds per map, what records of version 1 learned; read only
	// as a fallback for a node with no factor.
	Map        map[string]float64 `json:"map"`
	NodeFactor map[string]float64 `json:"node_factor"` // F: node -> time relative to the type's reference node
	RateSGB    float64            `json:"rate_sgb"`    // R of the type: s per GB of split at factor 1 (a new job's estimate)
	ReduceSGB  map[string]float64 `json:"reduce_sgb"`  // node -> seconds per GB of reducer input

	// reduceMean is the mean of ReduceSGB, the estimate for a node the row
	// has not learned yet (ours: online, a node that has not run the type
	// would otherwise get the configured default, no estimate of this type
	// at all). 0 = stale.
	reduceMean float64
}

// jobRate is one app's R: the mean of its maps' seconds per GB, each divided
// by its node's factor (all maps of a job are alike, the paper's premise).
type jobRate struct {
	sum float64
	n   int
}

// rowMean is the mean of a row's entries, 0 when empty. It sums them in
// the order of their keys: a map's own order changes from run to run, and so
// would the sum's last bits, which the simulator must not let decide.
func rowMean(row map[string]float64, cached *float64) float64 {
	if *cached == 0 && len(row) > 0 {
		var sum float64
		for _, k := range slices.Sorted(maps.Keys(row)) {
			sum += row[k]
		}
		*cached = sum / float64(len(row))
	}
	return *cached
}

// minLearnBytes is the smallest split or reducer input the matrices learn a
// per-GB rate from: below it the fixed costs the simulator or cluster adds
// to a task (a fetch's latency, a merge pass) are no longer small against
// the input's share.
const minLearnBytes = 1 << 20

// rows returns the learned matrices of a job type, loading them from the
// profiles store the first time.
func (p *Plugin) rows(ctx context.Context, jt string) *matrices {
	if m, ok := p.learned[jt]; ok {
		return m
	}
	m := &matrices{Map: map[string]float64{}, NodeFactor: map[string]float64{}, ReduceSGB: map[string]float64{}}
	if p.store != nil && !p.loaded[jt] {
		p.loaded[jt] = true
		if _, err := p.store.Get(ctx, profileNS, jt, m); err != nil {
			p.log.Warn().Err(err).Str("job_type", jt).Msg("loading TMaR matrices; starting from seeds")
		}
		if m.Map == nil {
			m.Map = map[string]float64{}
		}
		if m.NodeFactor == nil {
			m.NodeFactor = map[string]float64{}
		}
		if m.ReduceSGB == nil {
			m.ReduceSGB = map[string]float64{}
		}
	}
	p.learned[jt] = m
	return m
}

// Observe learns Map_Matrix and Reduce_Matrix entries from successful attempts
// (the paper's preprocessing stage, continued online).
func (p *Plugin) Observe(ctx context.Context, ev *events.Event, v cluster.View) {
	switch ev.Type {
	case events.MapOutput:
		delete(p.outSums, ev.App) // an output arrived: the app's sums are stale
		p.outputChanged(ev, v)
		return
	case events.AppFinished:
		delete(p.outSums, ev.App)
		delete(p.outTotals, ev.App)
		delete(p.redCounts, ev.App)
		return
	case events.TaskPending:
		delete(p.redCounts, ev.App) // it may set a task's kind or partition
		p.outputChanged(ev, v)
	case events.TaskFinished:
		if at := v.Attempt(ev.Attempt); at == nil || at.Task.Kind == events.Map {
			delete(p.outSums, ev.App) // a map's success (or loss) changes which outputs count
		}
		p.outputChanged(ev, v)
	}
	if ev.Type != events.TaskFinished || ev.State != events.StateSucceeded {
		return
	}
	at := v.Attempt(ev.Attempt)
	if at == nil || at.Node == "" || at.StartTS == 0 || at.FinishTS <= at.StartTS {
		return
	}
	t := at.Task
	jt := jobType(t.App)
	m := p.rows(ctx, jt)
	dur := float64(at.FinishTS-at.StartTS) / 1000
	switch t.Kind {
	case events.Map:
		// The matrix holds the node's own time; the input read the
		// attempt's locality cost is added back per task when placing.
		loc := at.Locality
		if loc == "" {
			loc = locality(v.Node(at.Node), splitHosts(t), v)
		}
		b := splitBytes(t)
		if d := dur - p.readCost(t, loc) - p.cfg.TaskOverheadS; d > 0 && b >= minLearnBytes {
			n := v.Node(at.Node)
			if n == nil {
				n = &cluster.Node{ID: at.Node}
			}
			p.learnMap(jt, m, t.App.ID, n, d/(float64(b)/gib))
		}
	case events.Reduce:
		bytes := p.partitionBytes(t.App, t.Partition)
		if bytes <= 0 {
			return
		}
		if at.PhaseMS != nil && at.PhaseMS.Shuffle > 0 {
			dur -= float64(at.PhaseMS.Shuffle) / 1000 // execution, not transfer (eq. 3 adds transfer separately)
		}
		// reducersOf's counts, kept per app while its tasks are the same:
		// countReducers walked every task of the app at each reducer's
		// success (0.3 G instructions over the FB-2009 day).
		reducers := max(1, p.reducersOf(t.App)[t.Partition])
		per := float64(bytes) / float64(reducers)
		gb := per / gib
		if per < minLearnBytes || dur <= 0 {
			return
		}
		m.ReduceSGB[at.Node] = p.ewma(m.ReduceSGB[at.Node], dur/gb)
		m.reduceMean = 0
	}
	p.dirty[jt] = true
	p.learnVer++
}

func (p *Plugin) ewma(old, x float64) float64 {
	if old == 0 {
		return x
	}
	return (1-p.cfg.Alpha)*old + p.cfg.Alpha*x
}

// outputSums are an app's map outputs summed over its successful maps: per
// partition (nil until asked for).
type outputSums struct {
	// part is per partition id below maxDenseID (far: the others), over
	// the maps whose task succeeded: a slice, where a map took an
	// insertion per output of every map.
	part []int64
	far  map[int]int64
	made bool
}

// add counts b bytes of partition id.
func (o *outputSums) add(id int, b int64) {
	if id >= 0 && id < maxDenseID {
		if id >= len(o.part) {
			o.part = append(o.part, make([]int64, id+1-len(o.part))...)
		}
		o.part[id] += b
		return
	}
	if o.far == nil {
		o.far = map[int]int64{}
	}
	o.far[id] += b
}

// get is partition id's sum.
func (o *outputSums) get(id int) int64 {
	if id >= 0 && id < maxDenseID {
		if id < len(o.part) {
			return o.part[id]
		}
		return 0
	}
	return o.far[id]
}

// outputTotal is every output of the app's succeeded map attempts. It is
// kept per app with each task's share, and a task's share is summed again
// only after an event about it (Observe: outputChanged): a job's running
// reducers made every model rebuild walk all its maps' outputs while its
// maps were finishing.
func (p *Plugin) outputTotal(a *cluster.App) int64 {
	c := p.outTotals[a.ID]
	if c != nil && (len(a.Tasks) < c.n || (c.n > 0 && a.Tasks[0] != c.first)) {
		c = nil // not the task list it counted
	}
	if c == nil {
		if a.Finished() {
			var total int64
			for _, t := range a.Tasks {
				total += mapOutputBytes(t)
			}
			return total
		}
		c = &outTotal{share: map[*cluster.Task]int64{}}
		if len(a.Tasks) > 0 {
			c.first = a.Tasks[0]
		}
		p.outTotals[a.ID] = c
	}
	// Tasks first seen since, then those an event was about (one of them
	// may be both: its share is then taken again, unchanged).
	for _, t := range a.Tasks[c.n:] {
		if b := mapOutputBytes(t); b != 0 {
			c.total += b
			c.share[t] = b
		}
	}
	c.n = len(a.Tasks)
	for _, t := range c.changed {
		b := mapOutputBytes(t)
		c.total += b - c.share[t]
		if b != 0 {
			c.share[t] = b
		} else {
			delete(c.share, t)
		}
	}
	c.changed = c.changed[:0]
	return c.total
}

// outTotal is outputTotal's record of one app.
type outTotal struct {
	first   *cluster.Task // the app's first task when counted
	n       int           // tasks counted
	total   int64
	share   map[*cluster.Task]int64 // each counted task's outputs, when not 0
	changed []*cluster.Task         // tasks an event was about since
}

// mapOutputBytes is a task's share of outputTotal: the outputs of its
// succeeded attempt, if it is a map.
func mapOutputBytes(t *cluster.Task) int64 {
	var b int64
	if at := succeeded(t); t.Kind == events.Map && at != nil {
		for _, x := range at.Output {
			b += x.Bytes
		}
	}
	return b
}

// outputChanged notes the task an event is about (task.pending may set its
// kind, task.finished its attempts' states, map.output its outputs) for
// outputTotal. An event whose task it cannot name drops the app's record.
func (p *Plugin) outputChanged(ev *events.Event, v cluster.View) {
	c := p.outTotals[ev.App]
	if c == nil {
		return
	}
	var t *cluster.Task
	if ev.Attempt != "" {
		if at := v.Attempt(ev.Attempt); at != nil {
			t = at.Task
		}
	} else if a := v.App(ev.App); a != nil {
		t = a.Task(ev.Task)
	}
	if t == nil || t.App == nil || t.App.ID != ev.App || len(c.changed) > 1024+c.n {
		delete(p.outTotals, ev.App)
		return
	}
	c.changed = append(c.changed, t)
}

// partitionBytes sums a partition over the outputs of the app's successful
// maps. The sums of every partition are made in one walk and kept like
// outputTotal's, so a job's reducers do not each walk every map's outputs
// (sums of integers: the order they are added in does not matter).
func (p *Plugin) partitionBytes(a *cluster.App, part int) int64 {
	if part < 0 {
		return 0
	}
	o, ok := p.outSums[a.ID]
	if ok && o.made {
		return o.get(part)
	}
	o = outputSums{made: true}
	for _, t := range a.Tasks {
		// Only a succeeded task's outputs count: its state is read once,
		// not per output.
		if t.Kind != events.Map || t.State != cluster.TaskSucceeded {
			continue
		}
		at := succeeded(t)
		if at == nil {
			continue
		}
		for _, x := range at.Output {
			o.add(x.ID, x.Bytes)
		}
	}
	if !a.Finished() {
		p.outSums[a.ID] = o
	}
	return o.get(part)
}

// countReducers is the app's reducers of partition part, counted over its
// tasks: what reducersOf keeps (TestReducersOfSameAsCount).
func countReducers(a *cluster.App, part int) int {
	n := 0
	for _, t := range a.Tasks {
		if t.Kind == events.Reduce && t.Partition == part {
			n++
		}
	}
	return n
}

func succeeded(t *cluster.Task) *cluster.Attempt {
	for _, a := range t.Attempts {
		if a.State == events.StateSucceeded {
			return a
		}
	}
	return nil
}

// nodeSpeedScale scales a default by the node's clock against the reference.
func (p *Plugin) nodeSpeedScale(n *cluster.Node) float64 {
	if n == nil || n.CPUMHz <= 0 || p.cfg.ReferenceMHz <= 0 {
		return 1
	}
	return p.cfg.ReferenceMHz / float64(n.CPUMHz)
}

// learnMap takes one map's seconds per GB (after its read and the task
// overhead), obs, on node. F[node] moves towards obs over the app's R from
// its earlier maps (the first map of an app says nothing about its node:
// the job's own weight is not known yet); then the app's R gains obs /
// F[node] and the type's R moves towards it.
func (p *Plugin) learnMap(jt string, m *matrices, app string, n *cluster.Node, obs float64) {
	node := n.ID
	r := p.rates[app]
	if r == nil {
		r = &jobRate{}
		p.rates[app] = r
	}
	if r.n > 0 {
		m.NodeFactor[node] = p.ewma(m.NodeFactor[node], obs/(r.sum/float64(r.n)))
	}
	f := m.NodeFactor[node]
	if f <= 0 {
		f = p.priorFactor(jt, n)
	}
	r.sum += obs / f
	r.n++
	m.RateSGB = p.ewma(m.RateSGB, obs/f)
}

// priorFactor is a node's factor before it has one: its seeded Map_Matrix
// entry over the mean of the seeded row (the paper's profiling runs), else
// its clock against reference_mhz, else 1.
func (p *Plugin) priorFactor(jt string, n *cluster.Node) float64 {
	if s := p.cfg.MapMatrix[jt][n.ID]; s > 0 && p.seedMean[jt] > 0 {
		return s / p.seedMean[jt]
	}
	return p.nodeSpeedScale(n)
}

// mapExec is map t's Map_Matrix entry for a node: TaskOverheadS + R x split
// GB x F[node] once the job (else the type) has an R; before that, a seconds
// per map entry (an older record, else the seed), else the default scaled
// by clock speed. A node without a factor takes its seeded one, else its
// clock against reference_mhz.
func (p *Plugin) mapExec(ctx context.Context, t *cluster.Task, n *cluster.Node) float64 {
	var app appRows
	return p.mapExecOf(ctx, &app, t, n)
}

// appRows is what mapExec reads of a map's app: its job type, the type's
// rows and the app's R (else the type's), kept in a model's pass over the
// running attempts for the next attempt of the same app (nothing it reads
// changes during the pass).
type appRows struct {
	app  *cluster.App
	jt   string
	rows *matrices
	rate float64
}

// mapExecOf is mapExec with its app's rows and rate from app when they are
// t's app's, else looked up and kept there
// (TestMapExecOfSameAsMapExec).
func (p *Plugin) mapExecOf(ctx context.Context, app *appRows, t *cluster.Task, n *cluster.Node) float64 {
	if app.rows == nil || app.app != t.App {
		jt := jobType(t.App)
		rows := p.rows(ctx, jt)
		rate := rows.RateSGB
		if r := p.rates[t.App.ID]; r != nil && r.n > 0 {
			rate = r.sum / float64(r.n)
		}
		*app = appRows{app: t.App, jt: jt, rows: rows, rate: rate}
	}
	jt, rows, rate := app.jt, app.rows, app.rate
	if b := splitBytes(t); rate > 0 && b > 0 {
		f := rows.NodeFactor[n.ID]
		if f <= 0 {
			f = p.priorFactor(jt, n)
		}
		return p.cfg.TaskOverheadS + rate*float64(b)/gib*f
	}
	if s := rows.Map[n.ID]; s > 0 {
		return s
	}
	if s := p.cfg.MapMatrix[jt][n.ID]; s > 0 {
		return s
	}
	return p.cfg.DefaultMapS * p.nodeSpeedScale(n)
}

// mapExecs sets out[i] to mapExec(ctx, t, nodes[i]) for every node: the
// job type's rows, the app's rate and the split size are read once, not
// per node (a re-plan and a Map_Matrix column read them for every machine
// of the cluster), with mapExec's arithmetic (TestMapExecsSameAsMapExec).
func (p *Plugin) mapExecs(ctx context.Context, t *cluster.Task, nodes []*cluster.Node, out []float64) []float64 {
	out = slices.Grow(out[:0], len(nodes))[:len(nodes)]
	if len(nodes) == 0 {
		return out
	}
	jt := jobType(t.App)
	rows := p.rows(ctx, jt)
	rate := rows.RateSGB
	if r := p.rates[t.App.ID]; r != nil && r.n > 0 {
		rate = r.sum / float64(r.n)
	}
	seeds := p.cfg.MapMatrix[jt]
	if b := splitBytes(t); rate > 0 && b > 0 {
		rb := rate * float64(b) / gib
		for i, n := range nodes {
			f := rows.NodeFactor[n.ID]
			if f <= 0 {
				f = p.priorFactor(jt, n)
			}
			out[i] = p.cfg.TaskOverheadS + rb*f
		}
		return out
	}
	for i, n := range nodes {
		switch {
		case rows.Map[n.ID] > 0:
			out[i] = rows.Map[n.ID]
		case seeds[n.ID] > 0:
			out[i] = seeds[n.ID]
		default:
			out[i] = p.cfg.DefaultMapS * p.nodeSpeedScale(n)
		}
	}
	return out
}

// execKey identifies a Map_Matrix column: an app's maps of one split size,
// on the model of one instant, with the matrices as learned at learnVer.
type execKey struct {
	app     *cluster.App
	bytes   int64
	modelAt int64
	ver     uint64
}

// mapColumn is mapExec of map t on every machine of the current model (and
// in execColRack, execColOff the same plus the read rack-local and
// off-rack), cached under execKey (model drops it when it rebuilds the machines).
func (p *Plugin) mapColumn(ctx context.Context, t *cluster.Task) []float64 {
	k := execKey{app: t.App, bytes: splitBytes(t), modelAt: p.modelAt, ver: p.learnVer}
	if k == p.execKey && len(p.execCol) == len(p.machines) {
		return p.execCol
	}
	p.execCol = p.execCol[:0]
	p.execColRack, p.execColOff = p.execColRack[:0], p.execColOff[:0]
	// The read costs depend on the split size alone, part of the key.
	rack, off := p.readCost(t, events.RackLocal), p.readCost(t, events.OffRack)
	p.execCol = p.mapExecs(ctx, t, p.nodeAt[:len(p.machines)], p.execCol)
	for _, e := range p.execCol {
		p.execColRack = append(p.execColRack, e+rack)
		p.execColOff = append(p.execColOff, e+off)
	}
	p.execKey = k
	p.colGen++
	return p.execCol
}

// splitBytes is the input of map t.
func splitBytes(t *cluster.Task) int64 {
	var b int64
	for _, s := range t.Splits {
		b += s.Length
	}
	return b
}

// readCost is the time a map spends reading its split at a locality level
// (ours; the paper's maps read from a shared store at one cost): nothing
// node-local, L + bytes / C_B from a node of the rack, and through the
// core, one more hop at the cross-rack bandwidth, off-rack.
func (p *Plugin) readCost(t *cluster.Task, loc events.Locality) float64 {
	bytes := splitBytes(t)
	if bytes <= 0 {
		return 0
	}
	lat := p.cfg.LatencyMS / 1000
	rack := lat + float64(bytes)/p.cfg.BandwidthBps
	switch loc {
	case events.RackLocal:
		return rack
	case events.OffRack:
		return rack + lat + float64(bytes)/p.cfg.CrossRackBandwidthBps
	}
	return 0
}

// reduceSPerGB is the Reduce_Matrix entry for a node.
func (p *Plugin) reduceSPerGB(ctx context.Context, jt string, n *cluster.Node) float64 {
	rows := p.rows(ctx, jt)
	if s := rows.ReduceSGB[n.ID]; s > 0 {
		return s
	}
	if s := p.cfg.ReduceMatrix[jt][n.ID]; s > 0 {
		return s
	}
	if s := rowMean(rows.ReduceSGB, &rows.reduceMean); s > 0 {
		return s
	}
	return p.cfg.DefaultReduceSPerGB * p.nodeSpeedScale(n)
}

// reduceSPerGBs sets out[i] to reduceSPerGB(ctx, jt, nodes[i]) for every
// node: the type's rows and seeded row are looked up once, not per node (a
// plan reads every machine of the cluster), with reduceSPerGB's choices in
// the same order (TestReduceSPerGBsSameAsReduceSPerGB).
func (p *Plugin) reduceSPerGBs(ctx context.Context, jt string, nodes []*cluster.Node, out []float64) []float64 {
	out = slices.Grow(out[:0], len(nodes))[:len(nodes)]
	if len(nodes) == 0 {
		return out
	}
	rows := p.rows(ctx, jt)
	seeds := p.cfg.ReduceMatrix[jt]
	for i, n := range nodes {
		if s := rows.ReduceSGB[n.ID]; s > 0 {
			out[i] = s
		} else if s := seeds[n.ID]; s > 0 {
			out[i] = s
		} else if s := rowMean(rows.ReduceSGB, &rows.reduceMean); s > 0 {
			out[i] = s
		} else {
			out[i] = p.cfg.DefaultReduceSPerGB * p.nodeSpeedScale(n)
		}
	}
	return out
}
