package taskstat_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// refDurations is the map-keyed Durations that taskstat.Durations replaced
// (a map of counted task ids per app, four maps keyed by the kind), kept as
// the reference of TestDurationsSameAsRef.
type refDurations struct {
	apps map[string]*refApp
}

type refApp struct {
	kinds   map[events.TaskKind]*taskstat.Stats
	rates   map[events.TaskKind][]float64
	rateSum map[events.TaskKind]float64
	done    map[string]bool
}

func (d *refDurations) observe(ev *events.Event, v cluster.View) {
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
			a = &refApp{kinds: map[events.TaskKind]*taskstat.Stats{}, rates: map[events.TaskKind][]float64{},
				rateSum: map[events.TaskKind]float64{}, done: map[string]bool{}}
			d.apps[ev.App] = a
		}
		if a.done[ev.Task] {
			return
		}
		a.done[ev.Task] = true
		s := a.kinds[at.Task.Kind]
		if s == nil {
			s = &taskstat.Stats{}
			a.kinds[at.Task.Kind] = s
		}
		dur := float64(at.FinishTS - at.StartTS)
		s.Add(dur)
		if dur > 0 {
			a.rates[at.Task.Kind] = append(a.rates[at.Task.Kind], 1/dur)
			a.rateSum[at.Task.Kind] += 1 / dur
		}
	}
}

// literalView answers attempts built as literals: tasks without a place in
// their app's Tasks (Seq 0, no app), as some policies' tests build them.
type literalView struct {
	*cluster.State
	ats map[string]*cluster.Attempt
}

func (v literalView) Attempt(id string) *cluster.Attempt { return v.ats[id] }

// TestDurationsSameAsRef: over random streams (tasks finishing more than
// once, failed attempts, apps finishing, events naming another task or app
// than their attempt's, views whose tasks are not numbered), Durations
// answers Of, Live, Rates and RateSum as the map-keyed reference does.
func TestDurationsSameAsRef(t *testing.T) {
	kinds := []events.TaskKind{events.Map, events.Reduce}
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 11))
		s := cluster.New()
		var v cluster.View = s
		lit := literalView{State: s, ats: map[string]*cluster.Attempt{}}
		if seed%3 == 2 {
			v = lit
		}
		d, ref := taskstat.NewDurations(), &refDurations{apps: map[string]*refApp{}}
		apps := []string{"a0", "a1", "a2", "a3"}
		ts := int64(1000)
		for i := range 2000 {
			ts += int64(rng.IntN(20))
			app := apps[rng.IntN(len(apps))]
			kind := kinds[rng.IntN(len(kinds))]
			task := "task_" + app + "_" + string(kind[:1]) + "_" + strconv.Itoa(rng.IntN(40))
			att := task + "_" + strconv.Itoa(i)
			alloc := events.Event{V: 1, ID: "s" + strconv.Itoa(i), Type: events.ContainerAllocated, TS: ts, App: app,
				Task: task, Attempt: att, Node: "n1", Container: "c" + strconv.Itoa(i)}
			if rng.IntN(4) == 0 {
				alloc.Type, alloc.Kind = events.TaskPending, kind
				s.Apply(&alloc)
				alloc.Type = events.ContainerAllocated
			}
			s.Apply(&alloc)
			if at := s.Attempt(att); at != nil {
				lit.ats[att] = &cluster.Attempt{ID: att, StartTS: at.StartTS,
					Task: &cluster.Task{ID: task, Kind: at.Task.Kind + events.TaskKind(strconv.Itoa(rng.IntN(2)))}}
			}
			fin := events.Event{V: 1, ID: "f" + strconv.Itoa(i), Type: events.TaskFinished, TS: ts + int64(rng.IntN(3)*rng.IntN(500)),
				App: app, Task: task, Attempt: att, State: events.StateSucceeded}
			switch rng.IntN(10) {
			case 0:
				fin.State = events.StateFailed
			case 1:
				fin.Task = "task_" + app + "_m_" + strconv.Itoa(rng.IntN(40)) // names another task
			case 2:
				fin.App = apps[rng.IntN(len(apps))] // names another app
			}
			if s.Apply(&fin) {
				if la := lit.ats[att]; la != nil {
					la.FinishTS = fin.TS
				}
				d.Observe(&fin, v)
				ref.observe(&fin, v)
			}
			if rng.IntN(300) == 0 {
				end := events.Event{V: 1, ID: "e" + strconv.Itoa(i), Type: events.AppFinished, TS: ts, App: app, State: events.StateSucceeded}
				d.Observe(&end, v)
				ref.observe(&end, v)
			}
			if rng.IntN(20) == 0 || i == 1999 {
				for _, a := range apps {
					for _, k := range []events.TaskKind{events.Map, events.Reduce, events.Map + "1", events.Reduce + "0"} {
						compareDurations(t, d, ref, a, k, seed, i)
					}
				}
			}
		}
	}
}

func compareDurations(t *testing.T, d *taskstat.Durations, ref *refDurations, app string, k events.TaskKind, seed uint64, i int) {
	t.Helper()
	var want taskstat.Stats
	var wantRates []float64
	var wantSum float64
	var wantLive *taskstat.Stats
	if a := ref.apps[app]; a != nil {
		if s := a.kinds[k]; s != nil {
			want, wantLive = *s, s
		}
		wantRates = slices.Clone(a.rates[k])
		slices.Sort(wantRates)
		wantSum = a.rateSum[k]
	}
	if got := d.Of(app, k); got != want {
		t.Fatalf("seed %d after %d: Of(%s, %s) = %+v, want %+v", seed, i, app, k, got, want)
	}
	if got := d.Live(app, k); (got == nil) != (wantLive == nil) || (got != nil && *got != *wantLive) {
		t.Fatalf("seed %d after %d: Live(%s, %s) = %v, want %v", seed, i, app, k, got, wantLive)
	}
	sum, n := d.RateSum(app, k)
	if sum != wantSum || n != len(wantRates) {
		t.Fatalf("seed %d after %d: RateSum(%s, %s) = %v, %d, want %v, %d", seed, i, app, k, sum, n, wantSum, len(wantRates))
	}
	if got := d.Rates(app, k); !slices.Equal(got, wantRates) {
		t.Fatalf("seed %d after %d: Rates(%s, %s) = %v, want %v", seed, i, app, k, got, wantRates)
	}
}
