package dhsa

// NodeCaps is Hadoop 1's per-TaskTracker view of a DHSA decision (§2.1: the
// slots are configured per node), for one node with slots own in a cluster
// with slots total. allowed is what DHSA lets run cluster-wide (the pools'
// grants plus headroom), granted the grants alone.
//
//   - A phase that borrows nothing cluster-wide runs at most the node's own
//     slots of its kind. A phase that borrows may also take the node's slots
//     of the other kind, up to what it borrows cluster-wide (converted by the
//     slot weights): on a TaskTracker a borrowed slot is an idle slot of that
//     very node, and container capacity already stops a node from running
//     more than it has.
//   - The reduce grant is spread over the nodes in proportion to their slots:
//     at most ⌈granted reduces × node slots / cluster slots⌉ (at least 1) on
//     a node. Hadoop 1's JobTracker hands a TaskTracker at most one reduce
//     per heartbeat, so reducers land evenly; YARN's scheduler fills
//     whichever node frees containers first, and the reducers piled there
//     share its NIC for the whole shuffle.
func NodeCaps(allowed, granted, total, own Slots, w Weights) (maps, reduces int) {
	maps = own.Map
	if b := allowed.Map - total.Map; b > 0 {
		maps += min(b, w.mapsFromReduceSlots(float64(own.Reduce)))
	}
	reduces = own.Reduce
	if b := allowed.Reduce - total.Reduce; b > 0 {
		reduces += min(b, w.reducesFromMapSlots(float64(own.Map)))
	}
	if all := total.Map + total.Reduce; all > 0 {
		spread := ceilEps(float64(granted.Reduce) * float64(own.Map+own.Reduce) / float64(all))
		reduces = min(reduces, max(1, spread))
	}
	return maps, reduces
}
