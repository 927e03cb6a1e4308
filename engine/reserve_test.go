package engine

import (
	"context"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// TestReserveChangesNoHint holds an engine that reserves room as apps
// arrive (and, here, at random sizes between events) to one that is put
// back to no room after every event, as before reserve: a random stream of
// apps, tasks, attempts, finishes and ticks whose speculation rounds
// propose from a few up to hundreds of hints, with repeats suppressed and
// expiring. Every Apply and Tick must return the same hints (ids, times,
// expiries), and the hints in force and counters must agree.
func TestReserveChangesNoHint(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 11))
		ttl := map[policy.HintKind]int64{policy.KindSpeculate: int64(2_000 + r.IntN(20_000))}
		a := New(policy.NewStack(&fakeSpec{name: "s"}), Options{TTL: ttl})
		b := New(policy.NewStack(&fakeSpec{name: "s"}), Options{TTL: ttl})
		noRoom := func() {
			b.out, b.target, b.inputs, b.ids = nil, nil, nil, nil
			b.active, b.activeRoom = maps.Clone(b.active), 0
			if b.active == nil {
				b.active = map[string]active{}
			}
		}
		var apps []string
		tasks := map[string]int{}
		var attempts [][3]string
		ts, seq := int64(1_000), 0
		for step := range 1500 {
			seq++
			ev := events.Event{V: events.Version, ID: "e" + strconv.Itoa(seq), TS: ts}
			switch k := r.IntN(100); {
			case len(apps) == 0 || k < 8:
				app := "app" + strconv.Itoa(len(apps))
				apps = append(apps, app)
				ev.Type, ev.App, ev.Maps = events.AppSubmitted, app, 1+r.IntN(40)
			case k < 40:
				app := apps[r.IntN(len(apps))]
				tasks[app]++
				ev.Type, ev.App, ev.Task, ev.Kind = events.TaskPending, app, app+"_t"+strconv.Itoa(tasks[app]), events.Map
			case k < 80:
				app := apps[r.IntN(len(apps))]
				if tasks[app] == 0 {
					continue
				}
				task := app + "_t" + strconv.Itoa(1+r.IntN(tasks[app]))
				at := task + "_" + strconv.Itoa(step)
				attempts = append(attempts, [3]string{app, task, at})
				ev.Type, ev.App, ev.Task, ev.Attempt, ev.Container, ev.Node = events.ContainerAllocated, app, task, at, "c"+at, "n"+strconv.Itoa(r.IntN(5))
			case k < 90:
				if len(attempts) == 0 {
					continue
				}
				x := attempts[r.IntN(len(attempts))]
				ev.Type, ev.App, ev.Task, ev.Attempt, ev.State = events.TaskFinished, x[0], x[1], x[2], events.StateSucceeded
			default:
				ts += int64(r.IntN(3_000))
				ha, hb := a.Tick(ctx, ts), b.Tick(ctx, ts)
				if !sameHints(ha, hb) {
					t.Fatalf("seed %d step %d: tick gave %d hints, without room %d", seed, step, len(ha), len(hb))
				}
				noRoom()
				continue
			}
			if r.IntN(20) == 0 {
				a.reserve(r.IntN(600))
			}
			ha, hb := a.Apply(ctx, &ev), b.Apply(ctx, &ev)
			if !sameHints(ha, hb) {
				t.Fatalf("seed %d step %d (%s): %d hints, without room %d", seed, step, ev.Type, len(ha), len(hb))
			}
			if ev.Type == events.AppSubmitted && (cap(a.out) < len(apps) || a.activeRoom < len(apps)) {
				t.Fatalf("seed %d step %d: room for %d hints and %d in force after %d apps", seed, step, cap(a.out), a.activeRoom, len(apps))
			}
			noRoom()
		}
		if !reflect.DeepEqual(a.active, b.active) || !reflect.DeepEqual(a.Stats(), b.Stats()) {
			t.Fatalf("seed %d: hints in force or counters differ", seed)
		}
	}
}

// TestReserveKeepsRoundsHints: making room keeps the hints already in the
// round and the hints in force.
func TestReserveKeepsRoundsHints(t *testing.T) {
	e := New(policy.NewStack(&fakeSpec{name: "s"}), Options{})
	e.out = append(e.out, policy.Hint{Kind: policy.KindSpeculate, App: "a"}, policy.Hint{Kind: policy.KindSpeculate, App: "b"})
	e.active["k"] = active{content: "c", expires: 9}
	before, inForce := slices.Clone(e.out), maps.Clone(e.active)
	e.reserve(5_000)
	if cap(e.out) < 5_000 || e.activeRoom < 5_001 || !reflect.DeepEqual(e.out, before) || !reflect.DeepEqual(e.active, inForce) {
		t.Fatalf("after reserve: cap %d, room %d, out %+v, in force %+v", cap(e.out), e.activeRoom, e.out, e.active)
	}
}

// sameHints: the same hints, a nil and an empty round alike.
func sameHints(a, b []policy.Hint) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}
