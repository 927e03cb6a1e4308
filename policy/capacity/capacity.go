// Package capacity is the free container capacity of a cluster's running
// nodes by their latest heartbeats, for policies that choose a target node
// for a container: how many containers of a size fit (Slots, TotalSlots) and
// a deterministic choice that reserves what it picks (Pick).
package capacity

import (
	"cmp"
	"container/heap"
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
	nodes []*freeNode
	heap  freeHeap // built on the first Pick
	built bool
	// scratch, when set, keeps the heap's array for the next round.
	scratch *Scratch
}

// Scratch keeps a Capacity's arrays between rounds, so a policy that takes
// a snapshot every scan does not allocate one per node each time. The zero
// value is ready.
type Scratch struct {
	free []freeNode
	ptrs []*freeNode
	heap freeHeap
}

type freeNode struct {
	node     *cluster.Node
	id       string // node.ID, kept here so comparing stays in the heap's memory
	idKey    uint64 // idPrefix(id): most id comparisons end here
	vcores   int
	memoryMB int
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
// arrays (about 700 KB at 10,000 nodes, a page fault per 4 KB).
func (s *Scratch) Reserve(n int) {
	if cap(s.free) >= n && cap(s.ptrs) >= n && cap(s.heap) >= n {
		return
	}
	n += n/4 + 16
	s.free = Prefault(s.free, n)
	s.ptrs = Prefault(s.ptrs, n)
	s.heap = Prefault(s.heap, n)
}

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
// next call.
func (s *Scratch) Snapshot(v cluster.View) *Capacity {
	nodes := v.Nodes()
	// The last snapshot's entries are still in s.free: where one holds the
	// same node at the same place (the node list seldom changes between
	// rounds), its id and id key are reused rather than read again from
	// the id's bytes, a cache miss per node at 10,000 nodes. Entry k is
	// read before it is written.
	old := s.free
	s.free = slices.Grow(s.free[:0], len(nodes)) // one allocation, not one per node
	for _, n := range nodes {
		if n.State != cluster.NodeRunning || n.HeartbeatTS == 0 {
			continue
		}
		k := len(s.free)
		var id string
		var idKey uint64
		if k < len(old) && old[k].node == n && old[k].id == n.ID {
			id, idKey = old[k].id, old[k].idKey
		} else {
			id, idKey = n.ID, idPrefix(n.ID)
		}
		s.free = append(s.free, freeNode{node: n, id: id, idKey: idKey, vcores: n.FreeVCores(), memoryMB: n.FreeMemoryMB()})
	}
	s.ptrs = slices.Grow(s.ptrs[:0], len(s.free))
	for i := range s.free {
		s.ptrs = append(s.ptrs, &s.free[i])
	}
	return &Capacity{nodes: s.ptrs, heap: s.heap[:0], scratch: s}
}

func (f *freeNode) fits(need Need) bool {
	return f.vcores >= need.VCores && f.memoryMB >= need.MemoryMB
}

// Slots counts the containers of size need that fit in the free capacity.
func (c *Capacity) Slots(need Need) int {
	total := 0
	for _, f := range c.nodes {
		total += f.slots(need)
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
	if !c.built {
		c.heap = append(c.heap[:0], c.nodes...)
		c.heap.init()
		c.built = true
		if c.scratch != nil {
			c.scratch.heap = c.heap
		}
	}
	// The order is total (ids are unique), so which node is best does not
	// depend on the heap's layout: when the best node fits, take it and sift
	// it down, without popping and pushing back.
	if len(c.heap) > 0 {
		if f := c.heap[0]; f.fits(need) && (ok == nil || ok(f.node)) && !slices.Contains(avoid, f.id) {
			f.vcores -= need.VCores
			f.memoryMB -= need.MemoryMB
			c.heap.down(0)
			return f.node
		}
	}
	var popped []*freeNode
	var chosen, fallback *freeNode
	for c.heap.Len() > 0 {
		f := heap.Pop(&c.heap).(*freeNode)
		popped = append(popped, f)
		if f.vcores < need.VCores {
			break // the rest have no more vcores than f
		}
		if !f.fits(need) || (ok != nil && !ok(f.node)) {
			continue
		}
		if slices.Contains(avoid, f.id) {
			if fallback == nil {
				fallback = f
			}
			continue
		}
		chosen = f
		break
	}
	if chosen == nil {
		chosen = fallback
	}
	if chosen != nil {
		chosen.vcores -= need.VCores
		chosen.memoryMB -= need.MemoryMB
	}
	for _, f := range popped {
		heap.Push(&c.heap, f)
	}
	if chosen == nil {
		return nil
	}
	return chosen.node
}

// init orders h as a heap: heap.Init's steps, without the interface calls
// (10,000 nodes a round).
func (h freeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// down restores the heap order below i after h[i] got worse (heap.Fix
// without the interface calls).
func (h freeHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && better(h[r], false, h[l], false) {
			j = r
		}
		if !better(h[j], false, h[i], false) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// freeHeap orders free nodes best first: most vcores, most memory, smallest id.
type freeHeap []*freeNode

func (h freeHeap) Len() int           { return len(h) }
func (h freeHeap) Less(i, j int) bool { return better(h[i], false, h[j], false) }
func (h freeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *freeHeap) Push(x any)        { *h = append(*h, x.(*freeNode)) }
func (h *freeHeap) Pop() any {
	old := *h
	f := old[len(old)-1]
	*h = old[:len(old)-1]
	return f
}

func better(f *freeNode, fAvoided bool, b *freeNode, bAvoided bool) bool {
	if fAvoided != bAvoided {
		return !fAvoided
	}
	if c := cmp.Compare(f.vcores, b.vcores); c != 0 {
		return c > 0
	}
	if c := cmp.Compare(f.memoryMB, b.memoryMB); c != 0 {
		return c > 0
	}
	if f.idKey != b.idKey {
		return f.idKey < b.idKey
	}
	return f.id < b.id
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
