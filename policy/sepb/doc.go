// Package sepb is Speculative Execution Performance Balancing (DynamicMR,
// Tang et al., IEEE TCC 2014, §2.2;
// ../shared/papers/dynamicmr-dhsa-sepb-prescheduling.txt).
//
// Speculative copies help a single job at the expense of a batch of jobs:
// they take containers that pending tasks of other jobs could use. SEPB sits
// on top of whichever speculator the stack runs ("late+sepb", "samr+sepb")
// as a policy.SpeculationGate. For each proposed copy of a task of job J_i it
// looks at the pending tasks of the jobs J_i … J_j, j = i +
// maxNumOfJobsCheckedForPendingTasks − 1 (jobs in submission order, the
// window set by percentageOfJobsCheckedForPendingTasks), and skips J_i for
// speculation when
//
//	(1) J_i has no failed or pending tasks of the copy's kind, and
//	(2) the window has pending tasks of that kind, or
//	(3) the window has pending tasks of the other kind and that kind may
//	    borrow the slot (percentageOfBorrowed{Map,Reduce}Slots > 0);
//
// and, when J_i itself still has pending tasks of the kind, Hadoop's own
// order (pending before speculative) gives them the slot. A skipped copy
// becomes a deny-speculation hint with the reason — unless the free
// containers exceed what the window's pending tasks need, in which case the
// surplus may still go to copies (pending first, not pending only).
//
// SEPB's hard-straggler rule is a policy.Speculator: an attempt that has run
// longer than KillFactor (2) times the mean duration of its job's finished
// tasks of the same kind gets a kill hint, so that the AM reruns it at once
// on a fresh container; a copy proposed for the same task in the same round
// is denied, since the rerun replaces it. A task is killed at most once: one
// that is long by nature (a skewed partition) would otherwise be killed on
// every rerun and never finish. A reduce's clock starts when its job's last
// map finished (or at its own start, if later): a reducer launched by slow
// start waits in its copy stage for maps that have not run yet, a wait the
// map phase sets, not the reducer (counting it killed the early reducers of
// a batch job seconds before they finished). The mean stays the job's
// finished reduce durations, so the rule kills a subset of what whole
// durations would.
package sepb
