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

// readTrace parses a SWIM or Rumen file into jobs.
func readTrace(format, path string, nodes int, blockBytes int64, limit int) ([]trace.Job, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	var jobs []trace.Job
	switch format {
	case "swim":
		jobs, err = trace.ParseSWIM(f, trace.SWIMOptions{File: path, Nodes: nodes, BlockBytes: blockBytes, LimitJobs: limit})
	case "rumen":
		jobs, err = trace.ParseRumen(f)
		if err == nil && limit > 0 && len(jobs) > limit {
			jobs = jobs[:limit]
		}
	default:
		return nil, fmt.Errorf("trace format %q: want swim or rumen", format)
	}
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", path, err)
	}
	return jobs, nil
}

// ScenarioFromTrace builds a scenario around a trace file: nodes identical
// nodes (8 vcores, 16 GB, 30 per rack; nodes <= 0 means 600, the FB-2009
// cluster, for SWIM and the number of recorded hosts for Rumen), the
// default YARN, network and HDFS settings, no stragglers. format is "swim"
// or "rumen".
func ScenarioFromTrace(format, path string, nodes int, seed uint64) (*Scenario, error) {
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
	jobs, err := readTrace(format, path, nodes, DefaultBlockMB<<20, 0)
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
