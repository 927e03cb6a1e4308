package baseline

import (
	"context"
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/capacity"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// NameYARN is the registered name of stock YARN speculation.
const NameYARN = "yarn"

// YARNConfig mirrors the MapReduce AM settings of DefaultSpeculator and
// StartEndTimesBase (Hadoop 3.x defaults; property names in comments).
type YARNConfig struct {
	// mapreduce.job.speculative.minimum-allowed-tasks
	MinimumAllowedSpeculativeTasks int `json:"minimum_allowed_speculative_tasks" yaml:"minimum_allowed_speculative_tasks"`
	// mapreduce.job.speculative.speculative-cap-total-tasks
	ProportionTotalTasksSpeculatable float64 `json:"proportion_total_tasks_speculatable" yaml:"proportion_total_tasks_speculatable"`
	// mapreduce.job.speculative.speculative-cap-running-tasks
	ProportionRunningTasksSpeculatable float64 `json:"proportion_running_tasks_speculatable" yaml:"proportion_running_tasks_speculatable"`
	// mapreduce.job.speculative.retry-after-no-speculate (ms)
	RetryAfterNoSpeculateMS int64 `json:"retry_after_no_speculate_ms" yaml:"retry_after_no_speculate_ms"`
	// mapreduce.job.speculative.retry-after-speculate (ms)
	RetryAfterSpeculateMS int64 `json:"retry_after_speculate_ms" yaml:"retry_after_speculate_ms"`
	// StartEndTimesBase.MINIMUM_COMPLETE_PROPORTION_TO_SPECULATE
	MinimumCompleteProportion float64 `json:"minimum_complete_proportion" yaml:"minimum_complete_proportion"`
	// StartEndTimesBase.MINIMUM_COMPLETE_NUMBER_TO_SPECULATE
	MinimumCompleteNumber int `json:"minimum_complete_number" yaml:"minimum_complete_number"`
	// mapreduce.job.speculative.slowtaskthreshold: σ multiplier of the
	// threshold runtime mean + k·σ.
	SlowTaskThreshold float64 `json:"slow_task_threshold" yaml:"slow_task_threshold"`
	// CompareThreshold additionally requires a task's estimated runtime to
	// exceed mean + k·σ. Stock DefaultSpeculator computes that threshold but
	// only uses it as the "enough tasks finished" gate, so the default is false.
	CompareThreshold bool `json:"compare_threshold" yaml:"compare_threshold"`
	// StagnationMS: DefaultSpeculator re-estimates an attempt that has not
	// reported for this long as if it reported its old progress now
	// (MAX_WAITTING_TIME_FOR_HEARTBEAT, 9 s).
	StagnationMS int64 `json:"stagnation_ms" yaml:"stagnation_ms"`
}

// DefaultYARNConfig returns Hadoop 3.x's values.
func DefaultYARNConfig() YARNConfig {
	return YARNConfig{
		MinimumAllowedSpeculativeTasks:     10,
		ProportionTotalTasksSpeculatable:   0.01,
		ProportionRunningTasksSpeculatable: 0.1,
		RetryAfterNoSpeculateMS:            1_000,
		RetryAfterSpeculateMS:              15_000,
		MinimumCompleteProportion:          0.05,
		MinimumCompleteNumber:              1,
		SlowTaskThreshold:                  1.0,
		StagnationMS:                       9_000,
	}
}

// YARN is the stock MapReduce AM's DefaultSpeculator with the
// LegacyTaskRuntimeEstimator. Per scan, for each job and task kind with no
// task waiting for a container, it picks the running task whose estimated end
// (start + elapsed/progress) beats a fresh attempt (now + mean duration of the
// job's finished tasks of that kind) by the most, once at least 5 % (and at
// least one) of those tasks finished, while the job's running copies stay
// under max(10, 1 % of its tasks, 10 % of its running tasks). After a scan
// that speculated it waits 15 s, else 1 s.
//
// The scan is incremental: Observe keeps, per job, a compact record of each
// task (its running attempts and the running one's start, progress and
// progress time), re-read from the state whenever an event touches the task.
// A scan then reads those records (contiguous values, no pointer chasing, no
// strings) instead of walking every task's attempts; each record is cheap to
// re-estimate at the scan's now, which stagnation (StagnationMS) makes
// time-dependent. Each job also keeps, per kind, a summary of its records
// (kindSum: the counts and the greatest fresh estimated end) kept up to date
// with them, so a scan reads one line per job instead of its records
// whenever no record can be stale and no copy was proposed recently; else
// it reads the records. The decisions are those of the full scan, which
// yarn_ref_test.go keeps as the reference of a differential test.
type YARN struct {
	cfg       YARNConfig
	durations *taskstat.Durations
	// jobs holds the records of the running apps, keyed by the state's app
	// (a pointer, so a different State never meets stale records).
	jobs map[*cluster.App]*yarnJob
	// lastApp and lastJob are the job found last: a job's progress reports
	// tend to come together, and the map lookup was a cache miss.
	lastApp *cluster.App
	lastJob *yarnJob
	// guess and stride predict the record of lastJob the next progress
	// report is for: the last reported record plus the step from the one
	// before (an app's reports tend to walk its tasks in order). A guess
	// whose run holds the reporting attempt finds the record without
	// loading the attempt's task, a cache miss on most reports (it was 60 %
	// of progressed's samples); a wrong one costs a compare.
	guess, stride int
	// atApp holds, by the index of an app in View.Apps at the last scan,
	// the records found for it then: a scan finds a job's records there
	// (one load from a dense slice) instead of by a map lookup, a cache
	// miss or two for each of thousands of jobs. An entry is used only if
	// its records are still that app's (yarnJob.app, nil once forgotten).
	atApp    []*yarnJob
	nextScan int64
	// out holds the scan's hints; the slice Speculate returns is valid until
	// the next call (the engine copies what it keeps).
	out []policy.Hint
	// reason holds the reasons of a scan's hints back to back, made one
	// string at the end of the scan (a string per hint was an allocation
	// per copy); reasonEnd is where each hint's ends.
	reason    []byte
	reasonEnd []int
	// reasonRoom is fresh memory, written once (so mapped) at a scan that
	// proposed nothing, that a large round (more than largeRound
	// candidates) writes its reasons into and makes them strings of
	// without a copy; they keep it, and the next scan that proposes nothing
	// makes another (readyRoom). Copying a round's reasons into a new
	// string of 200 KB took a page fault per 4 KB of it: 2 to 5 % of a
	// 2,000-copy round at 10,000 nodes. Nil when none is ready.
	reasonRoom []byte
	capacity   capacity.Scratch
	// A scan's jobs past their gate, and its candidates for a copy.
	open  []openJob
	cands []candidate
	// warmed keeps warm's loads from being optimized away.
	warmed int
}

// yarnJob is one app's task records, parallel to App.Tasks, and its
// per-kind (map, reduce) counters and duration statistics, found once.
//
// The fields a scan's gates and its candidates read (app to lastProposed)
// come first, in the first 64 bytes, and the summaries next, in the second.
type yarnJob struct {
	// app is nil once the records are dropped (the app finished), so
	// that YARN.atApp never hands them out again.
	app    *cluster.App
	counts [2]*cluster.TaskCounts
	stats  [2]*taskstat.Stats
	// appID is app.ID, here for the hints (the app's own line is one more
	// miss per candidate).
	appID string
	// lastProposed is when a copy of one of the job's tasks was last
	// proposed (math.MinInt64: never; see summed).
	lastProposed int64
	// sum summarises the map and the reduce records, kept up to date with
	// them (add, recount, progressed), for a scan that need not read them.
	sum   [2]kindSum
	tasks []yarnTask
	// runs holds each task's running attempt when its record says
	// running == 1 (else nil), beside the records so that a scan, which
	// streams the records, reads 24 bytes a task, and a proposal reads the
	// attempt directly: finding it again through the app's task list, the
	// task and its attempt list was a chain of dependent cache misses,
	// about 1.8 ms of a 2,000-copy round at 10,000 nodes.
	runs []yarnRun
	// The size class of 192 bytes holds yarnJobs at multiples of 64
	// bytes, so the first 64 bytes are one cache line.
	_ [16]byte
}

// yarnRun is a task's running attempt (see yarnJob.runs) and the task's
// id, which a hint names: read here, beside the attempt's pointer, the
// candidates of a round need not load each task's line (a miss each, the
// larger part of reading them).
type yarnRun struct {
	at   *cluster.Attempt
	task string
	// proposed is when this speculator last proposed a copy of the task
	// (read only if its record's proposal is set): out of the records,
	// which a scan streams, they are 24 bytes a task instead of 32.
	proposed int64
	// vcores and memoryMB are at's capacity.NeedOf (vcores < 0: too large
	// to hold here, read the attempt), and nodeKey the capacity.IDKey of
	// at.Node, read with the record, when the event that changed the
	// attempt has just brought it into cache: a round's candidates then
	// read neither the attempt's second line nor the bytes of its node's
	// id, a miss each (more than half of readCands' samples). 16 bytes a
	// task.
	vcores, memoryMB int32
	nodeKey          uint64
}

// set makes r the run of attempt at (nil: none) of the task whose id is task.
func (r *yarnRun) set(at *cluster.Attempt, task string) {
	r.at, r.task = at, task
	if at == nil {
		return
	}
	need := capacity.NeedOf(at)
	r.vcores, r.memoryMB = int32(need.VCores), int32(need.MemoryMB)
	if int(r.vcores) != need.VCores || int(r.memoryMB) != need.MemoryMB {
		r.vcores = -1
	}
	r.nodeKey = capacity.IDKey(at.Node)
}

// need is NeedOf(r.at), from the copy set made when it could.
func (r *yarnRun) need() capacity.Need {
	if r.vcores < 0 {
		return capacity.NeedOf(r.at)
	}
	return capacity.Need{VCores: int(r.vcores), MemoryMB: int(r.memoryMB)}
}

// yarnTask is what a scan needs of one task, copied from the state: 24
// bytes without pointers (a large cluster holds one per task, a scan reads
// them all, and the GC need not). "The running attempt" is the task's only
// one (running == 1), in yarnJob.runs.
type yarnTask struct {
	progTS int64 // the running attempt's ProgressTS
	end    int64 // its estimated end while its status is fresh
	// proposal is set once this speculator proposed a copy (when:
	// yarnRun.proposed).
	proposal bool
	kind     uint8 // kindMap, kindReduce or kindOther
	running  uint8 // running attempts, at most 2 counted
}

// kindSum is what a scan needs of a job's records of one kind when none of
// them is stale and none was proposed recently: then a record's value is
// its fresh estimated end (yarnTask.end, which does not depend on the
// scan's time) less a bound the same for all, so the best task is the
// first of the greatest end, and it is a candidate only if its end passes
// the scan's bounds (speculationValue's progressIsGood and
// tooLateToSpeculate are thresholds on the end).
type kindSum struct {
	// running and multi count the records with running >= 1 and == 2: the
	// scan's runningTasks and (no recent proposal) already.
	running, multi int32
	// best is the first record with running == 1 of the greatest end,
	// bestEnd that end; -1 for none. When dirty, best's end fell or it
	// left, and bestEnd is only a bound: no record's end exceeds it.
	best    int32
	dirty   bool
	bestEnd int64
	// staleFrom is at most the least progTS > 0 of the records with
	// running == 1 (math.MaxInt64 for none): while now - staleFrom is at
	// most StagnationMS, no record is stale. It is not raised as records
	// report (only resum makes it exact again): a bound that is too low
	// only sends a scan to the records.
	staleFrom int64
}

// noSums are the summaries of no records.
func noSums() [2]kindSum {
	none := kindSum{best: -1, staleFrom: math.MaxInt64}
	return [2]kindSum{none, none}
}

const (
	kindMap uint8 = iota
	kindReduce
	kindOther
)

func kindIndex(k events.TaskKind) uint8 {
	switch k {
	case events.Map:
		return kindMap
	case events.Reduce:
		return kindReduce
	}
	return kindOther
}

// NewYARN is the factory of the yarn policy.
func NewYARN(_ context.Context, h policy.Handle) (policy.Plugin, error) {
	cfg := DefaultYARNConfig()
	if err := h.DecodeArgs(NameYARN, &cfg); err != nil {
		return nil, err
	}
	return &YARN{cfg: cfg, durations: taskstat.NewDurations(), jobs: map[*cluster.App]*yarnJob{}}, nil
}

// Name implements policy.Plugin.
func (*YARN) Name() string { return NameYARN }

// HintsAreScratch tells the engine that the hints Speculate returns are
// made anew by every scan and read by nothing else until the next: the
// engine stamps them where they are instead of copying 2,000 of them.
func (*YARN) HintsAreScratch() bool { return true }

// Observe implements policy.Observer: it folds finished durations into the
// statistics and re-reads the task an event touched.
func (p *YARN) Observe(_ context.Context, ev *events.Event, v cluster.View) {
	p.durations.Observe(ev, v)
	switch ev.Type {
	case events.NodeRegistered:
		// Room for a capacity snapshot of every node, made here rather
		// than by the round (see capacity.Scratch.Reserve). Keeping the
		// snapshot up to date from heartbeats instead cost the engine a
		// map lookup and a miss per heartbeat (its rate fell by 6 to 18 %)
		// to save 0.3-0.5 ms of a 2,000-copy round.
		p.capacity.Reserve(len(v.Nodes()))
		p.capacity.NodesChanged()
	case events.NodeLost:
		p.capacity.NodesChanged() // see capacity.Scratch.Snapshot
	case events.AppFinished:
		if a := v.App(ev.App); a != nil {
			p.forget(a)
		}
	case events.TaskPending:
		if a := v.App(ev.App); a != nil {
			p.touch(a.Task(ev.Task))
		}
	case events.TaskProgress:
		if at := v.Attempt(ev.Attempt); at != nil && !p.progressed(at) {
			p.touch(at.Task)
		}
	case events.ContainerAllocated, events.MapOutput:
		if at := v.Attempt(ev.Attempt); at != nil {
			p.touch(at.Task)
		}
	case events.TaskFinished:
		if at := v.Attempt(ev.Attempt); at != nil {
			p.touch(at.Task)
			p.linkStats(at.Task)
		}
	}
}

// linkStats finds the duration statistics of t's job and kind once they
// exist (the first finished task makes them; they then stay), so that the
// first scan past the job's gate, which is the one that proposes, need not
// look them up by the app's id: 2,000 map lookups of a round at 10,000
// nodes. gate still looks up those not found here.
func (p *YARN) linkStats(t *cluster.Task) {
	if t == nil || t.App != p.lastApp || p.lastJob == nil {
		return // touch found no records (a finished app) or none were made
	}
	k := kindIndex(t.Kind)
	if j := p.lastJob; k <= kindReduce && j.stats[k] == nil {
		j.stats[k] = p.durations.Live(t.App.ID, t.Kind)
	}
}

// progressed updates the record of at's task after a progress report, if
// at is the running attempt its record holds, and reports whether it did.
// A progress report changes no attempt's running state (only the
// allocation and the finish do), so the record's running count and attempt
// stay as they are and only the running attempt's progress time and
// estimated end change: what read would compute, without walking the
// task's attempts (a cache miss per report). Anything else (a report of an
// attempt that is not the record's, a task or job without records yet, a
// finished app) goes to touch.
func (p *YARN) progressed(at *cluster.Attempt) bool {
	if j, g := p.lastJob, p.guess; j != nil && uint(g) < uint(len(j.runs)) && j.runs[g].at == at {
		// Record g of lastJob holds at, so at's task is lastApp's task g
		// (see below): the same record the look-up through the task finds.
		if p.lastApp.Finished() {
			return false
		}
		j.progressed(g, at)
		p.guess = g + p.stride
		return true
	}
	t := at.Task
	if t == nil || t.App == nil || t.App.Finished() {
		return false
	}
	j := p.lastJob
	if t.App != p.lastApp || j == nil {
		// Another job's report: its records as job finds them, without
		// touch's re-read of the task (its attempts, the attempt's size
		// and its node's key), which the report did not change. The
		// records hold every task the state has: each event that adds one
		// touches it.
		if j = p.jobs[t.App]; j == nil {
			return false
		}
		p.lastApp, p.lastJob = t.App, j
	}
	// runs[i] == at is enough: the record at i was read from the task that
	// holds at (an app's Tasks only grow), whatever t.Seq() says in a state
	// that does not number its tasks. Reading App.Tasks[i] as well was a
	// cache miss on a third of the reports.
	i := t.Seq()
	if i >= len(j.runs) || j.runs[i].at != at {
		return false
	}
	j.progressed(i, at)
	p.stride = i - p.guess + p.stride // i less the last reported record
	p.guess = i + p.stride
	return true
}

// progressed updates record i, whose running attempt at reported, and the
// summary of its kind: the same as recount, for the common case of a
// running attempt's report (same kind, one running attempt before and
// after).
func (j *yarnJob) progressed(i int, at *cluster.Attempt) {
	r := &j.tasks[i]
	r.progressed(at)
	if r.kind > kindReduce {
		return
	}
	s := &j.sum[r.kind]
	if r.progTS > 0 && r.progTS < s.staleFrom {
		s.staleFrom = r.progTS
	}
	switch {
	case int32(i) == s.best && !s.dirty:
		if r.end < s.bestEnd {
			s.dirty = true // another record may now be the greatest; bestEnd stays a bound
		} else {
			s.bestEnd = r.end
		}
	case r.end > s.bestEnd || s.best < 0:
		// Above every other record's end (bestEnd bounds them, exact or
		// not): the new best, exactly.
		s.best, s.bestEnd, s.dirty = int32(i), r.end, false
	case r.end == s.bestEnd && int32(i) < s.best && !s.dirty:
		s.best = int32(i) // first of equals
	}
}

// touch re-reads t's record (creating its job's records if needed).
func (p *YARN) touch(t *cluster.Task) {
	if t == nil || t.App == nil {
		return
	}
	a := t.App
	if a.Finished() {
		p.forget(a) // a scan skips it; a job seen again is re-read whole
		return
	}
	j := p.job(a)
	if i := t.Seq(); i < len(j.tasks) && a.Tasks[i] == t {
		j.reread(i, t)
		return
	}
	for i, x := range a.Tasks { // a state that does not number its tasks
		if x == t && i < len(j.tasks) {
			j.reread(i, t)
		}
	}
}

// reread reads record i again from its task t and updates the summaries.
func (j *yarnJob) reread(i int, t *cluster.Task) {
	old := j.tasks[i]
	j.runs[i].set(j.tasks[i].read(t), t.ID)
	j.recount(i, old)
}

// recount updates the summaries after record i changed from old.
func (j *yarnJob) recount(i int, old yarnTask) {
	if old.kind <= kindReduce && old.running > 0 {
		s := &j.sum[old.kind]
		s.running--
		if old.running > 1 {
			s.multi--
		} else if r := &j.tasks[i]; int32(i) == s.best && !s.dirty &&
			(r.kind != old.kind || r.running != 1 || r.end < s.bestEnd) {
			s.dirty = true // the best left or fell; bestEnd stays a bound
		}
	}
	j.add(i)
}

// add counts record i into the summary of its kind.
func (j *yarnJob) add(i int) {
	r := &j.tasks[i]
	if r.kind > kindReduce || r.running == 0 {
		return
	}
	s := &j.sum[r.kind]
	s.running++
	if r.running > 1 {
		s.multi++
		return
	}
	if r.progTS > 0 && r.progTS < s.staleFrom {
		s.staleFrom = r.progTS
	}
	switch {
	case s.best < 0 || r.end > s.bestEnd:
		// Above every other record's end (bestEnd bounds them, exact or
		// not): the new best, exactly.
		s.best, s.bestEnd, s.dirty = int32(i), r.end, false
	case r.end == s.bestEnd && int32(i) < s.best && !s.dirty:
		s.best = int32(i) // first of equals
	}
}

// resum makes the summaries anew from the records.
func (j *yarnJob) resum() {
	j.sum = noSums()
	for i := range j.tasks {
		j.add(i)
	}
}

// forget drops a's records.
func (p *YARN) forget(a *cluster.App) {
	if j := p.jobs[a]; j != nil {
		j.app = nil
	}
	delete(p.jobs, a)
	if p.lastApp == a {
		p.lastApp, p.lastJob = nil, nil
	}
}

// job returns a's records, appending those of tasks first seen since.
func (p *YARN) job(a *cluster.App) *yarnJob {
	j := p.lastJob
	if a != p.lastApp || j == nil {
		j = p.jobs[a]
		if j == nil {
			// Sized for the tasks the job declared, so it rarely grows.
			n := max(len(a.Tasks), a.Maps+a.Reduces)
			j = &yarnJob{app: a, appID: a.ID, lastProposed: math.MinInt64, sum: noSums(), tasks: make([]yarnTask, 0, n), runs: make([]yarnRun, 0, n),
				// Found now rather than by the first scan past the gate.
				counts: [2]*cluster.TaskCounts{a.Count[events.Map], a.Count[events.Reduce]}}
			p.jobs[a] = j
			p.reserve()
		}
		p.lastApp, p.lastJob = a, j
	}
	j.more(a)
	return j
}

// reserve gives the scan's buffers room for a round that proposes in every
// job, as jobs arrive (growing by a fourth), and writes the new arrays once. A round
// past many jobs' gates at once otherwise grew them itself, and its first
// writes to the fresh memory took a page fault per 4 KB: about 400 faults
// (open jobs 256 bytes, hints 300, reasons about 100 a job at 2,000 jobs),
// 1 ms or more of the round's latency. The old arrays are left as they
// are: the hints of the last scan stay valid until the next.
func (p *YARN) reserve() {
	n := len(p.jobs)
	if cap(p.out) >= n && cap(p.open) >= n && cap(p.cands) >= 2*n && cap(p.reason) >= 128*n {
		return
	}
	n += n/4 + 16 // a fourth more: a tighter margin than doubling's, for the memory
	p.out = capacity.Prefault(p.out, n)
	p.open = capacity.Prefault(p.open, n)
	p.cands = capacity.Prefault(p.cands, 2*n)
	p.reason = capacity.Prefault(p.reason, 128*n)
	p.reasonEnd = capacity.Prefault(p.reasonEnd, n)
}

// largeRound is the number of candidates past which a round writes its
// reasons in the room readyRoom made (fewer would keep the room's
// memory for little).
const largeRound = 64

// readyRoom makes reasonRoom ready for a round that proposes in every job,
// at the size reserve gives the scratch buffer, when such a round can be
// large.
func (p *YARN) readyRoom() {
	if n := 128 * len(p.jobs); 2*len(p.jobs) > largeRound && cap(p.reasonRoom) < n {
		p.reasonRoom = capacity.Prefault([]byte(nil), n+n/4)
	}
}

// more appends the records of a's tasks first seen since.
func (j *yarnJob) more(a *cluster.App) {
	for i := len(j.tasks); i < len(a.Tasks); i++ {
		j.tasks = append(j.tasks, yarnTask{})
		t := a.Tasks[i]
		j.runs = append(j.runs, yarnRun{})
		j.runs[i].set(j.tasks[i].read(t), t.ID)
		j.add(i)
	}
}

// read copies what a scan needs of t, keeping the proposal memory, and
// returns the running attempt if it is the only one.
func (r *yarnTask) read(t *cluster.Task) *cluster.Attempt {
	r.kind = kindIndex(t.Kind)
	r.running = 0
	var run *cluster.Attempt
	for _, at := range t.Attempts {
		if at.Running() {
			if r.running == 0 {
				run = at
			}
			r.running = min(r.running+1, 2)
		}
	}
	if r.running != 1 {
		return nil
	}
	r.progressed(run)
	return run
}

// progressed copies the progress of run, the task's only running attempt.
func (r *yarnTask) progressed(run *cluster.Attempt) {
	r.progTS = run.ProgressTS
	// Until the status goes stale the estimate does not depend on now.
	r.end = run.StartTS + estimatedRuntime(run.StartTS, r.progTS, run.Progress, r.progTS, 0)
}

// The reasons DefaultSpeculator.speculationValue gives for not speculating.
const (
	onSchedule = math.MinInt64 + iota
	alreadySpeculating
	progressIsGood
	notRunning
	tooLateToSpeculate
)

// Speculate implements policy.Speculator. The slice it returns is valid
// until the next call (the engine copies the hints it keeps).
func (p *YARN) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	now := v.Now()
	if now < p.nextScan {
		return nil, nil
	}
	// The scan runs in passes over all jobs, each pass a loop of loads
	// independent from one job to the next, so that the processor overlaps
	// the cache misses of many jobs (a job's counters, its records, then the
	// chosen task's attempt and ids, each seldom in cache at 2,000 jobs);
	// one job after another, every miss waited for the one before it. The
	// proposals are made in the order of the one-job-at-a-time scan (apps in
	// order, maps before reduces), so the capacity reservations and the
	// hints are the same.
	p.out = p.out[:0]
	apps := v.Apps()
	// Sized for every job at once (reserve did, as jobs arrived): the first
	// scan past the jobs' gates grew it by doubling, copying 256 bytes a job
	// each time.
	p.open = slices.Grow(p.open[:0], len(apps))
	if len(p.atApp) != len(apps) {
		p.atApp = slices.Grow(p.atApp[:0], len(apps))[:len(apps)]
	}
	for from := 0; from < len(apps); from += warmBlock {
		to := min(from+warmBlock, len(apps))
		p.warm(apps[from:to], p.atApp[from:to])
		for i := from; i < to; i++ {
			a := apps[i]
			if a.Finished() {
				p.atApp[i] = nil // its records are forgotten: let them go
				continue
			}
			j := p.atApp[i]
			if j == nil || j.app != a {
				j = p.job(a)
				p.atApp[i] = j
			} else {
				j.more(a)
			}
			p.gateApp(a, j, now)
		}
	}
	p.cands = p.cands[:0]
	for i := range p.open {
		p.scanApp(int32(i), now)
	}
	if len(p.cands) == 0 {
		// Read the nodes' states and sizes now if they changed, rather
		// than in the snapshot of the next round that proposes.
		p.capacity.Refresh(v)
		p.readyRoom()
	}
	if len(p.cands) > 0 {
		p.readCands(now)
		// The capacity snapshot is taken once, when the first copy needs a
		// node: the state does not change during a scan.
		free := p.capacity.Snapshot(v)
		scratch, inRoom := p.reason, len(p.cands) > largeRound && p.reasonRoom != nil
		if inRoom {
			p.reason, p.reasonRoom = p.reasonRoom, nil // see reasonRoom
		}
		p.reason, p.reasonEnd = p.reason[:0], p.reasonEnd[:0]
		for i := range p.cands {
			c := &p.cands[i]
			p.propose(c, &p.open[c.open].ks[c.kind], now, free)
		}
		// readCands remembered a proposal in every candidate's record, as
		// if each got a copy: take back those of the candidates that got
		// none (no node had room), in reverse order, so that a job's
		// lastProposed ends as before its first candidate unless one of its
		// candidates (a job's are next to each other) got a copy.
		for i := len(p.cands) - 1; i >= 0; i-- {
			c := &p.cands[i]
			if c.proposed {
				continue
			}
			o := &p.open[c.open]
			best := o.ks[c.kind].best
			o.j.tasks[best].proposal, o.j.runs[best].proposed = c.was.proposal, c.was.proposed
			sibling := func(k int) bool {
				return k >= 0 && k < len(p.cands) && p.cands[k].open == c.open && p.cands[k].proposed
			}
			if !sibling(i-1) && !sibling(i+1) {
				o.j.lastProposed = c.was.lastProposed
			}
		}
		if len(p.out) > 0 {
			var all string
			if inRoom {
				// The room's bytes are the strings' from now on: p.reason
				// goes back to the scratch buffer, and nothing writes them
				// again.
				all = unsafe.String(unsafe.SliceData(p.reason), len(p.reason))
			} else {
				all = string(p.reason)
			}
			from := 0
			for i, end := range p.reasonEnd {
				p.out[i].Reason, from = all[from:end], end
			}
		} else if inRoom {
			p.reasonRoom = p.reason[:0] // unused: kept for the next round
		}
		if inRoom {
			p.reason = scratch
		}
	}
	if len(p.out) > 0 {
		p.nextScan = now + p.cfg.RetryAfterSpeculateMS
	} else {
		p.nextScan = now + p.cfg.RetryAfterNoSpeculateMS
	}
	if len(p.out) == 0 {
		return nil, nil
	}
	return p.out, nil
}

// warmBlock is how many jobs warm reads ahead of the gates: their lines
// (about six a job) stay in the core's cache until the gates read them.
const warmBlock = 128

// warm loads what the gates of a block of apps read first (the app's state
// and task counts, their records' lines, the maps' duration statistics)
// in a loop of loads independent
// from one app to the next and little else, so that the processor has many
// of those cache misses in flight at once; in the gates' loop, whose body
// is long, it had a few, and the misses were most of the gates' time.
func (p *YARN) warm(apps []*cluster.App, at []*yarnJob) {
	var sum int
	for i, a := range apps {
		sum += len(a.State) + a.Maps + len(a.Tasks)
		if j := at[i]; j != nil {
			sum += int(j.sum[0].best) + len(j.tasks)
			if c := j.counts[0]; c != nil {
				sum += c.Pending
			}
			if c := j.counts[1]; c != nil {
				sum += c.Pending
			}
			if s := j.stats[0]; s != nil {
				sum += s.N
			}
		}
	}
	p.warmed += sum
}

// kindScan is DefaultSpeculator.maybeScheduleASpeculation's state for one
// job and kind.
type kindScan struct {
	kind                  events.TaskKind
	on                    bool
	total                 int
	stats                 taskstat.Stats
	threshold             float64
	replacementEnd        int64
	best                  int32
	bestValue, bestEnd    int64
	already, runningTasks int
}

// openJob is a job with at least one kind past its gate in this scan.
type openJob struct {
	a  *cluster.App
	j  *yarnJob
	ks [2]kindScan
}

// candidate is a job's kind whose best task gets a copy if a node has room.
type candidate struct {
	open int32 // index in YARN.open
	kind int32
	// What the proposal reads of the best task's running attempt (see
	// readCands): its container's size, its app's, task's and own ids and
	// its node's.
	need               capacity.Need
	app, task, attempt string
	// avoid is the attempt's node as a pick compares it (capacity.AvoidOf),
	// made from the node's key in the run (nodeKey).
	avoid   capacity.Avoid
	nodeKey uint64
	// at is the best task's running attempt, as readCands's loops pass it
	// on.
	at *cluster.Attempt
	// proposed is set when a copy was proposed (a node had room).
	proposed bool
	// was holds what readCands found in the best task's record and the
	// job's lastProposed before it marked them proposed.
	was struct {
		proposal               bool
		proposed, lastProposed int64
	}
}

// gateApp queues a job, whose records are j, for the record pass if a kind
// of it is past its gate.
func (p *YARN) gateApp(a *cluster.App, j *yarnJob, now int64) {
	p.open = append(p.open, openJob{a: a, j: j, ks: [2]kindScan{{kind: events.Map}, {kind: events.Reduce}}})
	o := &p.open[len(p.open)-1]
	scan := false
	for k := range o.ks {
		scan = p.gate(a, j, k, &o.ks[k], now) || scan
	}
	if !scan {
		p.open = p.open[:len(p.open)-1]
	}
}

// scanApp scans both kinds of one job in one pass over its records and
// queues the kinds whose best task may get a copy.
func (p *YARN) scanApp(open int32, now int64) {
	j, ks := p.open[open].j, &p.open[open].ks
	if !p.summed(j, ks, now) {
		p.scanRecords(j, ks, now)
	}
	for k := range ks {
		if p.capped(&ks[k]) {
			continue
		}
		p.cands = append(p.cands, candidate{open: open, kind: int32(k)})
	}
}

// summed fills the scan's counts and best task of a job's open kinds from
// its summaries and reports true, if they give those of a pass over its
// records at now: no record was proposed within RetryAfterSpeculateMS (so
// none counts as already speculating), none can be stale (the summary's
// staleFrom), and CompareThreshold is off (its test reads the attempt).
// Then every record with one running attempt has the value end - (now +
// mean) or none, by its fresh end alone, and the best is the summary's.
// A summary whose best is not known (dirty) is made anew from the records
// unless its bound already says no record is a candidate.
func (p *YARN) summed(j *yarnJob, ks *[2]kindScan, now int64) bool {
	if p.cfg.CompareThreshold || (j.lastProposed != math.MinInt64 && now-j.lastProposed < p.cfg.RetryAfterSpeculateMS) {
		return false
	}
	stale := func(s *kindSum) bool {
		return s.staleFrom != math.MaxInt64 && now-s.staleFrom > p.cfg.StagnationMS
	}
	for k := range ks {
		if !ks[k].on {
			continue
		}
		s := &j.sum[k]
		if stale(s) || (s.dirty && s.best >= 0 && s.bestEnd >= now && s.bestEnd > ks[k].replacementEnd) {
			j.resum() // the records' least progTS and greatest end exactly
			if stale(s) {
				return false // a record may be stale: its value depends on now
			}
		}
	}
	for k := range ks {
		c := &ks[k]
		if !c.on {
			continue
		}
		s := &j.sum[k]
		c.runningTasks, c.already = int(s.running), int(s.multi)
		// progressIsGood and tooLateToSpeculate, as in value; a dirty
		// summary got here only if its bound fails them, so every record
		// does.
		if end := s.bestEnd; s.best >= 0 && !s.dirty && end >= now && end > c.replacementEnd {
			c.best, c.bestValue, c.bestEnd = s.best, end-c.replacementEnd, end
		}
	}
	return true
}

// scanRecords scans both kinds of one job in one pass over its records.
func (p *YARN) scanRecords(j *yarnJob, ks *[2]kindScan, now int64) {
	// value's common case inline (a scan reads every record of every job):
	// a running task with a fresh status that is no copy's, not stale.
	retry, stagnation := p.cfg.RetryAfterSpeculateMS, p.cfg.StagnationMS
	for i := range j.tasks {
		r := &j.tasks[i]
		if r.running == 0 || r.kind > kindReduce {
			continue // notRunning (value would count nothing), or not scanned
		}
		k := &ks[r.kind]
		if !k.on {
			continue
		}
		if r.running != 1 || (r.proposal && now-j.runs[i].proposed < retry) ||
			(r.progTS > 0 && now-r.progTS > stagnation) || p.cfg.CompareThreshold {
			p.value(k, r, j.runs[i].at, j.runs[i].proposed, int32(i), now)
			continue
		}
		k.runningTasks++
		end := r.end
		if end < now || k.replacementEnd >= end {
			continue // progressIsGood, tooLateToSpeculate
		}
		if value := end - k.replacementEnd; value > k.bestValue {
			k.best, k.bestValue, k.bestEnd = int32(i), value, end
		}
	}
}

// gate decides whether a job's tasks of a kind are scanned at all: no task
// of the kind waits for a container, and (StartEndTimesBase.thresholdRuntime)
// enough of them finished. speculationValue never proposes a copy before the
// gate opens, so DefaultSpeculator's mayHaveSpeculated, which only matters
// then, is not kept.
func (p *YARN) gate(a *cluster.App, j *yarnJob, k int, ks *kindScan, now int64) bool {
	counts := j.counts[k]
	if counts == nil { // the app's counters live as long as the app
		counts = a.Count[ks.kind]
		j.counts[k] = counts
	}
	if counts.Pending > 0 {
		return false // the job still waits for containers of this kind
	}
	total := a.Maps
	if ks.kind == events.Reduce {
		total = a.Reduces
	}
	if n := counts.Pending + counts.Running + counts.Succeeded; total < n {
		total = n
	}
	if total == 0 {
		return false
	}
	enough := counts.Succeeded >= p.cfg.MinimumCompleteNumber &&
		float64(counts.Succeeded)/float64(total) >= p.cfg.MinimumCompleteProportion
	if !enough {
		return false
	}
	ks.on, ks.total = true, total
	if j.stats[k] == nil { // created with the first finished task, then kept
		j.stats[k] = p.durations.Live(a.ID, ks.kind)
	}
	ks.stats = taskstat.Stats{}
	if j.stats[k] != nil {
		ks.stats = *j.stats[k]
	}
	ks.threshold = ks.stats.Mean + p.cfg.SlowTaskThreshold*ks.stats.Std()
	ks.replacementEnd = now + int64(ks.stats.Mean)
	ks.best, ks.bestValue = -1, -1
	return true
}

// value is DefaultSpeculator.speculationValue for one task record (past the
// gate): how much earlier a fresh attempt would end than the running one, or
// a reason not to; it counts the job's running and already copied tasks and
// keeps the best (first of equals, in task order).
func (p *YARN) value(ks *kindScan, r *yarnTask, run *cluster.Attempt, proposed int64, i int32, now int64) {
	switch r.running {
	case 0:
		return // notRunning
	case 1:
	default:
		ks.already++ // alreadySpeculating
		ks.runningTasks++
		return
	}
	ks.runningTasks++
	// A copy we asked for is starting: the AM would hold it as STARTING.
	if r.proposal && now-proposed < p.cfg.RetryAfterSpeculateMS {
		ks.already++
		return
	}
	end := r.end
	if r.progTS > 0 && now-r.progTS > p.cfg.StagnationMS {
		// A stale status (rare): re-estimate at now. The attempt's fields
		// are what the record was read from.
		end = run.StartTS + estimatedRuntime(run.StartTS, r.progTS, run.Progress, now, p.cfg.StagnationMS)
	}
	if end < now {
		return // progressIsGood
	}
	if ks.replacementEnd >= end {
		return // tooLateToSpeculate
	}
	if p.cfg.CompareThreshold && float64(end-run.StartTS) <= ks.threshold { // the estimated runtime
		return // onSchedule
	}
	if value := end - ks.replacementEnd; value > ks.bestValue {
		ks.best, ks.bestValue, ks.bestEnd = i, value, end
	}
}

// capped reports whether a kind has no task to copy, or its job's copies
// are at the cap.
func (p *YARN) capped(ks *kindScan) bool {
	return !ks.on || ks.best < 0 || int(p.allowed(ks)) <= ks.already
}

// allowed is the cap on a job's running copies of a kind.
func (p *YARN) allowed(ks *kindScan) float64 {
	allowed := max(float64(p.cfg.MinimumAllowedSpeculativeTasks), p.cfg.ProportionTotalTasksSpeculatable*float64(ks.total))
	return max(allowed, p.cfg.ProportionRunningTasksSpeculatable*float64(ks.runningTasks))
}

// readCands copies what the proposals read of each candidate's running
// attempt, its task and its app into the candidate, in loops of loads
// independent from one candidate to the next, so that their cache misses
// overlap. Only warming those lines here (as before) was not enough: by a
// proposal's turn, the capacity snapshot, the heap and the hints written
// since had evicted most of them, and each proposal missed them again.
// Each loop follows one pointer further (the run, with the task id, the
// container's size and the node's key; then the attempt's ids): one loop
// that followed the chain of misses of a candidate (the records' runs, the
// attempt, the task) kept few candidates' misses in flight, and they were
// most of its time.
//
// The first loop also remembers a proposal at now in the best task's record
// and the job's lastProposed, as if every candidate got a copy, while it
// has the run's line and the job's (Speculate takes back those of the
// candidates that got none, which are rare): a loop of its own after the
// proposals, whose stores missed, was a thirtieth of a 2,000-copy round.
// No proposal reads a record (each candidate is a different job's or
// kind's task), so the proposals are those made before the marks.
func (p *YARN) readCands(now int64) {
	for i := range p.cands {
		c := &p.cands[i]
		o := &p.open[c.open]
		best := o.ks[c.kind].best
		run, r := &o.j.runs[best], &o.j.tasks[best]
		c.at, c.app, c.task = run.at, o.j.appID, run.task
		c.need, c.nodeKey = run.need(), run.nodeKey
		c.was.proposal, c.was.proposed, c.was.lastProposed = r.proposal, run.proposed, o.j.lastProposed
		r.proposal, run.proposed = true, now
		o.j.lastProposed = max(o.j.lastProposed, now)
	}
	for i := range p.cands {
		c := &p.cands[i]
		at := c.at
		c.attempt = at.ID
		c.avoid = capacity.AvoidKeyed(at.Node, c.nodeKey)
	}
}

// propose turns a candidate kind's best task into a speculate hint
// (appended to p.out) if a node has room for one more container.
func (p *YARN) propose(c *candidate, ks *kindScan, now int64, free *capacity.Capacity) {
	allowed := p.allowed(ks)
	node, nodeID := free.PickIDAvoiding(c.need, c.avoid)
	if node == nil {
		return
	}
	c.proposed = true // readCands recorded it in the task's record
	// "yarn: estimated end %d ms from now, a new attempt %.0f ms; gain %d ms;
	// %d of %d allowed copies run", without fmt (a scan may propose
	// thousands).
	b := append(p.reason, "yarn: estimated end "...)
	b = strconv.AppendInt(b, ks.bestEnd-now, 10)
	b = append(b, " ms from now, a new attempt "...)
	b = appendRounded(b, ks.stats.Mean)
	b = append(b, " ms; gain "...)
	b = strconv.AppendInt(b, ks.bestValue, 10)
	b = append(b, " ms; "...)
	b = strconv.AppendInt(b, int64(ks.already), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(int(allowed)), 10)
	b = append(b, " allowed copies run"...)
	p.reason = b
	p.reasonEnd = append(p.reasonEnd, len(b))
	if len(p.out) == cap(p.out) {
		// At most a copy or two per job: grow once to the job count, not
		// by doubling (a Hint is large).
		p.out = slices.Grow(p.out, max(len(p.out), len(p.jobs)))
	}
	p.out = append(p.out, policy.Hint{}) // filled in place
	h := &p.out[len(p.out)-1]
	h.Kind, h.App, h.Task, h.Attempt, h.Node = policy.KindSpeculate, c.app, c.task, c.attempt, nodeID
	h.EstRemainingMS, h.EstBackupMS = max(0, ks.bestEnd-now), int64(ks.stats.Mean) // Reason: set by Speculate
}

// estimatedRuntime is LegacyTaskRuntimeEstimator's estimate: the time from
// start to the attempt's last status over its progress then, or -1 before
// any status. A status older than stagnationMS is treated as repeated now.
func estimatedRuntime(start, progTS int64, progress float64, now, stagnationMS int64) int64 {
	ts := progTS
	if ts > 0 && now-ts > stagnationMS {
		ts = now
	}
	if start <= 0 || ts <= start {
		return -1
	}
	return int64(float64(ts-start) / math.Max(0.0001, progress))
}

// appendRounded appends x as strconv.AppendFloat(b, x, 'f', 0, 64) does:
// for x >= 0 below 2^53 that is x rounded half to even, an integer
// formatted as one (the float formatting was a tenth of a proposal's time);
// other values take AppendFloat itself.
func appendRounded(b []byte, x float64) []byte {
	if x >= 0 && x < 1<<53 && !math.Signbit(x) {
		return strconv.AppendInt(b, int64(math.RoundToEven(x)), 10)
	}
	return strconv.AppendFloat(b, x, 'f', 0, 64)
}
