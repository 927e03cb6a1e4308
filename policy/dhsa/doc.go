// Package dhsa is Dynamic Hadoop Slot Allocation (DynamicMR, Tang et al.,
// IEEE TCC 2014, §2.1) in YARN terms: the plugins dhsa-pi (pool-independent,
// §2.1.1) and dhsa-pd (pool-dependent, §2.1.2).
//
// YARN has containers, not slots, and nothing that controls how many maps and
// reduces run at once; the paper's §3.6 measures that this costs 2–9 % on
// multi-job batches because too many reducers shuffle at the same time. DHSA
// brings back typed shares, softly: every node has a configured map share and
// reduce share (its map and reduce "slots"), a phase may borrow the other
// phase's idle share, but pending tasks of a phase always take their own
// share first. Queues are the paper's pools.
//
// Each tick the Shaper computes, from the demand the cluster view shows
// (running plus pending tasks per queue and phase), how many maps and reduces
// each pool may run, and emits one ratio hint per queue (or per app, with
// scope: app) carrying max_maps and max_reduces (0: none may run). The engine
// drops repeats, so hints only flow when demand changes the answer.
//
// The paper's slots are per node, so with node_caps (the default) it also
// emits one ratio hint per node (field node): NodeCaps caps a phase at the
// node's own slots, plus the node's slots of the other kind while the phase
// borrows, and spreads the reduce grant over the nodes by their slots, as
// Hadoop 1's one-reduce-per-heartbeat assignment does. YARN alone piles a
// job's reducers onto the nodes whose containers free first.
//
//   - PI-DHSA: per phase, the phase's slots are shared max-min fairly by pool
//     weight (intra-phase), then the idle slots of one phase are lent to the
//     unmet demand of the other (inter-phase), the four cases of §2.1.1.
//   - PD-DHSA: every active pool owns a weighted share of both kinds of slot;
//     it first lends its own idle map share to its own reduces and vice versa
//     (intra-pool, Cases a–d), then what no pool of the owner's needs goes to
//     other pools (inter-pool).
//
// percentageOfBorrowedMapSlots and percentageOfBorrowedReduceSlots bound what
// may be borrowed across phases, and slot weights convert a borrowed slot of
// one kind into tasks of the other (a node with 8 map and 4 reduce slots of
// weights 1 and 2 runs at most 16 maps or 8 reduces).
//
// dhsa-pd is also an Assigner: at a node's heartbeat it walks the pools in
// fair order through the allocation Cases 1–4 of Fig. 4 (map on a map slot,
// reduce on a reduce slot, map on a reduce slot, reduce on a map slot) with
// the visitedForMap relaxation of locality for a node that holds no input
// (an empty, newly added node), and emits place hints naming that node.
package dhsa
