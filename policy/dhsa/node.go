package dhsa

import (
	"cmp"
	"slices"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// NodeLoad is a node's slots and the tasks running on it.
type NodeLoad struct {
	ID                          string
	Slots                       Slots
	RunningMaps, RunningReduces int
}

// idle returns the idle map and reduce capacity of the node in weight units.
// Maps fill map slots first and overflow into reduce slots, reduces the
// converse, so a borrowed slot is counted against the phase it belongs to.
func (n NodeLoad) idle(w Weights) (mapUnits, reduceUnits float64) {
	mapCap, redCap := float64(n.Slots.Map)*w.Map, float64(n.Slots.Reduce)*w.Reduce
	m, r := float64(n.RunningMaps)*w.Map, float64(n.RunningReduces)*w.Reduce
	overM, overR := max(0, m-mapCap), max(0, r-redCap)
	return mapCap - min(m, mapCap) - overR, redCap - min(r, redCap) - overM
}

// PoolQueue is one pool's pending work for a heartbeat: its jobs in the
// pool's own order, and how many tasks the pool runs (for the fair order).
type PoolQueue struct {
	Name    string
	Weight  float64
	Running int
	Jobs    []JobQueue
}

// JobQueue is one job's pending maps and reduces, in the order to try them.
type JobQueue struct {
	App     string
	Maps    []*cluster.Task
	Reduces []*cluster.Task
}

// Assignment is one task the node should run, the Case (1–4 of §2.1.2,
// Fig. 4) that chose it and the locality of a map.
type Assignment struct {
	App      string
	Task     string
	Kind     events.TaskKind
	Case     int
	Locality events.Locality
	// Relaxed is set when the map was taken by the visitedForMap rule,
	// ignoring locality.
	Relaxed bool
}

// LocalityFunc tells how local a map is to the heartbeating node.
type LocalityFunc func(t *cluster.Task) events.Locality

// AssignNode is PD-DHSA's per-heartbeat allocation (§2.1.2, Fig. 4). While the
// node has room and fewer than limit tasks were assigned, it takes the pools
// in fair order (fewest running tasks per weight first) and tries for each:
//
//	Case 1: a map on an idle map slot, if the pool has a map of valid locality;
//	Case 2: else a reduce on an idle reduce slot;
//	Case 3: else a map on idle reduce slots (borrowed);
//	Case 4: else a reduce on idle map slots (borrowed).
//
// A map has valid locality when it is node-local. When a whole round over the
// pools assigns nothing, the jobs visited for maps in that round are marked
// visitedForMap, and in the next round their maps are taken at any locality
// (best first): the paper's relaxation for a node that holds no input, such
// as a newly added one. Borrowing across phases is bounded by the borrow
// percentages of b.
func AssignNode(node NodeLoad, pools []PoolQueue, b Borrow, locality LocalityFunc, limit int) []Assignment {
	pools = slices.Clone(pools)
	for i := range pools {
		pools[i].Jobs = slices.Clone(pools[i].Jobs)
		for j := range pools[i].Jobs {
			jq := &pools[i].Jobs[j]
			jq.Maps, jq.Reduces = slices.Clone(jq.Maps), slices.Clone(jq.Reduces)
		}
	}
	visited := map[string]bool{} // visitedForMap
	var out []Assignment
	for len(out) < limit {
		order := fairOrder(pools)
		var seen []string // jobs visited for maps this round
		assigned := false
		for _, pi := range order {
			p := &pools[pi]
			if a, ok := tryPool(p, node, b, locality, visited, &seen); ok {
				out = append(out, a)
				p.Running++
				if a.Kind == events.Map {
					node.RunningMaps++
				} else {
					node.RunningReduces++
				}
				assigned = true
				break
			}
		}
		if assigned {
			continue
		}
		fresh := false
		for _, app := range seen {
			if !visited[app] {
				visited[app], fresh = true, true
			}
		}
		if !fresh {
			break
		}
	}
	return out
}

// fairOrder returns pool indices by running tasks per weight, then name.
func fairOrder(pools []PoolQueue) []int {
	idx := make([]int, len(pools))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		pa, pb := &pools[a], &pools[b]
		ra, rb := float64(pa.Running)/weightOr1(pa.Weight), float64(pb.Running)/weightOr1(pb.Weight)
		if c := cmp.Compare(ra, rb); c != 0 {
			return c
		}
		return cmp.Compare(pa.Name, pb.Name)
	})
	return idx
}

func weightOr1(w float64) float64 {
	if w > 0 {
		return w
	}
	return 1
}

// tryPool runs Cases 1–4 for one pool on the node.
func tryPool(p *PoolQueue, node NodeLoad, b Borrow, locality LocalityFunc, visited map[string]bool, seen *[]string) (Assignment, bool) {
	idleMapU, idleRedU := node.idle(b.Weights)
	w := b.Weights
	mapOnMap := idleMapU >= w.Map-1e-9
	reduceOnReduce := idleRedU >= w.Reduce-1e-9
	mapOnReduce := b.PctReduce*idleRedU >= w.Map-1e-9
	reduceOnMap := b.PctMap*idleMapU >= w.Reduce-1e-9
	steps := []struct {
		c    int
		kind events.TaskKind
		ok   bool
	}{
		{1, events.Map, mapOnMap},
		{2, events.Reduce, reduceOnReduce},
		{3, events.Map, mapOnReduce},
		{4, events.Reduce, reduceOnMap},
	}
	for _, s := range steps {
		if !s.ok {
			continue
		}
		for ji := range p.Jobs {
			jq := &p.Jobs[ji]
			if s.kind == events.Reduce {
				if len(jq.Reduces) == 0 {
					continue
				}
				t := jq.Reduces[0]
				jq.Reduces = jq.Reduces[1:]
				return Assignment{App: jq.App, Task: t.ID, Kind: events.Reduce, Case: s.c}, true
			}
			if len(jq.Maps) == 0 {
				continue
			}
			if !slices.Contains(*seen, jq.App) {
				*seen = append(*seen, jq.App)
			}
			k, loc := pickMap(jq.Maps, locality, visited[jq.App])
			if k < 0 {
				continue
			}
			t := jq.Maps[k]
			jq.Maps = slices.Delete(jq.Maps, k, k+1)
			return Assignment{App: jq.App, Task: t.ID, Kind: events.Map, Case: s.c, Locality: loc,
				Relaxed: loc != events.NodeLocal}, true
		}
	}
	return Assignment{}, false
}

// pickMap returns the first node-local map, or with relaxed locality the
// best one (node, then rack, then off-rack, first in order among equals).
func pickMap(maps []*cluster.Task, locality LocalityFunc, relaxed bool) (int, events.Locality) {
	best, bestLoc := -1, events.Locality("")
	for i, t := range maps {
		loc := locality(t)
		if loc == events.NodeLocal {
			return i, loc
		}
		if relaxed && (best < 0 || rank(loc) < rank(bestLoc)) {
			best, bestLoc = i, loc
		}
	}
	return best, bestLoc
}

func rank(l events.Locality) int {
	switch l {
	case events.NodeLocal:
		return 0
	case events.RackLocal:
		return 1
	}
	return 2
}

// MapLocality returns the locality of map t for node n in view v, from the
// hosts of its splits (cluster.TaskLocality; off-rack when they name none).
func MapLocality(v cluster.View, n *cluster.Node, t *cluster.Task) events.Locality {
	if loc := cluster.TaskLocality(v, n, t); loc != "" {
		return loc
	}
	return events.OffRack
}
