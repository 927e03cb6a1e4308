package dhsa

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Registered names.
const (
	NamePI = "dhsa-pi"
	NamePD = "dhsa-pd"
)

// Plugin is dhsa-pi or dhsa-pd: a policy.Shaper emitting ratio hints.
type Plugin struct {
	name string
	cfg  Config

	// Shape runs on every demand event, so it must not cost O(every node
	// and every app ever seen): the cluster's slots are kept until a node
	// event (ShapeOn) or a new node invalidates them, and apps are read
	// through an index of the unfinished ones.
	slots     Slots
	slotsOK   bool
	nodesSeen int
	apps      appIndex

	// Node caps last sent per node size (vcores: a node's caps depend on
	// nothing else), and when all were last sent: node hints go out for the
	// nodes of a size whose caps changed, for all nodes when the refresh is
	// due or nodes came or went, so a recompute that changes nothing costs
	// O(node sizes), not O(nodes).
	nodeCaps   map[int]Slots
	nodeSent   int64
	nodesDirty bool
	// capsIn are the inputs of NodeCaps when every entry of nodeCaps was
	// last made equal to NodeCaps of them (capsOK): with the same inputs and
	// no refresh due, no node's caps changed.
	capsIn capsInputs
	capsOK bool

	// recent are the allocations of recent Shapes, each kept with the
	// demand it was computed from: most task events change no pool's
	// demand (a container allocated moves a task from pending to running)
	// or bring back one seen a moment ago (a task pending, then finished),
	// and then the allocation, its reason and the queue hints are those
	// again. hit is the entry of the last call, next the one to replace.
	recent    [recentShapes]lastShape
	hit, next int
	// Per-Shape scratch, reused: the pools' demand and a queue's index in it.
	demandBuf []PoolDemand
	queueIdx  map[string]int
	scratch   scratch       // AllocatePI's and AllocatePD's working slices
	out       []policy.Hint // Shape's hints, when run by an engine
	// nodeHints' buffer of reasons and where each ends.
	reasons    reason
	reasonEnds []int
	suffix     reason // a node size's part of its nodes' reasons

	// What the engine has in force of the hints Shape returned (inforce.go):
	// the round, and the caps and lapse of each queue's and node's hint.
	lapses     policy.Lapses // of ratio hints (inforce.go)
	keyBuf     []byte        // a hint's target and content, for Until
	queueSent  map[string]*sent
	nodeLapses []nodeSent // by position in View.Nodes
}

// capsInputs are what NodeCaps depends on besides a node's own slots.
type capsInputs struct{ allowed, granted, slots Slots }

// recentShapes is how many allocations Shape keeps.
const recentShapes = 16

// lastShape is one Shape's allocation and what it depends on. Its reasons
// are built when a hint first needs them: most allocations are made again
// to the same caps, whose hints are in force and not returned.
type lastShape struct {
	ok         bool
	slots      Slots
	demand     []PoolDemand // sorted by name, as handed to AllocatePI/PD
	alloc      []Allocation
	c          Case          // dhsa-pi's case
	whatOK     bool          // what is built
	what       reason        // the demand part of every reason
	hintsOK    bool          // queueHints are built
	queueHints []policy.Hint // scope queue: one per pool, reasons built
}

// appIndex remembers which apps of a view were unfinished, so a recompute
// costs O(unfinished + new apps). View.Apps grows at its end in order of
// first sight; a cluster state with retention also deletes forgotten apps
// from it, which moves later apps down. The index notices that (the app it
// saw last is no longer at its place) and reads the list again, as it does
// when handed another view.
type appIndex struct {
	first, last *cluster.App // Apps()[0] and Apps()[seen-1] when last read
	seen        int          // apps looked at
	active      []activeApp  // the apps unfinished at the last read
	buf         []*cluster.App
	// counts holds the task counters of buf's apps, in its order.
	counts []appCounts
}

// activeApp is an app unfinished at the last read and its counters.
type activeApp struct {
	a *cluster.App
	appCounts
}

// appCounts are an app's map and reduce counters, looked up once per app:
// the cluster state makes both with the app and only ever updates them in
// place, so the pointers stay the app's.
type appCounts struct{ m, r *cluster.TaskCounts }

// unfinished returns the unfinished apps of v in order of first sight, in
// a slice that the next call reuses.
func (x *appIndex) unfinished(v cluster.View) []*cluster.App {
	apps := v.Apps()
	if len(apps) == 0 || len(apps) < x.seen || apps[0] != x.first || (x.seen > 0 && apps[x.seen-1] != x.last) {
		clear(x.active)
		x.active, x.seen, x.first, x.last = x.active[:0], 0, nil, nil
		if len(apps) > 0 {
			x.first = apps[0]
		}
	}
	for ; x.seen < len(apps); x.seen++ {
		a := apps[x.seen]
		x.active = append(x.active, activeApp{a, appCounts{a.Count[events.Map], a.Count[events.Reduce]}})
	}
	if x.seen > 0 {
		x.last = apps[x.seen-1]
	}
	kept := x.active[:0]
	out, counts := x.buf[:0], x.counts[:0]
	for _, k := range x.active {
		if !k.a.Finished() {
			kept = append(kept, k)
			out = append(out, k.a)
			counts = append(counts, k.appCounts)
		}
	}
	if n := len(x.active); len(kept) < n {
		clear(x.active[len(kept):n]) // let finished apps go
	}
	if n := len(x.buf); len(out) < n {
		clear(out[len(out):n])
		clear(counts[len(counts):n])
	}
	x.active, x.buf, x.counts = kept, out, counts
	return out
}

// Assigning is dhsa-pd with assign: true: the Shaper plus a policy.Assigner
// emitting place hints. It is a separate type so that a stack without it has
// no Assigner (the simulator reports every heartbeat only to stacks with one).
type Assigning struct{ *Plugin }

var (
	_ policy.DemandShaper = (*Plugin)(nil)
	_ policy.InForceUser  = (*Plugin)(nil)
	_ policy.Assigner     = Assigning{}
)

// NewPI is the factory of dhsa-pi.
func NewPI(_ context.Context, h policy.Handle) (policy.Plugin, error) { return newPlugin(h, NamePI) }

// NewPD is the factory of dhsa-pd.
func NewPD(_ context.Context, h policy.Handle) (policy.Plugin, error) { return newPlugin(h, NamePD) }

func newPlugin(h policy.Handle, name string) (policy.Plugin, error) {
	cfg := DefaultConfig()
	if err := h.DecodeArgs(name, &cfg); err != nil {
		return nil, err
	}
	p, err := New(name, cfg)
	if err != nil {
		return nil, err
	}
	if name == NamePD && cfg.Assign {
		return Assigning{p}, nil
	}
	return p, nil
}

// New builds a plugin of the named variant from a config (for tests and
// embedding).
func New(name string, cfg Config) (*Plugin, error) {
	if name != NamePI && name != NamePD {
		return nil, fmt.Errorf("dhsa: unknown variant %q", name)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%s settings: %w", name, err)
	}
	return &Plugin{name: name, cfg: cfg, lapses: policy.NewLapses(policy.KindRatio)}, nil
}

// Name implements policy.Plugin.
func (p *Plugin) Name() string { return p.name }

func (p *Plugin) borrow() Borrow {
	return Borrow{Weights: Weights{Map: p.cfg.MapSlotWeight, Reduce: p.cfg.ReduceSlotWeight},
		PctMap: p.cfg.PercentageOfBorrowedMapSlots, PctReduce: p.cfg.PercentageOfBorrowedReduceSlots}
}

// ClusterSlots sums the map and reduce slots of the running nodes.
func (p *Plugin) ClusterSlots(v cluster.View) Slots {
	nodes := v.Nodes()
	if p.slotsOK && len(nodes) == p.nodesSeen {
		return p.slots
	}
	var s Slots
	for _, n := range nodes {
		if n.State != cluster.NodeRunning {
			continue
		}
		m, r := p.cfg.NodeSlots(n.VCores)
		s.Map += m
		s.Reduce += r
	}
	p.slots, p.slotsOK, p.nodesSeen = s, true, len(nodes)
	return s
}

// pool groups the unfinished apps of one queue.
type pool struct {
	name             string
	apps             []*cluster.App
	maps, reduces    int // demand: running + pending
	running          int
	pendMaps, pendRs int
}

// appDemand is an app's demand in tasks: running plus pending maps, and
// running plus the pending reduces its AM asks for now (ReduceRampupLimit).
func (p *Plugin) appDemand(a *cluster.App) (maps, reduces int) {
	return p.demandOf(a.Count[events.Map], a.Count[events.Reduce])
}

// demandOf is appDemand of an app's map and reduce counters.
func (p *Plugin) demandOf(m, r *cluster.TaskCounts) (maps, reduces int) {
	maps, reduces = m.Pending+m.Running, r.Pending+r.Running
	if lim := p.cfg.ReduceRampupLimit; lim > 0 && m.Pending+m.Running > 0 && r.Pending > 0 {
		// RMContainerAllocator's ramp-up: reducers may hold at most lim of
		// the job's containers while maps remain (at least one reducer).
		allowed := max(1, int(lim*float64(m.Running+r.Running+1)))
		reduces = r.Running + min(r.Pending, max(0, allowed-r.Running))
	}
	return maps, reduces
}

// pools returns the queues with unfinished apps, sorted by name, each with
// its apps; in submission order when ordered (sums alone need no order).
func (p *Plugin) pools(v cluster.View, ordered bool) []*pool {
	return p.poolsOf(p.apps.unfinished(v), ordered)
}

// poolsOf groups apps, the unfinished ones in order of first sight, into
// pools as pools does.
func (p *Plugin) poolsOf(apps []*cluster.App, ordered bool) []*pool {
	byName := map[string]*pool{}
	var out []*pool
	for _, a := range apps {
		q := a.Queue
		if q == "" {
			q = "default"
		}
		pl := byName[q]
		if pl == nil {
			pl = &pool{name: q}
			byName[q] = pl
			out = append(out, pl)
		}
		m, r := a.Count[events.Map], a.Count[events.Reduce]
		dm, dr := p.appDemand(a)
		pl.apps = append(pl.apps, a)
		pl.maps += dm
		pl.reduces += dr
		pl.running += m.Running + r.Running
		pl.pendMaps += m.Pending
		pl.pendRs += r.Pending
	}
	slices.SortFunc(out, func(a, b *pool) int { return cmp.Compare(a.name, b.name) })
	if !ordered {
		return out
	}
	for _, pl := range out {
		slices.SortStableFunc(pl.apps, func(a, b *cluster.App) int {
			if c := cmp.Compare(a.SubmitTS, b.SubmitTS); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
	}
	return out
}

// Allocate runs the plugin's variant over the view and returns the pools'
// allocations (sorted by queue name) and the cluster's slots.
func (p *Plugin) Allocate(v cluster.View) ([]Allocation, Slots, string) {
	slots := p.ClusterSlots(v)
	l := p.allocate(v, slots)
	return slices.Clone(l.alloc), slots, p.whatOf(l).String()
}

// poolDemand sums the demand of the unfinished apps by queue, sorted by
// queue name: what pools gives Allocate, without keeping the apps.
func (p *Plugin) poolDemand(v cluster.View) []PoolDemand {
	d := p.demandBuf[:0]
	at := -1 // the pool of the app before: apps of one queue come in runs
	apps := p.apps.unfinished(v)
	for k, a := range apps {
		q := a.Queue
		if q == "" {
			q = "default"
		}
		if at < 0 || d[at].Name != q {
			at = p.queueAt(d, q)
			if at < 0 {
				at = len(d)
				d = append(d, PoolDemand{Name: q, Weight: p.cfg.poolWeight(q)})
				if p.queueIdx != nil {
					p.queueIdx[q] = at
				}
			}
		}
		c := p.apps.counts[k]
		dm, dr := p.demandOf(c.m, c.r)
		d[at].Maps += dm
		d[at].Reduces += dr
	}
	if !slices.IsSortedFunc(d, byName) {
		slices.SortFunc(d, byName)
	}
	p.demandBuf = d
	clear(p.queueIdx)
	return d
}

// queueAt finds queue q among the pools d of this call: by scanning a few,
// by a map from the ninth on.
func (p *Plugin) queueAt(d []PoolDemand, q string) int {
	if len(d) <= 8 {
		for i := range d {
			if d[i].Name == q {
				return i
			}
		}
		if len(d) == 8 { // the map is about to be needed: fill it
			if p.queueIdx == nil {
				p.queueIdx = make(map[string]int)
			}
			for i := range d {
				p.queueIdx[d[i].Name] = i
			}
		}
		return -1
	}
	if i, ok := p.queueIdx[q]; ok {
		return i
	}
	return -1
}

func byName(a, b PoolDemand) int { return cmp.Compare(a.Name, b.Name) }

// allocate is Allocate's result, computed again only when the pools'
// demand and the slots are none of the recent calls' (the allocation, its
// reason and the queue hints are a function of them alone).
func (p *Plugin) allocate(v cluster.View, slots Slots) *lastShape {
	demand := p.poolDemand(v)
	if l := &p.recent[p.hit]; l.ok && l.slots == slots && slices.Equal(l.demand, demand) {
		return l
	}
	for i := range p.recent {
		if l := &p.recent[i]; l.ok && l.slots == slots && slices.Equal(l.demand, demand) {
			p.hit = i
			return l
		}
	}
	p.hit, p.next = p.next, (p.next+1)%recentShapes
	l := &p.recent[p.hit]
	if p.name == NamePD {
		l.alloc = allocatePD(l.alloc, demand, slots, p.borrow(), &p.scratch)
	} else {
		l.alloc, l.c = allocatePI(l.alloc, demand, slots, p.borrow(), &p.scratch)
	}
	l.ok, l.slots, l.demand = true, slots, append(l.demand[:0], demand...)
	l.whatOK, l.hintsOK = false, false
	return l
}

// whatOf returns l's demand part of every reason, built on first use.
func (p *Plugin) whatOf(l *lastShape) reason {
	if l.whatOK {
		return l.what
	}
	var nM, nR int
	for _, d := range l.demand {
		nM += d.Maps
		nR += d.Reduces
	}
	what := l.what[:0]
	if p.name != NamePD {
		what = what.s("case ").d(int(l.c)).s(", ")
	}
	l.what = what.s("demand ").d(nM).s(" maps ").d(nR).s(" reduces on ").d(l.slots.Map).s("/").d(l.slots.Reduce).s(" map/reduce slots")
	l.whatOK = true
	return l.what
}

// queueHintsOf returns l's queue hints (scope queue: one per pool), built
// on first use.
func (p *Plugin) queueHintsOf(l *lastShape) []policy.Hint {
	if l.hintsOK {
		return l.queueHints
	}
	what := p.whatOf(l)
	l.queueHints = l.queueHints[:0]
	for _, a := range l.alloc {
		reason := p.reasons[:0].s(p.name).s(": ").b(what).s("; queue ").s(a.Name).s(" granted ").d(a.Maps).s(" maps ").d(a.Reduces).s(" reduces")
		if a.PoolCase != "" {
			reason = reason.s(", pool case ").s(a.PoolCase)
		}
		p.reasons = reason
		l.queueHints = append(l.queueHints, policy.Hint{Kind: policy.KindRatio, Queue: a.Name,
			MaxMaps: a.MaxMaps, MaxReduces: a.MaxReduces, Reason: reason.String()})
	}
	l.hintsOK = true
	return l.queueHints
}

// ShapeOn implements policy.DemandShaper: DHSA recomputes as soon as demand
// or capacity changes (work arrives, starts or ends, nodes come or go), so a new
// job's caps hold before YARN offers it containers. The paper's DHSA runs
// at every heartbeat (§2.1.1); between such events the grants cannot change.
func (p *Plugin) ShapeOn(ev *events.Event) bool {
	switch ev.Type {
	case events.NodeRegistered, events.NodeLost:
		p.slotsOK = false // a node's capacity or state changed
		p.nodesDirty = true
		return true
	case events.AppSubmitted, events.AppFinished, events.TaskPending, events.TaskFinished,
		events.ContainerAllocated:
		return true
	}
	return false
}

// Shape implements policy.Shaper: one ratio hint per queue (or app).
func (p *Plugin) Shape(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	p.lapses.Begin(p.name)
	slots := p.ClusterSlots(v)
	l := p.allocate(v, slots)
	alloc := l.alloc
	if slots.Map+slots.Reduce == 0 {
		return nil, policy.NewStatus(policy.Skip, "no running nodes")
	}
	if len(alloc) == 0 {
		return nil, policy.NewStatus(policy.Skip, "no unfinished apps")
	}
	var out []policy.Hint
	if p.lapses.Wired() && p.cfg.Scope == ScopeQueue {
		// Run by an engine, which copies the hints it emits before it
		// calls again: they go in a buffer of Shape's (an allocation per
		// call that returned a hint was a tenth of Shape).
		out = p.out[:0]
	}
	if p.cfg.NodeCaps {
		out = p.nodeHints(v, alloc, slots, l, out)
	}
	if p.cfg.Scope == ScopeQueue {
		// A copy of the cached hints; run by an engine, only those not in
		// force. Run by none, the caller owns what it gets.
		if !p.lapses.Wired() {
			qh := p.queueHintsOf(l)
			if out == nil { // no node hints this time
				out = make([]policy.Hint, 0, len(qh))
			}
			return append(out, qh...), nil
		}
		if p.queueSent == nil {
			p.queueSent = map[string]*sent{}
		}
		for i, a := range alloc {
			s := p.queueSent[a.Name]
			if s == nil {
				s = new(sent)
				p.queueSent[a.Name] = s
			}
			h := policy.Hint{Kind: policy.KindRatio, Queue: a.Name, MaxMaps: a.MaxMaps, MaxReduces: a.MaxReduces}
			if !p.inForce(s, &h) {
				out = append(out, p.queueHintsOf(l)[i])
			}
		}
		p.out = out
		return out, nil
	}
	ps := p.pools(v, true)
	what := p.whatOf(l)
	for i, pl := range ps {
		a := alloc[i]
		dm, dr := make([]int, len(pl.apps)), make([]int, len(pl.apps))
		eq := make([]float64, len(pl.apps))
		for k, app := range pl.apps {
			dm[k], dr[k] = p.appDemand(app)
			eq[k] = 1
		}
		gm, gr := waterfill(a.Maps, dm, eq), waterfill(a.Reduces, dr, eq)
		hm, hr := a.MaxMaps-a.Maps, a.MaxReduces-a.Reduces
		for k, app := range pl.apps {
			out = append(out, policy.Hint{Kind: policy.KindRatio, App: app.ID,
				MaxMaps: gm[k] + hm, MaxReduces: gr[k] + hr,
				Reason: newReason(160).s(p.name).s(": ").b(what).s("; queue ").s(a.Name).s(" granted ").d(a.Maps).s(" maps ").d(a.Reduces).
					s(" reduces, app ").d(gm[k]).s(" maps ").d(gr[k]).s(" reduces").String()})
		}
	}
	return out, nil
}

// capsOfGrants sums the pools' grants (granted) and adds the headroom
// every pool's caps carry, the slots nobody demands (allowed): the inputs
// of NodeCaps.
func capsOfGrants(alloc []Allocation) (allowed, granted Slots) {
	for _, a := range alloc {
		granted.Map += a.Maps
		granted.Reduce += a.Reduces
	}
	allowed = granted
	allowed.Map += alloc[0].MaxMaps - alloc[0].Maps
	allowed.Reduce += alloc[0].MaxReduces - alloc[0].Reduces
	return allowed, granted
}

// nodeHints appends one ratio hint per running node whose caps changed (all
// of them when the refresh is due): NodeCaps of the pools' total grants plus
// headroom.
func (p *Plugin) nodeHints(v cluster.View, alloc []Allocation, slots Slots, l *lastShape, out []policy.Hint) []policy.Hint {
	allowed, granted := capsOfGrants(alloc)
	now := v.Now()
	all := p.nodeCaps == nil || p.nodesDirty || now-p.nodeSent >= p.cfg.NodeCapsRefresh.Milliseconds()
	in := capsInputs{allowed, granted, slots}
	if !all && p.capsOK && in == p.capsIn {
		return out // every class's caps are NodeCaps of these inputs already
	}
	caps := func(vcores int) (Slots, Slots) {
		var own, c Slots
		own.Map, own.Reduce = p.cfg.NodeSlots(vcores)
		c.Map, c.Reduce = NodeCaps(allowed, granted, slots, own, p.borrow().Weights)
		return own, c
	}
	var changed map[int]bool
	if all {
		p.nodeCaps, p.nodeSent, p.nodesDirty = map[int]Slots{}, now, false
	} else {
		for vc, last := range p.nodeCaps {
			if _, c := caps(vc); c != last {
				if changed == nil {
					changed = map[int]bool{}
				}
				changed[vc] = true
			}
		}
		if len(changed) == 0 {
			p.capsIn, p.capsOK = in, true
			return out
		}
	}
	nodes := v.Nodes()
	wired := p.lapses.Wired()
	if wired && len(p.nodeLapses) < len(nodes) {
		p.nodeLapses = append(p.nodeLapses, make([]nodeSent, len(nodes)-len(p.nodeLapses))...)
	}
	// The reasons go into one buffer and become one string that the hints
	// slice: a round names every node. A reason is the same for every node
	// of a size but for the node's id: the parts before and after it
	// (prefix, and the size's suffix) are formatted once.
	first, buf, ends := len(out), p.reasons[:0], p.reasonEnds[:0]
	prefix := -1 // where the prefix ends in buf, when written
	var suffix reason
	lastVC, own, c := -1, Slots{}, Slots{}
	for i, n := range nodes {
		if n.State != cluster.NodeRunning || !all && !changed[n.VCores] {
			continue
		}
		if n.VCores != lastVC { // nodes mostly come in runs of one size
			lastVC = n.VCores
			own, c = caps(n.VCores)
			p.nodeCaps[n.VCores] = c
			suffix = p.suffix[:0].s(" has ").d(own.Map).s("/").d(own.Reduce).
				s(" map/reduce slots, runs at most ").d(c.Map).s(" maps ").d(c.Reduce).s(" reduces (cluster: ").d(allowed.Map).
				s(" maps ").d(allowed.Reduce).s(" reduces allowed, ").d(granted.Reduce).s(" reduces granted)")
			p.suffix = suffix
		}
		h := policy.Hint{Kind: policy.KindRatio, Node: n.ID, MaxMaps: c.Map, MaxReduces: c.Reduce}
		if wired {
			s := &p.nodeLapses[i]
			if s.n != n { // another node at this place: its lapse is not known
				*s = nodeSent{n: n}
			}
			if p.inForce(&s.sent, &h) {
				continue
			}
		}
		if prefix < 0 {
			buf = buf.s(p.name).s(": ").b(p.whatOf(l)).s("; node ")
			prefix = len(buf)
		}
		if len(ends) > 0 { // the first reason's prefix is in place
			buf = append(buf, buf[:prefix]...)
		}
		buf = buf.s(n.ID).b(suffix)
		ends = append(ends, len(buf))
		if out == nil { // room for the pools' hints after these
			out = make([]policy.Hint, 0, len(nodes)+len(alloc))
		}
		out = append(out, h)
	}
	if len(ends) == 0 {
		p.capsIn, p.capsOK = in, true
		p.recheck(changed, caps)
		return out
	}
	reasons := buf.String()
	from := 0
	for i, e := range ends {
		out[first+i].Reason = reasons[from:e]
		from = e
	}
	p.reasons, p.reasonEnds = buf[:0], ends[:0]
	p.capsIn, p.capsOK = in, true
	p.recheck(changed, caps)
	return out
}

// recheck clears capsOK when a class whose caps changed has no running
// node: it keeps its old entry, so the next call with these inputs must
// look again.
func (p *Plugin) recheck(changed map[int]bool, caps func(int) (Slots, Slots)) {
	for vc := range changed {
		if _, c := caps(vc); p.nodeCaps[vc] != c {
			p.capsOK = false
		}
	}
}

// Assign implements policy.Assigner: Cases 1–4 of §2.1.2 on the
// heartbeating node, as place hints naming it.
func (a Assigning) Assign(_ context.Context, v cluster.View, n *cluster.Node) ([]policy.Hint, *policy.Status) {
	p := a.Plugin
	if n.State != cluster.NodeRunning {
		return nil, policy.NewStatus(policy.Skip, "node not running")
	}
	free := n.FreeVCores() / p.cfg.VCoresPerSlot
	limit := min(free, p.cfg.MaxAssignPerHeartbeat)
	if limit <= 0 {
		return nil, nil
	}
	load := NodeLoad{ID: n.ID}
	load.Slots.Map, load.Slots.Reduce = p.cfg.NodeSlots(n.VCores)
	for _, at := range n.Running {
		if at.Task != nil && at.Task.Kind == events.Reduce {
			load.RunningReduces++
		} else {
			load.RunningMaps++
		}
	}
	var queues []PoolQueue
	for _, pl := range p.pools(v, true) {
		if pl.pendMaps+pl.pendRs == 0 {
			continue
		}
		q := PoolQueue{Name: pl.name, Weight: p.cfg.poolWeight(pl.name), Running: pl.running}
		for _, app := range pl.apps {
			jq := JobQueue{App: app.ID}
			for _, t := range app.Tasks {
				if t.State != cluster.TaskPending {
					continue
				}
				if t.Kind == events.Reduce {
					jq.Reduces = append(jq.Reduces, t)
				} else {
					jq.Maps = append(jq.Maps, t)
				}
			}
			q.Jobs = append(q.Jobs, jq)
		}
		queues = append(queues, q)
	}
	as := AssignNode(load, queues, p.borrow(), func(t *cluster.Task) events.Locality { return MapLocality(v, n, t) }, limit)
	out := make([]policy.Hint, 0, len(as))
	for _, a := range as {
		reason := fmt.Sprintf("%s: case %d on %s", p.name, a.Case, n.ID)
		if a.Relaxed {
			reason += " (visitedForMap: locality relaxed)"
		}
		out = append(out, policy.Hint{Kind: policy.KindPlace, App: a.App, Task: a.Task,
			Nodes: []policy.NodeScore{{Node: n.ID, Score: 1, Locality: a.Locality}}, Reason: reason})
	}
	return out, nil
}

// reason builds a hint's reason without fmt: Shape runs at every change of
// demand, and most of its hints repeat ones in force, whose reasons the
// engine drops.
type reason []byte

func newReason(size int) reason { return make(reason, 0, size) }

func (r reason) s(x string) reason { return append(r, x...) }
func (r reason) b(x reason) reason { return append(r, x...) }
func (r reason) d(x int) reason    { return strconv.AppendInt(r, int64(x), 10) }
func (r reason) String() string    { return string(r) }
