package tmar

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
)

// otherBinder emits, at some ticks, place hints for TMaR's tasks under
// another name: a copy of a hold the engine emitted before (same target
// and content) or one naming another node, so the engine's hint for a
// target TMaR holds changes without TMaR returning it.
type otherBinder struct {
	rng  *rand.Rand
	seen []policy.Hint // tmar's place hints the engine emitted
}

func (o *otherBinder) Name() string { return "other" }

func (o *otherBinder) Bind(context.Context, cluster.View) ([]policy.Hint, *policy.Status) {
	if len(o.seen) == 0 || o.rng.IntN(3) != 0 {
		return nil, nil
	}
	h := o.seen[o.rng.IntN(len(o.seen))]
	h.Policy, h.ID, h.TS, h.ExpiresTS = "", "", 0, 0
	if o.rng.IntN(2) == 0 {
		h.Nodes = []policy.NodeScore{{Node: fmt.Sprintf("n%d:8041", 1+o.rng.IntN(4)), Score: 1}}
	}
	return []policy.Hint{h}, nil
}

// inForceRun is one engine of TestInForceSameEmitted: TMaR with or without
// the engine's InForce, and maybe another binder.
type inForceRun struct {
	e     *engine.Engine
	other *otherBinder
}

func newInForceRun(t *testing.T, name string, wired, other, otherFirst bool, seed uint64) inForceRun {
	t.Helper()
	var p policy.Plugin
	var err error
	if name == NamePower {
		p, err = NewPower(context.Background(), policy.Handle{})
	} else {
		p, err = New(context.Background(), policy.Handle{})
	}
	if err != nil {
		t.Fatal(err)
	}
	r := inForceRun{}
	var o policy.Plugin
	if other {
		r.other = &otherBinder{rng: rand.New(rand.NewPCG(seed, 5))}
		o = r.other
	}
	r.e = clustertest.InForceEngine(p.(*Plugin), o, otherFirst, wired, engine.Options{})
	return r
}

// out copies the hints an Apply or Tick returned (valid until the next
// call) and shows the other binder TMaR's place hints.
func (r inForceRun) out(hs []policy.Hint) []policy.Hint {
	c := slices.Clone(hs)
	for i := range c {
		c[i].Nodes = slices.Clone(c[i].Nodes)
		if r.other != nil && c[i].Kind == policy.KindPlace && c[i].Policy != "other" {
			r.other.seen = append(r.other.seen, c[i])
		}
	}
	return c
}

// Random runs (maps pending on random hosts, again while pending, started,
// finished with outputs; reducers pending and started; nodes lost and back; ticks from
// 1 s to 11 minutes apart, past the TTL of holds and of bindings; another
// binder re-emitting or overwriting TMaR's place hints before or after it):
// the engine emits the same hints, ids, times and reasons included, whether
// TMaR leaves out the hints the engine has in force (policy.InForce) or
// returns every one, and drops fewer repeats.
func TestInForceSameEmitted(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	ctx := context.Background()
	var repeats clustertest.Repeats
	for iter := range 60 {
		name := Name
		if iter%3 == 2 {
			name = NamePower
		}
		other, otherFirst := iter%4 >= 2, iter%8 >= 6
		runs := [2]inForceRun{newInForceRun(t, name, true, other, otherFirst, uint64(iter)),
			newInForceRun(t, name, false, other, otherFirst, uint64(iter))}
		var list evs
		for i := range 4 {
			list.add(events.Event{Type: events.NodeRegistered, TS: 1000, Node: fmt.Sprintf("n%d:8041", i+1),
				Rack: fmt.Sprint("/r", 1+i/2), VCores: 2, MemoryMB: 4096, CPUMHz: 2400 * (1 + i%2), PowerIdleW: 100, PowerMaxW: 300})
		}
		apps := 1 + rng.IntN(3)
		for a := range apps {
			list.add(events.Event{Type: events.AppSubmitted, TS: 2000, App: fmt.Sprint("a", a), Name: "wc", Queue: "q",
				User: "u", JobType: "wordcount", Maps: 4, Reduces: 2})
		}
		type task struct {
			app, id string
			reduce  bool
			part    int
			state   int // 0 none, 1 pending, 2 running, 3 done
			node    string
			n       int // attempts
		}
		var tasks []*task
		for a := range apps {
			for m := range 4 {
				tasks = append(tasks, &task{app: fmt.Sprint("a", a), id: fmt.Sprintf("task_%d_m_%d", a, m)})
			}
			for r := range 2 {
				tasks = append(tasks, &task{app: fmt.Sprint("a", a), id: fmt.Sprintf("task_%d_r_%d", a, r), reduce: true, part: r})
			}
		}
		hosts := []string{"n1", "n2", "n3", "n4", "elsewhere"}
		ts := int64(2000)
		var tick []int64 // the ticks, by position in the event list
		for range 120 {
			switch k := rng.IntN(10); {
			case k < 6:
				ts += 1000 * int64(1+rng.IntN(3))
			case k < 9:
				ts += 1000 * int64(20+rng.IntN(60))
			default:
				ts += 1000 * int64(200+rng.IntN(500))
			}
			for range 1 + rng.IntN(4) {
				tk := tasks[rng.IntN(len(tasks))]
				node := fmt.Sprintf("n%d:8041", 1+rng.IntN(4))
				att := fmt.Sprintf("%s_%d", tk.id, tk.n)
				switch {
				case tk.state == 0 || tk.state == 3 && rng.IntN(8) == 0 || tk.state == 1 && rng.IntN(4) == 0:
					// Pending; again when done (a lost output) or still pending (other splits: placed again).
					ev := events.Event{Type: events.TaskPending, TS: ts, App: tk.app, Task: tk.id, Kind: events.Map}
					if tk.reduce {
						part := tk.part
						ev.Kind, ev.Partition = events.Reduce, &part
					} else {
						for range rng.IntN(3) {
							ev.Splits = append(ev.Splits, events.Split{Path: "/in", Length: 64e6, Hosts: []string{hosts[rng.IntN(len(hosts))]}})
						}
					}
					list.add(ev)
					tk.state = 1
				case tk.state == 1:
					tk.n++
					att = fmt.Sprintf("%s_%d", tk.id, tk.n)
					list.add(events.Event{Type: events.ContainerAllocated, TS: ts, App: tk.app, Task: tk.id, Attempt: att,
						Container: "c" + att, Node: node})
					tk.state, tk.node = 2, node
				case tk.state == 2:
					list.add(events.Event{Type: events.TaskFinished, TS: ts, App: tk.app, Task: tk.id, Attempt: att, State: events.StateSucceeded})
					if !tk.reduce {
						list.add(events.Event{Type: events.MapOutput, TS: ts, App: tk.app, Task: tk.id, Attempt: att, Node: tk.node,
							Partitions: []events.PartitionSize{{ID: 0, Bytes: int64(1+rng.IntN(9)) * 1e8}, {ID: 1, Bytes: int64(rng.IntN(3)) * 1e8}}})
					}
					tk.state = 3
				}
			}
			if rng.IntN(12) == 0 {
				list.add(events.Event{Type: events.NodeLost, TS: ts, Node: fmt.Sprintf("n%d:8041", 1+rng.IntN(4))})
			}
			if rng.IntN(12) == 0 {
				i := rng.IntN(4)
				list.add(events.Event{Type: events.NodeRegistered, TS: ts, Node: fmt.Sprintf("n%d:8041", i+1),
					Rack: fmt.Sprint("/r", 1+i/2), VCores: 2, MemoryMB: 4096, CPUMHz: 2400})
			}
			for len(tick) < len(list.list) {
				tick = append(tick, 0)
			}
			tick[len(tick)-1] = ts + int64(rng.IntN(1000)) // tick at or just after the step's events
		}
		for i := range list.list {
			var got [2][]policy.Hint
			for k, r := range runs {
				got[k] = r.out(r.e.Apply(ctx, &list.list[i]))
				if tick[i] != 0 {
					got[k] = append(got[k], r.out(r.e.Tick(ctx, tick[i]))...)
				}
			}
			if !reflect.DeepEqual(got[0], got[1]) {
				t.Fatalf("instance %d (%s, other %v first %v), event %d: with InForce\n%+v\nwithout\n%+v",
					iter, name, other, otherFirst, i, got[0], got[1])
			}
		}
		repeats.Add(t, iter, runs[0].e, runs[1].e)
	}
	repeats.Check(t)
}
