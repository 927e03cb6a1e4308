package prescheduling

import (
	"context"
	"slices"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// pendingMaps keeps, per app, which of its tasks are pending maps, so that
// localMaps walks those rather than every task of the app: at each
// heartbeat the other_local statistic asks it about every job with pending
// maps, and their running and finished tasks were most of that walk.
//
// A task's state changes only at an event that names it or its attempt
// (task.pending, container.allocated, task.finished), or when its app ends;
// Observe sees those (the engine reports every event that changed the
// state), and tasks added since the last look are read then. The index is
// used only once events are observed; an app whose count of pending maps
// differs from the cluster's is read again in full, and a walk that meets a
// task no longer a pending map falls back to reading every task.
type pendingMaps struct {
	on   bool
	apps map[*cluster.App]*appPending
}

// appPending is one app's pending maps.
type appPending struct {
	first *cluster.Task           // a.Tasks[0] when last read: another list starts over
	seen  int                     // a.Tasks[:seen] are indexed
	pos   map[*cluster.Task]int32 // a task's index in a.Tasks
	bits  []uint64                // bit i: a.Tasks[i] is a pending map
	n     int                     // bits set
	dirty []*cluster.Task         // tasks an event named since the last look
	// The indexes in a.Tasks, ascending, of the tasks with a split replica
	// on a host: byID under a replica with a port (a node id: that node
	// only, cluster.Node.OnHost), byHost under the host of one without. A
	// task stays listed under the hosts of splits it no longer has; the
	// walk checks. Walking every pending map's replicas at every heartbeat
	// was a third of yarn+prescheduling's time on a 3,000-node day.
	byID, byHost map[string][]int32
}

func isPendingMap(t *cluster.Task) bool {
	return t.Kind == events.Map && t.State == cluster.TaskPending
}

func (ap *appPending) set(i int, on bool) {
	w, b := i/64, uint64(1)<<(i%64)
	for len(ap.bits) <= w {
		ap.bits = append(ap.bits, 0)
	}
	switch was := ap.bits[w]&b != 0; {
	case on && !was:
		ap.bits[w] |= b
		ap.n++
	case !on && was:
		ap.bits[w] &^= b
		ap.n--
	}
}

// Observe implements policy.Observer: it notes the tasks whose state ev may
// have changed, and nodes that came or went (clusterMapSlots).
func (p *Plugin) Observe(_ context.Context, ev *events.Event, v cluster.View) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Type == events.NodeRegistered || ev.Type == events.NodeLost {
		p.mapSlotsOK = false
	}
	p.pend.observe(ev, v)
}

func (x *pendingMaps) observe(ev *events.Event, v cluster.View) {
	var t *cluster.Task
	switch ev.Type {
	case events.TaskPending:
		if a := v.App(ev.App); a != nil {
			t = a.Task(ev.Task)
		}
	case events.ContainerAllocated, events.TaskFinished:
		if at := v.Attempt(ev.Attempt); at != nil {
			t = at.Task
		}
	case events.AppFinished, events.AppSubmitted:
		// An ending app ends its tasks; one submitted again is read anew.
		if a := v.App(ev.App); a != nil {
			delete(x.apps, a)
		}
	}
	if !x.on {
		x.on = true
		x.apps = map[*cluster.App]*appPending{}
	}
	if t == nil || t.App == nil {
		return
	}
	if t.App.Finished() { // an allocation after the end ends the app's tasks
		delete(x.apps, t.App)
		return
	}
	if ap := x.apps[t.App]; ap != nil {
		ap.dirty = append(ap.dirty, t)
	}
}

// look brings a's entry up to date and returns it.
func (x *pendingMaps) look(a *cluster.App) *appPending {
	ap := x.apps[a]
	if ap == nil || len(a.Tasks) < ap.seen || ap.seen > 0 && a.Tasks[0] != ap.first {
		if len(x.apps) >= 1024 {
			x.sweep()
		}
		ap = &appPending{pos: map[*cluster.Task]int32{}, byID: map[string][]int32{}, byHost: map[string][]int32{}}
		x.apps[a] = ap
	}
	for _, t := range ap.dirty {
		if i, ok := ap.pos[t]; ok {
			// Listed again with the splits it has as a pending map: a
			// task.pending may bring other splits, and a map becomes
			// pending only at an event naming it.
			pm := isPendingMap(t)
			ap.set(int(i), pm)
			if pm {
				ap.list(t, i)
			}
		}
	}
	ap.dirty = ap.dirty[:0]
	for ; ap.seen < len(a.Tasks); ap.seen++ {
		t := a.Tasks[ap.seen]
		ap.pos[t] = int32(ap.seen)
		ap.set(ap.seen, isPendingMap(t))
		ap.list(t, int32(ap.seen))
	}
	if len(a.Tasks) > 0 {
		ap.first = a.Tasks[0]
	}
	if ap.n != a.Count[events.Map].Pending {
		for i, t := range a.Tasks {
			ap.set(i, isPendingMap(t))
			ap.list(t, int32(i))
		}
	}
	return ap
}

// list lists task t, a.Tasks[i], under the hosts of its splits' replicas.
func (ap *appPending) list(t *cluster.Task, i int32) {
	for _, s := range t.Splits {
		for _, h := range s.Hosts {
			if cluster.PortOf(h) != "" {
				ap.byID[h] = insertIndex(ap.byID[h], i)
			} else {
				key := cluster.HostOf(h)
				ap.byHost[key] = insertIndex(ap.byHost[key], i)
			}
		}
	}
}

// insertIndex adds i to the ascending list l unless it is there: at the
// end, as tasks are first read in order, else in its place.
func insertIndex(l []int32, i int32) []int32 {
	if len(l) == 0 || l[len(l)-1] < i {
		return append(l, i)
	}
	k, found := slices.BinarySearch(l, i)
	if found {
		return l
	}
	return slices.Insert(l, k, i)
}

// sweep drops the entries of finished apps (the cluster state may have
// forgotten them without an event this index saw).
func (x *pendingMaps) sweep() {
	for a := range x.apps {
		if a.Finished() {
			delete(x.apps, a)
		}
	}
}

// localMaps is the package's localMaps, read from the index once events
// are observed: the tasks listed under n's id and host, in task order.
func (p *Plugin) localMaps(a *cluster.App, n *cluster.Node, limit int) []*cluster.Task {
	if !p.pend.on {
		return localMaps(a, n, limit)
	}
	ap := p.pend.look(a)
	byID := dropSucceeded(a, ap.byID, n.ID)
	byHost := dropSucceeded(a, ap.byHost, n.Host())
	var out []*cluster.Task
	on := onHost(n)
	for len(byID)+len(byHost) > 0 {
		if len(out) == limit {
			return out
		}
		var i int32
		switch {
		case len(byHost) == 0 || len(byID) > 0 && byID[0] < byHost[0]:
			i, byID = byID[0], byID[1:]
		case len(byID) == 0 || byHost[0] < byID[0]:
			i, byHost = byHost[0], byHost[1:]
		default: // listed under both
			i, byID, byHost = byID[0], byID[1:], byHost[1:]
		}
		if ap.bits[i/64]&(1<<(i%64)) == 0 {
			continue
		}
		t := a.Tasks[i]
		if !isPendingMap(t) {
			return localMaps(a, n, limit) // a change the index missed
		}
		for _, s := range t.Splits {
			if slices.ContainsFunc(s.Hosts, on) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// dropSucceeded drops the tasks that succeeded (they never run again) from
// the front of m[key] and returns what is left.
func dropSucceeded(a *cluster.App, m map[string][]int32, key string) []int32 {
	l, ok := m[key]
	if !ok {
		return nil
	}
	k := 0
	for k < len(l) && a.Tasks[l[k]].State == cluster.TaskSucceeded {
		k++
	}
	switch {
	case k == len(l):
		delete(m, key)
		return nil
	case k > 0:
		l = l[k:]
		m[key] = l
	}
	return l
}
