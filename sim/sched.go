package sim

import (
	"cmp"
	"math"
	"slices"

	"github.com/rmsidecar/rmsidecar/events"
)

// The YARN model. Allocation happens on node heartbeats, as in the
// ResourceManager, but heartbeats are only simulated for nodes that could
// take a container while there is work: a node with free capacity and
// nothing to run is parked and woken when work arrives, so an idle day of a
// 600-node cluster costs nothing.

// nextHB is the node's first heartbeat time strictly after now.
func (s *sim) nextHB(n *node) int64 {
	k := (s.now-n.hbPhase)/s.hbMS + 1
	return n.hbPhase + k*s.hbMS
}

func (s *sim) scheduleHB(n *node) {
	if n.hbAt >= 0 {
		return
	}
	n.hbAt = s.nextHB(n)
	n.parked = false
	s.q.push(n.hbAt, evHeartbeat, n.idx, 0)
}

// wakeAll schedules a heartbeat for every parked node (capacity or caps
// changed in a way only a full pass can use).
func (s *sim) wakeAll() { s.wake(len(s.nodes)) }

// wake schedules heartbeats for up to k parked nodes, longest parked
// first: k new containers' worth of work needs at most k offers beyond the
// nodes woken for their locality.
func (s *sim) wake(k int) {
	for k > 0 && s.parkHead < len(s.parked) {
		n := s.nodes[s.parked[s.parkHead]]
		s.parkHead++
		if n.parked {
			s.scheduleHB(n)
			k--
		}
	}
	if s.parkHead == len(s.parked) {
		s.parked, s.parkHead = s.parked[:0], 0
	} else if s.parkHead > 1024 && s.parkHead > len(s.parked)/2 {
		s.parked = append(s.parked[:0], s.parked[s.parkHead:]...)
		s.parkHead = 0
	}
}

// wakeNode schedules a heartbeat for n if it is parked.
func (s *sim) wakeNode(n *node) {
	if n.parked {
		s.scheduleHB(n)
	}
}

func (s *sim) park(n *node) {
	if n.parked || n.hbAt >= 0 {
		return
	}
	n.parked = true
	s.parked = append(s.parked, n.idx)
}

func (n *node) fits(c Container) bool {
	return n.usedV+c.VCores <= n.capV && n.usedM+c.MemoryMB <= n.capM
}

// heartbeat offers the node's free capacity to the queued speculative
// copies, then to the queues (fair share across queues, FIFO within).
func (s *sim) heartbeat(n *node) {
	if s.assigners {
		// Assigners decide at the node's heartbeat (the RM's scheduling
		// moment): report it first so their place hints shape this offer.
		s.clean(n)
		if s.sc.YARN.Preassign {
			s.hbNode = n
		}
		s.emitHeartbeat(n)
		s.hbNode = nil
	}
	s.hbSeq++
	if len(s.skipped) > 0 {
		s.accrueDelay()
	}
	s.runSpecQueue(n)
	if len(n.pre) > 0 {
		s.runPreassigned(n)
	}
	waiting := false
	mapC, redC := s.sc.YARN.MapContainer, s.sc.YARN.ReduceContainer
	for n.fits(mapC) || n.fits(redC) {
		launched, skipped := false, false
		for _, q := range s.queueOrder() {
			for _, j := range q.jobs {
				maps := s.m.locNode + s.m.locRack + s.m.locOff
				ok, wait := s.offer(n, j, q)
				waiting = waiting || wait
				skipped = skipped || wait
				if ok {
					if skipped && s.m.locNode+s.m.locRack+s.m.locOff > maps {
						// A job ahead in fair order waits for locality
						// and this one takes the slot (delay scheduling's
						// cost in fairness, DynamicMR Table 1).
						s.m.passedOver++
					}
					launched = true
					break
				}
			}
			if launched {
				break
			}
		}
		if !launched {
			break
		}
	}
	if n.fits(mapC) || n.fits(redC) {
		if waiting {
			s.scheduleHB(n)
		} else {
			s.park(n)
		}
	}
}

// runPreassigned launches the maps that place hints pre-assigned to n at
// this heartbeat (YARN.Preassign), before the queues are offered the node,
// as far as the node's free capacity and the job's and queue's caps allow.
// Like a place hint of Slot PreScheduling under the load manager, a
// pre-assigned map may pass yarn.load_balance's cap.
func (s *sim) runPreassigned(n *node) {
	mapC := s.sc.YARN.MapContainer
	for _, t := range n.pre {
		j := t.job
		if t.state != taskPending || !n.fits(mapC) || capped(n.runMaps, n.capMaps) || capped(j.runMaps, j.capMaps) ||
			(j.queue.capMaps >= 0 && queueRunning(j.queue, true) >= j.queue.capMaps) {
			continue
		}
		j.waitStart = -1
		s.launchMap(j, t, n)
	}
	n.pre = n.pre[:0]
}

// queueOrder sorts queues by running containers per unit of weight (the
// most starved first), then by name.
func (s *sim) queueOrder() []*queueState {
	if len(s.queues) > 1 {
		slices.SortStableFunc(s.queues, func(a, b *queueState) int {
			if c := cmp.Compare(float64(a.running)/a.weight, float64(b.running)/b.weight); c != 0 {
				return c
			}
			return cmp.Compare(a.name, b.name)
		})
	}
	return s.queues
}

// offer tries to launch one container of job j on n. wait reports that j
// declined only to wait for locality (so n should keep heartbeating).
func (s *sim) offer(n *node, j *job, q *queueState) (launched, wait bool) {
	if j.pendMaps == 0 && (j.pendReds == 0 || !j.slowstart) {
		return false, false
	}
	y := &s.sc.YARN
	// The MR AM asks for reducers at a higher priority than maps once slow
	// start is reached, within the ramp-up limit while maps remain.
	if j.pendReds > 0 && j.slowstart && n.fits(y.ReduceContainer) && !capped(n.runReds, n.capReds) {
		if s.reduceAllowed(j, q) {
			if t := s.pickReduce(j, n); t != nil {
				s.launch(t, n, false, events.Locality(""))
				return true, false
			}
		} else {
			j.blocked = true
		}
	}
	if j.pendMaps == 0 || !n.fits(y.MapContainer) {
		return false, false
	}
	if capped(j.runMaps, j.capMaps) || (q.capMaps >= 0 && queueRunning(q, true) >= q.capMaps) {
		j.blocked = true
		return false, false
	}
	if capped(n.runMaps, n.capMaps) {
		// The node's map share is used up (its TaskTracker's map slots);
		// the job may run on another node.
		return false, false
	}
	if y.LoadBalance && !s.underLoadCap(n) {
		// Only a map pre-scheduled here by a place hint may pass the cap.
		if t := preferredMap(j, n); t != nil {
			j.waitStart = -1
			s.launchMap(j, t, n)
			return true, false
		}
		return false, false
	}
	if p := j.byNode[n.idx]; p != nil {
		if t := p.firstFor(s, j, n.idx, s.now); t != nil {
			j.waitStart = -1
			s.launchMap(j, t, n)
			return true, false
		}
	}
	rackOK, anyOK := s.delayLevel(j)
	if rackOK {
		if p := j.byRack[n.rack]; p != nil {
			if t := p.firstFor(s, j, n.idx, s.now); t != nil {
				s.launchMap(j, t, n)
				return true, false
			}
		}
	}
	if anyOK {
		if t := j.anyMap.firstFor(s, j, n.idx, s.now); t != nil {
			s.launchMap(j, t, n)
			return true, false
		}
	}
	if y.Hadoop1Delay && !j.skippedHB && j.launchedHB != s.hbSeq {
		// Skipped at this heartbeat (Hadoop 1 counts a job that launched
		// a map at it as not skipped): the wait grows at the next one.
		j.skippedHB = true
		s.skipped = append(s.skipped, j)
	}
	return false, true
}

// launchMap launches map t of j on n and restarts j's Hadoop 1 locality
// wait from the launched map's level.
func (s *sim) launchMap(j *job, t *task, n *node) {
	loc := s.locality(t, n)
	j.lastLevel, j.waitedMS = loc, 0
	j.skippedHB, j.launchedHB = false, s.hbSeq
	s.launch(t, n, false, loc)
}

// delayLevel reports whether delay scheduling lets j launch a rack-local
// map, and an off-rack one, on a node without its input. By default the
// wait is the time since j was first skipped after its last node-local
// launch. With YARN.Hadoop1Delay it is Hadoop 1.2.1 FairScheduler's: the
// time accrued over the heartbeats at which j was skipped since its last
// map launch, counted from the level of that launch.
func (s *sim) delayLevel(j *job) (rackOK, anyOK bool) {
	y := &s.sc.YARN
	nodeDelay := int64(y.NodeLocalDelay * float64(s.hbMS))
	rackDelay := int64(y.RackLocalDelay * float64(s.hbMS))
	if !y.Hadoop1Delay {
		if j.waitStart < 0 {
			j.waitStart = s.now
		}
		waited := s.now - j.waitStart
		return waited >= nodeDelay, waited >= nodeDelay+rackDelay
	}
	switch j.lastLevel {
	case events.RackLocal:
		return true, j.waitedMS >= rackDelay
	case events.OffRack:
		return true, true
	default: // node-local, or no map launched yet
		return j.waitedMS >= nodeDelay, j.waitedMS >= nodeDelay+rackDelay
	}
}

// accrueDelay adds, at a heartbeat, the mean gap between the cluster's
// heartbeats to the wait of every job skipped at the previous one
// (YARN.Hadoop1Delay). Hadoop 1 adds the time since the previous heartbeat
// of any TaskTracker; every tracker beats once per interval, full or not,
// while the simulator skips the beats of full and parked nodes, so the gap
// is taken as the interval over the number of nodes.
func (s *sim) accrueDelay() {
	gap := s.hbMS / int64(max(1, len(s.nodes)))
	for _, j := range s.skipped {
		if j.skippedHB {
			j.waitedMS += gap
			j.skippedHB = false
		}
	}
	s.skipped = s.skipped[:0]
}

func queueRunning(q *queueState, maps bool) int {
	c := 0
	for _, j := range q.jobs {
		if maps {
			c += j.runMaps
		} else {
			c += j.runReds
		}
	}
	return c
}

func (s *sim) reduceAllowed(j *job, q *queueState) bool {
	if capped(j.runReds, j.capReds) {
		return false
	}
	if q.capReds >= 0 && queueRunning(q, false) >= q.capReds {
		return false
	}
	if j.doneMaps < len(j.maps) {
		limit := max(1, int(s.sc.YARN.ReduceRampup*float64(j.runMaps+j.runReds+1)))
		return j.runReds < limit
	}
	return true
}

// pickReduce returns a pending reduce for n: one bound or placed on n
// first, else the first one not bound or strictly placed to another node.
func (s *sim) pickReduce(j *job, n *node) *task {
	if j.redPlaced == placedUnknown {
		j.redPlaced = placedNone
		for _, t := range j.reduces {
			if len(t.pref) > 0 || t.strictUntil != 0 {
				j.redPlaced = placedSome
				break
			}
		}
	}
	if j.redPlaced == placedNone && len(j.bind) == 0 {
		// No reducer of j is bound or placed: the first pending one is
		// what the scan below returns, after reading every pending
		// reducer of the job at every offer.
		for ; j.reduceQ.head < len(j.reduceQ.items); j.reduceQ.head++ {
			if t := j.reduces[j.reduceQ.items[j.reduceQ.head]]; t.queued(j.reduceQ.head) {
				return t
			}
		}
		return nil
	}
	var fallback *task
	q := &j.reduceQ
	passed := 0
	defer func() {
		if passed >= minCompactHead && passed > (len(q.items)-q.head)/2 {
			q.dropNotPending(j.reduces)
		}
	}()
	for i := q.head; i < len(q.items); i++ {
		t := j.reduces[q.items[i]]
		if !t.queued(i) {
			if i == q.head {
				q.head++
			} else {
				passed++
			}
			continue
		}
		if b, ok := j.bind[int(t.part)]; ok && b.expires > s.now {
			if b.node == n.idx {
				return t
			}
			continue
		}
		if slices.Contains(t.pref, n.idx) {
			return t
		}
		if t.heldFrom(n.idx, s.now) {
			continue // a strict place hint keeps this reducer for other nodes
		}
		if fallback == nil {
			fallback = t
		}
	}
	return fallback
}

// locality of a map task on node n.
func (s *sim) locality(t *task, n *node) events.Locality {
	if t.kind != events.Map {
		return ""
	}
	loc := events.OffRack
	for _, r := range t.replicas {
		if r == n.idx {
			return events.NodeLocal
		}
		if s.nodes[r].rack == n.rack {
			loc = events.RackLocal
		}
	}
	return loc
}

// runSpecQueue launches queued speculative copies that now fit and drops
// the expired or moot ones. Copies still queued wait for a container to
// free on n, which schedules its next heartbeat.
func (s *sim) runSpecQueue(n *node) {
	if len(n.specQ) == 0 {
		return
	}
	kept := n.specQ[:0]
	for _, r := range n.specQ {
		t := r.task
		if r.expires < s.now || t.state != taskRunning || t.running >= 2 {
			s.m.specDropped++
			continue
		}
		c := s.container(t)
		if !n.fits(c) || n.slotFull(t.kind) {
			kept = append(kept, r)
			continue
		}
		s.launch(t, n, true, s.locality(t, n))
	}
	n.specQ = kept
}

// underLoadCap reports whether n runs fewer maps than Hadoop 1's
// CapBasedLoadManager allows (YARN.LoadBalance): ceil(min(1, L) × its map
// containers), L = the cluster's pending plus running maps over all map
// containers. Only used when LoadBalance is on, so its linear scans cost
// nothing otherwise.
func (s *sim) underLoadCap(n *node) bool {
	mapC := s.sc.YARN.MapContainer
	slots := func(m *node) int { return min(m.capV/max(1, mapC.VCores), m.capM/max(1, mapC.MemoryMB)) }
	var demand, capacity, onNode int
	for _, j := range s.jobs {
		if !j.finished {
			demand += j.pendMaps + j.runMaps
		}
	}
	for _, m := range s.nodes {
		capacity += slots(m)
	}
	for _, a := range s.running {
		if a != nil && a.node == n && a.task.kind == events.Map {
			onNode++
		}
	}
	load := 1.0
	if capacity > 0 {
		load = min(1, float64(demand)/float64(capacity))
	}
	return onNode < int(math.Ceil(load*float64(slots(n))-1e-9))
}

// preferredMap returns a pending map of j that a place hint names for n.
func preferredMap(j *job, n *node) *task {
	p := j.byNode[n.idx]
	if p == nil {
		return nil
	}
	for i := p.head; i < len(p.items); i++ {
		t := j.maps[p.items[i]] // nil (no record): no place hint
		if t != nil && t.state == taskPending && slices.Contains(t.pref, n.idx) {
			return t
		}
	}
	return nil
}
