package sim

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rmsidecar/rmsidecar/sim/trace"
)

// Trace-derived cluster: the shape of the FB-2009 cluster SWIM sampled
// (600 machines); documented in docs/simulator.md.
const (
	DefaultTraceNodes  = 600
	traceNodeVCores    = 8
	traceNodeMemoryMB  = 16384
	traceNodesPerRack  = 30
	traceDefaultFormat = "swim"
)

// TraceOptions shape a trace run.
type TraceOptions struct {
	// Nodes is the simulated cluster size (<= 0: 600 for SWIM, the recorded
	// hosts for Rumen and SLS).
	Nodes int
	// TraceNodes is the size of the cluster the SWIM trace was recorded on
	// (0: 600, FB-2009); bytes scale by Nodes / TraceNodes.
	TraceNodes int
	// FromS and ToS keep the jobs submitted in [FromS, ToS) seconds of the
	// trace (ToS 0: to the end), shifted to start at 0.
	FromS, ToS float64
	// LimitJobs keeps the first jobs (0: all).
	LimitJobs int
}

// submitWindow keeps the jobs submitted in [from, to) and shifts them to 0.
func submitWindow(jobs []trace.Job, from, to float64) []trace.Job {
	if from <= 0 && to <= 0 {
		return jobs
	}
	out := jobs[:0]
	for _, j := range jobs {
		if j.SubmitS < from || to > 0 && j.SubmitS >= to {
			continue
		}
		j.SubmitS -= from
		out = append(out, j)
	}
	return out
}

// readTrace parses a SWIM, Rumen or SLS file into jobs.
func readTrace(format, path string, nodes int, blockBytes int64, limit int) ([]trace.Job, error) {
	return readTraceOpts(format, path, TraceOptions{Nodes: nodes, LimitJobs: limit}, blockBytes)
}

func readTraceOpts(format, path string, o TraceOptions, blockBytes int64) ([]trace.Job, error) {
	nodes, limit := o.Nodes, o.LimitJobs
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	var jobs []trace.Job
	switch format {
	case "swim":
		// The window is applied before the job limit: SWIM's LimitJobs counts
		// from the start of the file.
		swimLimit := limit
		if o.FromS > 0 || o.ToS > 0 {
			swimLimit = 0
		}
		jobs, err = trace.ParseSWIM(f, trace.SWIMOptions{File: path, Nodes: nodes, TraceNodes: o.TraceNodes, BlockBytes: blockBytes, LimitJobs: swimLimit})
	case "rumen":
		jobs, err = trace.ParseRumen(f)
		if err == nil && limit > 0 && len(jobs) > limit {
			jobs = jobs[:limit]
		}
	case "sls":
		jobs, err = trace.ParseSLS(f, trace.SLSOptions{})
	default:
		return nil, fmt.Errorf("trace format %q: want swim, rumen or sls", format)
	}
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", path, err)
	}
	jobs = submitWindow(jobs, o.FromS, o.ToS)
	if limit > 0 && len(jobs) > limit {
		jobs = jobs[:limit]
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("trace %s: no job submitted in [%g, %g) s", path, o.FromS, o.ToS)
	}
	return jobs, nil
}

// ScenarioFromTrace builds a scenario around a trace file: nodes identical
// nodes (8 vcores, 16 GB, 30 per rack; nodes <= 0 means 600, the FB-2009
// cluster, for SWIM, the number of recorded hosts for Rumen, and for SLS
// the nodes SLS itself would start: recorded hosts plus a num.nodes
// object's), the default YARN, network and HDFS settings, no stragglers.
// format is "swim", "rumen" or "sls".
func ScenarioFromTrace(format, path string, nodes int, seed uint64) (*Scenario, error) {
	return ScenarioFromTraceOptions(format, path, TraceOptions{Nodes: nodes}, seed)
}

// ScenarioFromTraceOptions is ScenarioFromTrace with the trace's origin
// cluster size, a time window and a job limit.
func ScenarioFromTraceOptions(format, path string, o TraceOptions, seed uint64) (*Scenario, error) {
	nodes := o.Nodes
	if format == "" {
		format = traceDefaultFormat
	}
	if nodes <= 0 && format == "rumen" {
		// A Rumen history names its hosts: simulate that many nodes.
		jobs, err := readTrace(format, path, 1, DefaultBlockMB<<20, 0)
		if err != nil {
			return nil, err
		}
		hosts := map[string]bool{}
		for _, j := range jobs {
			for _, t := range j.Tasks {
				if t.Host != "" {
					hosts[t.Host] = true
				}
			}
		}
		nodes = len(hosts)
	}
	if nodes <= 0 && format == "sls" {
		n, err := slsNodes(path)
		if err != nil {
			return nil, err
		}
		nodes = n
	}
	if nodes <= 0 {
		nodes = DefaultTraceNodes
	}
	sc := &Scenario{
		Name: filepath.Base(path),
		Seed: seed,
		Cluster: Cluster{
			Racks: max(1, (nodes+traceNodesPerRack-1)/traceNodesPerRack),
			Nodes: []NodeGroup{{Count: nodes, VCores: traceNodeVCores, MemoryMB: traceNodeMemoryMB}},
		},
		YARN: YARN{NodeLocalDelay: -1, RackLocalDelay: -1},
	}
	o.Nodes = nodes
	jobs, err := readTraceOpts(format, path, o, DefaultBlockMB<<20)
	if err != nil {
		return nil, err
	}
	sc.Jobs = jobs
	sc.withDefaults()
	if err := sc.validate(); err != nil {
		return nil, err
	}
	return sc, nil
}

// slsNodes is the number of nodes SLS starts for the trace at path when
// given no nodes file (trace.SLSTrace.NodeCount).
func slsNodes(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	t, err := trace.ReadSLS(f, trace.SLSOptions{})
	if err != nil {
		return 0, fmt.Errorf("trace %s: %w", path, err)
	}
	return t.NodeCount(), nil
}
