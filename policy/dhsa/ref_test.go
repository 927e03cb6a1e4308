package dhsa

import (
	"context"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// refPlugin is the straightforward Shape the cached one replaced (as of
// 2c772e2): it reads every unfinished app, allocates and builds every hint
// at each call. The equivalence tests hold the plugin to it.
type refPlugin struct {
	name string
	cfg  Config

	slots     Slots
	slotsOK   bool
	nodesSeen int

	nodeCaps   map[int]Slots
	nodeSent   int64
	nodesDirty bool
}

func (p *refPlugin) borrow() Borrow { return (&Plugin{cfg: p.cfg}).borrow() }

func (p *refPlugin) appDemand(a *cluster.App) (maps, reduces int) {
	return (&Plugin{cfg: p.cfg}).appDemand(a)
}

// refUnfinished is every unfinished app of v in order of first sight, read
// from the whole list at each call.
func (p *refPlugin) refUnfinished(v cluster.View) []*cluster.App {
	var out []*cluster.App
	for _, a := range v.Apps() {
		if !a.Finished() {
			out = append(out, a)
		}
	}
	return out
}

// ClusterSlots sums the map and reduce slots of the running nodes.
func (p *refPlugin) ClusterSlots(v cluster.View) Slots {
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

// pools is the plugin's grouping over refUnfinished.
func (p *refPlugin) pools(v cluster.View, ordered bool) []*pool {
	return (&Plugin{cfg: p.cfg}).poolsOf(p.refUnfinished(v), ordered)
}

// Allocate runs the plugin's variant over the view and returns the pools'
// allocations (sorted by queue name) and the cluster's slots.
func (p *refPlugin) Allocate(v cluster.View) ([]Allocation, Slots, string) {
	slots := p.ClusterSlots(v)
	ps := p.pools(v, false)
	demand := make([]PoolDemand, len(ps))
	var nM, nR int
	for i, pl := range ps {
		demand[i] = PoolDemand{Name: pl.name, Weight: p.cfg.poolWeight(pl.name), Maps: pl.maps, Reduces: pl.reduces}
		nM += pl.maps
		nR += pl.reduces
	}
	what := newReason(64).s("demand ").d(nM).s(" maps ").d(nR).s(" reduces on ").d(slots.Map).s("/").d(slots.Reduce).s(" map/reduce slots")
	if p.name == NamePD {
		return AllocatePD(demand, slots, p.borrow()), slots, what.String()
	}
	alloc, c := AllocatePI(demand, slots, p.borrow())
	return alloc, slots, newReason(72).s("case ").d(int(c)).s(", ").s(string(what)).String()
}

// ShapeOn implements policy.DemandShaper: DHSA recomputes as soon as demand
// or capacity changes (work arrives, starts or ends, nodes come or go), so a new
// job's caps hold before YARN offers it containers. The paper's DHSA runs
// at every heartbeat (§2.1.1); between such events the grants cannot change.
func (p *refPlugin) ShapeOn(ev *events.Event) bool {
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
func (p *refPlugin) Shape(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	alloc, slots, what := p.Allocate(v)
	if slots.Map+slots.Reduce == 0 {
		return nil, policy.NewStatus(policy.Skip, "no running nodes")
	}
	if len(alloc) == 0 {
		return nil, policy.NewStatus(policy.Skip, "no unfinished apps")
	}
	var out []policy.Hint
	if p.cfg.NodeCaps {
		out = p.nodeHints(v, alloc, slots, what, out)
	}
	if p.cfg.Scope == ScopeQueue {
		for _, a := range alloc {
			reason := newReason(128).s(p.name).s(": ").s(what).s("; queue ").s(a.Name).s(" granted ").d(a.Maps).s(" maps ").d(a.Reduces).s(" reduces").String()
			if a.PoolCase != "" {
				reason += ", pool case " + a.PoolCase
			}
			out = append(out, policy.Hint{Kind: policy.KindRatio, Queue: a.Name,
				MaxMaps: a.MaxMaps, MaxReduces: a.MaxReduces, Reason: reason})
		}
		return out, nil
	}
	ps := p.pools(v, true)
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
				Reason: newReason(160).s(p.name).s(": ").s(what).s("; queue ").s(a.Name).s(" granted ").d(a.Maps).s(" maps ").d(a.Reduces).
					s(" reduces, app ").d(gm[k]).s(" maps ").d(gr[k]).s(" reduces").String()})
		}
	}
	return out, nil
}

// nodeHints appends one ratio hint per running node whose caps changed (all
// of them when the refresh is due): NodeCaps of the pools' total grants plus
// headroom.
func (p *refPlugin) nodeHints(v cluster.View, alloc []Allocation, slots Slots, what string, out []policy.Hint) []policy.Hint {
	allowed, granted := capsOfGrants(alloc)
	now := v.Now()
	all := p.nodeCaps == nil || p.nodesDirty || now-p.nodeSent >= p.cfg.NodeCapsRefresh.Milliseconds()
	caps := func(vcores int) (Slots, Slots) {
		var own, c Slots
		own.Map, own.Reduce = p.cfg.NodeSlots(vcores)
		c.Map, c.Reduce = NodeCaps(allowed, granted, slots, own, p.borrow().Weights)
		return own, c
	}
	changed := map[int]bool{}
	if all {
		p.nodeCaps, p.nodeSent, p.nodesDirty = map[int]Slots{}, now, false
	} else {
		for vc, last := range p.nodeCaps {
			if _, c := caps(vc); c != last {
				changed[vc] = true
			}
		}
		if len(changed) == 0 {
			return out
		}
	}
	for _, n := range v.Nodes() {
		if n.State != cluster.NodeRunning || !all && !changed[n.VCores] {
			continue
		}
		own, c := caps(n.VCores)
		p.nodeCaps[n.VCores] = c
		out = append(out, policy.Hint{Kind: policy.KindRatio, Node: n.ID, MaxMaps: c.Map, MaxReduces: c.Reduce,
			Reason: newReason(224).s(p.name).s(": ").s(what).s("; node ").s(n.ID).s(" has ").d(own.Map).s("/").d(own.Reduce).
				s(" map/reduce slots, runs at most ").d(c.Map).s(" maps ").d(c.Reduce).s(" reduces (cluster: ").d(allowed.Map).
				s(" maps ").d(allowed.Reduce).s(" reduces allowed, ").d(granted.Reduce).s(" reduces granted)").String()})
	}
	return out
}
