package dhsa

// NodeCaps splits the cluster-wide running limits allowed (what DHSA lets
// run: grants plus headroom, summed over the pools) over one node with slots
// own, in a cluster with slots total. It is Hadoop 1's per-TaskTracker view of
// the same decision (§2.1: slots are configured per node): a phase may run up
// to the node's own slots of its kind, plus the node's part, in proportion to
// its slots of the other kind, of what the phase borrows cluster-wide from the
// other kind's slots. So reducers of a shuffle-heavy batch spread over the
// nodes (at most their reduce slots each while they borrow nothing) instead of
// piling onto the nodes whose containers happen to free first.
func NodeCaps(allowed, total, own Slots) (maps, reduces int) {
	return nodePhaseCap(allowed.Map, total.Map, total.Reduce, own.Map, own.Reduce),
		nodePhaseCap(allowed.Reduce, total.Reduce, total.Map, own.Reduce, own.Map)
}

// nodePhaseCap is one phase's cap on a node: its own slots, plus its share
// of the tasks the phase runs beyond the cluster's slots of its kind (which
// can only run on borrowed slots of the other kind).
func nodePhaseCap(allowed, clusterOwn, clusterOther, nodeOwn, nodeOther int) int {
	borrowed := allowed - clusterOwn
	if borrowed <= 0 || clusterOther <= 0 {
		return nodeOwn
	}
	return nodeOwn + ceilEps(float64(borrowed)*float64(nodeOther)/float64(clusterOther))
}
