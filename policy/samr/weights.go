package samr

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// Profile namespace and key of the stage-weight history.
const (
	ProfileNS  = "samr"
	ProfileKey = "stage-weights"
)

// Entry is the stage-weight history of one node for one job type: the xml
// file SAMR keeps on every node (§III-A), as one profile record.
type Entry struct {
	Node    string           `json:"node"`
	JobType string           `json:"job_type"`
	Weights taskstat.Weights `json:"weights"`
	// Maps and Reduces count the finished tasks folded into the map and
	// reduce weights; 0 means those weights are still Hadoop's defaults.
	Maps    int `json:"maps"`
	Reduces int `json:"reduces"`
}

// learned reports whether finished tasks of kind were folded into e.
func (e *Entry) learned(kind events.TaskKind) bool {
	if kind == events.Reduce {
		return e.Reduces > 0
	}
	return e.Maps > 0
}

type profileDoc struct {
	V       int     `json:"v"`
	Entries []Entry `json:"entries"`
}

// sample is a running mean of observed stage weights (the job's finished
// tasks).
type sample struct {
	w             taskstat.Weights
	maps, reduces int
}

func (s *sample) add(kind events.TaskKind, obs taskstat.Weights) {
	if kind == events.Reduce {
		s.reduces++
		f := 1 / float64(s.reduces)
		s.w.R1 += (obs.R1 - s.w.R1) * f
		s.w.R2 += (obs.R2 - s.w.R2) * f
		s.w.R3 += (obs.R3 - s.w.R3) * f
		return
	}
	s.maps++
	f := 1 / float64(s.maps)
	s.w.M1 += (obs.M1 - s.w.M1) * f
	s.w.M2 += (obs.M2 - s.w.M2) * f
}

func (s *sample) n(kind events.TaskKind) int {
	if s == nil {
		return 0
	}
	if kind == events.Reduce {
		return s.reduces
	}
	return s.maps
}

// blend returns hp·hist + (1−hp)·cur for the weights of kind, the rest of
// hist unchanged.
func blend(kind events.TaskKind, hist, cur taskstat.Weights, hp float64) taskstat.Weights {
	mix := func(h, c float64) float64 { return hp*h + (1-hp)*c }
	out := hist
	if kind == events.Reduce {
		out.R1, out.R2, out.R3 = mix(hist.R1, cur.R1), mix(hist.R2, cur.R2), mix(hist.R3, cur.R3)
	} else {
		out.M1, out.M2 = mix(hist.M1, cur.M1), mix(hist.M2, cur.M2)
	}
	return out
}

// observed turns a finished attempt's phase durations into stage weights
// (Fig. 2, step 3): the share of each stage in the task's time.
func observed(kind events.TaskKind, ph *events.PhaseDurations) (taskstat.Weights, bool) {
	if ph == nil {
		return taskstat.Weights{}, false
	}
	if kind == events.Reduce {
		total := float64(ph.Shuffle + ph.Sort + ph.Merge + ph.Reduce)
		if total <= 0 {
			return taskstat.Weights{}, false
		}
		return taskstat.Weights{R1: float64(ph.Shuffle) / total, R2: float64(ph.Sort+ph.Merge) / total,
			R3: float64(ph.Reduce) / total}, true
	}
	total := float64(ph.Map + ph.Sort + ph.Merge)
	if total <= 0 {
		return taskstat.Weights{}, false
	}
	return taskstat.Weights{M1: float64(ph.Map) / total, M2: float64(ph.Sort+ph.Merge) / total}, true
}

// history holds every node's stage weights per job type.
type history struct {
	entries map[historyKey]*Entry
	dirty   bool
}

type historyKey struct{ jobType, node string }

func jobTypeOf(t string) string {
	if t == "" {
		return "default"
	}
	return t
}

// weights returns the history of a node for a job type for the weights of
// kind, Hadoop's defaults where nothing was learned yet (Fig. 2, step 1).
func (h *history) weights(jobType, node string, kind events.TaskKind) taskstat.Weights {
	if e := h.entries[historyKey{jobType, node}]; e != nil && e.learned(kind) {
		return e.Weights
	}
	return taskstat.HadoopWeights
}

// update folds one finished task's observed weights into history with the
// same HP blend (Fig. 2, step 4). The first observation of a kind replaces
// Hadoop's static defaults, which say nothing about the node.
func (h *history) update(jobType, node string, kind events.TaskKind, obs taskstat.Weights, hp float64) {
	k := historyKey{jobType, node}
	e := h.entries[k]
	if e == nil {
		e = &Entry{Node: node, JobType: jobType, Weights: taskstat.HadoopWeights}
		h.entries[k] = e
	}
	if kind == events.Reduce {
		if e.Reduces == 0 {
			e.Weights = blend(kind, e.Weights, obs, 0)
		} else {
			e.Weights = blend(kind, e.Weights, obs, hp)
		}
		e.Reduces++
	} else {
		if e.Maps == 0 {
			e.Weights = blend(kind, e.Weights, obs, 0)
		} else {
			e.Weights = blend(kind, e.Weights, obs, hp)
		}
		e.Maps++
	}
	h.dirty = true
}

func (h *history) load(ctx context.Context, store policy.ProfileStore) error {
	if store == nil {
		return nil
	}
	var doc profileDoc
	found, err := store.Get(ctx, ProfileNS, ProfileKey, &doc)
	if err != nil {
		return fmt.Errorf("samr: load stage weights: %w", err)
	}
	if !found {
		return nil
	}
	if doc.V != 1 {
		return fmt.Errorf("samr: load stage weights: unsupported version %d", doc.V)
	}
	for i := range doc.Entries {
		e := doc.Entries[i]
		h.entries[historyKey{e.JobType, e.Node}] = &e
	}
	return nil
}

func (h *history) save(ctx context.Context, store policy.ProfileStore) error {
	if store == nil || !h.dirty {
		return nil
	}
	doc := profileDoc{V: 1, Entries: make([]Entry, 0, len(h.entries))}
	for _, e := range h.entries {
		doc.Entries = append(doc.Entries, *e)
	}
	slices.SortFunc(doc.Entries, func(a, b Entry) int {
		if c := cmp.Compare(a.JobType, b.JobType); c != 0 {
			return c
		}
		return cmp.Compare(a.Node, b.Node)
	})
	if err := store.Put(ctx, ProfileNS, ProfileKey, doc); err != nil {
		return fmt.Errorf("samr: save stage weights: %w", err)
	}
	h.dirty = false
	return nil
}
