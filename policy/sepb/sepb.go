package sepb

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/capacity"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// Name is the registered name.
const Name = "sepb"

// Config are SEPB's parameters.
type Config struct {
	// PercentageOfJobsChecked is percentageOfJobsCheckedForPendingTasks: the
	// share of running jobs in a window (paper: 0.0–1.0, recommended 0.6–1.0).
	PercentageOfJobsChecked float64 `json:"percentage_of_jobs_checked" yaml:"percentage_of_jobs_checked"`
	// MaxJobsChecked, when > 0, sets maxNumOfJobsCheckedForPendingTasks
	// directly instead of from the percentage.
	MaxJobsChecked int `json:"max_jobs_checked" yaml:"max_jobs_checked"`
	// PercentageOfBorrowedMapSlots and PercentageOfBorrowedReduceSlots (DHSA):
	// whether a free map (reduce) container may serve a pending reduce (map)
	// task, condition (3). Zero without DHSA in the stack.
	PercentageOfBorrowedMapSlots    float64 `json:"percentage_of_borrowed_map_slots" yaml:"percentage_of_borrowed_map_slots"`
	PercentageOfBorrowedReduceSlots float64 `json:"percentage_of_borrowed_reduce_slots" yaml:"percentage_of_borrowed_reduce_slots"`
	// KillFactor: an attempt running longer than KillFactor × the mean of its
	// job's finished tasks of the kind is a hard straggler (2).
	KillFactor float64 `json:"kill_factor" yaml:"kill_factor"`
	// KillMinFinished is how many tasks of the kind must have finished before
	// their mean is trusted (1); 0 disables the kill rule.
	KillMinFinished int `json:"kill_min_finished" yaml:"kill_min_finished"`
	// ContainerVCores and ContainerMemoryMB size the container a pending
	// task needs, to count free containers from heartbeats.
	ContainerVCores   int `json:"container_vcores" yaml:"container_vcores"`
	ContainerMemoryMB int `json:"container_memory_mb" yaml:"container_memory_mb"`
}

// DefaultConfig returns the paper's parameters.
func DefaultConfig() Config {
	return Config{PercentageOfJobsChecked: 1.0, KillFactor: 2, KillMinFinished: 1,
		ContainerVCores: 1, ContainerMemoryMB: 1024}
}

func (c Config) validate() error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"percentage_of_jobs_checked", c.PercentageOfJobsChecked},
		{"percentage_of_borrowed_map_slots", c.PercentageOfBorrowedMapSlots},
		{"percentage_of_borrowed_reduce_slots", c.PercentageOfBorrowedReduceSlots}} {
		if p.v < 0 || p.v > 1 {
			return fmt.Errorf("sepb settings: %s: %v not in [0,1]", p.name, p.v)
		}
	}
	switch {
	case c.MaxJobsChecked < 0:
		return fmt.Errorf("sepb settings: max_jobs_checked: %d is negative", c.MaxJobsChecked)
	case c.KillFactor <= 1:
		return fmt.Errorf("sepb settings: kill_factor: %v must exceed 1", c.KillFactor)
	case c.ContainerVCores < 1 || c.ContainerMemoryMB < 0:
		return fmt.Errorf("sepb settings: container_vcores must be >= 1 and container_memory_mb >= 0")
	}
	return nil
}

// Plugin is SEPB: a SpeculationGate (pending tasks first), a Speculator and
// Observer (hard-straggler kills).
type Plugin struct {
	cfg       Config
	durations *taskstat.Durations
	// killed holds the tasks SEPB has sent a kill for. A task is killed at
	// most once: a task that is long by nature (a skewed partition) would
	// otherwise be killed on every rerun and never finish.
	killed map[string]bool
	// mapsDone caches, per app, when its last map finished (see
	// mapsDoneAt); an entry is dropped when a map of the app runs again.
	mapsDone map[string]int64
}

// New is the factory.
func New(_ context.Context, h policy.Handle) (policy.Plugin, error) {
	cfg := DefaultConfig()
	if err := h.DecodeArgs(Name, &cfg); err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Plugin{cfg: cfg, durations: taskstat.NewDurations(), killed: map[string]bool{},
		mapsDone: map[string]int64{}}, nil
}

// Name implements policy.Plugin.
func (*Plugin) Name() string { return Name }

// Config returns the parameters in force.
func (p *Plugin) Config() Config { return p.cfg }

// Observe implements policy.Observer: finished-task durations for the kill
// rule.
func (p *Plugin) Observe(_ context.Context, ev *events.Event, v cluster.View) {
	p.durations.Observe(ev, v)
	switch ev.Type {
	case events.AppFinished:
		prefix := ev.App + "/"
		for k := range p.killed { // deleting: order does not matter
			if strings.HasPrefix(k, prefix) {
				delete(p.killed, k)
			}
		}
		delete(p.mapsDone, ev.App)
	case events.TaskPending, events.ContainerAllocated:
		if a := v.App(ev.App); a != nil {
			if t := a.Task(ev.Task); t != nil && t.Kind == events.Map {
				delete(p.mapsDone, ev.App) // a map runs (again): the map phase is open
			}
		}
	}
}

// mapsDoneAt returns when the last map of app a finished, and false while
// a map is pending or running (or not every map has been seen to succeed).
// An app without maps is done from the start.
func (p *Plugin) mapsDoneAt(a *cluster.App) (int64, bool) {
	c := a.Count[events.Map]
	if c == nil || c.Succeeded == 0 {
		return 0, a.Maps == 0 && (c == nil || c.Pending+c.Running == 0)
	}
	if c.Pending+c.Running > 0 || c.Succeeded < a.Maps {
		return 0, false
	}
	if ts, ok := p.mapsDone[a.ID]; ok {
		return ts, true
	}
	var last int64
	for _, t := range a.Tasks {
		if t.Kind != events.Map {
			continue
		}
		for _, at := range t.Attempts {
			if at.State == events.StateSucceeded {
				last = max(last, at.FinishTS)
			}
		}
	}
	p.mapsDone[a.ID] = last
	return last, true
}

// execStart is when the hard-straggler clock of attempt at starts (§2.2: a
// task that "took twice longer than the average execution time of tasks").
// A map's clock starts when it starts. A reduce launched by slow start
// spends its copy stage waiting for map outputs that do not exist yet; that
// wait is set by the map phase, not by the reducer, and differs from
// reducer to reducer with the launch time (under DHSA's ratio caps one
// job's reducers may start hundreds of seconds apart). A reduce cannot
// straggle before its job's maps are done, so its clock starts at the later
// of its start and the moment the job's last map finished; false while maps
// still run. The mean it is compared with stays the paper's: the durations
// of the job's finished reduces. The rule thus kills a subset of what
// whole durations would: a reducer that started after the maps is judged
// as before, an earlier one by its time since the maps.
func (p *Plugin) execStart(at *cluster.Attempt) (int64, bool) {
	if at.Task.Kind != events.Reduce {
		return at.StartTS, true
	}
	done, ok := p.mapsDoneAt(at.Task.App)
	if !ok {
		return 0, false
	}
	return max(at.StartTS, done), true
}

// Speculate implements policy.Speculator: the hard-straggler rule.
func (p *Plugin) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	if p.cfg.KillMinFinished <= 0 {
		return nil, nil
	}
	now := v.Now()
	var out []policy.Hint
	for _, at := range taskstat.Running(v) {
		t := at.Task
		if p.killed[taskstat.Key(t)] || at.Container == "" {
			continue
		}
		st := p.durations.Of(t.App.ID, t.Kind)
		n, mean := st.N, st.Mean
		if n < p.cfg.KillMinFinished || mean <= 0 {
			continue
		}
		from, ok := p.execStart(at)
		if !ok || at.StartTS <= 0 || now <= from {
			continue
		}
		el := now - from
		if float64(el) <= p.cfg.KillFactor*mean {
			continue
		}
		since := ""
		if from > at.StartTS {
			since = " since the job's maps finished"
		}
		p.killed[taskstat.Key(t)] = true
		out = append(out, policy.Hint{Kind: policy.KindKill, App: t.App.ID, Task: t.ID, Attempt: at.ID,
			Container: at.Container, Node: at.Node,
			Reason: fmt.Sprintf("sepb: hard straggler: running %d ms%s > %.0f x mean %.0f ms of %d finished %ss; kill so a fresh attempt replaces it",
				el, since, p.cfg.KillFactor, mean, n, t.Kind)})
	}
	return out, nil
}

// window is the pending work SEPB weighs against one job's copies.
type window struct {
	ownPending    int // J_i's pending tasks of the copy's kind (failed ones rerun are pending too)
	maps, reduces int // pending tasks in J_i … J_j
	jobs          int
	condition     string
	pendingFirst  bool
	demand        int // containers the window's pending tasks claim
}

// Gate implements policy.SpeculationGate.
func (p *Plugin) Gate(_ context.Context, v cluster.View, proposed []policy.Hint) ([]policy.Hint, *policy.Status) {
	if !slices.ContainsFunc(proposed, func(h policy.Hint) bool { return h.Kind == policy.KindSpeculate }) {
		return proposed, nil // most ticks: nothing to weigh
	}
	var jobs []*cluster.App
	pos := map[string]int{}
	for _, a := range v.Apps() {
		if !a.Finished() {
			pos[a.ID] = len(jobs)
			jobs = append(jobs, a)
		}
	}
	maxJobs := p.cfg.MaxJobsChecked
	if maxJobs == 0 {
		maxJobs = int(math.Ceil(p.cfg.PercentageOfJobsChecked*float64(len(jobs)) - 1e-9))
	}
	// The kill rule reruns these tasks; a copy on top would be a third attempt.
	killing := map[string]bool{}
	for _, h := range proposed {
		if h.Kind == policy.KindKill {
			killing[h.App+"/"+h.Task] = true
		}
	}
	need := capacity.Need{VCores: p.cfg.ContainerVCores, MemoryMB: p.cfg.ContainerMemoryMB}
	free := capacity.New(v).Slots(need)
	granted := 0
	out := make([]policy.Hint, 0, len(proposed))
	for _, h := range proposed {
		if h.Kind != policy.KindSpeculate {
			out = append(out, h)
			continue
		}
		if killing[h.App+"/"+h.Task] {
			out = append(out, deny(h, "sepb: the hard straggler is being killed; its rerun replaces a copy"))
			continue
		}
		i, ok := pos[h.App]
		if !ok || maxJobs <= 0 {
			out = append(out, h)
			continue
		}
		kind := taskKind(v.App(h.App), h.Task)
		w := p.window(jobs, i, maxJobs, kind)
		if w.pendingFirst && free-granted <= w.demand {
			out = append(out, deny(h, fmt.Sprintf(
				"sepb: pending tasks first (%s): %d maps and %d reduces pending in the %d jobs from %s claim the %d free containers",
				w.condition, w.maps, w.reduces, w.jobs, h.App, free-granted)))
			continue
		}
		granted++
		out = append(out, h)
	}
	return out, nil
}

func deny(h policy.Hint, reason string) policy.Hint {
	return policy.Hint{Kind: policy.KindDenySpeculation, App: h.App, Task: h.Task, Attempt: h.Attempt, Reason: reason}
}

func taskKind(a *cluster.App, task string) events.TaskKind {
	if a != nil {
		if t := a.Task(task); t != nil {
			return t.Kind
		}
	}
	return events.Map
}

// window sums the pending tasks of jobs[i … i+maxJobs-1] and applies the
// paper's skip conditions for a copy of a task of kind in jobs[i].
func (p *Plugin) window(jobs []*cluster.App, i, maxJobs int, kind events.TaskKind) window {
	var w window
	last := min(len(jobs), i+maxJobs)
	for _, a := range jobs[i:last] {
		w.maps += a.Count[events.Map].Pending
		w.reduces += a.Count[events.Reduce].Pending
	}
	w.jobs = last - i
	w.ownPending = jobs[i].Count[kind].Pending
	same, other, borrow := w.maps, w.reduces, p.cfg.PercentageOfBorrowedMapSlots
	if kind == events.Reduce {
		same, other, borrow = w.reduces, w.maps, p.cfg.PercentageOfBorrowedReduceSlots
	}
	cond1 := w.ownPending == 0
	cond2 := same > 0
	cond3 := other > 0 && borrow > 0
	w.demand = same
	if borrow > 0 {
		w.demand += other
	}
	switch {
	case !cond1:
		// Not skipped by SEPB, but Hadoop serves the job's own pending
		// tasks before its speculative ones.
		w.pendingFirst, w.condition = true, "the job's own pending tasks"
	case cond2:
		w.pendingFirst, w.condition = true, "conditions 1+2"
	case cond3:
		w.pendingFirst, w.condition = true, "conditions 1+3"
	}
	return w
}
