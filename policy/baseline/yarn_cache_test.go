package baseline

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// TestYARNAtAppIsTheJobsRecords holds the records a scan finds by an app's
// index (YARN.atApp) to those the map of jobs holds for that app, after
// every scan of random streams where apps start, finish (their records are
// forgotten) and are re-read, and where the speculator joins mid-stream.
func TestYARNAtAppIsTheJobsRecords(t *testing.T) {
	ctx := context.Background()
	checked, linked := 0, 0
	for seed := range uint64(20) {
		g := &yarnStream{r: rand.New(rand.NewPCG(seed, 13)), now: 1_000_000, tasks: map[string][]string{}}
		st := cluster.New()
		cfg := DefaultYARNConfig()
		cfg.RetryAfterNoSpeculateMS, cfg.RetryAfterSpeculateMS = 0, 0 // scan at every call
		newYARN := func() *YARN {
			return &YARN{cfg: cfg, durations: taskstat.NewDurations(), jobs: map[*cluster.App]*yarnJob{}}
		}
		ps := []*YARN{newYARN()}
		for step := range 3000 {
			if step == 1000 {
				ps = append(ps, newYARN())
			}
			ev := g.next()
			if g.r.IntN(20) == 0 {
				g.now += 500 * int64(g.r.IntN(8))
			}
			if !st.Apply(&ev) {
				continue
			}
			for _, p := range ps {
				p.Observe(ctx, &ev, st)
			}
			if step%5 != 0 {
				continue
			}
			for k, p := range ps {
				p.Speculate(ctx, st)
				for i, a := range st.Apps() {
					j := p.atApp[i]
					if a.Finished() {
						if j != nil {
							t.Fatalf("seed %d step %d speculator %d: finished app %s keeps records", seed, step, k, a.ID)
						}
						continue
					}
					if want := p.jobs[a]; j != want || j.app == nil || len(j.tasks) != len(a.Tasks) {
						t.Fatalf("seed %d step %d speculator %d: app %s: records %p, the map's %p", seed, step, k, a.ID, j, want)
					}
					for ki, kind := range [2]events.TaskKind{events.Map, events.Reduce} {
						// Found ahead of the gate or by it: always the app's own.
						if c := j.counts[ki]; c != nil && c != a.Count[kind] {
							t.Fatalf("seed %d step %d: app %s %s: counters %p, the app's %p", seed, step, a.ID, kind, c, a.Count[kind])
						}
						if s := j.stats[ki]; s != nil && s != p.durations.Live(a.ID, kind) {
							t.Fatalf("seed %d step %d: app %s %s: statistics %p, live %p", seed, step, a.ID, kind, s, p.durations.Live(a.ID, kind))
						}
						if j.stats[ki] != nil {
							linked++
						}
					}
					checked++
				}
			}
		}
	}
	if checked < 10_000 || linked < 1_000 {
		t.Fatalf("only %d app records checked, %d with statistics", checked, linked)
	}
}
