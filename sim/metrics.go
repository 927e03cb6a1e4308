package sim

import (
	"encoding/binary"
	"math"
	"sort"

	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/sim/report"
)

// extraReporter is a plugin that adds figures to results.json's run
// "extra" (policy/learning's Extra).
type extraReporter interface{ Extra() map[string]float64 }

type sample struct {
	t          int64
	maps, reds int
}

// timeline is the running maps and reduces at every change, delta-encoded
// (time, maps and reduces as varints) so a day of millions of launches
// costs a few bytes per change instead of a 24-byte sample. The newest
// sample stays decoded: changes at the same millisecond overwrite it.
type timeline struct {
	buf  []byte
	last sample // newest sample; valid when n > 0
	prev sample // the sample encoded last (the base of the next delta)
	n    int
}

func (tl *timeline) add(smp sample) {
	if tl.n > 0 && tl.last.t == smp.t {
		tl.last = smp
		return
	}
	if tl.n > 0 {
		tl.flush()
	}
	tl.last = smp
	tl.n++
}

// flush encodes the newest sample.
func (tl *timeline) flush() {
	l := tl.last
	tl.buf = binary.AppendUvarint(tl.buf, uint64(l.t-tl.prev.t))
	tl.buf = binary.AppendVarint(tl.buf, int64(l.maps-tl.prev.maps))
	tl.buf = binary.AppendVarint(tl.buf, int64(l.reds-tl.prev.reds))
	tl.prev = l
}

// each calls f with every sample in time order.
func (tl *timeline) each(f func(sample)) {
	var cur sample
	for b := tl.buf; len(b) > 0; {
		dt, k := binary.Uvarint(b)
		b = b[k:]
		dm, k := binary.Varint(b)
		b = b[k:]
		dr, k := binary.Varint(b)
		b = b[k:]
		cur = sample{t: cur.t + int64(dt), maps: cur.maps + int(dm), reds: cur.reds + int(dr)}
		f(cur)
	}
	if tl.n > 0 {
		f(tl.last)
	}
}

// metrics are the run's counters; results turns them into a report.Run.
type metrics struct {
	simEvents, engineEvents uint64
	byKind                  [evPolicyTick + 1]uint64
	writeErr                error

	launched                 int // attempts launched (benchmarks' per-attempt figures)
	tasksDone                int // tasks finished (Progress)
	runMaps, runReds         int
	timeline                 timeline
	locNode, locRack, locOff int
	specLaunched, specWon    int
	specLost                 int // speculative copies killed because the original finished first
	specDropped              int // queued copies that expired or became moot
	specIgnored              int // speculate hints for tasks not running or already backed up
	killed                   int
	wastedS                  float64
	crossRackBytes           int64
	containerMS              float64
	overCapacity             int
	bindReducers             int
	passedOver               int // maps launched while a job ahead in fair order waited for locality
	chunksPolled             int // rack-fetch output chunks reducers took from summaries (tests)
	hints                    map[policy.HintKind]int
}

func (m *metrics) sample(t int64) {
	m.timeline.add(sample{t, m.runMaps, m.runReds})
}

// closeAccounts brings every node's energy and busy time up to now.
func (s *sim) closeAccounts() {
	for _, n := range s.nodes {
		s.account(n)
	}
}

// results summarises the run. Times run from the first submission to the
// last job's end (the makespan window); see docs/simulator.md.
func (s *sim) results() report.Run {
	r := report.Run{Policy: s.stack, Hints: map[string]int{}, Extra: map[string]float64{}, Unfinished: len(s.sc.Jobs) - s.doneJobs}
	if len(s.jobs) == 0 {
		if r.Unfinished > 0 {
			r.Jobs = []report.Job{} // interrupted before any job: "jobs": [], not null
		}
		r.Detail = s.detailResult(s.now)
		return r
	}
	// An interrupted run (Unfinished > 0) counts the jobs it finished; its
	// window ends at the simulated time it reached.
	first, last := int64(math.MaxInt64), int64(0)
	jcts := make([]float64, 0, s.doneJobs)
	var sumX, sumX2 float64
	mapSlots, redSlots := -1, -1 // the cluster's slots (idealS), counted at the first finished job
	r.Jobs = make([]report.Job, 0, s.doneJobs)
	for _, j := range s.jobs {
		first = min(first, j.submitMS)
		if !j.finished {
			continue
		}
		last = max(last, j.finishMS)
		jct := float64(j.finishMS-j.submitMS) / 1000
		jcts = append(jcts, jct)
		r.Jobs = append(r.Jobs, report.Job{Name: j.spec.Name, SubmitS: float64(j.submitMS) / 1000, FinishS: float64(j.finishMS) / 1000,
			Type: j.spec.Type, Maps: j.nMaps, Reduces: j.nReds, RecordedS: j.spec.RecordedS})
		// Jain's index is over per-job speed x = ideal / JCT, ideal being
		// the DynamicMR §3.2.2 form on the whole cluster with the job's
		// mean task times, without shuffle: ceil(N_M/S_M)·t̄_M + ceil(N_R/S_R)·t̄_R.
		if jct > 0 {
			if mapSlots < 0 {
				// Once per run, not per job: two passes over the nodes
				// for each of a day's 24,442 jobs on 3,000 nodes.
				mapSlots, redSlots = s.slots(s.sc.YARN.MapContainer), s.slots(s.sc.YARN.ReduceContainer)
			}
			x := min(1, idealS(j, mapSlots, redSlots)/jct)
			sumX += x
			sumX2 += x * x
		}
	}
	if r.Unfinished > 0 {
		last = max(last, s.now, first)
	}
	span := last - first
	r.MakespanS = float64(span) / 1000
	var sum float64
	for _, v := range jcts {
		sum += v
	}
	if len(jcts) > 0 {
		r.MeanJCTS = sum / float64(len(jcts))
		sort.Float64s(jcts)
		r.P50JCTS = jcts[max(0, int(math.Ceil(0.5*float64(len(jcts))))-1)] // nearest rank, as p95
		r.P95JCTS = jcts[max(0, int(math.Ceil(0.95*float64(len(jcts))))-1)]
	}
	if sumX2 > 0 {
		r.Jain = sumX * sumX / (float64(len(jcts)) * sumX2)
	}
	if tot := s.m.locNode + s.m.locRack + s.m.locOff; tot > 0 {
		r.Locality = report.Locality{Node: float64(s.m.locNode) / float64(tot), Rack: float64(s.m.locRack) / float64(tot),
			Off: float64(s.m.locOff) / float64(tot)}
	}
	r.Spec = report.Spec{Launched: s.m.specLaunched, Won: s.m.specWon, WastedS: s.m.wastedS}
	r.CrossRackShuffleBytes = s.m.crossRackBytes
	var busy, joules, capV float64
	for _, n := range s.nodes {
		busy += n.busyVms
		// Nodes are idle before the first submission; that share is not the run's.
		joules += n.energyJ - n.pIdle*float64(first)/1000
		capV += float64(n.vcores)
	}
	if span > 0 {
		r.Utilization = busy / (capV * float64(span))
	}
	r.EnergyKWh = joules / 3.6e6
	r.Events = int64(s.m.engineEvents)
	for k, v := range s.m.hints {
		r.Hints[string(k)] = v
	}
	r.Killed = s.m.killed
	r.Timeline = downsample(&s.m.timeline, first, last, s.sc.TimelinePoints)
	r.Detail = s.detailResult(last)
	var produced, shuffled int64
	for _, j := range s.jobs {
		produced += j.produced
		shuffled += j.shuffled
	}
	r.Extra["sim_events"] = float64(s.m.simEvents)
	r.Extra["spec_lost"] = float64(s.m.specLost)
	r.Extra["spec_dropped"] = float64(s.m.specDropped)
	r.Extra["spec_ignored"] = float64(s.m.specIgnored)
	if y := s.sc.YARN; y.LoadBalance || y.Hadoop1Delay {
		// Hadoop 1 runs (the PreScheduling scenarios): how often delay
		// scheduling passed over the job at the head of the fair order.
		r.Extra["maps_passed_over"] = float64(s.m.passedOver)
	}
	r.Extra["bound_reducers"] = float64(s.m.bindReducers)
	r.Extra["shuffle_produced_bytes"] = float64(produced)
	r.Extra["shuffle_fetched_bytes"] = float64(shuffled)
	r.Extra["container_s"] = s.m.containerMS / 1000
	for _, p := range s.eng.Stack().Plugins {
		// Plugins with measurements of their own (the learning scheduler's
		// accuracy windows) report them here, keys prefixed by their name.
		if x, ok := p.(extraReporter); ok {
			for k, v := range x.Extra() {
				r.Extra[k] = v
			}
		}
	}
	return r
}

// downsample keeps the running counts at n evenly spaced times: at each,
// the latest sample at or before it.
func downsample(tl *timeline, from, to int64, n int) []report.Sample {
	if tl.n == 0 || n <= 0 {
		return nil
	}
	out := make([]report.Sample, 0, n+1)
	k := 0
	var cur sample
	grid := func(k int) int64 { return from + (to-from)*int64(k)/int64(n) }
	emit := func() bool { // the point at grid k; false when the series is complete
		out = append(out, report.Sample{TS: float64(grid(k)) / 1000, Maps: cur.maps, Reduces: cur.reds})
		k++
		return k <= n && to != from
	}
	more := true
	tl.each(func(smp sample) {
		for more && smp.t > grid(k) {
			more = emit()
		}
		cur = smp
	})
	for more {
		more = emit()
	}
	return out
}

// idealS is the job's run time alone on the cluster with its mean task
// times and no shuffle (see results), on a cluster of mapSlots map and
// redSlots reduce containers (slots).
func idealS(j *job, mapSlots, redSlots int) float64 {
	waves := func(tasks, slots int) float64 { return math.Ceil(float64(tasks) / float64(max(1, slots))) }
	var t float64
	if n := j.nMaps; n > 0 {
		t += waves(n, mapSlots) * float64(j.sumMapMS) / float64(n) / 1000
	}
	if n := j.nReds; n > 0 {
		t += waves(n, redSlots) * float64(j.sumRedMS) / float64(n) / 1000
	}
	return t
}

// slots is how many containers of size c the cluster holds.
func (s *sim) slots(c Container) int {
	n := 0
	for _, nd := range s.nodes {
		n += min(nd.vcores/max(1, c.VCores), nd.memMB/max(1, c.MemoryMB))
	}
	return n
}
