// Package capacity is the free container capacity of a cluster's running
// nodes by their latest heartbeats, for policies that choose a target node
// for a container: how many containers of a size fit (Slots, TotalSlots) and
// a deterministic choice that reserves what it picks (Pick).
package capacity

import (
	"encoding/binary"
	"slices"

	"github.com/rmsidecar/rmsidecar/cluster"
)

// Need is the size of the container a backup copy asks for.
type Need struct {
	VCores   int
	MemoryMB int
}

// NeedOf is the container size of an attempt's copy: the original's size when
// its allocation reported one, else one vcore and no memory constraint.
func NeedOf(at *cluster.Attempt) Need {
	return Need{VCores: max(1, at.VCores), MemoryMB: max(0, at.MemoryMB)}
}

// Capacity is the free capacity of the running nodes according to their
// latest heartbeats. Picking a target reserves its container, so several
// backups chosen in one round do not all land on the same free slot.
type Capacity struct {
	// refs are the nodes in the state's order; free holds one entry per
	// node (free[k].ref indexes refs), in refs' order until the first Pick
	// makes it a heap, best first.
	refs  []nodeRef
	free  freeHeap
	built bool
}

// Scratch keeps a Capacity's arrays between rounds, so a policy that takes
// a snapshot every scan does not allocate one per node each time. The zero
// value is ready.
type Scratch struct {
	// refs hold, by position in the View's node list at the last snapshot,
	// each node with its id and what only a registration or a loss
	// changes (whether it runs, its size).
	refs []nodeRef
	free freeHeap
	// changed is set by NodesChanged: a node registered or was lost since
	// the last snapshot, so the refs' states and sizes are read again.
	changed bool
	// warmed keeps warm's loads from being optimized away.
	warmed int64
}

// nodeRef is what a pick reads of a node besides its free capacity: the
// node, its id for the avoid list and the ties of equal prefixes; and, for
// a Scratch's next snapshot, the node's state and size.
type nodeRef struct {
	node             *cluster.Node
	id               string // node.ID, kept here so comparing stays in the snapshot's memory
	idKey            uint64 // idPrefix(id)
	vcores, memoryMB int    // node.VCores, node.MemoryMB
	running          bool   // node.State == cluster.NodeRunning
}

// in reports whether r's node is one of ids (slices.Contains), comparing
// the id keys before the bytes: the ids of one cluster mostly have one
// length, so nearly every comparison of a round went to memeqbody.
func (r *nodeRef) in(ids []string) bool {
	for _, id := range ids {
		if len(id) != len(r.id) || (len(id) >= 8 && binary.BigEndian.Uint64([]byte(id[:8])) != r.idKey) {
			continue
		}
		if id == r.id {
			return true
		}
	}
	return false
}

// freeNode is a heap entry: a node's free capacity and the order's keys
// held by value, so a sift compares entries of one array instead of
// following a pointer per comparison (a round of 2,000 picks at 10,000
// nodes made about 50,000 comparisons).
type freeNode struct {
	vcores   int
	memoryMB int
	idKey    uint64 // idPrefix(id): most id comparisons end here
	ref      int32  // index in Capacity.refs
}

// idPrefix is the first 8 bytes of id, big-endian, zero-padded: a < b
// implies id a sorts before id b, and equal prefixes need the full ids.
func idPrefix(id string) uint64 {
	var k uint64
	for i := range 8 {
		k <<= 8
		if i < len(id) {
			k |= uint64(id[i])
		}
	}
	return k
}

// New snapshots the free capacity of every running node that has sent a
// heartbeat.
func New(v cluster.View) *Capacity {
	return new(Scratch).Snapshot(v)
}

// Reserve gives s room for a snapshot of n nodes (and a fourth more) and
// writes the new arrays once, keeping the last snapshot's entries. A policy
// calls it as nodes register (rare events), so that the first snapshot of a
// large cluster, in a round whose latency counts, does not first-touch its
// arrays (about 1.1 MB at 10,000 nodes, a page fault per 4 KB).
func (s *Scratch) Reserve(n int) {
	if cap(s.refs) >= n && cap(s.free) >= n {
		return
	}
	n += n/4 + 16
	s.refs = Prefault(s.refs, n)
	s.free = Prefault(s.free, n)
}

// NodesChanged tells s that a node registered or was lost (the only events
// that change a node's state or size) since its last snapshot. Until then,
// Snapshot reads of each node only what its heartbeats change.
func (s *Scratch) NodesChanged() { s.changed = true }

// Prefault returns s with room for n elements, having written the room of
// a new array (fresh pages are mapped on the first write), so that a
// latency-bound round that fills it later takes no page faults. The yarn
// scan reserves its buffers with it too.
func Prefault[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s
	}
	s = slices.Grow(s, n-len(s))
	clear(s[len(s):cap(s)])
	return s
}

// Snapshot is New in s's arrays: the Capacity it returns is valid until the
// next call. The policy must call NodesChanged after a node registers or is
// lost.
func (s *Scratch) Snapshot(v cluster.View) *Capacity {
	nodes := v.Nodes()
	// Where a ref holds the same node at the same place (nodes are only
	// ever appended to the list) and no node registered or was lost since
	// it was read, the node's state and size are the ref's, and only its
	// heartbeat's fields are read: at 10,000 nodes, a cache miss per node
	// instead of three (the id, state and size lie on other lines of the
	// node than the heartbeat's).
	refs := grown(s.refs, len(nodes))
	free := slices.Grow(s.free[:0], len(nodes)) // one allocation, not one per node
	for k, n := range nodes {
		if k%warmNodes == 0 {
			s.warm(nodes[k:min(k+warmNodes, len(nodes))])
		}
		if k == len(refs) {
			refs = append(refs, nodeRef{})
		}
		r := &refs[k]
		if r.node != n || s.changed {
			r.read(n)
		}
		if !r.running || n.HeartbeatTS == 0 {
			continue
		}
		// Node.FreeVCores and FreeMemoryMB, with the size from the ref.
		free = append(free, freeNode{vcores: max(0, r.vcores-n.UsedVCores), memoryMB: max(0, r.memoryMB-n.UsedMemoryMB),
			idKey: r.idKey, ref: int32(k)})
	}
	s.changed = false
	s.refs, s.free = clearPast(refs, len(nodes)), free
	return &Capacity{refs: s.refs, free: free}
}

// warmNodes is how many nodes Snapshot's warm reads ahead: their
// heartbeats' lines (16 KB) stay in the core's first cache until read.
const warmNodes = 256

// warm loads the heartbeat line of each of nodes in a loop that does
// nothing else, so that the processor has many of those misses in flight
// at once (one a node at 10,000 nodes, 90 % of Snapshot's samples); the
// snapshot's loop, longer, kept fewer.
func (s *Scratch) warm(nodes []*cluster.Node) {
	var sum int64
	for _, n := range nodes {
		sum += n.HeartbeatTS
	}
	s.warmed += sum
}

// Refresh reads the state and size of the nodes again if one registered or
// was lost since they were read (NodesChanged), or the node list grew: what
// the next Snapshot would read of them. A policy calls it at rounds that
// take no snapshot, so that the one that does (a round of many copies,
// whose latency counts) finds them read, and need not read three lines of
// each node.
func (s *Scratch) Refresh(v cluster.View) {
	nodes := v.Nodes()
	if !s.changed && len(s.refs) == len(nodes) {
		return
	}
	refs := grown(s.refs, len(nodes))
	for k, n := range nodes {
		if k == len(refs) {
			refs = append(refs, nodeRef{})
		}
		if r := &refs[k]; r.node != n || s.changed {
			r.read(n)
		}
	}
	s.changed = false
	s.refs = clearPast(refs, len(nodes))
}

// grown returns refs with room for n (one allocation, not a doubling per
// node appended: capacity.New makes a fresh Scratch each time).
func grown(refs []nodeRef, n int) []nodeRef {
	return slices.Grow(refs, max(0, n-len(refs)))
}

// read sets r from n, reusing the id key if r held n with the same id.
func (r *nodeRef) read(n *cluster.Node) {
	idKey := r.idKey
	if r.node != n || r.id != n.ID {
		idKey = idPrefix(n.ID)
	}
	*r = nodeRef{node: n, id: n.ID, idKey: idKey, vcores: n.VCores, memoryMB: n.MemoryMB, running: n.State == cluster.NodeRunning}
}

// clearPast clears the refs past n (so they hold no node of an earlier
// state; the room is kept) and returns the first n.
func clearPast(refs []nodeRef, n int) []nodeRef {
	clear(refs[n:])
	return refs[:n]
}

// fromNodes is a snapshot of the given free capacities (for tests).
func fromNodes(nodes []*cluster.Node, vcores, memoryMB []int) *Capacity {
	c := &Capacity{}
	for i, n := range nodes {
		c.refs = append(c.refs, nodeRef{node: n, id: n.ID, idKey: idPrefix(n.ID)})
		c.free = append(c.free, freeNode{vcores: vcores[i], memoryMB: memoryMB[i], idKey: idPrefix(n.ID), ref: int32(i)})
	}
	return c
}

func (f *freeNode) fits(need Need) bool {
	return f.vcores >= need.VCores && f.memoryMB >= need.MemoryMB
}

// Slots counts the containers of size need that fit in the free capacity.
func (c *Capacity) Slots(need Need) int {
	total := 0
	for i := range c.free {
		total += c.free[i].slots(need)
	}
	return total
}

func (f *freeNode) slots(need Need) int {
	k := f.vcores / max(1, need.VCores)
	if need.MemoryMB > 0 {
		k = min(k, f.memoryMB/need.MemoryMB)
	}
	return max(0, k)
}

// Pick chooses a node for a container of size need among the nodes ok
// accepts (nil accepts all), preferring nodes not listed in avoid (where the
// task already runs). Among equals it takes the node with the most free
// vcores, then the most free memory, then the smallest id, so the choice is
// deterministic. It reserves the container and returns nil when none fits.
//
// The nodes sit in a heap in that order, so a round of many picks on a large
// cluster costs O(log n) each instead of a scan of every node.
func (c *Capacity) Pick(need Need, ok func(*cluster.Node) bool, avoid ...string) *cluster.Node {
	if r := c.pick(need, ok, avoid); r != nil {
		return r.node
	}
	return nil
}

// PickID is Pick that also returns the node's id, read from the snapshot's
// own memory: a round that names thousands of picked nodes in its hints
// read each id from its node, a cache miss per pick.
func (c *Capacity) PickID(need Need, ok func(*cluster.Node) bool, avoid ...string) (*cluster.Node, string) {
	if r := c.pick(need, ok, avoid); r != nil {
		return r.node, r.id
	}
	return nil, ""
}

// Avoid is a node id as a pick compares it: the id and its first 8 bytes
// (idPrefix), read once. A caller that reads many ids ahead of its picks
// (a round of thousands) makes them with AvoidOf there, so that a pick does
// not wait on a miss on the id's bytes.
type Avoid struct {
	id  string
	key uint64
}

// AvoidOf is the Avoid of node id.
func AvoidOf(id string) Avoid { return Avoid{id: id, key: idPrefix(id)} }

// IDKey is the key a pick compares node id by, read from the id's bytes
// (its first 8, as a number that orders as the ids do).
func IDKey(id string) uint64 { return idPrefix(id) }

// AvoidKeyed is AvoidOf(id) made from key = IDKey(id), read earlier: a
// caller that kept the key need not read the id's bytes again.
func AvoidKeyed(id string, key uint64) Avoid { return Avoid{id: id, key: key} }

// PickIDAvoiding is PickID(need, nil, avoid's id).
func (c *Capacity) PickIDAvoiding(need Need, avoid Avoid) (*cluster.Node, string) {
	// pick's common case (the best node fits and is not avoid), comparing
	// the id by its key first.
	if f := c.topFits(need); f != nil {
		if r := &c.refs[f.ref]; r.idKey != avoid.key || r.id != avoid.id {
			r = c.takeTop(f, need)
			return r.node, r.id
		}
	}
	if r := c.pick(need, nil, []string{avoid.id}); r != nil {
		return r.node, r.id
	}
	return nil, ""
}

// topFits builds the heap on first use and returns its best entry when
// that fits need (nil otherwise: an empty heap, or the best node too small,
// as on the heap's first use, whose entries pick's slower path reads).
func (c *Capacity) topFits(need Need) *freeNode {
	h := c.free
	if !c.built {
		c.init()
		c.built = true
	}
	if len(h) > 0 && h[0].fits(need) {
		return &h[0]
	}
	return nil
}

// takeTop takes need from f, the heap's best entry (topFits), and sifts it
// down, returning its node's ref.
func (c *Capacity) takeTop(f *freeNode, need Need) *nodeRef {
	r := &c.refs[f.ref]
	f.vcores -= need.VCores
	f.memoryMB -= need.MemoryMB
	c.sink(0)
	return r
}

// pick is Pick, returning the chosen node's ref (nil when none fits).
func (c *Capacity) pick(need Need, ok func(*cluster.Node) bool, avoid []string) *nodeRef {
	// The order is total (ids are unique), so which node is best does not
	// depend on the heap's layout: when the best node fits, take it and sift
	// it down, without popping and pushing back.
	if f := c.topFits(need); f != nil {
		if r := &c.refs[f.ref]; (ok == nil || ok(r.node)) && !r.in(avoid) {
			return c.takeTop(f, need)
		}
	}
	// Pop in order until a node fits and is not avoided (the first avoided
	// one that fits is the fallback), then push the popped ones back.
	var popped []freeNode
	chosen, fallback := -1, -1
	for len(c.free) > 0 {
		f := c.pop()
		popped = append(popped, f)
		if f.vcores < need.VCores {
			break // the rest have no more vcores than f
		}
		r := &c.refs[f.ref]
		if !f.fits(need) || (ok != nil && !ok(r.node)) {
			continue
		}
		if r.in(avoid) {
			if fallback < 0 {
				fallback = len(popped) - 1
			}
			continue
		}
		chosen = len(popped) - 1
		break
	}
	if chosen < 0 {
		chosen = fallback
	}
	var r *nodeRef
	if chosen >= 0 {
		f := &popped[chosen]
		f.vcores -= need.VCores
		f.memoryMB -= need.MemoryMB
		r = &c.refs[f.ref]
	}
	for _, f := range popped {
		c.push(f)
	}
	return r
}

// init orders c.free as a heap (heap.Init's steps, without the interface
// calls: 10,000 nodes a round).
func (c *Capacity) init() {
	for i := len(c.free)/2 - 1; i >= 0; i-- {
		c.down(i)
	}
}

// down restores the heap order below i after c.free[i] got worse (heap.Fix
// without the interface calls), moving the entry down through a hole rather
// than swapping at each level.
func (c *Capacity) down(i int) {
	h := c.free
	n := len(h)
	x := h[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && c.better(&h[r], &h[l]) {
			j = r
		}
		if !c.better(&h[j], &x) {
			break
		}
		h[i] = h[j]
		i = j
	}
	h[i] = x
}

// sink is down by the bottom-up method (Wegener, "Bottom-up heapsort",
// TCS 118, 1993): the hole walks down the better child at each level to a
// leaf, one comparison a level, and the entry then climbs back from there.
// A node a pick took usually falls to the bottom (its equals, the rest of
// the cluster, stay ahead of it), where down compared it with the better
// child at every level as well: twice the comparisons, each a branch on
// the ids' keys that the processor cannot predict.
func (c *Capacity) sink(i int) {
	h := c.free
	n := len(h)
	x, top := h[i], i
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && c.better(&h[r], &h[l]) {
			j = r
		}
		h[i] = h[j]
		i = j
	}
	for i > top {
		p := (i - 1) / 2
		if !c.better(&x, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

// up restores the heap order above i after c.free[i] got better.
func (c *Capacity) up(i int) {
	h := c.free
	x := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !c.better(&x, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

// pop removes and returns the best entry (heap.Pop's steps).
func (c *Capacity) pop() freeNode {
	h := c.free
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	c.free = h[:last]
	if last > 0 {
		c.down(0)
	}
	return top
}

// push adds f to the heap (heap.Push's steps).
func (c *Capacity) push(f freeNode) {
	c.free = append(c.free, f)
	c.up(len(c.free) - 1)
}

// freeHeap orders free nodes best first: most vcores, most memory, smallest id.
type freeHeap []freeNode

// better reports whether f comes before b: more free vcores, then more free
// memory, then the smaller id (its prefix first, the whole id on a tie).
func (c *Capacity) better(f, b *freeNode) bool {
	if f.vcores != b.vcores {
		return f.vcores > b.vcores
	}
	if f.memoryMB != b.memoryMB {
		return f.memoryMB > b.memoryMB
	}
	if f.idKey != b.idKey {
		return f.idKey < b.idKey
	}
	return c.refs[f.ref].id < c.refs[b.ref].id
}

// TotalSlots counts the containers of size need the running nodes hold in
// all (used or not): LATE's SpeculativeCap is a share of it.
func TotalSlots(v cluster.View, need Need) int {
	total := 0
	for _, n := range v.Nodes() {
		if n.State != cluster.NodeRunning {
			continue
		}
		f := freeNode{vcores: n.VCores, memoryMB: n.MemoryMB}
		total += f.slots(need)
	}
	return total
}
