// Package prescheduling is Slot PreScheduling (DynamicMR, Tang et al., IEEE
// TCC 2014, §2.3), the plugin prescheduling: a policy.Assigner that, at a
// node's heartbeat, pre-allocates the node's idle capacity above the load
// balancing line to the head-of-line job when that job has input on the node.
//
// Hadoop's load manager caps the maps a node may run at each heartbeat
// (Steps 1–3 of §2.3.2): the load factor is the cluster's pending plus
// running maps over its map slot capacity, a node may use min(load factor, 1)
// of its map slots, and what is below that line and unused is the node's
// allowable idle capacity (Definition 1); what is above it and unused is its
// extra idle capacity (Definition 2). Delay scheduling handles a node with
// allowable idle capacity but no local task for the head job (the job waits,
// at the expense of fairness). Slot PreScheduling handles the opposite case,
// a node with no allowable idle capacity but extra idle capacity where the
// head job, in fair-share order, has local pending maps: it allocates the
// extra capacity to that job, which gains locality without passing over a
// job (fairness kept) at the expense of load balance. Its second case is
// DHSA's: when the node's map share is used up but its reduce share is idle,
// a local map borrows an idle reduce slot.
//
// The hints are place hints for the chosen maps naming the node with
// locality "node". The plugin combines with delay scheduling, which the
// scheduler (stock YARN, or the simulator's YARN model) keeps doing: stack it
// as yarn+prescheduling, or after a DHSA policy as dhsa-pi+prescheduling.
//
// Mode yarn is the YARN form: YARN has no load manager, so the free
// container of a node where the head job has no input is pre-assigned (a
// place hint naming the node) to the first job in fair order with a split
// there, within a fairness bound. Extra reports the policy's decision counts
// (cases, head-job locality, hints, hinted maps run where hinted).
package prescheduling
