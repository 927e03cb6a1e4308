// Package learning implements the learning scheduler of Dhok and Varma,
// "Using Pattern Classification for Task Assignment in MapReduce"
// (shared/papers/learning-scheduler-pattern-classification.txt), as two
// plugins:
//
//   - learning-nb: a Naive Bayes classifier over histogram counts of
//     discretised features (§IV-C, the paper's own implementation);
//   - learning-perceptron: a perceptron with the weight update
//     w_j = w_j + α(y − c(F))F_j, α = 1 (§IV-D).
//
// On every node.heartbeat (Assigner) the plugin builds the candidate list of
// §IV: one candidate for the map part and one for the reduce part of every
// running job with pending tasks of that kind. Each candidate is described by
// the job's features (cpu, memory, disk, network on the 1–10 scale of
// app.submitted "features", else remembered for the job type, else the mode
// of the values seen, as §V-A does), the node's static features (vcores,
// memory, cpu_mhz) and its dynamic features from the heartbeat (load average
// per core, cpu utilisation, used vcores and memory, disk and network rates,
// running containers, load trend). The classifier labels each candidate good
// or bad; among the good ones the one with the highest expected utility
// E.U.(J) = U(J)·P(τ_J = good | F) (eq. 1, E.U.* for Naive Bayes) is chosen,
// and a data-local pending task of that job gets a place hint naming the
// node. When every candidate is bad nothing is assigned.
//
// Each decision is judged at the next heartbeat of the same node by the
// configured overload rules (any rule true: overloaded, the decision was
// bad; else good), and the classifier learns from it (Observer). That is the
// paper's "automatically supervised" learning. Accuracy is kept per window
// of 250 judged decisions (Fig. 10).
//
// YARN's ResourceManager assigns containers itself, so "no assignment" needs
// a lever the RM takes: as a Shaper the plugin shrinks the advertised
// capacity of a node whose candidates were all classified bad to what it
// already uses (node-capacity hint), and restores the registered capacity
// once a candidate is good again.
//
// Utility functions are pluggable (§IV-B): constant, fifo, map-before-reduce,
// budget, dedicated capacity and revenue, combined by product; an app picks
// them with app.submitted "utility", else the configured default applies.
//
// The model (histogram counts or weights) and the remembered job features
// live in the profile store, namespace "learning", are loaded when the plugin
// is built and written by Flush, so a restart keeps what was learned.
package learning
