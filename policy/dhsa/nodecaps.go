package dhsa

// NodeCaps splits the cluster-wide running limits allowed (what DHSA lets
// run: grants plus headroom, summed over the pools) over one node with slots
// own, in a cluster with slots total. It is Hadoop 1's per-TaskTracker view of
// the same decision (§2.1: slots are configured per node): a phase that
// borrows nothing cluster-wide runs at most the node's own slots of its
// kind; a phase that borrows may also take the node's slots of the other
// kind, up to what it borrows cluster-wide (converted by the slot weights),
// because on a TaskTracker a borrowed slot is an idle slot of that very node
// (container capacity already stops a node running more than it has). So the
// reducers of a shuffle-heavy batch spread over the nodes, at most their
// reduce slots each while they borrow nothing, instead of piling onto the
// nodes whose containers happen to free first.
func NodeCaps(allowed, total, own Slots, w Weights) (maps, reduces int) {
	maps = own.Map
	if b := allowed.Map - total.Map; b > 0 {
		maps += min(b, w.mapsFromReduceSlots(float64(own.Reduce)))
	}
	reduces = own.Reduce
	if b := allowed.Reduce - total.Reduce; b > 0 {
		reduces += min(b, w.reducesFromMapSlots(float64(own.Map)))
	}
	return maps, reduces
}
