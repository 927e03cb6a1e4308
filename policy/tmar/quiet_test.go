package tmar

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Random runs of two engines fed the same events, TMaR's holds visiting
// only its loud and due reservations in one (quiet.go) and every
// reservation in the other (holdQuiet.full): maps pending on random hosts,
// again while pending, and with other splits applied to the state and
// TMaR's Observe alone (no Place: a hold's locality changes under it),
// started, failed, finished; nodes lost and back (a new node index);
// another binder re-emitting or overwriting TMaR's place hints (a new span
// of the lapses); ticks from 1 s to 11 minutes apart. Every Apply and Tick
// returns the same hints.
func TestQuietHoldsSameAsFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 3))
	ctx := context.Background()
	var partials uint64
	for iter := range 40 {
		name := Name
		if iter%3 == 2 {
			name = NamePower
		}
		other := iter%4 >= 2
		type run struct {
			e     *engine.Engine
			p     *Plugin
			other *otherBinder
		}
		var runs [2]run
		for k := range runs {
			r := newInForceRun(t, name, true, other, false, uint64(iter))
			runs[k] = run{e: r.e, other: r.other}
			for _, pl := range r.e.Stack().Plugins {
				if tp, ok := pl.(*Plugin); ok {
					runs[k].p = tp
				}
			}
		}
		runs[1].p.holdQ.full = true
		out := func(r run, hs []policy.Hint) []policy.Hint {
			c := slices.Clone(hs)
			for i := range c {
				c[i].Nodes = slices.Clone(c[i].Nodes)
				if r.other != nil && c[i].Kind == policy.KindPlace && c[i].Policy != "other" {
					r.other.seen = append(r.other.seen, c[i])
				}
			}
			return c
		}
		var list evs
		for i := range 4 {
			list.add(events.Event{Type: events.NodeRegistered, TS: 1000, Node: fmt.Sprintf("n%d:8041", i+1),
				Rack: fmt.Sprint("/r", 1+i/2), VCores: 2, MemoryMB: 4096, CPUMHz: 2400 * (1 + i%2), PowerIdleW: 100, PowerMaxW: 300})
		}
		for a := range 2 {
			list.add(events.Event{Type: events.AppSubmitted, TS: 2000, App: fmt.Sprint("a", a), Name: "wc", Queue: "q",
				User: "u", JobType: "wordcount", Maps: 16, Reduces: 1})
		}
		step := func(ev events.Event, stateOnly bool) {
			list.add(ev)
			evp := &list.list[len(list.list)-1]
			var got [2][]policy.Hint
			for k, r := range runs {
				if stateOnly {
					r.e.State().Apply(evp)
					r.p.Observe(ctx, evp, r.e.State())
					continue
				}
				got[k] = out(r, r.e.Apply(ctx, evp))
			}
			if !reflect.DeepEqual(got[0], got[1]) {
				t.Fatalf("instance %d, event %d %+v: quiet\n%+v\nfull\n%+v", iter, len(list.list), ev, got[0], got[1])
			}
		}
		for i := range list.list {
			for _, r := range runs {
				r.e.Apply(ctx, &list.list[i])
			}
		}
		type task struct {
			app, id string
			state   int // 0 none, 1 pending, 2 running, 3 done
			n       int
		}
		var tasks []*task
		for a := range 2 {
			for m := range 16 {
				tasks = append(tasks, &task{app: fmt.Sprint("a", a), id: fmt.Sprintf("task_%d_m_%d", a, m)})
			}
		}
		hosts := []string{"n1", "n2", "n3", "n4", "elsewhere"}
		splits := func() []events.Split {
			var sp []events.Split
			for range rng.IntN(3) {
				sp = append(sp, events.Split{Path: "/in", Length: 64e6, Hosts: []string{hosts[rng.IntN(len(hosts))]}})
			}
			return sp
		}
		ts := int64(2000)
		for range 150 {
			switch k := rng.IntN(10); {
			case k < 6:
				ts += 1000 * int64(1+rng.IntN(3))
			case k < 9:
				ts += 1000 * int64(20+rng.IntN(60))
			default:
				ts += 1000 * int64(200+rng.IntN(500))
			}
			for range 1 + rng.IntN(6) {
				tk := tasks[rng.IntN(len(tasks))]
				node := fmt.Sprintf("n%d:8041", 1+rng.IntN(4))
				att := fmt.Sprintf("%s_%d", tk.id, tk.n)
				switch {
				case tk.state == 1 && rng.IntN(4) == 0:
					// Other splits under TMaR's hold, without a Place.
					step(events.Event{Type: events.TaskPending, TS: ts, App: tk.app, Task: tk.id, Kind: events.Map, Splits: splits()}, true)
				case tk.state == 0 || tk.state == 1 && rng.IntN(3) == 0:
					step(events.Event{Type: events.TaskPending, TS: ts, App: tk.app, Task: tk.id, Kind: events.Map, Splits: splits()}, false)
					tk.state = 1
				case tk.state == 1:
					tk.n++
					att = fmt.Sprintf("%s_%d", tk.id, tk.n)
					step(events.Event{Type: events.ContainerAllocated, TS: ts, App: tk.app, Task: tk.id, Attempt: att,
						Container: "c" + att, Node: node}, false)
					tk.state = 2
				case tk.state == 2:
					st := events.StateSucceeded
					if rng.IntN(3) == 0 {
						st = events.StateFailed // pending again, with no task.pending
					}
					step(events.Event{Type: events.TaskFinished, TS: ts, App: tk.app, Task: tk.id, Attempt: att, State: st}, false)
					tk.state = 3
					if st == events.StateFailed {
						tk.state = 1
					}
				}
			}
			if rng.IntN(15) == 0 {
				step(events.Event{Type: events.NodeLost, TS: ts, Node: fmt.Sprintf("n%d:8041", 1+rng.IntN(4))}, false)
			}
			if rng.IntN(15) == 0 {
				i := rng.IntN(4)
				step(events.Event{Type: events.NodeRegistered, TS: ts, Node: fmt.Sprintf("n%d:8041", i+1),
					Rack: fmt.Sprint("/r", 1+i/2), VCores: 2, MemoryMB: 4096, CPUMHz: 2400}, false)
			}
			tick := ts + int64(rng.IntN(1000))
			var got [2][]policy.Hint
			for k, r := range runs {
				got[k] = out(r, r.e.Tick(ctx, tick))
			}
			if !reflect.DeepEqual(got[0], got[1]) {
				t.Fatalf("instance %d (%s, other %v), tick at %d: quiet\n%+v\nfull\n%+v", iter, name, other, tick, got[0], got[1])
			}
		}
		if runs[1].p.holdQ.partials != 0 {
			t.Fatalf("instance %d: %d partial calls with full set", iter, runs[1].p.holdQ.partials)
		}
		partials += runs[0].p.holdQ.partials
	}
	if partials == 0 {
		t.Fatal("no call visited only the loud and due reservations: nothing checked")
	}
	t.Logf("calls that visited only the loud and due reservations: %d", partials)
}
