package capacity

import (
	"slices"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// tracked is a node's record in a Scratch that observes events: what a
// snapshot takes of it, and whether it is in a snapshot at all.
type tracked struct {
	free freeNode
	live bool // running and heard from (a heartbeat)
}

func (t *tracked) read(n *cluster.Node) {
	t.live = n.State == cluster.NodeRunning && n.HeartbeatTS != 0
	t.free.vcores, t.free.memoryMB = n.FreeVCores(), n.FreeMemoryMB()
}

// Observe keeps a record of each node's free capacity up to date from the
// events that change it (a node's registration, loss and heartbeats are
// the only writes to its state, capacity and use), so that Snapshot copies
// 10,000 compact records from one array instead of reading 10,000 nodes
// spread over the heap, two or three cache misses each. From the first
// call on, the caller must pass every event applied to the state it
// snapshots (a policy's Observe sees them all). A node not met before (a
// new node, a state restored from a checkpoint, another state) is read
// from the state when an event names it or a snapshot lists it; records
// are made as nodes are first heard of, so that the first round that
// speculates does not make 10,000 of them.
func (s *Scratch) Observe(ev *events.Event, v cluster.View) {
	switch ev.Type {
	case events.NodeHeartbeat, events.NodeRegistered, events.NodeLost:
	default:
		return
	}
	if s.slot == nil {
		s.slot = map[string]int32{}
	}
	// Found by the event's node id, one map lookup a heartbeat (a quarter
	// of the stream); the node it names is the state's, whose id the
	// state's own lookup just read. A record of another state is replaced
	// by the next sync, which a snapshot always makes.
	if i, ok := s.slot[ev.Node]; ok {
		s.recs[i].read(s.recs[i].free.node)
		return
	}
	if v.Node(ev.Node) != nil {
		s.sync(v.Nodes()) // a node first heard of: it is read there
	}
}

// sync makes s.recs parallel to nodes, reading from the state the nodes
// not recorded. A state's node list only grows and a node belongs to one
// state, so when the last node recorded is still at its place the records
// are a prefix of the list; else (another state) all are read again.
func (s *Scratch) sync(nodes []*cluster.Node) {
	i := len(s.recs)
	if i > len(nodes) || (i > 0 && nodes[i-1] != s.recs[i-1].free.node) {
		i = 0
	}
	for _, t := range s.recs[i:] {
		delete(s.slot, t.free.id)
	}
	clear(s.recs[i:]) // no node kept alive by a record dropped
	s.recs = slices.Grow(s.recs[:i], len(nodes)-i)
	for _, n := range nodes[i:] {
		t := tracked{free: freeNode{node: n, id: n.ID, idKey: idPrefix(n.ID)}}
		t.read(n)
		s.slot[n.ID] = int32(len(s.recs))
		s.recs = append(s.recs, t)
	}
	// Room for a snapshot of every node, made as nodes arrive (growing by
	// a fourth) and written once: the first snapshot of 10,000 nodes
	// otherwise wrote about 700 KB of fresh memory, a page fault per 4 KB
	// in the round.
	if n := len(s.recs); cap(s.free) < n || cap(s.ptrs) < n || cap(s.heap) < n {
		n += n/4 + 16
		s.free = prefault(s.free[:0], n)
		s.ptrs = prefault(s.ptrs[:0], n)
		s.heap = prefault(s.heap[:0], n)
	}
}

// prefault returns s with room for n elements, having written the room of
// a new array (fresh pages are mapped on the first write).
func prefault[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s
	}
	s = slices.Grow(s, n-len(s))
	clear(s[len(s):cap(s)])
	return s
}

// snapshotTracked is Snapshot from the records Observe keeps.
func (s *Scratch) snapshotTracked(v cluster.View) *Capacity {
	nodes := v.Nodes()
	s.sync(nodes)
	s.free = slices.Grow(s.free[:0], len(s.recs))
	for i := range s.recs {
		if t := &s.recs[i]; t.live {
			s.free = append(s.free, t.free)
		}
	}
	s.ptrs = slices.Grow(s.ptrs[:0], len(s.free))
	for i := range s.free {
		s.ptrs = append(s.ptrs, &s.free[i])
	}
	return &Capacity{nodes: s.ptrs, heap: s.heap[:0], scratch: s}
}
