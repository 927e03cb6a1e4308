package tmar

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Random adds, drops and in-place replacements between reads, apps with
// equal submission times, ids that sort differently by app and by task:
// resOrder.sorted is the live reservations sorted from scratch, for both
// orders.
func TestResOrderSameAsSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	for iter := range 300 {
		apps := make([]*cluster.App, 1+rng.IntN(4))
		for k := range apps {
			apps[k] = &cluster.App{ID: fmt.Sprint("app", (7*k+iter)%10), SubmitTS: int64(rng.IntN(3))} // ids unique
		}
		for _, cmpf := range []func(a, b *reservation) int{byTaskID, bySubmission} {
			o := resOrder{cmp: cmpf}
			live := map[string]*reservation{}
			for step := range 60 {
				switch rng.IntN(4) {
				case 0, 1:
					id := fmt.Sprintf("task_%d_%03d", rng.IntN(5), rng.IntN(200))
					if r, ok := live[id]; ok {
						r.finish = float64(step) // replaced in place: keeps its place
						continue
					}
					// A task id is unique to its app.
					r := &reservation{task: &cluster.Task{ID: id, App: apps[int(id[5]-'0')%len(apps)]}}
					live[id] = r
					o.add(r)
				case 2:
					for id, r := range live {
						if rng.IntN(3) == 0 {
							delete(live, id)
							r.dead = true
						}
					}
				default:
					want := make([]*reservation, 0, len(live))
					for _, r := range live {
						want = append(want, r)
					}
					slices.SortFunc(want, cmpf)
					if got := o.sorted(); !slices.Equal(got, want) {
						t.Fatalf("instance %d step %d: sorted differs:\n got %v\nwant %v", iter, step, ids(got), ids(want))
					}
				}
			}
		}
	}
}

func ids(rs []*reservation) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.task.ID
	}
	return out
}

// Maps pending with splits on random hosts, nodes registering in other
// racks (a new node index) and leaving, maps pending again with other
// splits, ticks between: the locality holdLocality keeps for a hold is
// localityOn's at every tick, the re-plan's MapTask of a map is the one
// made afresh, and holds gives holdsRef's hints.
func TestHoldsSameAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	for iter := range 40 {
		e, p := build(t, Name, nil)
		p.UseInForce(nil) // every hold, as holdsRef (TestInForceSameEmitted checks the one left out)
		ctx := context.Background()
		var list evs
		cluster3(&list)
		for i := range list.list {
			e.Apply(ctx, &list.list[i])
		}
		ts := int64(3000)
		hosts := []string{"n1", "n2", "n3", "n4", "n5", "elsewhere"}
		for step := range 80 {
			ts += int64(rng.IntN(4)) * 500
			var ev events.Event
			switch rng.IntN(8) {
			case 0:
				n := fmt.Sprintf("n%d:8041", 4+rng.IntN(2))
				ev = events.Event{Type: events.NodeRegistered, Node: n, Rack: fmt.Sprint("/r", 1+rng.IntN(2)),
					VCores: 2, MemoryMB: 4096, CPUMHz: 2400}
			case 1:
				ev = events.Event{Type: events.NodeLost, Node: fmt.Sprintf("n%d:8041", 1+rng.IntN(5))}
			default:
				var sp []events.Split
				for range rng.IntN(3) {
					sp = append(sp, events.Split{Path: "/in", Length: 64e6, Hosts: []string{hosts[rng.IntN(len(hosts))]}})
				}
				ev = events.Event{Type: events.TaskPending, App: "a1", Task: mapTask(rng.IntN(12)), Kind: events.Map, Splits: sp}
			}
			ev.TS = ts
			list.addApply(ctx, e, ev)
			e.Tick(ctx, ts)
			for _, r := range p.byID.sorted() {
				if got, want := p.holdLocality(r, e.State()), p.localityOn(r.task, r.node, e.State()); got != want {
					t.Fatalf("instance %d step %d: %s on %s: holdLocality %q, localityOn %q", iter, step, r.task.ID, r.node, got, want)
				}
			}
			for _, r := range p.bySubmit.sorted() {
				if got, want := p.mapTaskOf(r, p.hostIdx), mapTaskRef(p, r.task); !reflect.DeepEqual(got, want) {
					t.Fatalf("instance %d step %d: %s: mapTaskOf %+v, want %+v", iter, step, r.task.ID, got, want)
				}
			}
			if got, want := p.holds(e.State()), holdsRef(p, e.State()); (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) {
				t.Fatalf("instance %d step %d: holds\n got %+v\nwant %+v", iter, step, got, want)
			}
		}
	}
}

// holdsRef is holds before its orders, locality cache and shared buffers:
// the reservations sorted by task id, one hint each.
func holdsRef(p *Plugin, v cluster.View) []policy.Hint {
	now := float64(v.Now()) / 1000
	var rs []*reservation
	for _, r := range p.reserved {
		if r.finish > now && r.task.State == cluster.TaskPending {
			rs = append(rs, r)
		}
	}
	slices.SortFunc(rs, func(a, b *reservation) int { return strings.Compare(a.task.ID, b.task.ID) })
	out := make([]policy.Hint, 0, len(rs))
	for _, r := range rs {
		nodes := []policy.NodeScore{{Node: r.node, Score: 1, Locality: p.localityOn(r.task, r.node, v)}}
		for _, a := range r.alts {
			nodes = append(nodes, policy.NodeScore{Node: a, Score: 1, Locality: nodes[0].Locality})
		}
		out = append(out, policy.Hint{Kind: policy.KindPlace, App: r.task.App.ID, Task: r.task.ID, Strict: true,
			Nodes:  nodes,
			Reason: "TMaR plan: finishes at +" + strconv.FormatFloat(r.finish-now, 'f', 1, 64) + "s there (Algorithms 1, 3)"})
	}
	return out
}

// copiedBind is TMaR with its Bind hints not declared scratch: the engine
// copies them, as before HintsAreScratch.
type copiedBind struct{ *Plugin }

func (copiedBind) HintsAreScratch() bool { return false }

// Bind's slice is reused by the next call: the engine stamps the hints where
// they are and a Tick returns them from TMaR's buffer, and they must stay as
// they were while Apply runs until the next Tick (the simulator applies them
// and the events they cause without a copy). They must be the hints an
// engine that copies them returns, tick after tick (holds, reduce
// bindings, repeats the engine drops).
func TestEngineKeepsBindHintsInPlace(t *testing.T) {
	ctx := context.Background()
	var plugins [2]*Plugin
	var engines [2]*engine.Engine
	for k := range engines {
		p, err := New(ctx, policy.Handle{})
		if err != nil {
			t.Fatal(err)
		}
		plugins[k] = p.(*Plugin)
		var in policy.Plugin = plugins[k]
		if k == 1 {
			in = copiedBind{plugins[k]}
		}
		engines[k] = engine.New(policy.NewStack(in), engine.Options{ManualTick: true})
	}
	var list evs
	cluster3(&list)
	for k := range 9 {
		list.add(events.Event{Type: events.TaskPending, TS: 2000, App: "a1", Task: mapTask(k), Kind: events.Map,
			Splits: []events.Split{{Path: "/in", Length: 64e6, Hosts: []string{fmt.Sprint("n", 1+k%3)}}}})
	}
	apply := func(ev *events.Event) {
		a, b := *ev, *ev
		if x, y := engines[0].Apply(ctx, &a), engines[1].Apply(ctx, &b); (len(x) > 0 || len(y) > 0) && !reflect.DeepEqual(x, y) {
			t.Fatalf("%s: in place %+v, copied %+v", ev.ID, x, y)
		}
	}
	for i := range list.list {
		apply(&list.list[i])
	}
	n, inPlace := 0, 0
	for ts := int64(3000); ts < 200_000; ts += 1000 {
		hs, want := engines[0].Tick(ctx, ts), engines[1].Tick(ctx, ts)
		if (len(hs) > 0 || len(want) > 0) && !reflect.DeepEqual(hs, want) {
			t.Fatalf("at %d ms: in place %+v, copied %+v", ts, hs, want)
		}
		if len(hs) > 0 && &hs[0] == &plugins[0].hintBuf[0] {
			inPlace++
		}
		kept := slices.Clone(hs)
		// Events between ticks, as the hints' own would be: a map starts
		// (and one more is pending) every few seconds.
		if k := int(ts / 1000); k%4 == 0 && k/4 < 9 {
			var more evs
			more.n = len(list.list) + int(ts)
			more.add(events.Event{Type: events.ContainerAllocated, TS: ts, App: "a1", Task: mapTask(k / 4),
				Attempt: mapTask(k/4) + "_0", Container: fmt.Sprint("c", k), Node: fmt.Sprint("n", 1+k%3, ":8041"),
				VCores: 1, MemoryMB: 1024})
			more.add(events.Event{Type: events.TaskPending, TS: ts, App: "a1", Task: mapTask(9 + k/4), Kind: events.Map,
				Splits: []events.Split{{Path: "/in", Length: 64e6, Hosts: []string{fmt.Sprint("n", 1+k%3)}}}})
			for i := range more.list {
				apply(&more.list[i])
			}
		}
		if !reflect.DeepEqual(hs, kept) {
			t.Fatalf("at %d ms: a tick's hints changed under Apply:\n got %+v\nwant %+v", ts, hs, kept)
		}
		n += len(hs)
	}
	t.Logf("%d hints, %d ticks in place", n, inPlace)
	if n == 0 || inPlace == 0 {
		t.Fatalf("%d hints, %d ticks in place: nothing checked", n, inPlace)
	}
}

// mapTaskRef is the re-plan's MapTask as it made it for every map at every
// tick, before mapTaskOf kept it.
func mapTaskRef(p *Plugin, t *cluster.Task) MapTask {
	var mt MapTask
	for _, sp := range t.Splits {
		for _, h := range sp.Hosts {
			if i, ok := p.hostIdx[h]; ok && !slices.Contains(mt.Local, i) {
				mt.Local = append(mt.Local, i)
			}
		}
	}
	slices.Sort(mt.Local)
	mt.Read = [3]float64{0, p.readCost(t, events.RackLocal), p.readCost(t, events.OffRack)}
	return mt
}
