// The reservations (placements of ours not started yet) and the orders the
// re-plan and the holds read them in, kept across ticks.

package tmar

import (
	"cmp"
	"slices"
	"strings"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

type reservation struct {
	task   *cluster.Task
	node   string
	alts   []string // equal nodes a strict hold also names (see sameFinishS)
	finish float64

	// dead: dropped from Plugin.reserved; the orders drop it when next read.
	dead bool
	// The locality of task on locNode as localityOn gave it under the node
	// index of generation locGen, with the task's splits at locSplits
	// (locN of them); holds asks every tick (holdLocality).
	locOK     bool
	locNode   string
	locGen    uint64
	locSplits *events.Split
	locN      int
	loc       events.Locality
	// mt is the re-plan's MapTask of the task (mapTaskOf).
	mt mapTaskMemo
	// hold is the engine's hint for the task, when known (holdInForce).
	hold holdKey
}

// holdKey is the engine's hint for a reservation's task when known
// (holdInForce): the node, equal nodes and locality it names, and its
// lapse there (lapse.go).
type holdKey struct {
	task  *cluster.Task
	node  string
	alts  []string
	loc   events.Locality
	lapse policy.Lapse
}

// mapTaskMemo is a map's MapTask under the node index of generation gen,
// with the task's splits at splits (n of them).
type mapTaskMemo struct {
	ok     bool
	gen    uint64
	splits *events.Split
	n      int
	task   MapTask
}

// resOrder keeps the live reservations sorted by cmp between ticks: the
// re-plan and the holds read every reservation in a fixed order each tick,
// and sorting them all again (string comparisons of task ids) cost more
// than the rest of the pass. A reservation is added once, when made; one
// replaced in place keeps its place (the keys of cmp are its task's, which
// do not change); dead ones are dropped when the order is read.
type resOrder struct {
	list  []*reservation // sorted, may hold dead entries
	added []*reservation // not sorted yet
	cmp   func(a, b *reservation) int
}

func (o *resOrder) add(r *reservation) { o.added = append(o.added, r) }

// sorted returns the live reservations in order: the sorted list without
// its dead entries, merged with those added since, sorted.
func (o *resOrder) sorted() []*reservation {
	live := o.list[:0]
	for _, r := range o.list {
		if !r.dead {
			live = append(live, r)
		}
	}
	clear(o.list[len(live):]) // no pointers kept to dead reservations
	add := o.added[:0]
	for _, r := range o.added {
		if !r.dead {
			add = append(add, r)
		}
	}
	clear(o.added[len(add):])
	o.added = o.added[:0]
	if len(add) == 0 {
		o.list = live
		return live
	}
	slices.SortFunc(add, o.cmp)
	// Merge from the end, in place.
	n, a := len(live), len(add)
	out := slices.Grow(live, a)[:n+a]
	i, j := n-1, a-1
	for k := n + a - 1; j >= 0; k-- {
		if i >= 0 && o.cmp(out[i], add[j]) > 0 {
			out[k] = out[i]
			i--
		} else {
			out[k] = add[j]
			j--
		}
	}
	clear(add)
	o.list = out
	return out
}

// byTaskID orders reservations by task id (holds: ids are unique).
func byTaskID(a, b *reservation) int { return strings.Compare(a.task.ID, b.task.ID) }

// bySubmission orders reservations by their app's submission, then app id,
// then task id (replan: a total order, ids are unique).
func bySubmission(a, b *reservation) int {
	ta, tb := a.task, b.task
	if ta.App != tb.App {
		if c := cmp.Compare(ta.App.SubmitTS, tb.App.SubmitTS); c != 0 {
			return c
		}
		return strings.Compare(ta.App.ID, tb.App.ID)
	}
	return strings.Compare(ta.ID, tb.ID)
}

// reserve records a placement of ours not started yet; one already
// recorded for the task is replaced in place.
func (p *Plugin) reserve(id string, r reservation) {
	if old, ok := p.reserved[id]; ok {
		*old = r
		return
	}
	nr := new(reservation)
	*nr = r
	p.reserved[id] = nr
	p.byID.add(nr)
	p.bySubmit.add(nr)
	p.reservedPeak = max(p.reservedPeak, len(p.reserved))
}

// unreserve drops the reservation r of task id.
func (p *Plugin) unreserve(id string, r *reservation) {
	delete(p.reserved, id)
	r.dead = true
}
