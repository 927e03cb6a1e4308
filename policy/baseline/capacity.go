package baseline

import (
	"cmp"
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
}

type freeNode struct {
	node     *cluster.Node
	vcores   int
	memoryMB int
}

// NewCapacity snapshots the free capacity of every running node that has
// sent a heartbeat.
func NewCapacity(v cluster.View) *Capacity {
	c := &Capacity{}
	for _, n := range v.Nodes() {
		if n.State != cluster.NodeRunning || n.HeartbeatTS == 0 {
			continue
		}
		c.nodes = append(c.nodes, &freeNode{node: n, vcores: n.FreeVCores(), memoryMB: n.FreeMemoryMB()})
	}
	return c
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
func (c *Capacity) Pick(need Need, ok func(*cluster.Node) bool, avoid ...string) *cluster.Node {
	var best *freeNode
	bestAvoided := true
	for _, f := range c.nodes {
		if !f.fits(need) || (ok != nil && !ok(f.node)) {
			continue
		}
		avoided := slices.Contains(avoid, f.node.ID)
		if best == nil || better(f, avoided, best, bestAvoided) {
			best, bestAvoided = f, avoided
		}
	}
	if best == nil {
		return nil
	}
	best.vcores -= need.VCores
	best.memoryMB -= need.MemoryMB
	return best.node
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
	return f.node.ID < b.node.ID
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
