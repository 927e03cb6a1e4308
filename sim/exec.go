package sim

import (
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/sim/report"
)

func (s *sim) container(t *task) Container {
	if t.kind == events.Map {
		return s.sc.YARN.MapContainer
	}
	return s.sc.YARN.ReduceContainer
}

// use changes a node's used capacity, closing its energy and utilization
// accounts up to now first.
func (s *sim) use(n *node, dv, dm int) {
	s.account(n)
	n.usedV += dv
	n.usedM += dm
	n.dirty = true
	s.dirty.add(n.idx)
	n.maxUsedV = max(n.maxUsedV, n.usedV)
	n.maxUsedM = max(n.maxUsedM, n.usedM)
	// A node-capacity hint may leave a node above its new capacity until
	// containers end; only an allocation past it is a violation.
	if dv > 0 && (n.usedV > n.capV || n.usedM > n.capM) {
		s.m.overCapacity++
	}
}

// clean marks n's usage reported.
func (s *sim) clean(n *node) {
	n.dirty = false
	s.dirty.del(n.idx)
}

// account integrates power (linear in vcore utilization) and busy vcores.
func (s *sim) account(n *node) {
	dt := float64(s.now - n.lastT)
	if dt > 0 {
		u := min(1, float64(n.usedV)/float64(n.vcores))
		n.energyJ += (n.pIdle + (n.pMax-n.pIdle)*u) * dt / 1000
		n.busyVms += float64(n.usedV) * dt
		s.heatAdd(n, n.lastT, s.now, n.usedV)
	}
	n.lastT = s.now
}

// launch starts an attempt of t on n.
func (s *sim) launch(t *task, n *node, spec bool, loc events.Locality) *attempt {
	j := t.job
	s.lastLaunch = s.now
	s.m.launched++
	c := s.container(t)
	s.use(n, c.VCores, c.MemoryMB)
	n.running++
	s.ageLoad1(n)
	n.taskLoad += taskLoad(j)
	j.containerNo++
	idx, ver := s.attemptSlot()
	// The slot's previous attempt (over, out of every list by now: see
	// retireSlots) is overwritten rather than a new one allocated: 356,000
	// attempts of 384 bytes in the FB-2009 day, 18 % of its allocation.
	a := s.attempts[idx]
	if a == nil || s.opts.freshAttempts {
		a = new(attempt)
		s.attempts[idx] = a
	}
	id, container := s.attemptIDs(t, j)
	*a = attempt{
		idx: idx, ver: ver,
		id:        id,
		container: container,
		task:      t, node: n, spec: spec, loc: loc, startMS: s.now, slow: 1, endMS: -1,
		partition: -1,
	}
	a.appID, a.taskID, a.isMap, a.noReduces, a.nMaps = j.id, t.id, t.kind == events.Map, len(j.reduces) == 0, int32(len(j.maps))
	a.progBytes, a.degrade = t.bytes, n.degrade
	s.detailLaunched(a)
	t.attempts = append(t.attempts, a)
	t.launches++
	t.running++
	if t.state == taskPending {
		t.state = taskRunning
		if t.kind == events.Map {
			j.pendMaps--
		} else {
			j.pendReds--
		}
	}
	if t.kind == events.Map {
		j.runMaps++
		n.runMaps++
		n.maxMaps = max(n.maxMaps, n.runMaps)
		s.m.runMaps++
		switch loc {
		case events.NodeLocal:
			s.m.locNode++
		case events.RackLocal:
			s.m.locRack++
		default:
			s.m.locOff++
		}
	} else {
		j.runReds++
		n.runReds++
		n.maxReds = max(n.maxReds, n.runReds)
		s.m.runReds++
	}
	j.queue.running++
	if spec {
		s.m.specLaunched++
	}
	s.m.sample(s.now)
	if st := s.sc.Stragglers; st.TaskProb > 0 && s.rng.Float64() < st.TaskProb {
		a.slow = st.Slowdown[0] + s.rng.Float64()*(st.Slowdown[1]-st.Slowdown[0])
	}
	a.runIdx = len(s.running)
	s.running = append(s.running, a)
	s.nRunning++

	ev := s.event(events.ContainerAllocated)
	ev.App, ev.Task, ev.Attempt, ev.Container, ev.Node = j.id, t.id, a.id, a.container, n.id
	ev.Speculative, ev.Locality = spec, loc
	ev.VCores, ev.MemoryMB = c.VCores, c.MemoryMB
	if t.kind == events.Map {
		s.startMap(a)
	} else {
		s.startReduce(a)
	}
	s.emit(ev)
	return a
}

// attemptIDs are the ids of t's next attempt (t.launches),
// attempt_<task id without "task_">_<launch>, and of j's next container
// (j.containerNo), container_<clusterTS>_<app %04d>_01_<container %06d>,
// built in one string: one allocation instead of two (the engine keeps
// both as long as the attempt).
func (s *sim) attemptIDs(t *task, j *job) (id, container string) {
	b := append(s.idBuf[:0], "attempt_"...)
	b = append(b, t.id[len("task_"):]...)
	b = append(b, '_')
	b = strconv.AppendInt(b, int64(t.launches), 10)
	n := len(b)
	b = append(b, "container_"...)
	b = strconv.AppendInt(b, clusterTS, 10)
	b = append(b, '_')
	b = appendPad(b, int64(j.idx)+1, 4)
	b = append(b, "_01_"...)
	b = appendPad(b, int64(j.containerNo), 6)
	s.idBuf = b
	both := string(b)
	return both[:n], both[n:]
}

// appendPad appends v (>= 0) in decimal, zero-padded to w digits (fmt's %0wd).
func appendPad(b []byte, v int64, w int) []byte {
	var d [20]byte
	n := len(strconv.AppendInt(d[:0], v, 10))
	for ; n < w; n++ {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, v, 10)
}

// speed is the attempt's compute speed at its start: the node's speed
// factor times the share of a core the background leaves it, divided by
// the straggler slowdown.
func (s *sim) speed(a *attempt, base float64) float64 {
	return base * cpuShare(s.loadAt(a.node, s.now)) / a.slow
}

// minCPUShare is what a task keeps of a core whose background load is at or
// beyond saturation: schedulers do not starve a runnable thread entirely.
const minCPUShare = 0.05

// cpuShare is the share of a core a task gets beside a background load of
// load runnable threads per core (the kernel's load-average unit divided by
// the cores). The background is served first (daemons and co-located
// services the NodeManager does not preempt), so the task gets what it
// leaves: 1 - load, but never less than minCPUShare. A load of 1 or more
// saturates the core.
func cpuShare(load float64) float64 {
	return max(minCPUShare, 1-load)
}

// startMap computes the map's phases: launch overhead and input read (by
// locality), compute, then sort/spill of its output when the job has
// reducers.
func (s *sim) startMap(a *attempt) {
	t, n := a.task, a.node
	y := &s.sc.YARN
	spd := s.speed(a, n.mapSpd)
	work := t.workMS
	if t.fixedMS > 0 {
		work = float64(t.fixedMS)
	}
	// Remote reads: a documented cost, not a simulated flow: rack-local reads
	// take the split's time over one NIC, off-rack twice that (core hop).
	nicB := s.sc.Cluster.Network.NodeGbps * 1e9 / 8 / 1000
	var readMS float64
	switch a.loc {
	case events.RackLocal:
		readMS = float64(t.bytes)/nicB + s.net.latency
	case events.OffRack:
		readMS = 2 * (float64(t.bytes)/nicB + s.net.latency)
	}
	a.readAt = s.now + int64(y.TaskOverheadS*1000)
	a.readMS = math.Ceil(readMS)
	startWork := a.readAt + int64(a.readMS)
	a.mapEndMS = runFor(n, startWork, work, spd)
	var sortWork float64
	if len(t.job.reduces) > 0 && t.outBytes > 0 {
		sortWork = float64(t.outBytes) / (y.SortMBps * (1 << 20)) * 1000
	}
	a.endMS = runFor(n, a.mapEndMS, sortWork, spd)
	a.spd, a.workAt, a.work1, a.work2 = spd, startWork, work, sortWork
	a.phaseMS = events.PhaseDurations{Map: a.mapEndMS - s.now, Sort: a.endMS - a.mapEndMS}
	s.q.push(a.endMS, evAttemptDone, a.idx, a.ver)
}

// startReduce begins the copy phase: the reducer takes the outputs of the
// maps finished so far and fetches them, ParallelCopies sources at a time.
func (s *sim) startReduce(a *attempt) {
	a.partition = int(a.task.part)
	// The copy's total for progress: splitN and splitK change only before
	// a reducer's first launch (a reduce-binding's split).
	a.progBytes = a.task.share(a.task.job.partTotal[a.partition])
	j := a.task.job
	a.noBytes = a.task.share(j.partBytes(j.outPer, a.partition)) == 0 && a.task.share(j.partBytes(j.outLast, a.partition)) == 0
	if a.noBytes {
		s.noByteReds++
	}
	a.shareOut = -1
	// Beside the attempt's copy state, not in a slice of its own: a fetch's
	// end searches it, and a separate array was a cache miss there.
	a.flowN = 0
	a.dst, a.rackFetch = a.node.idx, a.task.job.rackFetch
	a.copyEndMS = -1 // its fetch list and index come at its first poll (getPend)
	// The first poll comes after the container launch overhead.
	a.polling = true
	s.q.push(s.now+int64(s.sc.YARN.TaskOverheadS*1000), evFetchPoll, a.idx, a.ver)
}

// poll takes the job's new map outputs into the reducer's fetch list.
func (s *sim) poll(a *attempt) {
	j := a.task.job
	if a.noBytes && !s.opts.listEmpty {
		// Every entry the outputs would list is empty (so is what its own
		// node's outputs add to fetched): fetchMore would start no fetch
		// and take them all off the list at once. A fifth of the FB-2010
		// day's list entries were these.
		a.cursor = len(j.outputs)
		s.fetchMore(a)
		return
	}
	if a.pend == nil {
		s.getPend(a) // first poll, or the list emptied since (fetchMore), or a table by node
	}
	if j.rackFetch {
		s.pollRacks(a)
		s.putIndex(a)
		s.fetchMore(a)
		return
	}
	if a.pend.dense != nil && !s.opts.pollRef {
		s.pollDense(a, j)
		s.putIndex(a)
		s.fetchMore(a)
		return
	}
	// The loop runs once per new output of the job and reducer (hundreds
	// of millions of pairs in the FB-2010 day): the reducer's copy state is held in
	// locals and written back once, as the attempt's fields would otherwise
	// be loaded and stored at every output (the fetch list's appends may
	// alias them), and the dense index is read inline.
	outs, self, x := j.outputs, a.node.idx, a.pend
	dense := x.dense
	cursor, shareOut, shareB, fetched := a.cursor, a.shareOut, a.shareB, a.fetched
	q, head := a.fetchQ, int(a.fetchHead)
	for ; cursor < len(outs); cursor++ {
		o := outs[cursor]
		if ob := j.outBytesAt(cursor); ob != shareOut {
			// A job's outputs have at most two sizes: compute each once.
			shareOut, shareB = ob, a.task.share(j.partBytes(ob, a.partition))
		}
		if o.node == self {
			fetched += shareB // local output: read from disk in the merge
			continue
		}
		src := o.node
		var i int32
		var listed bool // src's latest entry is still to fetch (fetchIndex.lookup)
		if dense != nil {
			i = dense[src]
			listed = int(i) >= head && int(i) < len(q) && q[i].src == src
		} else {
			i, listed = x.lookup(src, q, head)
		}
		if listed {
			q[i].bytes += shareB
		} else {
			if dense != nil {
				dense[src] = int32(len(q))
			} else {
				x.set(src, int32(len(q)))
			}
			q = append(q, pendFetch{src: src, bytes: shareB})
		}
	}
	a.cursor, a.shareOut, a.shareB, a.fetched, a.fetchQ = cursor, shareOut, shareB, fetched, q
	s.putIndex(a)
	s.fetchMore(a)
}

// pollDense is poll's loop for a fetch index by node, with no call inside:
// the reducer's bytes of both map output sizes are worked out first, and
// the list has room for a block of outputs before the block is read, so
// no append can grow it midway. With a call in the loop (a size's bytes, an
// append's growth, the hash index) the compiler kept the loop's state on
// the stack across every output.
func (s *sim) pollDense(a *attempt, j *job) {
	outs, self, dense := j.outputs, a.node.idx, a.pend.dense
	perOut := j.outPer
	perB := a.task.share(j.partBytes(perOut, a.partition))
	lastB := perB
	if j.outLast != perOut {
		lastB = a.task.share(j.partBytes(j.outLast, a.partition))
	}
	cursor, fetched := a.cursor, a.fetched
	q, head := a.fetchQ, int(a.fetchHead)
	last := int(j.lastOut) // the output of size outLast (outBytesAt)
	for cursor < len(outs) {
		stop := min(len(outs), cursor+pollBlock)
		q = slices.Grow(q, stop-cursor) // each output adds one entry at most
		n := len(q)
		for ; cursor < stop; cursor++ {
			o := outs[cursor]
			b := perB // a job's outputs have two sizes (see outputParts)
			if cursor == last {
				b = lastB
			}
			if o.node == self {
				fetched += b // local output: read from disk in the merge
				continue
			}
			src := o.node
			// Still listed: src's latest entry is still to fetch (fetchIndex.lookup).
			if i := dense[src]; int(i) >= head && int(i) < n && q[i].src == src {
				q[i].bytes += b
				continue
			}
			dense[src] = int32(n)
			q = q[:n+1]
			q[n] = pendFetch{src: src, bytes: b}
			n++
		}
	}
	a.cursor, a.fetched, a.fetchQ = cursor, fetched, q
}

// pollBlock is how many outputs pollDense reads between two checks of the
// fetch list's room.
const pollBlock = 32

// fetchMore starts fetches up to ParallelCopies and detects the end of the
// copy phase.
func (s *sim) fetchMore(a *attempt) {
	for a.nFlight() < s.sc.YARN.ParallelCopies && int(a.fetchHead) < len(a.fetchQ) {
		// Taken off the list; its index entry stays (below fetchHead it
		// means not listed), as deleting from a map costs more than it saves.
		e := a.fetchQ[a.fetchHead]
		a.fetchHead++
		src, b := e.src, e.bytes
		if b <= 0 {
			continue
		}
		sn, dn := s.nodeNet[src], s.nodeNet[a.dst]
		cross := sn.rack != dn.rack
		var links [4]int32
		links[0], links[1] = sn.out, dn.in
		nl := 2
		if a.rackFetch {
			// One fetch for the whole source rack: its NICs are not modelled.
			links[0], nl = dn.in, 1
		}
		if cross {
			links[nl], links[nl+1] = s.racks[sn.rack].up, s.racks[dn.rack].down
			nl += 2
		}
		id := s.net.start(s.now, a, cross, b, links, nl)
		a.addFlow(id)
		s.rescheduleLinks(links, int8(nl), -1)
	}
	if int(a.fetchHead) == len(a.fetchQ) && a.fetchHead > 0 && !s.opts.noCompact && (a.rackFetch || s.denseFetch()) {
		// Every entry taken: the list starts over. It only grew before
		// (a reducer of a long job relisted a source after each fetch), so
		// its storage went from line to line of cold memory and past the
		// pooled size. Valid because the table by node (or rack) accepts
		// an entry only if the list's entry there names the same source
		// (fetchIndex.lookup), which an entry added after the reset does
		// only when it is that source's latest; the hash index trusts its
		// entry above fetchHead and keeps the growing list.
		a.fetchQ, a.fetchHead = a.fetchQ[:0], 0
		s.fetchResets++
		// The empty list goes back to the pool until the reducer's next
		// poll (with its index, which only a hash table's reducer holds
		// between polls): many of the reducers copying at once wait with an
		// empty list (21,000 copy at once under tmar on the FB-2010 day).
		s.putPend(a)
	}
	if a.nFlight() > 0 || int(a.fetchHead) < len(a.fetchQ) {
		return
	}
	j := a.task.job
	if a.cursor < len(j.outputs) {
		if !a.polling {
			a.polling = true
			s.q.push(s.now+fetchPollMS, evFetchPoll, a.idx, a.ver)
		}
		return
	}
	if j.doneMaps < len(j.maps) {
		if !a.inWait {
			a.inWait = true
			j.waiting = append(j.waiting, a)
		}
		return
	}
	s.copyDone(a)
}

// reschedule makes sure a link's completion event fires no later than its
// earliest flow's finish. An event already due earlier is kept: when it
// fires and nothing is done yet it reschedules, which saves a push per flow
// start (a start only delays the others).
func (s *sim) reschedule(li int32) {
	l := &s.net.links[li]
	if l.members == 0 || l.at >= 0 && s.net.notBefore(l, l.at) {
		return // nextDone would be -1, or the event due is no later than it
	}
	s.rescheduleDue(l, li)
}

// rescheduleLinks reschedules the links of a fetch, links[:nl] in order,
// but skip: reschedule with its early return in the loop (most reschedules
// end there), one call per fetch instead of one per link.
func (s *sim) rescheduleLinks(links [4]int32, nl int8, skip int32) {
	all := s.net.links // rescheduleDue changes links, not the table
	for _, li := range links[:nl] {
		if li == skip {
			continue
		}
		l := &all[li]
		if l.members == 0 || l.at >= 0 && s.net.notBefore(l, l.at) {
			continue
		}
		s.rescheduleDue(l, li)
	}
}

// rescheduleDue is reschedule past its early return.
func (s *sim) rescheduleDue(l *link, li int32) {
	t := s.net.nextDone(l)
	if t < 0 || (l.at >= 0 && l.at <= t) {
		return
	}
	l.ver++
	l.at = max(t, s.now)
	s.q.push(l.at, evLinkDone, li, l.ver)
}

func (s *sim) linkDone(li int32, ver uint32) {
	l := &s.net.links[li]
	if l.ver != ver {
		return
	}
	l.at = -1
	for {
		id := s.net.due(l, s.now)
		if id < 0 {
			break
		}
		f := &s.net.flows[id]
		a, b, cross := f.att, f.bytes, f.cross
		fl, nl := f.links, f.nlinks
		l.bytes += b
		s.net.finish(s.now, id)
		s.rescheduleLinks(fl, nl, li)
		a.removeFlow(id)
		a.fetched += b
		if cross {
			s.m.crossRackBytes += b
		}
		s.fetchMore(a)
	}
	s.reschedule(li)
}

// copyDone starts the reducer's sort (merge) and reduce phases.
func (s *sim) copyDone(a *attempt) {
	t, n := a.task, a.node
	y := &s.sc.YARN
	a.copyEndMS = s.now
	s.putPend(a)
	spd := s.speed(a, n.redSpd)
	in := float64(a.fetched)
	sortWork := in / (y.SortMBps * (1 << 20)) * 1000
	redWork := t.job.spec.ReduceSPerGB * 1000 * in / (1 << 30)
	if t.fixedMS > 0 {
		sortWork, redWork = 0, float64(t.fixedMS)
	}
	a.mapEndMS = runFor(n, s.now, sortWork, spd)
	a.endMS = runFor(n, a.mapEndMS, redWork, spd)
	a.spd, a.workAt, a.work1, a.work2 = spd, s.now, sortWork, redWork
	a.phaseMS = events.PhaseDurations{Shuffle: s.now - a.startMS, Merge: a.mapEndMS - s.now, Reduce: a.endMS - a.mapEndMS}
	s.q.push(a.endMS, evAttemptDone, a.idx, a.ver)
}

// progress is the attempt's progress now, Hadoop style: maps 2/3 map and
// 1/3 sort when there are reducers; reduces 1/3 each copy, sort, reduce.
// Within a phase it is the share of the phase's work done (bytes for the
// read and the copy, speed-integrated compute otherwise), never elapsed
// time over a known end: policies see a slowdown when it happens.
//
// It reads the attempt's record only (its copies of the task's, job's and
// node's constants, see attempt.appID); progress_ref_test.go keeps the
// version that reads those records.
func (s *sim) progress(a *attempt) (p float64, phase string, phaseP float64) {
	done := func(from int64, work float64) float64 {
		if work <= 0 {
			return 1
		}
		return min(1, workUnder(a.degrade, from, s.now, a.spd)/work)
	}
	if a.isMap {
		var f float64
		if s.now < a.mapEndMS {
			read := min(a.readMS, max(0, float64(s.now-a.readAt)))
			f = (read + a.work1*done(a.workAt, a.work1)) / max(1e-9, a.readMS+a.work1)
			if a.readMS+a.work1 <= 0 {
				f = 1
			}
		} else {
			f = 1
		}
		if a.noReduces {
			return f, events.PhaseMap, f
		}
		if s.now < a.mapEndMS {
			return f * 2 / 3, events.PhaseMap, f
		}
		g := done(a.mapEndMS, a.work2)
		return 2.0/3 + g/3, events.PhaseSort, g
	}
	if a.copyEndMS < 0 {
		total := a.progBytes
		f := 1.0
		if total > 0 {
			f = min(1, float64(a.fetched)/float64(total))
		}
		return f / 3, events.PhaseShuffle, f
	}
	if s.now < a.mapEndMS {
		f := done(a.workAt, a.work1)
		return 1.0/3 + f/3, events.PhaseMerge, f
	}
	f := done(a.mapEndMS, a.work2)
	return 2.0/3 + f/3, events.PhaseReduce, f
}

func (s *sim) emitProgress(a *attempt) {
	if s.opts.emitProgressRef != nil {
		s.opts.emitProgressRef(s, a)
		return
	}
	p, phase, pp := s.progress(a)
	ev := s.event(events.TaskProgress)
	ev.App, ev.Task, ev.Attempt, ev.Progress, ev.Phase = a.appID, a.taskID, a.id, p, phase
	s.evPhaseP = pp
	ev.PhaseProgress = &s.evPhaseP
	if a.isMap {
		ev.BytesRead = int64(float64(a.progBytes) * min(1, p*1.5))
		ev.RecordsTotal = a.progBytes / 100
		ev.RecordsDone = int64(float64(ev.RecordsTotal) * min(1, p*1.5))
	} else {
		ev.BytesRead = a.fetched
		ev.MapsTotal = int(a.nMaps)
		ev.MapsFetched = min(a.cursor, int(a.nMaps))
	}
	s.emit(ev)
}

// stop releases the attempt's container and cancels its fetches.
func (s *sim) stop(a *attempt) {
	a.over = true
	a.ver++
	t, n, j := a.task, a.node, a.task.job
	for _, id := range a.inFlight() {
		fl, nl := s.net.flows[id].links, s.net.flows[id].nlinks
		s.net.finish(s.now, id)
		s.rescheduleLinks(fl, nl, -1)
	}
	a.flowN, a.flowMore = 0, nil
	s.putPend(a)
	if a.inWait {
		for i, x := range j.waiting {
			if x == a {
				j.waiting = append(j.waiting[:i], j.waiting[i+1:]...)
				break
			}
		}
		a.inWait = false
	}
	c := s.container(t)
	s.use(n, -c.VCores, -c.MemoryMB)
	n.running--
	s.ageLoad1(n)
	n.taskLoad -= taskLoad(j)
	if n.running == 0 {
		n.taskLoad = 0 // no float drift across a busy period
	}
	t.running--
	if t.kind == events.Map {
		j.runMaps--
		n.runMaps--
		s.m.runMaps--
	} else {
		j.runReds--
		n.runReds--
		s.m.runReds--
	}
	j.queue.running--
	s.m.sample(s.now)
	s.runningRemove(a)
	s.m.containerMS += float64(c.VCores) * float64(s.now-a.startMS)
	if j.blocked {
		j.blocked = false
		s.wake(1)
	}
	s.scheduleHB(n)
	if !s.opts.keepHistory {
		// Its queued events are stale now (ver). The slot, and the record
		// with it, become free when the event that ended it has been
		// handled (retireSlots): the caller, and hints applied meanwhile,
		// may still read a.
		s.retired = append(s.retired, a.idx)
		// The task keeps only the attempts not over: a job of 100,000 maps
		// held every finished one until its last reducer ended.
		if i := slices.Index(t.attempts, a); i >= 0 {
			t.attempts = slices.Delete(t.attempts, i, i+1)
		}
	}
}

// TasksCSVHeader returns the header of Options.Tasks: per attempt its job, task
// and attempt ids, kind, node, whether speculative, map locality, start and
// end (simulated seconds), how it ended (SUCCEEDED, KILLED: lost a race or
// killed by a hint) and, for a reducer, the bytes it fetched.
func TasksCSVHeader() []string { return slices.Clone(report.TasksColumns) }

// logTask writes the ended attempt a's row to Options.Tasks.
func (s *sim) logTask(a *attempt, state string) {
	s.detailEnded(a, state)
	if s.tasks == nil || s.m.writeErr != nil {
		return
	}
	s.m.writeErr = s.tasks.attempt(a, s.now, state)
}

// attemptSlot returns a free slot of the attempt table for a new attempt and
// the version it starts at. Slots of attempts that are over are reused, so
// the table is as long as the most attempts ever running at once, not the
// run's attempt count; the version continues the slot's last attempt's, so
// the events queued for that attempt stay stale.
func (s *sim) attemptSlot() (int32, uint32) {
	if s.opts.freshAttempts {
		s.retireSlots() // stop's order of free slots, as before records were reused
	}
	if n := len(s.freeSlots); n > 0 {
		i := s.freeSlots[n-1]
		s.freeSlots = s.freeSlots[:n-1]
		return i, s.attempts[i].ver
	}
	s.attempts = append(s.attempts, nil)
	return int32(len(s.attempts) - 1), 0
}

// retireSlots frees the slots of the attempts stopped since the last call.
// dispatch calls it after each event, when nothing refers to those
// attempts any more (see stop), so launch may overwrite their records.
func (s *sim) retireSlots() {
	s.freeSlots = append(s.freeSlots, s.retired...)
	s.retired = s.retired[:0]
}

// attemptEnd: the attempt's last phase is over; the first finisher of a
// task wins and its running siblings are killed.
func (s *sim) attemptEnd(a *attempt) {
	t, j := a.task, a.task.job
	s.stop(a)
	t.wins++
	t.state = taskDone
	s.m.tasksDone++
	if a.spec {
		s.m.specWon++
	}
	ms := s.now - a.startMS
	s.logTask(a, events.StateSucceeded)
	ev := s.event(events.TaskFinished)
	ev.App, ev.Task, ev.Attempt, ev.State = j.id, t.id, a.id, events.StateSucceeded
	pm := a.phaseMS
	ev.PhaseMS = &pm
	s.emit(ev)
	// Killing a sibling takes it off t.attempts (see stop): kill from a copy.
	var sib [4]*attempt
	for _, o := range append(sib[:0], t.attempts...) {
		if o != a && !o.over {
			s.kill(o, true)
		}
	}
	if t.kind == events.Map {
		j.sumMapMS += ms
		j.doneMaps++
		if int(t.idx) == len(j.maps)-1 {
			j.lastOut = int32(len(j.outputs)) // its size is outLast (outBytesAt)
		}
		j.outputs = append(j.outputs, mapOut{node: a.node.idx, rack: a.node.rack})
		if j.rackFetch {
			s.outputAdded(j, int(t.idx) == len(j.maps)-1)
		}
		if len(j.reduces) > 0 {
			ev := s.event(events.MapOutput)
			ev.App, ev.Task, ev.Attempt, ev.Node = j.id, t.id, a.id, a.node.id
			ev.Partitions = j.outputParts(t.outBytes)
			s.emit(ev)
		}
		if !s.opts.keepHistory {
			j.maps[t.idx] = doneMap // the record and its attempts can go
		}
		if !j.slowstart && float64(j.doneMaps) >= s.sc.YARN.Slowstart*float64(len(j.maps)) {
			s.reachSlowstart(j)
		}
		w := j.waiting
		j.waiting = nil
		for _, r := range w {
			r.inWait = false
			if !r.over && !r.polling {
				r.polling = true
				s.q.push(s.now+fetchPollMS, evFetchPoll, r.idx, r.ver)
			}
		}
	} else {
		j.sumRedMS += s.now - a.copyEndMS
		j.doneReds++
		j.shuffled += a.fetched
	}
	if j.doneMaps == len(j.maps) && j.doneReds == len(j.reduces) {
		s.finishJob(j)
	}
}

// outputParts is the partition list of a map.output event for a map
// output of out bytes. A job's maps have at most two output sizes (full
// splits and the last one), so the lists are built once per size and
// shared by the job's events: the engine keeps each attempt's list and
// reads it only, so a job's maps share two lists instead of holding one
// each.
func (j *job) outputParts(out int64) []events.PartitionSize {
	for _, o := range j.outParts {
		if o.out == out {
			return o.parts
		}
	}
	np := min(j.nparts, maxOutputPartitions)
	parts := make([]events.PartitionSize, np)
	for p := range np {
		parts[p] = events.PartitionSize{ID: p, Bytes: j.partBytes(out, p)}
	}
	j.outParts = append(j.outParts, outParts{out: out, parts: parts})
	return parts
}

type outParts struct {
	out   int64
	parts []events.PartitionSize
}

// kill ends a running attempt. A loser of a speculative race counts as
// waste; a task left without attempts goes pending again.
func (s *sim) kill(a *attempt, lost bool) {
	t, j := a.task, a.task.job
	s.stop(a)
	// Waste is the work of speculative copies that lost and of attempts a
	// kill hint ended; an original that loses to its copy is not counted
	// (the copy replaced it, LATE's accounting).
	if a.spec || !lost {
		c := s.container(t)
		s.m.wastedS += float64(c.VCores) * float64(s.now-a.startMS) / 1000
	}
	if a.spec && lost {
		s.m.specLost++
	}
	if !lost {
		s.m.killed++
	}
	s.logTask(a, events.StateKilled)
	ev := s.event(events.TaskFinished)
	ev.App, ev.Task, ev.Attempt, ev.State = j.id, t.id, a.id, events.StateKilled
	s.emit(ev)
	if t.state == taskRunning && t.running == 0 {
		s.setPending(t)
		s.wake(1)
	}
}

func (s *sim) finishJob(j *job) {
	j.finished = true
	j.finishMS = s.now
	// Drop what only a running job needs; a day of jobs adds up. The
	// results keep the job's counts and sums (see results), not its tasks.
	j.byNode, j.byRack, j.outputs, j.floorSum, j.waiting, j.outParts = nil, nil, nil, nil, nil, nil
	j.chunks = rackChunks{}
	j.replicas, j.recMaps, j.pendIDs = nil, nil, nil // views of replicas stay with the records kept (keepHistory)
	j.anyMap, j.reduceQ = plist{}, plist{}
	j.nMaps, j.nReds = len(j.maps), len(j.reduces)
	if !s.opts.keepHistory {
		j.maps, j.reduces, j.bind, j.frac, j.partTotal = nil, nil, nil, nil, nil
	}
	s.lastFinish = max(s.lastFinish, s.now)
	j.queue.remove(j)
	s.activeJobs--
	s.doneJobs++
	ev := s.event(events.AppFinished)
	ev.App, ev.State = j.id, events.StateSucceeded
	s.emit(ev)
	if s.opts.Progress != nil {
		s.reportProgress()
		s.checkCtx = true // a callback that cancels stops the run right here
	}
}

// getPend gives the reducer its fetch index (source -> its latest entry in
// fetchQ), and a fetch list if it has none. On a cluster of at most
// denseFetchNodes nodes the index is a table by node (4 bytes a node,
// never cleared, see fetchIndex) and one table serves every reducer: a
// reducer needs its index only while it polls (poll hands it back, see
// putIndex), as it polls only once its list is empty and nothing is in
// flight (fetchMore). A table each was 12 KB for each reducer copying at
// once, 256 MB of the peak under tmar on the FB-2010 day on 3,000 nodes.
// On a larger cluster the index is sparse, a small hash table, held by
// the reducer from its first poll to the end of its copy (tens of
// thousands of reducers copy at once on a large cluster, and a table each
// was most of the memory of a 10,000-node run). Indexes and lists are
// recycled.
func (s *sim) getPend(a *attempt) {
	switch n := len(s.pendPool); {
	case s.denseFetch():
		if s.fetchTable == nil {
			s.fetchTable = &fetchIndex{dense: make([]int32, len(s.nodes))}
		}
		a.pend = s.fetchTable
	case n > 0:
		p := s.pendPool[n-1]
		s.pendPool = s.pendPool[:n-1]
		a.pend = p.idx
		if a.fetchQ == nil {
			a.fetchQ = p.q
		}
	default:
		a.pend = &fetchIndex{}
	}
	x := a.pend
	if a.rackFetch && len(x.racks) < len(s.racks) {
		x.racks = make([]int32, len(s.racks))
	}
	if x.dense == nil {
		return
	}
	if a.fetchQ == nil {
		if n := len(x.lists); n > 0 {
			a.fetchQ, x.lists = x.lists[n-1], x.lists[:n-1]
		}
	}
	// The table was last written by other reducers: point it at the
	// entries still listed (none, as a reducer polls with an empty list;
	// this keeps the index right if that ever changes). Another reducer's
	// entry in the table cannot pass lookup's check for this list.
	for i := int(a.fetchHead); i < len(a.fetchQ); i++ {
		src := a.fetchQ[i].src
		if a.rackFetch {
			x.racks[s.nodeNet[src].rack] = int32(i)
			continue
		}
		x.dense[src] = int32(i)
	}
}

// putIndex hands the shared table by node back at the end of a poll (see
// getPend); a hash table stays with its reducer.
func (s *sim) putIndex(a *attempt) {
	if a.pend.dense != nil {
		a.pend = nil
	}
}

// denseFetch says whether fetch indexes are tables by node (getPend).
func (s *sim) denseFetch() bool { return len(s.nodes) <= denseFetchNodes }

// denseFetchNodes is the largest cluster on which a fetch index is a table
// over every node rather than a hash table. The tables (one, shared)
// save 11 % of the CPU of the FB-2010 day under yarn on 3,000 nodes (the
// hash tables' probing, growth and clearing).
const denseFetchNodes = 4096

// putPend recycles the reducer's fetch list, emptied, and its index if it
// holds one. A long list or a large hash table is dropped rather than
// kept: the pool keeps as many lists as reducers ever listed at once, and
// a few reducers of a huge job must not size them all. With a table by
// node the lists wait in the table's pool (fetchIndex.lists).
func (s *sim) putPend(a *attempt) {
	q := a.fetchQ[:0]
	if cap(q) > maxPooledFetches {
		q = nil
	}
	a.fetchQ, a.fetchHead = nil, 0
	if s.denseFetch() {
		if a.pend != nil {
			s.putIndex(a) // not reached: poll hands it back
		}
		if q != nil && s.fetchTable != nil {
			s.fetchTable.lists = append(s.fetchTable.lists, q)
		}
		return
	}
	if a.pend == nil {
		return // never polled, or released when its list emptied
	}
	a.pend.reset()
	if len(a.pend.slots) > 2*maxPooledFetches {
		a.pend.slots, a.pend.shift = nil, 0
	}
	s.pendPool = append(s.pendPool, pendList{idx: a.pend, q: q})
	a.pend = nil
}

// maxPooledFetches bounds the fetch lists (entries) and, twice that, the
// hash tables (slots) putPend recycles.
const maxPooledFetches = 512

// pendList is a recycled fetch index and fetch list.
type pendList struct {
	idx *fetchIndex
	q   []pendFetch
}

// fetchIndex maps a source node to an int32 (its entry in a reducer's
// fetch list): open addressing with linear probing, a slot holding
// (source+1)<<32 | entry, 0 when empty.
//
// On a small cluster it is dense instead, a table by source node that is
// never cleared: an entry is valid when it points to an entry of the list
// for that source (lookup), as every entry a list adds for a source
// overwrites the source's slot, so a stale slot cannot point to an entry
// of that source.
type fetchIndex struct {
	slots []uint64
	n     int
	shift uint8 // 32 - log2(len(slots)): the hash's top bits pick the slot
	dense []int32
	racks []int32 // by source rack, for a job whose reducers fetch per rack (pollRacks)
	// lists are the emptied fetch lists waiting for a reducer, when the
	// index is the table by node every reducer shares (putPend).
	lists [][]pendFetch
}

// lookup returns the latest entry of list q for src if q has one still
// listed (at or after head). The dense table's entry is checked against
// head before the list is read: an entry already taken is the common case
// of a reducer polling outputs of a node it fetched from, and the list's
// entry is then not in cache.
func (x *fetchIndex) lookup(src int32, q []pendFetch, head int) (int32, bool) {
	if x.dense != nil {
		i := x.dense[src]
		return i, int(i) >= head && int(i) < len(q) && q[i].src == src
	}
	i, ok := x.get(src)
	return i, ok && int(i) >= head
}

func (x *fetchIndex) slot(src int32) int {
	mask := uint32(len(x.slots) - 1)
	h := (uint32(src) * 0x9E3779B1) >> x.shift
	k := uint64(uint32(src)+1) << 32
	for {
		if v := x.slots[h]; v == 0 || v&^0xFFFFFFFF == k {
			return int(h)
		}
		h = (h + 1) & mask
	}
}

func (x *fetchIndex) get(src int32) (int32, bool) {
	if x.n == 0 {
		return 0, false
	}
	v := x.slots[x.slot(src)]
	return int32(uint32(v)), v != 0
}

func (x *fetchIndex) set(src int32, i int32) {
	if x.dense != nil {
		x.dense[src] = i
		return
	}
	if 2*(x.n+1) > len(x.slots) {
		x.grow()
	}
	h := x.slot(src)
	if x.slots[h] == 0 {
		x.n++
	}
	x.slots[h] = uint64(uint32(src)+1)<<32 | uint64(uint32(i))
}

func (x *fetchIndex) grow() {
	old := x.slots
	x.slots = make([]uint64, max(16, 2*len(old)))
	x.shift = uint8(32 - bits.TrailingZeros(uint(len(x.slots))))
	for _, v := range old {
		if v != 0 {
			x.slots[x.slot(int32(v>>32)-1)] = v
		}
	}
}

func (x *fetchIndex) reset() {
	if x.dense != nil {
		return
	}
	clear(x.slots)
	x.n = 0
}

// taskLoad is the load average one running task of j adds to its node.
func taskLoad(j *job) float64 {
	if l := j.spec.TaskLoad; l > 0 {
		return l
	}
	return 1
}

// ageLoad1 brings n's load average up to now (Load.AvgS): the load since
// the last update was its running tasks' load plus the background at that
// update, so the average decays towards it as exp(-dt / AvgS).
func (s *sim) ageLoad1(n *node) {
	if n.load.AvgS <= 0 {
		return
	}
	inst := n.taskLoad + s.loadAt(n, n.load1At)*float64(n.vcores)
	dt := float64(s.now - n.load1At)
	n.load1 = inst + (n.load1-inst)*math.Exp(-dt/(n.load.AvgS*1000))
	n.load1At = s.now
}

// runningRemove takes a off the running list, keeping the others in launch
// order: a policy tick reports progress in that order, which is the order
// the engine's attempt index holds them in (container.allocated's), so its
// cursor finds a report's attempt where the one before it predicts more
// often. (Moving the last attempt into the hole, as before, scattered
// them.) yarn's records are in task order, which maps placed by locality
// do not launch in, so its guess gains little. Holes are squeezed out once
// they are half the list.
func (s *sim) runningRemove(a *attempt) {
	s.nRunning--
	if s.opts.swapRunning {
		last := s.running[len(s.running)-1]
		s.running[a.runIdx] = last
		last.runIdx = a.runIdx
		s.running = s.running[:len(s.running)-1]
		return
	}
	s.running[a.runIdx] = nil
	if n := len(s.running); n >= 64 && 2*s.nRunning < n || s.nRunning == 0 {
		k := 0
		for _, b := range s.running {
			if b != nil {
				b.runIdx = k
				s.running[k] = b
				k++
			}
		}
		clear(s.running[k:])
		s.running = s.running[:k]
	}
}
