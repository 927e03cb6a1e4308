package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// maxPlaceNodes is how many of a place hint's ranked nodes are honoured.
const maxPlaceNodes = 3

// applyHint turns one engine decision into a change of the simulated
// cluster; how each kind is applied is documented in docs/simulator.md.
// h points into s.hints (queueHints): a hint is about 300 bytes, and a
// copy per hint was a tenth of applying a place hint.
func (s *sim) applyHint(h *policy.Hint) {
	s.m.hints[h.Kind]++
	switch h.Kind {
	case policy.KindSpeculate:
		s.hintSpeculate(h)
	case policy.KindKill:
		if a := s.attemptByID(h.Attempt); a != nil && !a.over {
			s.kill(a, false)
		}
	case policy.KindPlace:
		t := s.taskByID(h.Task)
		if t == nil || t.state != taskPending {
			return
		}
		var pref [maxPlaceNodes]int32
		np := 0
		for _, ns := range h.Nodes {
			if n := s.nodeByID(ns.Node); n != nil && !slices.Contains(pref[:np], n.idx) {
				pref[np] = n.idx
				if np++; np == maxPlaceNodes {
					break
				}
			}
		}
		var until int64
		if h.Strict && h.ExpiresTS > 0 {
			until = h.ExpiresTS - epochMS
		}
		if t.kind != events.Map {
			t.job.redPlaced = placedSome // pickReduce looks at pref and strictUntil from now on
		}
		t.place(pref[:np], until)
		if t.kind == "map" {
			t.listPlaced()
			if n := s.hbNode; n != nil && len(t.pref) > 0 && t.pref[0] == n.idx {
				n.pre = append(n.pre, t) // YARN.Preassign: served before the queues
			}
		}
		for _, r := range t.pref {
			if n := s.nodes[r]; n.parked {
				s.scheduleHB(n)
			}
		}
	case policy.KindRatio:
		cm, cr := max(noCap, h.MaxMaps), max(noCap, h.MaxReduces)
		if cm == 0 || cr == 0 {
			s.holdUntil(h) // the policy may lift a zero cap later
		}
		switch {
		case h.Node != "":
			n := s.nodeByID(h.Node)
			if n == nil {
				return
			}
			looser := loosens(n.capMaps, cm) || loosens(n.capReds, cr)
			n.capMaps, n.capReds = cm, cr
			if looser {
				s.wakeNode(n) // only a looser cap lets the node take more
			}
			return
		case h.App != "":
			if j := s.jobByApp(h.App); j != nil {
				j.capMaps, j.capReds = cm, cr
			}
		default:
			if q := s.queueBy[h.Queue]; q != nil {
				q.capMaps, q.capReds = cm, cr
			}
		}
		s.wakeAll()
	case policy.KindNodeCapacity:
		n := s.nodeByID(h.Node)
		if n == nil {
			return
		}
		if h.VCores <= 0 && h.MemoryMB <= 0 {
			n.capV, n.capM = n.vcores, n.memMB
		} else {
			s.holdUntil(h) // the policy may restore the node later
			if h.VCores > 0 {
				n.capV = min(h.VCores, n.vcores)
			}
			if h.MemoryMB > 0 {
				n.capM = min(h.MemoryMB, n.memMB)
			}
		}
		s.scheduleHB(n)
	case policy.KindReduceBinding:
		j := s.jobByApp(h.App)
		n := s.nodeByID(h.Node)
		if j == nil || n == nil || h.Partition < 0 || h.Partition >= j.nparts {
			return
		}
		exp := h.ExpiresTS - epochMS
		if h.ExpiresTS == 0 {
			exp = math.MaxInt64
		}
		if j.bind != nil { // nil once the job finished: nothing left to bind
			j.bind[h.Partition] = binding{node: n.idx, expires: exp}
		}
		s.horizon = max(s.horizon, exp)
		s.m.bindReducers += h.Reducers
		if s.sc.YARN.SpawnReducers && h.Reducers > 1 {
			s.spawnReducers(j, h.Partition, h.Reducers)
		}
		if n.parked {
			s.scheduleHB(n)
		}
	case policy.KindPriority:
		j := s.jobByApp(h.App)
		if j == nil || j.finished || j.priority == h.Priority {
			return
		}
		j.queue.remove(j)
		j.priority = h.Priority
		j.queue.insert(j)
	}
	// node-class and deny-speculation are only counted: the YARN model has
	// no node labels, and the engine already dropped the vetoed copies.
}

// loosens reports whether ratio cap to lets more run than from.
func loosens(from, to int) bool {
	return from >= 0 && (to < 0 || to > from)
}

// holdUntil keeps the run ticking, while nothing runs, until h expires:
// h withholds capacity its policy may give back at a later tick (see
// policyTick).
func (s *sim) holdUntil(h *policy.Hint) {
	exp := h.ExpiresTS - epochMS
	if h.ExpiresTS == 0 {
		exp = s.now + 60_000
	}
	s.holdHorizon = max(s.holdHorizon, exp)
}

// Ids are resolved by parsing them (application_TS_JOB,
// task_TS_JOB_{m,r}_IDX, attempt_TS_JOB_{m,r}_IDX_N) instead of through
// maps: hints are rare, lookups by id would cost a hash per event.

// idFields splits id at '_' into at most len(out) fields.
func idFields(id string, out []string) int {
	n := 0
	for n < len(out) {
		i := strings.IndexByte(id, '_')
		if i < 0 {
			out[n] = id
			return n + 1
		}
		out[n] = id[:i]
		id = id[i+1:]
		n++
	}
	return n
}

func (s *sim) jobByApp(app string) *job {
	var f [4]string
	if idFields(app, f[:]) != 3 || f[0] != "application" {
		return nil
	}
	return s.jobAt(f[2], app)
}

func (s *sim) jobAt(num, app string) *job {
	k, err := strconv.Atoi(num)
	if err != nil || k < 1 || k > len(s.jobByIdx) {
		return nil
	}
	j := s.jobByIdx[k-1]
	if j == nil || app != "" && j.id != app {
		return nil
	}
	return j
}

// MaxSpawnReducers bounds the reducers one partition is split among
// (YARN.SpawnReducers).
const MaxSpawnReducers = 64

// spawnReducers splits partition p among n reducers (YARN.SpawnReducers):
// the partition's own reducer keeps share 0 of n and n-1 new reduce tasks,
// bound like it, take the others.
func (s *sim) spawnReducers(j *job, p, n int) {
	if j.finished {
		return
	}
	t := j.reduces[p] // a job's first nparts reducers are its partitions in order
	if t.splitN != 1 || t.launches > 0 || t.state != taskPending {
		return
	}
	n = min(n, MaxSpawnReducers)
	t.splitN = int32(n)
	prefix := t.id[:len(t.id)-6] // ids end in a 6-digit index
	for k := 1; k < n; k++ {
		i := len(j.reduces)
		nt := &task{job: j, idx: int32(i), kind: events.Reduce, id: fmt.Sprintf("%s%06d", prefix, i),
			part: int32(p), splitK: int32(k), splitN: int32(n)}
		j.reduces = append(j.reduces, nt)
		if j.slowstart {
			s.setPending(nt) // else reachSlowstart requests it with the others
		}
	}
	if j.slowstart {
		s.wake(n - 1)
	}
}

func (s *sim) taskOf(f []string) *task {
	j := s.jobAt(f[2], "")
	k, err := strconv.Atoi(f[4])
	if j == nil || err != nil || k < 0 {
		return nil
	}
	switch {
	case f[3] == "m" && k < len(j.maps):
		return s.mapTask(j, int32(k))
	case f[3] == "r" && k < len(j.reduces):
		return j.reduces[k]
	}
	return nil
}

func (s *sim) taskByID(id string) *task {
	if t, ok := s.taskByPlainID(id); ok {
		return t
	}
	return s.taskByFields(id)
}

// taskByFields is taskByID for any id: split at '_', the numbers parsed.
func (s *sim) taskByFields(id string) *task {
	var f [6]string
	if idFields(id, f[:]) != 5 || f[0] != "task" {
		return nil
	}
	if t := s.taskOf(f[:]); t != nil && t.id == id {
		return t
	}
	return nil
}

// taskByPlainID is taskByID for the ids the simulator makes,
// task_TS_JOB_K_IDX with JOB and IDX plain decimal numbers and K one byte:
// it finds the same task without splitting the id into strings and
// parsing them with strconv (a place hint per pending map made that a
// quarter of applying it). ok is false for any other id, which taskByID's
// general path then reads (TestTaskByPlainIDSameAsFields).
func (s *sim) taskByPlainID(id string) (t *task, ok bool) {
	const prefix = "task_"
	if !strings.HasPrefix(id, prefix) {
		return nil, false
	}
	rest := id[len(prefix):]
	i := strings.IndexByte(rest, '_') // after the cluster's start time
	if i < 0 {
		return nil, false
	}
	rest = rest[i+1:]
	i = strings.IndexByte(rest, '_') // after the job number
	if i < 0 || i+2 >= len(rest) || rest[i+2] != '_' {
		return nil, false
	}
	num, kind, idx := rest[:i], rest[i+1], rest[i+3:]
	k, okJ := plainDecimal(num)
	x, okX := plainDecimal(idx)
	if !okJ || !okX {
		return nil, false
	}
	// jobAt and taskOf with the numbers read.
	if k < 1 || k > len(s.jobByIdx) {
		return nil, true
	}
	j := s.jobByIdx[k-1]
	if j == nil {
		return nil, true
	}
	switch {
	case kind == 'm' && x < len(j.maps):
		t = s.mapTask(j, int32(x))
	case kind == 'r' && x < len(j.reduces):
		t = j.reduces[x]
	}
	if t != nil && t.id == id {
		return t, true
	}
	return nil, true
}

// nodeByID is s.nodeBy[id]: the node whose id, node-%04d of its index + 1,
// is id, found from the number without hashing the id (the nodes of a
// place hint were looked up in the map one by one).
func (s *sim) nodeByID(id string) *node {
	const prefix = "node-"
	if strings.HasPrefix(id, prefix) {
		if k, ok := plainDecimal(id[len(prefix):]); ok && k >= 1 && k <= len(s.nodes) && s.nodes[k-1].id == id {
			return s.nodes[k-1]
		}
	}
	return s.nodeBy[id]
}

// plainDecimal reads s when it is 1 to 9 decimal digits and nothing else
// (strconv.Atoi's value for it; no sign, no overflow).
func plainDecimal(s string) (int, bool) {
	if len(s) == 0 || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + int(c)
	}
	return n, true
}

func (s *sim) attemptByID(id string) *attempt {
	var f [7]string
	if idFields(id, f[:]) != 6 || f[0] != "attempt" {
		return nil
	}
	t := s.taskOf(f[:])
	if t == nil {
		return nil
	}
	// Attempts that are over leave t.attempts (see stop): look the id up.
	for _, a := range t.attempts {
		if a.id == id {
			return a
		}
	}
	return nil
}

// hintSpeculate launches a backup attempt of the task on the target node
// now if it fits, else queues it there until a container frees or the hint
// expires. A task gets at most one backup at a time.
func (s *sim) hintSpeculate(h *policy.Hint) {
	t := s.taskByID(h.Task)
	n := s.nodeByID(h.Node)
	if t == nil || n == nil || t.state != taskRunning || t.running >= 2 {
		s.m.specIgnored++
		return
	}
	for _, r := range n.specQ {
		if r.task == t {
			return
		}
	}
	if n.fits(s.container(t)) && !n.slotFull(t.kind) {
		s.launch(t, n, true, s.locality(t, n))
		return
	}
	exp := h.ExpiresTS - epochMS
	if h.ExpiresTS == 0 {
		exp = s.now + 30_000
	}
	n.specQ = append(n.specQ, specReq{task: t, expires: exp})
}
