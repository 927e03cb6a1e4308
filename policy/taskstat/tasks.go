package taskstat

import (
	"math"
	"slices"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// Running returns the running attempts of running apps, in node order and
// then order of arrival on the node, so callers iterate deterministically.
func Running(v cluster.View) []*cluster.Attempt {
	total := 0
	for _, n := range v.Nodes() {
		total += len(n.Running)
	}
	out := make([]*cluster.Attempt, 0, total)
	for _, n := range v.Nodes() {
		for _, at := range n.Running {
			if at.Task == nil || at.Task.App == nil || at.Task.App.Finished() {
				continue
			}
			out = append(out, at)
		}
	}
	return out
}

// HasRunningCopy reports whether a task already runs more than one attempt
// or a speculative one: such a task is never speculated again.
func HasRunningCopy(t *cluster.Task) bool {
	n := 0
	for _, a := range t.Attempts {
		if a.Running() {
			n++
			if a.Speculative {
				return true
			}
		}
	}
	return n > 1
}

// EverSpeculated reports whether a task has had a speculative attempt.
func EverSpeculated(t *cluster.Task) bool {
	for _, a := range t.Attempts {
		if a.Speculative {
			return true
		}
	}
	return false
}

// RunningSpeculative counts running speculative attempts over running apps.
func RunningSpeculative(running []*cluster.Attempt) int {
	n := 0
	for _, at := range running {
		if at.Speculative {
			n++
		}
	}
	return n
}

// Elapsed is how long an attempt has run at now, in ms.
func Elapsed(at *cluster.Attempt, now int64) int64 {
	if at.StartTS <= 0 || now <= at.StartTS {
		return 0
	}
	return now - at.StartTS
}

// Group is the running attempts of one job and task kind.
type Group struct {
	App      *cluster.App
	Kind     events.TaskKind
	Attempts []*cluster.Attempt
}

// JobKind keys per-job, per-kind aggregates without building strings.
type JobKind struct {
	App  *cluster.App
	Kind events.TaskKind
}

// GroupByJob splits running attempts by app and task kind, groups in order of
// their first attempt.
func GroupByJob(running []*cluster.Attempt) []*Group {
	var out []*Group
	index := map[JobKind]int{}
	for _, at := range running {
		t := at.Task
		k := JobKind{t.App, t.Kind}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, &Group{App: t.App, Kind: t.Kind})
		}
		out[i].Attempts = append(out[i].Attempts, at)
	}
	return out
}

// WaitsForMaps reports a reduce attempt still copying while its job has maps
// pending or running: its progress rate is the slowest map's, not its own,
// and a backup would wait for the same maps. Speculating it spends the
// backup budget (and containers) the straggling map needs.
func WaitsForMaps(at *cluster.Attempt) bool {
	t := at.Task
	if t.Kind != events.Reduce || (at.Phase != events.PhaseShuffle && at.Phase != "") {
		return false
	}
	maps := t.App.Count[events.Map]
	return maps.Pending > 0 || maps.Running > 0
}

// Key identifies a task across apps.
func Key(t *cluster.Task) string { return t.App.ID + "/" + t.ID }

// Stats are running statistics of finished task durations (ms).
type Stats struct {
	N    int
	Mean float64
	m2   float64 // sum of squared deviations (Welford)
}

func (s *Stats) add(x float64) {
	s.N++
	d := x - s.Mean
	s.Mean += d / float64(s.N)
	s.m2 += d * (x - s.Mean)
}

// Std is the population standard deviation (Hadoop's DataStatistics.std).
func (s *Stats) Std() float64 {
	if s.N == 0 {
		return 0
	}
	return math.Sqrt(s.m2 / float64(s.N))
}

// Durations keeps, per app and task kind, the statistics of the durations of
// each task's first successful attempt (start to finish), as Hadoop's
// StartEndTimesBase does. Feed it every event through Observe.
type Durations struct {
	apps map[string]*appDurations
}

type appDurations struct {
	// kinds holds each kind's statistics and rates together, so a finished
	// task costs one look-up by kind (it was four maps by kind).
	kinds map[events.TaskKind]*kindDurations
	done  map[string]bool
}

// kindDurations are an app's statistics of one task kind.
type kindDurations struct {
	stats Stats
	// rates are the progress rates (1/duration, per ms) of the finished
	// tasks: rates[:sorted] ascending, the rest in order of arrival,
	// sorted in when Rates asks (a job of 100,000 maps paid a sorted
	// insert, a move of half the list, per finished map).
	rates   []float64
	sorted  int
	rateSum float64
}

// NewDurations returns empty statistics.
func NewDurations() *Durations { return &Durations{apps: map[string]*appDurations{}} }

// Observe folds a task.finished of a successful attempt into the statistics
// and forgets an app when it finishes.
func (d *Durations) Observe(ev *events.Event, v cluster.View) {
	switch ev.Type {
	case events.AppFinished:
		delete(d.apps, ev.App)
	case events.TaskFinished:
		if ev.State != events.StateSucceeded {
			return
		}
		at := v.Attempt(ev.Attempt)
		if at == nil || at.Task == nil || at.StartTS <= 0 || at.FinishTS < at.StartTS {
			return
		}
		a := d.apps[ev.App]
		if a == nil {
			a = &appDurations{kinds: map[events.TaskKind]*kindDurations{}, done: map[string]bool{}}
			d.apps[ev.App] = a
		}
		n := len(a.done)
		if a.done[ev.Task] = true; len(a.done) == n {
			return // a task counts once, by its first success (one map access, not two)
		}
		k := a.kinds[at.Task.Kind]
		if k == nil {
			k = &kindDurations{}
			a.kinds[at.Task.Kind] = k
		}
		d := float64(at.FinishTS - at.StartTS)
		k.stats.add(d)
		if d > 0 {
			k.rates = append(k.rates, 1/d)
			k.rateSum += 1 / d
		}
	}
}

// RateSum returns the sum and count of Rates(app, kind).
func (d *Durations) RateSum(app string, kind events.TaskKind) (sum float64, n int) {
	if k := d.kind(app, kind); k != nil {
		return k.rateSum, len(k.rates)
	}
	return 0, 0
}

// Rates returns the progress rates (eq. 4 at PS = 1: 1/duration, per ms) of
// an app's finished tasks of a kind, ascending; the slice is the tracker's
// own, read it only.
//
// A speculator that judges a task only against the rates of the tasks
// running beside it has no reference for a job's last tasks: alone in their
// wave, a straggler's rate is the percentile (LATE) or the average (SAMR
// eq. 7) of its own rates and is never below it. Its finished siblings are
// the reference then.
func (d *Durations) Rates(app string, kind events.TaskKind) []float64 {
	if k := d.kind(app, kind); k != nil {
		if k.sorted < len(k.rates) {
			mergeSorted(k.rates, k.sorted)
			k.sorted = len(k.rates)
		}
		return k.rates
	}
	return nil
}

// mergeSorted sorts r whose first m values are ascending: it sorts the
// rest and merges it in from the end, so a few new values cost about
// their distance from the end, not a pass over r.
func mergeSorted(r []float64, m int) {
	tail := slices.Clone(r[m:])
	slices.Sort(tail)
	i, j := m-1, len(tail)-1
	for k := len(r) - 1; j >= 0; k-- {
		if i >= 0 && r[i] > tail[j] {
			r[k] = r[i]
			i--
		} else {
			r[k] = tail[j]
			j--
		}
	}
}

// Of returns the statistics of an app's finished tasks of a kind (zero N
// when none finished).
func (d *Durations) Of(app string, kind events.TaskKind) Stats {
	if s := d.Live(app, kind); s != nil {
		return *s
	}
	return Stats{}
}

// Live is the live statistics of an app's kind, nil before the first
// finished task; it then stays the same pointer until the app finishes.
func (d *Durations) Live(app string, kind events.TaskKind) *Stats {
	if k := d.kind(app, kind); k != nil {
		return &k.stats
	}
	return nil
}

// kind is an app's statistics of a kind, nil before its first finished task.
func (d *Durations) kind(app string, kind events.TaskKind) *kindDurations {
	if a := d.apps[app]; a != nil {
		return a.kinds[kind]
	}
	return nil
}

// Proposals remembers which tasks a speculator proposed a copy for and when,
// so it neither re-proposes a task nor over-runs its cap while the copy it
// asked for has not yet shown up as an attempt.
type Proposals struct {
	at map[string]int64
}

// NewProposals returns an empty memory.
func NewProposals() *Proposals { return &Proposals{at: map[string]int64{}} }

// Add records a proposal for task key at now.
func (p *Proposals) Add(key string, now int64) { p.at[key] = now }

// Recent reports whether key was proposed within window ms before now.
func (p *Proposals) Recent(key string, now, window int64) bool {
	ts, ok := p.at[key]
	return ok && now-ts < window
}

// Outstanding counts proposals within window whose task does not yet run a
// copy, and forgets proposals older than window.
func (p *Proposals) Outstanding(v cluster.View, now, window int64) int {
	n := 0
	for key, ts := range p.at { // counting and deleting: order does not matter
		if now-ts >= window {
			delete(p.at, key)
			continue
		}
		if t := taskByKey(v, key); t != nil && t.State == cluster.TaskRunning && !HasRunningCopy(t) {
			n++
		}
	}
	return n
}

func taskByKey(v cluster.View, key string) *cluster.Task {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			if a := v.App(key[:i]); a != nil {
				return a.Task(key[i+1:])
			}
			return nil
		}
	}
	return nil
}

// EstBackupMS is what a fresh copy is expected to take: the mean duration of
// the job's finished tasks of the kind, else the full duration of a task
// progressing at the average rate avgPR (progress per ms), else 0.
func EstBackupMS(s Stats, avgPR float64) int64 {
	switch {
	case s.N > 0:
		return int64(s.Mean)
	case avgPR > 0:
		return int64(min(1/avgPR, float64(MaxTTEMS)))
	}
	return 0
}
