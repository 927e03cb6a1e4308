package prescheduling

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// FairOrder with its kept queues gives the order it gave before. The index of pending maps (fed by Observe, as the engine feeds it: every
// event that changed the state) answers localMaps exactly as the scan of
// every task does, and the kept cluster map slots equal the sum over the
// nodes, on random streams: maps pending on random hosts (some with ports),
// allocated, failed back to pending, killed, finished; tasks first seen by
// their attempt, re-pended with other splits or another kind; apps ending
// and forgotten (the simulator's retention); nodes registering and lost.
func TestPendingIndexSameAsScan(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 11))
			st := cluster.New(cluster.WithRetention(cluster.Retention{AfterMS: 1}))
			p, err := New(DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			ref, _ := New(DefaultConfig())
			ctx := context.Background()
			now, seq := int64(1_000_000), 0
			apply := func(ev events.Event) {
				seq++
				ev.V, ev.ID, ev.TS = events.Version, fmt.Sprintf("e%08d", seq), now
				if st.Apply(&ev) {
					p.Observe(ctx, &ev, st)
				}
			}
			hosts := []string{"h0", "h1", "h2", "h3", "h4", "h5", "h1:8041", "h2:9"}
			nodeIDs := []string{"h0", "h1", "h2", "h3", "h4:8041", "h5:8041", "h1:8041", "h2:9"}
			for _, id := range nodeIDs[:5] {
				apply(events.Event{Type: events.NodeRegistered, Node: id, Rack: "r", VCores: 4 + 4*r.IntN(2), MemoryMB: 16384})
			}
			var apps []string
			var tasks [][2]string // app, task
			var running [][3]string
			checks := 0
			for step := range 6000 {
				now += int64(r.IntN(50))
				switch k := r.IntN(100); {
				case k < 4 || len(apps) == 0:
					id := fmt.Sprintf("app%d", len(apps))
					apps = append(apps, id)
					apply(events.Event{Type: events.AppSubmitted, App: id, Name: id, Queue: []string{"q", "a", "b", ""}[r.IntN(4)], User: "u", Maps: 5})
				case k < 6:
					apply(events.Event{Type: events.AppFinished, App: apps[r.IntN(len(apps))], State: "SUCCEEDED"})
				case k < 8:
					id := nodeIDs[r.IntN(len(nodeIDs))]
					if r.IntN(2) == 0 {
						apply(events.Event{Type: events.NodeLost, Node: id, Reason: "x"})
					} else {
						apply(events.Event{Type: events.NodeRegistered, Node: id, Rack: "r", VCores: 4 + 4*r.IntN(2), MemoryMB: 16384})
					}
				case k < 40:
					a := apps[r.IntN(len(apps))]
					task := fmt.Sprintf("task_%s_m_%d", a, step)
					kind := events.Map
					if len(tasks) > 0 && r.IntN(8) == 0 { // again, maybe another kind, other splits
						at := tasks[r.IntN(len(tasks))]
						a, task = at[0], at[1]
						if r.IntN(3) == 0 {
							kind = events.Reduce
						}
					} else {
						tasks = append(tasks, [2]string{a, task})
					}
					var splits []events.Split
					for range r.IntN(3) {
						splits = append(splits, events.Split{Path: "/in", Hosts: []string{hosts[r.IntN(len(hosts))], hosts[r.IntN(len(hosts))]}})
					}
					apply(events.Event{Type: events.TaskPending, App: a, Task: task, Kind: kind, Splits: splits})
				case k < 70 && len(tasks) > 0:
					at := tasks[r.IntN(len(tasks))]
					att := fmt.Sprintf("att_%d", step)
					if r.IntN(10) == 0 { // an attempt of a task not seen pending
						at[1] = fmt.Sprintf("task_%s_m_x%d", at[0], step)
					}
					apply(events.Event{Type: events.ContainerAllocated, App: at[0], Task: at[1], Attempt: att,
						Container: "c_" + att, Node: nodeIDs[r.IntN(len(nodeIDs))], VCores: 1, MemoryMB: 1024 + 512*r.IntN(2)})
					running = append(running, [3]string{at[0], at[1], att})
				case k < 90 && len(running) > 0:
					i := r.IntN(len(running))
					at := running[i]
					running = slices.Delete(running, i, i+1)
					apply(events.Event{Type: events.TaskFinished, App: at[0], Task: at[1], Attempt: at[2],
						State: []string{"SUCCEEDED", "FAILED", "KILLED"}[r.IntN(3)]})
				default:
					// A heartbeat: learn the map size as Assign does, then compare.
					n := st.Node(nodeIDs[r.IntN(5)])
					if n == nil {
						continue
					}
					p.learnMapMB(n)
					ref.mapMB = p.mapMB
					if got, want := p.FairOrder(st), refFairOrder(p, st); !reflect.DeepEqual(got, want) {
						t.Fatalf("step %d: FairOrder = %+v, reference %+v", step, got, want)
					}
					if got, want := p.clusterMapSlots(st), ref.clusterMapSlots(st); got != want {
						t.Fatalf("step %d: clusterMapSlots = %d, sum over the nodes %d", step, got, want)
					}
					for _, a := range st.Apps() {
						for _, id := range nodeIDs {
							m := &cluster.Node{ID: id}
							limit := []int{1, 2, 5, 100}[r.IntN(4)]
							if got, want := p.localMaps(a, m, limit), localMaps(a, m, limit); !slices.Equal(got, want) {
								t.Fatalf("step %d: app %s node %s limit %d: index %v, scan %v", step, a.ID, id, limit, ids(got), ids(want))
							}
							checks++
						}
					}
				}
			}
			if !p.pend.on || checks < 1000 {
				t.Fatalf("index on %v after %d checks", p.pend.on, checks)
			}
		})
	}
}

// refFairOrder is FairOrder as it was (0aff071), the reference.
func refFairOrder(p *Plugin, v cluster.View) []fairJob {
	type queue struct {
		name    string
		running int
		jobs    []*cluster.App // with pending maps
	}
	byName := map[string]*queue{}
	var queues []*queue
	running := func(a *cluster.App) int { return a.Count[events.Map].Running + a.Count[events.Reduce].Running }
	for _, a := range v.Apps() {
		if a.Finished() {
			continue
		}
		q := byName[a.Queue]
		if q == nil {
			q = &queue{name: a.Queue}
			byName[a.Queue] = q
			queues = append(queues, q)
		}
		q.running += running(a)
		if a.Count[events.Map].Pending > 0 {
			q.jobs = append(q.jobs, a)
		}
	}
	queues = slices.DeleteFunc(queues, func(q *queue) bool { return len(q.jobs) == 0 })
	slices.SortStableFunc(queues, func(a, b *queue) int {
		if c := cmp.Compare(float64(a.running)/p.weight(a.name), float64(b.running)/p.weight(b.name)); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	var out []fairJob
	for _, q := range queues {
		slices.SortStableFunc(q.jobs, func(a, b *cluster.App) int {
			if c := cmp.Compare(running(a), running(b)); c != 0 {
				return c
			}
			if c := cmp.Compare(a.SubmitTS, b.SubmitTS); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
		for _, a := range q.jobs {
			out = append(out, fairJob{app: a, queue: q.name, running: running(a),
				queueUse: float64(q.running) / p.weight(q.name), queueJobs: len(q.jobs)})
		}
	}
	return out
}

func ids(ts []*cluster.Task) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.ID)
	}
	return out
}
