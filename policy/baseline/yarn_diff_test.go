package baseline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/capacity"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// yarnStream generates a random but valid-looking event stream: apps, tasks
// of both kinds (and kind changes), attempts and speculative copies that
// start, progress, stall, finish, fail and move, stale repeats, heartbeats
// that change the free capacity, nodes lost and registered again with
// another size, and apps that end.
type yarnStream struct {
	r        *rand.Rand
	now      int64
	seq      int
	apps     []string
	tasks    map[string][]string // app -> tasks
	attempts [][3]string         // app, task, attempt
	log      []events.Event
}

func (g *yarnStream) next() events.Event {
	g.seq++
	ev := events.Event{V: events.Version, ID: fmt.Sprintf("e%08d", g.seq), TS: g.now}
	r := g.r
	pickApp := func() string { return g.apps[r.IntN(len(g.apps))] }
	switch k := r.IntN(100); {
	case g.seq <= 6:
		ev.Type, ev.Node, ev.Rack, ev.VCores, ev.MemoryMB = events.NodeRegistered, fmt.Sprintf("n%d", g.seq-1), "r", 8, 8192
	case len(g.apps) == 0 || k < 3:
		id := fmt.Sprintf("app%d", len(g.apps))
		g.apps = append(g.apps, id)
		ev.Type, ev.App, ev.Maps, ev.Reduces = events.AppSubmitted, id, 3+r.IntN(30), r.IntN(4)
	case k < 10:
		app := pickApp()
		ts := g.tasks[app]
		var task string
		if len(ts) == 0 || r.IntN(3) > 0 {
			task = fmt.Sprintf("t%d", len(ts))
			g.tasks[app] = append(ts, task)
		} else {
			task = ts[r.IntN(len(ts))] // a repeat, sometimes of the other kind
		}
		kind := events.Map
		if r.IntN(5) == 0 {
			kind = events.Reduce
		}
		ev.Type, ev.App, ev.Task, ev.Kind = events.TaskPending, app, task, kind
	case k < 25:
		app := pickApp()
		ts := g.tasks[app]
		if len(ts) == 0 {
			return g.next()
		}
		task := ts[len(ts)-1-r.IntN(min(len(ts), 3))] // mostly the newest tasks
		at := fmt.Sprintf("%s_%s_%d", app, task, len(g.attempts))
		g.attempts = append(g.attempts, [3]string{app, task, at})
		ev.Type, ev.App, ev.Task, ev.Attempt = events.ContainerAllocated, app, task, at
		ev.Container, ev.Node = "c"+at, fmt.Sprintf("n%d", r.IntN(6))
		ev.Speculative = r.IntN(6) == 0
		ev.VCores, ev.MemoryMB = r.IntN(3), 1024*r.IntN(3)
		ev.TS -= 10_000 * int64(r.IntN(6)) // started a while ago (coarse: ties happen)
	case k < 70:
		if len(g.attempts) == 0 {
			return g.next()
		}
		a := g.attempts[r.IntN(len(g.attempts))]
		ev.Type, ev.App, ev.Task, ev.Attempt = events.TaskProgress, a[0], a[1], a[2]
		ev.Progress, ev.Phase = []float64{0, 0.01, 0.2, 0.5, 0.9, 1}[r.IntN(6)], events.PhaseMap
	case k < 82:
		if len(g.attempts) == 0 {
			return g.next()
		}
		a := g.attempts[r.IntN(len(g.attempts))]
		ev.Type, ev.App, ev.Task, ev.Attempt = events.TaskFinished, a[0], a[1], a[2]
		ev.State = []string{events.StateSucceeded, events.StateSucceeded, events.StateFailed, events.StateKilled}[r.IntN(4)]
	case k < 84:
		if len(g.attempts) == 0 {
			return g.next()
		}
		a := g.attempts[r.IntN(len(g.attempts))]
		ev.Type, ev.App, ev.Task, ev.Attempt, ev.Node = events.MapOutput, a[0], a[1], a[2], fmt.Sprintf("n%d", r.IntN(6))
	case k < 85:
		ev.Type, ev.App, ev.State = events.AppFinished, pickApp(), events.StateSucceeded
	case k < 94:
		n := r.IntN(6)
		ev.Type, ev.Node, ev.UsedVCores, ev.UsedMemoryMB = events.NodeHeartbeat, fmt.Sprintf("n%d", n), r.IntN(9), 1024*r.IntN(9)
	case k < 95:
		// A node lost, or registered again with another size: the
		// capacity snapshot's cached states and sizes must follow.
		ev.Node = fmt.Sprintf("n%d", r.IntN(6))
		if r.IntN(3) == 0 {
			ev.Type, ev.Reason = events.NodeLost, "test"
		} else {
			ev.Type, ev.Rack, ev.VCores, ev.MemoryMB = events.NodeRegistered, "r", 4+r.IntN(8), 1024*(4+r.IntN(8))
		}
	default:
		if len(g.log) == 0 {
			return g.next()
		}
		return g.log[r.IntN(len(g.log))] // a repeat: idempotent, or stale
	}
	g.log = append(g.log, ev)
	return ev
}

// TestYARNMatchesFullScan holds the incremental scan to the full scan it
// replaced (yarn_ref_test.go) on random streams: same hints, in the same
// order, after every scan. A speculator that joins mid-stream (as after a
// restart from a checkpoint) must match a reference that joins with it.
func TestYARNMatchesFullScan(t *testing.T) {
	configs := map[string]func(*YARNConfig){
		"defaults":          func(*YARNConfig) {},
		"compare threshold": func(c *YARNConfig) { c.CompareThreshold = true },
		"cap of one": func(c *YARNConfig) {
			c.MinimumAllowedSpeculativeTasks, c.ProportionTotalTasksSpeculatable, c.ProportionRunningTasksSpeculatable = 1, 0, 0
		},
		"no gate, short windows": func(c *YARNConfig) {
			c.MinimumCompleteNumber, c.MinimumCompleteProportion = 0, 0
			c.RetryAfterNoSpeculateMS, c.RetryAfterSpeculateMS, c.StagnationMS = 0, 3_000, 2_000
		},
	}
	ctx := context.Background()
	hints := 0
	for name, tweak := range configs {
		for seed := range uint64(30) {
			t.Run(fmt.Sprintf("%s/seed%d", name, seed), func(t *testing.T) {
				cfg := DefaultYARNConfig()
				tweak(&cfg)
				g := &yarnStream{r: rand.New(rand.NewPCG(seed, 7)), now: 1_000_000, tasks: map[string][]string{}}
				st := cluster.New()
				type pair struct {
					inc *YARN
					ref *refYARN
				}
				newPair := func() pair {
					return pair{&YARN{cfg: cfg, durations: taskstat.NewDurations(), jobs: map[*cluster.App]*yarnJob{}}, newRefYARN(cfg)}
				}
				pairs := []pair{newPair()}
				for step := range 3000 {
					if step == 1500 {
						pairs = append(pairs, newPair()) // joins a populated state
					}
					ev := g.next()
					if st.Apply(&ev) {
						for _, p := range pairs {
							p.inc.Observe(ctx, &ev, st)
							p.ref.Observe(ctx, &ev, st)
						}
					}
					if g.r.IntN(20) == 0 {
						g.now += 500 * int64(g.r.IntN(8))
						if g.r.IntN(10) == 0 {
							g.now += 10_000 // long enough for attempts to stall
						}
					}
					if step%7 != 0 {
						continue
					}
					for i, p := range pairs {
						got, st1 := p.inc.Speculate(ctx, st)
						want, st2 := p.ref.Speculate(ctx, st)
						if st1.Code() != st2.Code() {
							t.Fatalf("step %d speculator %d: status %v, reference %v", step, i, st1.Code(), st2.Code())
						}
						if len(got) == 0 && len(want) == 0 {
							continue
						}
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("step %d speculator %d at %d:\n got  %+v\n want %+v", step, i, st.Now(), got, want)
						}
						hints += len(got)
					}
				}
			})
		}
	}
	// The streams must exercise the proposing path, not only agree on silence.
	t.Logf("%d hints", hints)
	if hints < 200 {
		t.Fatalf("only %d hints proposed over all streams", hints)
	}
	var _ policy.Speculator = (*YARN)(nil)
}

// TestYARNRecordsMatchRead holds the records, as kept up to date event by
// event (progressed's shortcut for a progress report of the running attempt
// included), to a fresh read of every task of every job after each event,
// on random streams where an app's progress reports often come in runs (as
// an AM reports its tasks together), so the shortcut is taken.
func TestYARNRecordsMatchRead(t *testing.T) {
	ctx := context.Background()
	shortcuts, guessed, switched := 0, 0, 0
	for seed := range uint64(20) {
		g := &yarnStream{r: rand.New(rand.NewPCG(seed, 11)), now: 1_000_000, tasks: map[string][]string{}}
		st := cluster.New()
		p := &YARN{cfg: DefaultYARNConfig(), durations: taskstat.NewDurations(), jobs: map[*cluster.App]*yarnJob{}}
		var last events.Event
		for step := range 4000 {
			ev := g.next()
			if last.Type == events.TaskProgress && g.r.IntN(3) > 0 {
				// Another report of the same app: the same attempt or the
				// app's newest one.
				ev = last
				g.seq++
				ev.ID, ev.TS = fmt.Sprintf("e%08d", g.seq), g.now
				ev.Progress = min(1, last.Progress+0.05*float64(g.r.IntN(3)))
				for _, a := range g.attempts {
					if a[0] == last.App && g.r.IntN(2) == 0 {
						ev.Task, ev.Attempt = a[1], a[2]
					}
				}
			}
			if ev.Type == events.TaskProgress && last.Type == events.TaskProgress && g.r.IntN(2) == 0 {
				// The app's next attempt a step of 1-3 on (an AM walking
				// its tasks in order), so progressed's guess is tried and
				// often right.
				for k, a := range g.attempts {
					if a[2] == last.Attempt {
						if n := k + 1 + int(g.seq%3); n < len(g.attempts) && g.attempts[n][0] == a[0] {
							ev.Task, ev.Attempt = g.attempts[n][1], g.attempts[n][2]
						}
						break
					}
				}
			}
			last = ev
			if g.r.IntN(20) == 0 {
				g.now += 500 * int64(g.r.IntN(8))
			}
			if !st.Apply(&ev) {
				continue
			}
			if at := st.Attempt(ev.Attempt); ev.Type == events.TaskProgress && at != nil && p.lastApp == at.Task.App &&
				p.lastJob != nil && at.Task.Seq() < len(p.lastJob.runs) && p.lastJob.runs[at.Task.Seq()].at == at {
				shortcuts++
			}
			if at := st.Attempt(ev.Attempt); ev.Type == events.TaskProgress && at != nil && p.lastJob != nil &&
				uint(p.guess) < uint(len(p.lastJob.runs)) && p.lastJob.runs[p.guess].at == at {
				guessed++
			}
			if at := st.Attempt(ev.Attempt); ev.Type == events.TaskProgress && at != nil && at.Task.App != p.lastApp {
				if j := p.jobs[at.Task.App]; j != nil && at.Task.Seq() < len(j.runs) && j.runs[at.Task.Seq()].at == at {
					switched++
				}
			}
			p.Observe(ctx, &ev, st)
			for a, j := range p.jobs {
				for i := range j.tasks {
					var want yarnTask
					want.proposal = j.tasks[i].proposal
					run := want.read(a.Tasks[i])
					got := j.tasks[i]
					if got.running != 1 {
						// progTS and end are read only while one attempt runs.
						got.progTS, got.end, want.progTS, want.end = 0, 0, 0, 0
					}
					if got != want || j.runs[i].at != run || j.runs[i].task != a.Tasks[i].ID {
						t.Fatalf("seed %d step %d: app %s task %s: record %+v (attempt %p, task %q), fresh read %+v (%p)",
							seed, step, a.ID, a.Tasks[i].ID, j.tasks[i], j.runs[i].at, j.runs[i].task, want, run)
					}
					// The run's copies of the attempt's size and node key.
					if r := &j.runs[i]; run != nil && (r.need() != capacity.NeedOf(run) || r.nodeKey != capacity.IDKey(run.Node)) {
						t.Fatalf("seed %d step %d: app %s task %s: run holds need %+v key %#x, the attempt %+v key %#x",
							seed, step, a.ID, a.Tasks[i].ID, r.need(), r.nodeKey, capacity.NeedOf(run), capacity.IDKey(run.Node))
					}
				}
			}
			if step%50 == 0 {
				p.Speculate(ctx, st) // proposals mark records
			}
		}
	}
	t.Logf("%d progress reports took the shortcut", shortcuts)
	if shortcuts < 500 {
		t.Fatalf("only %d progress reports took the shortcut", shortcuts)
	}
	// progressed's guess of the record, checked above against a fresh read
	// like the look-up through the task.
	t.Logf("%d progress reports found their record by the guess", guessed)
	if guessed < 200 {
		t.Fatalf("only %d progress reports found their record by the guess", guessed)
	}
	// and another job's reports, found through the map without a re-read.
	t.Logf("%d progress reports of another job than the last", switched)
	if switched < 100 {
		t.Fatalf("only %d progress reports of another job than the last", switched)
	}
}

// TestRunNeedSameAsNeedOf holds a run's copy of its attempt's container
// size to capacity.NeedOf, sizes past 32 bits and negative ones included.
func TestRunNeedSameAsNeedOf(t *testing.T) {
	for _, v := range []int{-1 << 40, -5, 0, 1, 7, 1<<31 - 1, 1 << 31, 1 << 40} {
		for _, m := range []int{-1 << 40, -1, 0, 2048, 1<<31 - 1, 1 << 31, 1 << 45} {
			at := &cluster.Attempt{VCores: v, MemoryMB: m, Node: "nm7.example:8041"}
			var r yarnRun
			r.set(at, "task")
			if r.need() != capacity.NeedOf(at) || r.nodeKey != capacity.IDKey(at.Node) {
				t.Fatalf("vcores %d memory %d: run need %+v key %#x, NeedOf %+v", v, m, r.need(), r.nodeKey, capacity.NeedOf(at))
			}
		}
	}
}
