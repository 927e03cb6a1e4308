// Package samr is SAMR, the Self-Adaptive MapReduce scheduling algorithm
// (Chen et al., CIT 2010; ../shared/papers/samr-self-adaptive-mapreduce-scheduling.txt).
//
// SAMR improves on LATE by weighting the stages of a task by what history
// says they take, instead of Hadoop's static M1 = 1, M2 = 0, R1 = R2 = R3 = 1/3:
//
//   - Stage weights M1, M2 (map: execute, reorder) and R1, R2, R3 (reduce:
//     copy, sort, reduce) are kept per node and job type and tuned with HP
//     (Fig. 2): the weights a running task uses blend the node's history
//     (share HP) with what the job's finished tasks showed (share 1 − HP);
//     every finished task's phase durations are folded back into history.
//     History lives in the profile store (namespace "samr") and survives a
//     restart: the plugin loads it when built and saves it on Flush.
//   - Progress (eq. 16–18), progress rate and time to end (eq. 4–5).
//   - Slow tasks: PR below (1 − STaC) of the job's average rate (eq. 6–7).
//   - Map-slow and reduce-slow nodes: a node's average task rate below
//     (1 − STrC) of the average over nodes (eq. 8–13), at most a share STrP of
//     the nodes (eq. 14). Emitted as node-class hints.
//   - Backups: longest time to end first, only on nodes not slow for the
//     task's kind, while backups stay under BP of the running tasks (eq. 15).
//
// Two readings the paper leaves open are documented where they are made:
// rates are compared within a job (tasks of different jobs progress at
// unrelated rates), and a node with no running task of a kind keeps its last
// class until it has one.
package samr
