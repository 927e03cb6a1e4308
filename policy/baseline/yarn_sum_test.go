package baseline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// TestYARNSumsMatchRecords holds each job's summaries (kindSum), as kept up
// to date event by event, to its records after every event of random
// streams: the counts exactly, the best record and its end exactly unless
// marked dirty (then its end still bounds every record's), the least
// progress time from below. And at random times around the stream's, a
// scan's counts and best task from the summaries (summed) to those of the
// pass over the records (scanRecords) whenever summed says it can answer.
func TestYARNSumsMatchRecords(t *testing.T) {
	ctx := context.Background()
	configs := map[string]func(*YARNConfig){
		"defaults": func(*YARNConfig) {},
		"no gate, short windows": func(c *YARNConfig) {
			c.MinimumCompleteNumber, c.MinimumCompleteProportion = 0, 0
			c.RetryAfterNoSpeculateMS, c.RetryAfterSpeculateMS, c.StagnationMS = 0, 3_000, 2_000
		},
	}
	summed, passes, withBest, dirty := 0, 0, 0, 0
	for name, tweak := range configs {
		for seed := range uint64(15) {
			cfg := DefaultYARNConfig()
			tweak(&cfg)
			g := &yarnStream{r: rand.New(rand.NewPCG(seed, 17)), now: 1_000_000, tasks: map[string][]string{}}
			st := cluster.New()
			p := &YARN{cfg: cfg, durations: taskstat.NewDurations(), jobs: map[*cluster.App]*yarnJob{}}
			for step := range 3000 {
				ev := g.next()
				if g.r.IntN(20) == 0 {
					g.now += 500 * int64(g.r.IntN(8))
					if g.r.IntN(10) == 0 {
						g.now += 10_000 // long enough for attempts to stall
					}
				}
				if !st.Apply(&ev) {
					continue
				}
				p.Observe(ctx, &ev, st)
				where := fmt.Sprintf("%s seed %d step %d", name, seed, step)
				for a, j := range p.jobs {
					checkSums(t, where+" app "+a.ID, j)
					if j.sum[0].dirty || j.sum[1].dirty {
						dirty++
					}
				}
				if step%5 == 0 {
					p.Speculate(ctx, st) // proposals mark records
				}
				if step%3 != 0 {
					continue
				}
				now := st.Now() + int64(g.r.IntN(4))*1_000 - 1_000
				for a, j := range p.jobs {
					o := openJob{a: a, j: j}
					o.ks = [2]kindScan{{kind: events.Map}, {kind: events.Reduce}}
					open := false
					for k := range o.ks {
						open = p.gate(a, j, k, &o.ks[k], now) || open
					}
					if !open {
						continue
					}
					fromSums, fromRecords := o.ks, o.ks
					passes++
					if !p.summed(j, &fromSums, now) {
						continue
					}
					summed++
					p.scanRecords(j, &fromRecords, now)
					if fromSums != fromRecords {
						t.Fatalf("%s app %s at %d: from the summaries %+v, from the records %+v", where, a.ID, now, fromSums, fromRecords)
					}
					if fromSums[0].best >= 0 || fromSums[1].best >= 0 {
						withBest++
					}
					checkSums(t, where+" after summed, app "+a.ID, j)
				}
			}
		}
	}
	t.Logf("%d of %d job scans from the summaries, %d with a best task; %d dirty summaries seen", summed, passes, withBest, dirty)
	if summed < passes/4 || withBest < 500 || dirty < 100 {
		t.Fatalf("the streams exercise too little: %d of %d scans summed, %d with a best, %d dirty", summed, passes, withBest, dirty)
	}
}

// checkSums holds j's summaries to its records.
func checkSums(t *testing.T, where string, j *yarnJob) {
	t.Helper()
	for k := range j.sum {
		s := j.sum[k]
		var running, multi int32
		best, bestEnd, least := int32(-1), int64(0), int64(math.MaxInt64)
		for i, r := range j.tasks {
			if int(r.kind) != k || r.running == 0 {
				continue
			}
			running++
			if r.running > 1 {
				multi++
				continue
			}
			if r.progTS > 0 {
				least = min(least, r.progTS)
			}
			if best < 0 || r.end > bestEnd {
				best, bestEnd = int32(i), r.end
			}
		}
		if s.running != running || s.multi != multi {
			t.Fatalf("%s kind %d: counted %d running, %d with two attempts; the records %d, %d", where, k, s.running, s.multi, running, multi)
		}
		if s.staleFrom > least {
			t.Fatalf("%s kind %d: staleFrom %d above the least progress time %d", where, k, s.staleFrom, least)
		}
		if s.dirty {
			if best >= 0 && s.bestEnd < bestEnd {
				t.Fatalf("%s kind %d: dirty bound %d below the greatest end %d (record %d)", where, k, s.bestEnd, bestEnd, best)
			}
			continue
		}
		if s.best != best || (best >= 0 && s.bestEnd != bestEnd) {
			t.Fatalf("%s kind %d: best %d end %d, the records' %d end %d", where, k, s.best, s.bestEnd, best, bestEnd)
		}
	}
}
