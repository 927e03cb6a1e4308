package sim

import "github.com/rmsidecar/rmsidecar/sim/trace"

// dataset is the input the jobs of one trace.Job.InputPath share: its
// blocks' replica nodes, repl entries a block (-1 where placeBlock could
// not place one), placed when the first reader that needs a block is built.
type dataset struct {
	replicas []int32
	// readers counts the scenario's jobs of the path not built yet; the
	// last one's build drops the dataset from sim.datasets.
	readers int
}

// countReaders is the datasets of the scenario's labelled jobs, each with
// its reader count and no blocks yet (nil when no job has an InputPath).
// The trace is known when the run starts, so a dataset can be dropped as
// soon as its last reader is built instead of living for the whole run.
func countReaders(jobs []trace.Job) map[string]*dataset {
	var ds map[string]*dataset
	for i := range jobs {
		p := jobs[i].InputPath
		if p == "" {
			continue
		}
		if ds == nil {
			ds = map[string]*dataset{}
		}
		d := ds[p]
		if d == nil {
			d = &dataset{}
			ds[p] = d
		}
		d.readers++
	}
	return ds
}

// readDataset returns the replica nodes of the first nm blocks of the
// dataset at path (repl entries a block), placing the blocks no earlier
// reader needed, and drops the dataset once its last reader is built. The
// view is capped at its length: the dataset growing later (append) never
// writes into it, and a job keeps it until it finishes (finishJob), as it
// keeps replicas it placed itself. ok is false for a path with no dataset
// left (a job built twice), which the caller places alone.
func (s *sim) readDataset(path string, nm int, repl int32) (view []int32, ok bool) {
	d := s.datasets[path]
	if d == nil {
		return nil, false
	}
	need := nm * int(repl)
	for len(d.replicas) < need {
		d.replicas = s.placeBlock(d.replicas, int(repl))
	}
	view = d.replicas[:need:need]
	if d.readers--; d.readers <= 0 {
		delete(s.datasets, path)
	}
	return view, true
}

// inputName is the name under /sim/ of the files j reads: its dataset's
// path when it shares one, else its own name.
func (j *job) inputName() string {
	if p := j.spec.InputPath; p != "" {
		return p
	}
	return j.spec.Name
}
