package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/sim/trace"
)

// epochMS is the wall-clock time of simulated t=0 in emitted events
// (2025-11-21T00:00:00Z), fixed so emitted logs are reproducible.
const epochMS = 1763683200000

// clusterTS is the ResourceManager start time used in YARN ids.
const clusterTS = 1763683200000

// fetchPollMS is how often a reducer asks for new map completions
// (Hadoop's ShuffleScheduler EventFetcher sleeps 1 s between polls).
const fetchPollMS = 1000

// maxOutputPartitions bounds the partitions listed in one map.output event;
// jobs with more reducers report their largest partitions only.
const maxOutputPartitions = 200

type node struct {
	idx      int32
	id       string
	rack     int32
	vcores   int
	memMB    int
	capV     int // schedulable capacity (node-capacity hints), <= physical
	capM     int
	usedV    int
	usedM    int
	mapSpd   float64
	redSpd   float64
	pIdle    float64
	pMax     float64
	load     Load
	out, in  int32 // NIC links
	degrade  []window
	hbPhase  int64
	hbAt     int64 // time of the scheduled heartbeat, -1 when none
	parked   bool
	dirty    bool // usage changed since the last heartbeat event
	loaded   bool // has a background load series
	lastLoad float64
	running  int
	taskLoad float64 // load1 of the running tasks (trace.Job.TaskLoad each)
	load1    float64 // moving average of the load (Load.AvgS > 0)
	load1At  int64   // time load1 was last brought up to date
	runMaps  int     // running map and reduce containers
	runReds  int
	capMaps  int // node ratio caps (hint ratio with node); < 0: no cap
	capReds  int
	specQ    []specReq
	pre      []*task // maps pre-assigned at this heartbeat (YARN.Preassign)
	lastT    int64   // energy accounting: last usage change
	energyJ  float64 // joules so far
	busyVms  float64 // vcore-ms used so far
	maxUsedV int     // for conservation checks
	maxUsedM int
	maxMaps  int // most maps / reduces ever running at once (checks)
	maxReds  int
}

// nodeNet is a node's rack and NIC links (sim.nodeNet).
type nodeNet struct{ rack, out, in int32 }

type window struct {
	from, to int64
	factor   float64
}

type rack struct {
	name     string
	up, down int32
	nodes    []int32
}

type binding struct {
	node    int32
	expires int64 // sim ms
}

type specReq struct {
	task    *task
	expires int64
}

const (
	taskPending uint8 = iota
	taskRunning
	taskDone
)

type task struct {
	job   *job
	idx   int32
	kind  events.TaskKind
	id    string
	state uint8
	// attempts are the task's attempts not yet over (all of them with
	// Options.keepHistory); launches counts every attempt launched (the
	// next attempt's number).
	attempts []*attempt
	launches int32
	running  int
	bytes    int64   // map: split bytes
	outBytes int64   // map: output bytes
	workMS   float64 // map: compute ms at speed 1 (without overhead)
	replicas []int32 // map: its block's replica nodes (a view of job.replicas)
	pref     []int32 // place hints
	// listed (map): the nodes whose list holds an entry of this map made
	// by a place hint, or by its re-pend for its pref, since it last became
	// pending (see applyHint). It has every node of pref.
	listed []int32
	// qAt (reduce): the position of its latest entry in job.reduceQ; an
	// entry elsewhere is an earlier pend's.
	qAt int32
	// strictUntil (sim ms): until then the task runs only on pref nodes (a
	// strict place hint); 0 when not strict.
	strictUntil int64
	wins        int   // successful attempts (must end at 1)
	fixedMS     int64 // recorded duration (Rumen), 0 when derived
	// Reduce: the partition it processes and, when a reduce-binding split
	// the partition among reducers (YARN.SpawnReducers), its share k of n
	// (n = 1: the whole partition).
	part, splitK, splitN int32
}

// job.redPlaced: whether any reducer of the job has a place hint's pref or
// strictUntil. Unknown until pickReduce first looks at the reducers; a place
// hint on a reducer makes it placedSome (reducers are born without one).
const (
	placedUnknown uint8 = iota
	placedNone
	placedSome
)

// plist is a lazily compacted list of task indices; entries whose task is
// no longer pending are skipped when reached.
type plist struct {
	items []int32
	head  int
	// Entries head+1 to skipTo-1 were found not eligible by the last walk
	// (firstFor), at the job's holdGen skipGen: not pending, or held
	// elsewhere until skipUntil at the earliest.
	skipTo    int32
	skipGen   uint32
	skipUntil int64
}

func (p *plist) push(i int32) { p.items = append(p.items, i) }

// firstFor returns the first pending map of j that may run on node n at
// now, its record made (mapTask): maps held to other nodes by a strict
// place hint are passed over (and kept in the list).
//
// A walk resumes where the last one stopped while nothing it passed over
// can have become eligible: no hold it passed ended and the job's holdGen
// (a re-pend, a hold shortened or given a node) did not change. TMaR holds
// every pending map to its planned machine, and without this every offer
// walked a 25,000-map job's list past maps held elsewhere (the FB-2010 day
// on 3,000 nodes slowed to 8-40 tasks/s). The last walk may have been for
// another node: a node's own list is asked only for that node, and offer
// asks the rack and any lists for n only after n's own list had no map,
// when no pending map is held to n (a map held to n is in n's list, which
// the hint adds it to), so what another node passed over, n would too.
func (p *plist) firstFor(s *sim, j *job, n int32, now int64) *task {
	i, ok := p.first(j)
	if !ok {
		return nil
	}
	if t := j.maps[i]; t == nil || !t.heldFrom(n, now) {
		return s.mapTask(j, i)
	}
	k, until := p.head+1, int64(math.MaxInt64)
	if p.skipGen == j.holdGen && now < p.skipUntil && int(p.skipTo) > k {
		k, until = int(p.skipTo), p.skipUntil
	}
	for ; k < len(p.items); k++ {
		i := p.items[k]
		c := j.maps[i]
		if c == nil || c.state == taskPending && !c.heldFrom(n, now) {
			p.skipTo, p.skipGen, p.skipUntil = int32(k), j.holdGen, until
			return s.mapTask(j, i)
		}
		if c.state == taskPending {
			until = min(until, c.strictUntil)
		}
	}
	p.skipTo, p.skipGen, p.skipUntil = int32(k), j.holdGen, until
	return nil
}

// heldFrom reports whether a strict place hint keeps t off node n at now.
func (t *task) heldFrom(n int32, now int64) bool {
	return t.strictUntil > now && !slices.Contains(t.pref, n)
}

// first returns the first pending map of j, dropping stale entries before it.
func (p *plist) first(j *job) (int32, bool) {
	for p.head < len(p.items) {
		i := p.items[p.head]
		if t := j.maps[i]; t == nil || t.state == taskPending {
			if p.head >= minCompactHead && p.head >= len(p.items)/2 {
				p.compact()
			}
			return i, true
		}
		p.head++
	}
	if p.head > 0 {
		p.items, p.head, p.skipTo = p.items[:0], 0, 0
	}
	return 0, false
}

// minCompactHead is the fewest dropped entries (before head) compact
// moves the rest down for.
const minCompactHead = 256

// compact drops the entries before head, which no walk reads again: a
// list whose head stays behind a pending map kept every entry it ever had
// (the FB-2010 day under TMaR). The array is made anew when it is mostly
// empty room. Positions are kept relative to head.
func (p *plist) compact() {
	rest := p.items[p.head:]
	if cap(p.items) > 4*len(rest) {
		p.items = append(make([]int32, 0, 2*len(rest)), rest...)
	} else {
		p.items = p.items[:copy(p.items, rest)]
	}
	p.skipTo = max(0, p.skipTo-int32(p.head))
	p.head = 0
}

// dropNotPending drops the entries of a reducer list (job.reduceQ) but
// those of pending reducers at their latest pend, which is all
// pickReduce reads: a job whose reducers are bound (TMaR) scans its whole
// list at every offer, and on the FB-2010 day reading the states of
// reducers that ran was a tenth of the CPU.
func (p *plist) dropNotPending(reduces []*task) {
	w := 0
	for k, i := range p.items {
		if k >= p.head && reduces[i].queued(k) {
			p.items[w] = i
			reduces[i].qAt = int32(w)
			w++
		}
	}
	p.items, p.head = p.items[:w], 0
}

// queued reports whether reducer t is pending with its latest entry in
// job.reduceQ at position k: a reducer that ran and came back pending
// stands at its re-pend's place, the end (setPending), as the MapReduce AM
// asks for it again, not at its earlier entry's.
func (t *task) queued(k int) bool { return t.state == taskPending && int(t.qAt) == k }

// doneMap stands in job.maps for a finished map whose record was dropped
// (never written: it only answers state).
var doneMap = &task{state: taskDone, kind: events.Map}

// mapTask returns the record of map i of j, making it for a map that has
// none yet (a pending map never launched).
func (s *sim) mapTask(j *job, i int32) *task {
	if t := j.maps[i]; t != nil {
		return t
	}
	b, o := j.inPer, j.outPer
	if int(i) == len(j.maps)-1 {
		b, o = j.inLast, j.outLast
	}
	id := ""
	if int(i) < len(j.pendIDs) {
		id, j.pendIDs[i] = j.pendIDs[i], ""
	}
	if id == "" {
		id = padID(j.taskPrefix, "m_", int(i), 6)
	}
	t := &task{job: j, idx: i, kind: events.Map, id: id, state: taskPending,
		bytes: b, outBytes: o, replicas: j.replicasOf(i)}
	t.workMS = j.spec.MapSPerBlock * 1000 * float64(b) / float64(j.blockBytes)
	if int(i) < len(j.recMaps) {
		t.fixedMS = j.recMaps[i].DurationMS
	}
	j.maps[i] = t
	return t
}

// replicasOf is map i's replica nodes (a view of j.replicas).
func (j *job) replicasOf(i int32) []int32 {
	r := j.replicas[i*j.repl : (i+1)*j.repl : (i+1)*j.repl]
	for k, n := range r {
		if n < 0 {
			return r[:k:k]
		}
	}
	return r
}

// mapSplits is the input split of map i of j, for its task.pending event,
// at path.
func (s *sim) mapSplits(j *job, i int32, replicas []int32, path string) []events.Split {
	b := j.inPer
	if int(i) == len(j.maps)-1 {
		b = j.inLast
	}
	var sp []events.Split
	var hosts []string
	if len(replicas) <= len(splitHosts{}.hosts) {
		// The split and its hosts in one allocation (the engine keeps
		// both while the map is pending): a job's maps are reported
		// pending at its submit, 100,000 at once for FB-2010's largest.
		sh := &splitHosts{}
		sp, hosts = sh.split[:], sh.hosts[:len(replicas):len(replicas)]
	} else {
		sp, hosts = make([]events.Split, 1), make([]string, len(replicas))
	}
	for k, r := range replicas {
		hosts[k] = s.nodes[r].id
	}
	sp[0] = events.Split{Path: path, Offset: 0, Length: b, Hosts: hosts}
	return sp
}

// splitHosts holds a map's input split and its replica hosts (HDFS's
// default replication, 3, or fewer).
type splitHosts struct {
	split [1]events.Split
	hosts [3]string
}

// pendingMapIDs returns map i's task id and its split's path, built in one
// string (one allocation instead of two; the engine keeps both while the
// map is pending). The id is kept for mapTask, which would otherwise build
// it again when the map is launched.
func (s *sim) pendingMapIDs(j *job, i int32) (id, path string) {
	b := append(s.idBuf[:0], j.taskPrefix...)
	b = append(b, "m_"...)
	b = appendPad(b, int64(i), 6)
	n := len(b)
	b = append(b, "/sim/"...)
	b = append(b, j.inputName()...)
	b = append(b, "/part-"...)
	b = appendPad(b, int64(i), 5)
	s.idBuf = b
	both := string(b)
	id, path = both[:n], both[n:]
	if j.pendIDs == nil {
		j.pendIDs = make([]string, len(j.maps))
	}
	j.pendIDs[i] = id
	return id, path
}

// noCap is a ratio cap that caps nothing (policy.NoCap).
const noCap = -1

// capped reports whether running tasks have reached cap (< 0: no cap).
func capped(running, cap int) bool { return cap >= 0 && running >= cap }

// slotFull reports whether n's ratio cap for tasks of kind k is reached.
func (n *node) slotFull(k events.TaskKind) bool {
	if k == events.Map {
		return capped(n.runMaps, n.capMaps)
	}
	return capped(n.runReds, n.capReds)
}

type queueState struct {
	name    string
	weight  float64
	running int
	jobs    []*job // active jobs, ordered by (-priority, submit, index)
	capMaps int    // ratio caps; < 0: no cap, 0: none may run
	capReds int
}

// pendFetch is a source a reducer has listed and the bytes to fetch there.
type pendFetch struct {
	src   int32
	bytes int64
}

// mapOut is a finished map's output: where it is. Its size is the job's
// outPer, or outLast for the last map's (job.outBytesAt): 8 bytes instead
// of 16 with the size, as every reducer of the job reads every output.
type mapOut struct {
	node, rack int32
}

// outBytesAt is the size of the output at position pos of j.outputs.
func (j *job) outBytesAt(pos int) int64 {
	if pos == int(j.lastOut) {
		return j.outLast
	}
	return j.outPer
}

type job struct {
	idx      int32
	id       string
	spec     *trace.Job
	queue    *queueState
	priority int
	submitMS int64
	finishMS int64
	// maps are the map records by index: nil for a map not launched yet
	// (pending, see mapTask), doneMap for a finished one whose record was
	// dropped; the slice is nil once the job finished (see finishJob).
	maps       []*task
	reduces    []*task
	taskPrefix string // task_<clusterTS>_<app %04d>_
	blockBytes int64
	recMaps    []trace.Task // recorded (Rumen) maps, by index
	// A map's split and output bytes: inPer and outPer, the last map
	// inLast and outLast (the remainders).
	inPer, inLast, outPer, outLast int64
	// replicas are the maps' block replica nodes, repl entries per map
	// (-1 where placeBlock could not place one).
	replicas []int32
	repl     int32
	// pendIDs are the task ids of maps reported pending without a record
	// (pendingMapIDs), until mapTask makes the record.
	pendIDs []string
	nMaps   int // len(maps) and len(reduces) when the job finished
	nReds   int
	byNode  map[int32]*plist
	byRack  map[int32]*plist
	anyMap  plist
	// holdGen changes when a map may have become eligible where a plist's
	// last walk found it was not (a re-pend, a hold loosened; see firstFor).
	holdGen     uint32
	reduceQ     plist
	redPlaced   uint8 // whether a reducer has a place (pref or strictUntil): placedUnknown until pickReduce looks
	pendMaps    int
	pendReds    int
	runMaps     int
	runReds     int
	doneMaps    int
	doneReds    int
	slowstart   bool
	waitStart   int64
	blocked     bool // skipped for a cap or the ramp-up limit since last check
	outputs     []mapOut
	lastOut     int32      // position of the last map's output in outputs, -1 before it
	chunks      rackChunks // summaries of outputs, for reducers that fetch per rack (rackFetch)
	outParts    []outParts // map.output partition lists by output size (outputParts)
	frac        []float64
	floorSum    map[int64]int64
	partTotal   []int64
	nparts      int        // partitions: the job's submitted reducer count (spawned reducers share them)
	waiting     []*attempt // reducers waiting for map outputs
	finished    bool
	capMaps     int // ratio caps; < 0: no cap, 0: none may run
	capReds     int
	bind        map[int]binding // partition -> node, while the hint stands
	containerNo int
	produced    int64
	shuffled    int64 // bytes fetched by winning reduce attempts
	rackFetch   bool  // reducers fetch per source rack (see Network.RackFetchPairs)
	sumMapMS    int64 // durations of the winning map attempts
	sumRedMS    int64 // merge + reduce time of the winning reduce attempts

	// Hadoop 1 delay scheduling (YARN.Hadoop1Delay): the locality of the
	// last launched map ("" before the first), the wait accrued since, and
	// whether the job was skipped at, or launched a map at, the current
	// heartbeat.
	lastLevel  events.Locality
	waitedMS   int64
	skippedHB  bool
	launchedHB int64
}

type attempt struct {
	// The reduce copy state a fetch's end and the next fetch's start read
	// and write (linkDone, fetchMore) is the record's first cache line
	// (records are 448 bytes, a multiple of 64, so they start on a line):
	// spread over the record it was three lines per fetch, each a likely
	// miss.
	fetchQ    []pendFetch // sources in listing order; fetchHead.. are still to fetch
	fetched   int64
	fetchHead int32
	// dst and rackFetch are the reducer's node index and its job's
	// rackFetch, beside the copy state a fetch reads (the node and job
	// records are further lines, out of cache from one fetch to the next).
	dst int32
	// Its fetches in flight, in start order: flowBuf[:flowN], or flowMore
	// when there may be more than flowBuf holds (flowN < 0; see addFlow).
	flowBuf   [DefaultParallelCopies]int32
	flowN     int8
	rackFetch bool
	polling   bool
	inWait    bool

	// Lines 2 to 4: what a progress report reads (policy ticks report
	// every running attempt), the version and state every queued event of
	// the attempt checks, and the poll's cursor. appID to degrade are the
	// task's, job's and node's constants a report needs, copied at the
	// launch: those records are elsewhere in memory, a likely miss each
	// for every running attempt at every policy tick.
	id       string
	appID    string
	taskID   string
	mapEndMS int64 // map: end of the map phase; reduce: end of sort
	// Progress is work done, not time elapsed, so a task slowed down midway
	// (a degradation window) reports it only from then on.
	spd       float64 // compute speed fixed at the phase start
	readAt    int64   // map: input read starts (after the launch overhead)
	readMS    float64 // map: read time
	workAt    int64   // start of the first compute phase (map compute, reduce merge)
	work1     float64 // map compute or reduce merge work, ms at speed 1
	work2     float64 // map sort or reduce work, ms at speed 1
	copyEndMS int64
	progBytes int64 // map: its split's bytes; reduce: its share of its partition (the copy's total)
	cursor    int
	degrade   []window // the node's
	nMaps     int32    // the job's maps
	ver       uint32
	idx       int32
	over      bool
	isMap     bool
	noReduces bool // the job has no reducers
	// noBytes: a reducer whose share of both of its job's map output sizes
	// is 0 bytes. Its polls would list only empty fetches, which fetchMore
	// skips, so poll takes the outputs without listing them (see poll).
	noBytes bool

	task      *task
	node      *node
	partition int
	container string
	spec      bool
	loc       events.Locality
	startMS   int64
	runIdx    int
	slow      float64
	endMS     int64 // end of the last phase (-1 while copying)
	phaseMS   events.PhaseDurations
	// the rest of the reduce copy state
	flowMore []int32
	pend     *fetchIndex // source node -> its latest entry in fetchQ (listed when >= fetchHead)
	shareOut int64       // the last map output size polled (-1: none) and the reducer's bytes of it
	shareB   int64
	localCur int // pollRacks: outputs of its node already counted (index in rackChunks.byNode)
}

// inFlight is the attempt's fetches in flight, in start order.
func (a *attempt) inFlight() []int32 {
	if a.flowN >= 0 {
		return a.flowBuf[:a.flowN]
	}
	return a.flowMore
}

// nFlight is len(a.inFlight()).
func (a *attempt) nFlight() int {
	if a.flowN >= 0 {
		return int(a.flowN)
	}
	return len(a.flowMore)
}

// addFlow appends fetch id to the fetches in flight. They move to flowMore
// for good when flowBuf is full (ParallelCopies above its default).
func (a *attempt) addFlow(id int32) {
	if a.flowN >= 0 && int(a.flowN) < len(a.flowBuf) {
		a.flowBuf[a.flowN] = id
		a.flowN++
		return
	}
	if a.flowN >= 0 {
		a.flowMore = append(a.flowMore[:0], a.flowBuf[:a.flowN]...)
		a.flowN = -1
	}
	a.flowMore = append(a.flowMore, id)
}

// removeFlow takes fetch id, which is in flight, off the list. The few
// entries after it move down one by one: copy's call to memmove cost
// more than the move for a list of at most ParallelCopies entries.
func (a *attempt) removeFlow(id int32) {
	l := a.inFlight()
	i := 0
	for l[i] != id {
		i++
	}
	for ; i+1 < len(l); i++ {
		l[i] = l[i+1]
	}
	if a.flowN >= 0 {
		a.flowN--
	} else {
		a.flowMore = a.flowMore[:len(a.flowMore)-1]
	}
}

// partBytes is the part of a map output of out bytes that goes to partition
// p: out*frac[p] rounded down, the last partition taking the remainder, so
// partitions sum exactly to out.
func (j *job) partBytes(out int64, p int) int64 {
	r := j.nparts
	if p < r-1 {
		return int64(float64(out) * j.frac[p])
	}
	s, ok := j.floorSum[out]
	if !ok {
		for q := 0; q < r-1; q++ {
			s += int64(float64(out) * j.frac[q])
		}
		j.floorSum[out] = s
	}
	return out - s
}

// share is the reducer's part of b bytes of its partition: b / splitN, the
// first b mod splitN reducers one byte more, so the shares sum to b.
func (t *task) share(b int64) int64 {
	n := int64(max(t.splitN, 1))
	q := b / n
	if int64(t.splitK) < b%n {
		q++
	}
	return q
}

// skewFractions returns partition shares proportional to (p+1)^-skew
// (Zipf-like; skew 0 is uniform).
func skewFractions(r int, skew float64) []float64 {
	f := make([]float64, r)
	var sum float64
	for p := range f {
		f[p] = math.Pow(float64(p+1), -skew)
		sum += f[p]
	}
	for p := range f {
		f[p] /= sum
	}
	return f
}

// jobShape is a job's map and reduce counts, input and shuffle bytes, and
// its recorded (Rumen) map and reduce tasks, by the rules buildJob builds
// the job with; run also sums the counts for the progress display.
func (s *sim) jobShape(spec *trace.Job) (nm, nr int, input, shuffle int64, recMaps, recReds []trace.Task) {
	block := int64(s.sc.Cluster.HDFS.BlockMB) << 20
	for _, t := range spec.Tasks {
		if t.Kind == string(events.Reduce) {
			recReds = append(recReds, t)
		} else {
			recMaps = append(recMaps, t)
		}
	}
	nm = spec.Maps
	if len(recMaps) > 0 {
		nm = len(recMaps)
	}
	if nm <= 0 {
		nm = int(max(1, (spec.InputBytes+block-1)/block))
	}
	input = spec.InputBytes
	if input <= 0 {
		input = int64(nm) * block
	}
	nr = spec.Reduces
	if len(recReds) > 0 {
		nr = len(recReds)
	}
	shuffle = spec.ShuffleBytes
	if shuffle == 0 && spec.ShuffleRatio > 0 {
		shuffle = int64(float64(input) * spec.ShuffleRatio)
	}
	if nr == 0 && shuffle > 0 && len(spec.Tasks) == 0 {
		nr = trace.SWIMReduces(shuffle, spec.OutputBytes, 1<<30, s.totalVCores)
	}
	if nr == 0 {
		shuffle = 0
	}
	return nm, nr, input, shuffle, recMaps, recReds
}

// buildJob creates the job's tasks and places its input blocks (or, for a
// job with an InputPath, takes them from the path's dataset).
func (s *sim) buildJob(idx int, spec *trace.Job) *job {
	j := &job{
		idx:       int32(idx),
		id:        fmt.Sprintf("application_%d_%04d", clusterTS, idx+1),
		spec:      spec,
		priority:  spec.Priority,
		submitMS:  int64(math.Round(spec.SubmitS * 1000)),
		byNode:    map[int32]*plist{},
		byRack:    map[int32]*plist{},
		floorSum:  map[int64]int64{},
		waitStart: -1,
		lastOut:   -1,
		bind:      map[int]binding{},
		capMaps:   noCap,
		capReds:   noCap,
	}
	block := int64(s.sc.Cluster.HDFS.BlockMB) << 20
	nm, nr, input, shuffle, recMaps, recReds := s.jobShape(spec)
	prefix := fmt.Sprintf("task_%d_%04d_", clusterTS, idx+1)
	j.taskPrefix = prefix
	j.blockBytes = block
	j.recMaps = recMaps
	// A map's record is made when it is first launched (or named by a
	// hint), not here: a job of 100,000 maps waits mostly pending, and a
	// pending map is its replicas and a nil entry (see mapTask).
	j.maps = make([]*task, nm)
	j.inPer, j.outPer = input/int64(nm), shuffle/int64(nm)
	j.inLast, j.outLast = input-j.inPer*int64(nm-1), shuffle-j.outPer*int64(nm-1)
	j.repl = int32(min(s.sc.Cluster.HDFS.Replication, len(s.nodes)))
	if p := spec.InputPath; p != "" {
		// Jobs of one path read one dataset: the same blocks on the same nodes.
		j.replicas, _ = s.readDataset(p, nm, j.repl)
	}
	if j.replicas == nil {
		j.replicas = make([]int32, 0, nm*int(j.repl))
		for range nm {
			j.replicas = s.placeBlock(j.replicas, int(j.repl))
		}
	}
	j.produced = shuffle // the maps' outputs sum to it exactly
	tasks := make([]task, nr)
	j.reduces = make([]*task, nr)
	j.nparts = nr
	for i := range nr {
		t := &tasks[i]
		*t = task{job: j, idx: int32(i), kind: events.Reduce, id: padID(prefix, "r_", i, 6), part: int32(i), splitN: 1}
		if i < len(recReds) {
			t.fixedMS = recReds[i].DurationMS
		}
		j.reduces[i] = t
	}
	// Per-node fetches of a job number about min(maps, nodes) x reduces.
	if lim := s.sc.Cluster.Network.RackFetchPairs; lim > 0 && int64(min(nm, len(s.nodes)))*int64(nr) > lim {
		j.rackFetch = true
	}
	if nr > 0 {
		j.frac = skewFractions(nr, spec.Skew)
		// Expected input of each partition, summed over the distinct map
		// output sizes (at most two: full splits and the last one).
		j.partTotal = make([]int64, nr)
		counts := map[int64]int64{j.outPer: int64(nm - 1)}
		counts[j.outLast]++
		sizes := []int64{j.outPer}
		if nm == 1 {
			sizes = []int64{j.outLast}
		} else if j.outLast != j.outPer {
			sizes = append(sizes, j.outLast)
		}
		slices.Sort(sizes)
		for p := range nr {
			for _, o := range sizes {
				j.partTotal[p] += counts[o] * j.partBytes(o, p)
			}
		}
	}
	return j
}

// padID is prefix + sep + i zero-padded to w digits (fmt's "%s%s%0wd").
func padID(prefix, sep string, i, w int) string {
	var buf [80]byte
	b := append(buf[:0], prefix...)
	b = append(b, sep...)
	return string(appendPad(b, int64(i), w))
}

// placeBlock appends to dst the repl replica nodes of a new block (-1 for
// those it could not place, so every block takes repl entries): HDFS's
// default placement, first replica on a random node, the second and third
// on two distinct nodes of one other random rack (same rack when there is
// one).
func (s *sim) placeBlock(dst []int32, repl int) []int32 {
	n := len(s.nodes)
	base := len(dst)
	first := int32(s.rng.IntN(n))
	out := append(dst, first)
	if repl > 1 {
		r := s.nodes[first].rack
		other := r
		if len(s.racks) > 1 {
			other = int32(s.rng.IntN(len(s.racks) - 1))
			if other >= r {
				other++
			}
		}
		cand := s.racks[other].nodes
		for tries := 0; len(out)-base < repl && tries < 64; tries++ {
			c := cand[s.rng.IntN(len(cand))]
			if !slices.Contains(out[base:], c) {
				out = append(out, c)
			}
			if len(out)-base == 2 && repl > 2 && len(cand) < 2 {
				cand = s.racks[r].nodes // a one-node rack cannot hold two replicas
			}
		}
	}
	for len(out)-base < repl {
		out = append(out, -1)
	}
	return out
}

// loadAt is the node's background load at t (see Load).
func (s *sim) loadAt(n *node, t int64) float64 {
	l := n.load
	if l.Mean == 0 && l.Stddev == 0 {
		return 0
	}
	var k uint64
	if l.PeriodS > 0 {
		k = uint64(t / int64(l.PeriodS*1000))
	}
	h := splitmix(s.sc.Seed ^ uint64(n.idx+1)*0x9E3779B97F4A7C15 ^ k*0xBF58476D1CE4E5B9)
	u1 := (float64(h>>11) + 0.5) / (1 << 53)
	u2 := (float64(splitmix(h)>>11) + 0.5) / (1 << 53)
	z := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
	return max(0, l.Mean+l.Stddev*z)
}

func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// workBetween is the work (ms at speed 1) an attempt at base speed does on
// n between t0 and t1, integrating the node's degradation windows (the
// inverse of runFor).
func workBetween(n *node, t0, t1 int64, speed float64) float64 {
	return workUnder(n.degrade, t0, t1, speed)
}

// workUnder is workBetween on a node with the degradation windows degrade.
func workUnder(degrade []window, t0, t1 int64, speed float64) float64 {
	if t1 <= t0 {
		return 0
	}
	t, end := float64(t0), float64(t1)
	var work float64
	for t < end {
		f := 1.0
		next := end
		for _, w := range degrade {
			ft, tt := float64(w.from), float64(w.to)
			if t >= ft && t < tt {
				f *= w.factor
				next = math.Min(next, tt)
			} else if ft > t {
				next = math.Min(next, ft)
			}
		}
		work += (next - t) * speed * f
		t = next
	}
	return work
}

// runFor returns when work (ms at speed 1) started at t0 on n at base speed
// ends, integrating the node's degradation windows.
func runFor(n *node, t0 int64, work, speed float64) int64 {
	if work <= 0 {
		return t0
	}
	t := float64(t0)
	for {
		f := 1.0
		next := math.Inf(1)
		for _, w := range n.degrade {
			ft, tt := float64(w.from), float64(w.to)
			if t >= ft && t < tt {
				f *= w.factor
				next = math.Min(next, tt)
			} else if ft > t {
				next = math.Min(next, ft)
			}
		}
		rate := speed * f
		need := work / rate
		if t+need <= next {
			return int64(math.Ceil(t + need))
		}
		work -= (next - t) * rate
		t = next
	}
}
