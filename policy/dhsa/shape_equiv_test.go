package dhsa

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
)

// shapeWorld drives a cluster with random events: nodes of a few sizes come
// and go, apps in many queues submit, start and end tasks, time moves.
type shapeWorld struct {
	r       *rand.Rand
	b       *clustertest.Builder
	nodes   []string
	up      map[string]bool
	vcores  map[string]int
	apps    []string
	done    map[string]bool
	pending map[string][]string // app -> pending task ids
	kinds   map[string]events.TaskKind
	running []string // attempts
	seq     int
}

func newShapeWorld(seed uint64, retain bool) *shapeWorld {
	w := &shapeWorld{r: rand.New(rand.NewPCG(seed, 7)), b: clustertest.New(1_000_000), up: map[string]bool{},
		vcores: map[string]int{}, done: map[string]bool{}, pending: map[string][]string{}, kinds: map[string]events.TaskKind{}}
	if retain { // as the simulator keeps it: finished apps are forgotten at once
		w.b.State = cluster.New(cluster.WithRetention(cluster.Retention{AfterMS: 1}))
	}
	for range 4 {
		w.addNode()
	}
	return w
}

func (w *shapeWorld) addNode() events.Event {
	id := fmt.Sprintf("n%d", len(w.nodes))
	if len(w.nodes) > 0 && w.r.IntN(2) == 0 { // a lost node comes back
		id = w.nodes[w.r.IntN(len(w.nodes))]
	} else {
		w.nodes = append(w.nodes, id)
		w.vcores[id] = []int{4, 8, 12}[w.r.IntN(3)]
	}
	w.up[id] = true
	ev := events.Event{Type: events.NodeRegistered, Node: id, Rack: "r1", VCores: w.vcores[id], MemoryMB: 65536}
	w.b.Apply(ev)
	return ev
}

// step applies one random event and returns it (false: a tick, no event).
func (w *shapeWorld) step() (events.Event, bool) {
	w.b.At(w.b.Now() + int64(w.r.IntN(4000)))
	var live []string
	for _, a := range w.apps {
		if !w.done[a] {
			live = append(live, a)
		}
	}
	var upNodes []string
	for _, n := range w.nodes {
		if w.up[n] {
			upNodes = append(upNodes, n)
		}
	}
	w.seq++
	switch k := w.r.IntN(100); {
	case k < 2:
		return w.addNode(), true
	case k < 4 && len(upNodes) > 1:
		n := upNodes[w.r.IntN(len(upNodes))]
		w.up[n] = false
		ev := events.Event{Type: events.NodeLost, Node: n, Reason: "gone"}
		w.b.Apply(ev)
		return ev, true
	case k < 10 || len(live) == 0:
		id := fmt.Sprintf("app%d", len(w.apps))
		w.apps = append(w.apps, id)
		q := []string{"", "default", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}[w.r.IntN(12)]
		ev := events.Event{Type: events.AppSubmitted, App: id, Name: id, Queue: q, User: "u", Maps: 10, Reduces: 3}
		w.b.Apply(ev)
		return ev, true
	case k < 13:
		a := live[w.r.IntN(len(live))]
		w.done[a] = true
		ev := events.Event{Type: events.AppFinished, App: a, State: "SUCCEEDED"}
		w.b.Apply(ev)
		return ev, true
	case k < 45:
		a := live[w.r.IntN(len(live))]
		kind := events.Map
		if w.r.IntN(3) == 0 {
			kind = events.Reduce
		}
		task := fmt.Sprintf("task_%s_%s_%d", a, kind, w.seq)
		w.kinds[task] = kind
		w.pending[a] = append(w.pending[a], task)
		ev := events.Event{Type: events.TaskPending, App: a, Task: task, Kind: kind}
		w.b.Apply(ev)
		return ev, true
	case k < 70:
		a := live[w.r.IntN(len(live))]
		if len(w.pending[a]) == 0 || len(upNodes) == 0 {
			return events.Event{}, false
		}
		i := w.r.IntN(len(w.pending[a]))
		task := w.pending[a][i]
		w.pending[a] = append(w.pending[a][:i], w.pending[a][i+1:]...)
		att := fmt.Sprintf("att_%d", w.seq)
		w.b.Start(a, task, w.kinds[task], att, upNodes[w.r.IntN(len(upNodes))], false)
		w.running = append(w.running, att)
		return w.b.Log[len(w.b.Log)-1], true
	case k < 90:
		if len(w.running) == 0 {
			return events.Event{}, false
		}
		i := w.r.IntN(len(w.running))
		att := w.running[i]
		w.running = append(w.running[:i], w.running[i+1:]...)
		w.b.Finish(att, []string{"SUCCEEDED", "SUCCEEDED", "FAILED", "KILLED"}[w.r.IntN(4)], nil)
		return w.b.Log[len(w.b.Log)-1], true
	case k < 95 && len(upNodes) > 0:
		w.b.Heartbeat(upNodes[w.r.IntN(len(upNodes))], 2, 2048)
		return w.b.Log[len(w.b.Log)-1], true
	}
	return events.Event{}, false
}

func sameHints(a, b []policy.Hint) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// Shape with its caches (the last allocation and its hints, node caps kept
// by inputs, the reused demand buffers and queue index) returns exactly
// what the straightforward Shape it replaced returns (refPlugin: every app
// read, every allocation and hint built at each call), hint for hint and
// reason for reason, over random event streams and configurations.
func TestShapeSameAsRef(t *testing.T) {
	type variant struct {
		name string
		cfg  func(*Config)
	}
	variants := []variant{
		{"defaults", func(*Config) {}},
		{"scope app", func(c *Config) { c.Scope = ScopeApp }},
		{"no node caps", func(c *Config) { c.NodeCaps = false }},
		{"fixed slots, weights, pools", func(c *Config) {
			c.MapSlots, c.ReduceSlots = 1, 3
			c.MapSlotWeight, c.ReduceSlotWeight = 1, 2
			c.Pools = map[string]float64{"a": 3, "c": 0.5, "default": 2}
		}},
		{"half borrowed, no ramp-up, fast refresh", func(c *Config) {
			c.PercentageOfBorrowedMapSlots, c.PercentageOfBorrowedReduceSlots = 0.5, 0.25
			c.ReduceRampupLimit = 0
			c.NodeCapsRefresh = 5 * time.Second
		}},
	}
	for _, name := range []string{NamePI, NamePD} {
		for _, vr := range variants {
			for seed := range uint64(4) {
				t.Run(fmt.Sprintf("%s/%s/%d", name, vr.name, seed), func(t *testing.T) {
					cfg := DefaultConfig()
					vr.cfg(&cfg)
					p, err := New(name, cfg)
					if err != nil {
						t.Fatal(err)
					}
					ref := &refPlugin{name: name, cfg: cfg}
					w := newShapeWorld(seed, seed%2 == 1)
					ctx := context.Background()
					calls := 0
					for i := range 3000 {
						ev, ok := w.step()
						if ok && (ev.Type == events.NodeLost || ev.Type == events.NodeRegistered) && w.r.IntN(2) == 0 {
							ok = false // a node change neither saw: shaped on the tick alone
						}
						if ok {
							on, refOn := p.ShapeOn(&ev), ref.ShapeOn(&ev)
							if on != refOn {
								t.Fatalf("step %d %s: ShapeOn = %v, reference %v", i, ev.Type, on, refOn)
							}
							if !on {
								continue
							}
						} // no event: a tick, which shapes too
						calls++
						hs, st := p.Shape(ctx, w.b.State)
						want, wantSt := ref.Shape(ctx, w.b.State)
						if st.Code() != wantSt.Code() || st.Message() != wantSt.Message() {
							t.Fatalf("step %d: status %v %q, reference %v %q", i, st.Code(), st.Message(), wantSt.Code(), wantSt.Message())
						}
						if !sameHints(hs, want) {
							t.Fatalf("step %d (%s):\n got %+v\nwant %+v", i, ev.Type, hs, want)
						}
						a, s, what := p.Allocate(w.b.State)
						ra, rs, rwhat := ref.Allocate(w.b.State)
						if !reflect.DeepEqual(a, ra) || s != rs || what != rwhat {
							t.Fatalf("step %d: Allocate = %+v %v %q, reference %+v %v %q", i, a, s, what, ra, rs, rwhat)
						}
					}
					if calls < 1000 {
						t.Fatalf("only %d Shape calls", calls)
					}
				})
			}
		}
	}
}
