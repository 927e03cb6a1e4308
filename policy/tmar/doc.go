// Package tmar implements TMaR, the two-stage MapReduce scheduler of
// "TMaR: a two-stage MapReduce scheduler for heterogeneous environments"
// (shared/papers/tmar-two-stage-map-reduce-scheduler.txt), as two policies:
//
//   - tmar: the map stage (Algorithm 1) places each map on the node whose
//     core frees first plus the map's time there (Map_Matrix and reading its
//     split) is smallest, and re-plans the maps not yet started on every
//     tick; the reduce stage (Algorithms 3 and 4, PRB) binds each reduce
//     partition, once every map output exists, to the node where its
//     reducers finish first (N_R = ceil(size / R_split) is reported), and
//     places each reducer there as soon as it is requested (an app whose
//     reducers all started while its maps ran gets no binding).
//   - tmar-power: TMaR* (Algorithm 2): among nodes tied on finish time, the
//     one that adds the least cluster power under the linear model
//     PAS = P_idle + (P_max − P_idle)·U (eq. 2).
//
// The execution-time matrices of the paper's preprocessing stage
// (Map_Matrix, Reduce_Matrix) are learned from finished tasks per job type
// and node, seeded from configuration, and kept in the profiles store.
//
// The core algorithms are pure functions over small models (MapSchedule,
// PlanMaps, BindPartitions) so the paper's worked examples test them directly; the
// plugin adapts them to cluster.View and emits place and reduce-binding hints.
//
// Files by concept: plugin.go (the plugin, its state types: learner,
// mapStage, prb) and config.go; matrices.go (learning Map_Matrix and
// Reduce_Matrix and the estimates read from them); the map stage in
// placement.go (machine model, Place, re-plan, holds) over schedule.go
// (Algorithm 1: MapSchedule, PlanMaps), replanq.go (a large job's queues
// kept between re-plans), rackpick.go (Place's choice from
// the racks' least finishes among the maps of one instant and column) and
// reserved.go (the placements not started yet, in the orders the re-plan
// and the holds read them, kept between ticks); PRB in binding.go (plan, Bind, reducer placement) over
// prb.go (Algorithms 3 and 4, eq. 3-5) and prbblocks.go (the bounds by
// block of machines that let a partition's scan pass over the machines
// that cannot beat its best offer); power.go (Algorithm 2, eq. 2:
// TMaR*'s tie-break); lapse.go (when the hints Bind renews lapse in the
// engine).
//
// Every tick re-plans each pending map and renews its hold, so the state
// the ticks share is kept between them (orders, per-map MapTask and
// locality, working vectors) and checked against the code it replaced by
// random tests (*SameAsRef, *SameAsScan). A renewed hold or binding that
// the engine has in force is not returned (policy.Lapses, lapse.go): the
// engine would drop it as a repeat (TestInForceSameEmitted).
package tmar
