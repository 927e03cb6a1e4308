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
		n.dirty = false
		s.emitHeartbeat(n)
	}
	s.runSpecQueue(n)
	waiting := false
	mapC, redC := s.sc.YARN.MapContainer, s.sc.YARN.ReduceContainer
	for n.fits(mapC) || n.fits(redC) {
		launched := false
		for _, q := range s.queueOrder() {
			for _, j := range q.jobs {
				ok, wait := s.offer(n, j, q)
				waiting = waiting || wait
				if ok {
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
	if j.pendReds > 0 && j.slowstart && n.fits(y.ReduceContainer) {
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
	if (j.capMaps > 0 && j.runMaps >= j.capMaps) || (q.capMaps > 0 && queueRunning(q, true) >= q.capMaps) {
		j.blocked = true
		return false, false
	}
	if y.LoadBalance && !s.underLoadCap(n) {
		// Only a map pre-scheduled here by a place hint may pass the cap.
		if t := preferredMap(j, n); t != nil {
			j.waitStart = -1
			s.launch(t, n, false, s.locality(t, n))
			return true, false
		}
		return false, false
	}
	if p := j.byNode[n.idx]; p != nil {
		if t := p.firstFor(j.maps, n.idx, s.now); t != nil {
			j.waitStart = -1
			s.launch(t, n, false, s.locality(t, n))
			return true, false
		}
	}
	if j.waitStart < 0 {
		j.waitStart = s.now
	}
	waited := s.now - j.waitStart
	nodeDelay := int64(y.NodeLocalDelay * float64(s.hbMS))
	rackDelay := int64(y.RackLocalDelay * float64(s.hbMS))
	if waited >= nodeDelay {
		if p := j.byRack[n.rack]; p != nil {
			if t := p.firstFor(j.maps, n.idx, s.now); t != nil {
				s.launch(t, n, false, s.locality(t, n))
				return true, false
			}
		}
	}
	if waited >= nodeDelay+rackDelay {
		if t := j.anyMap.firstFor(j.maps, n.idx, s.now); t != nil {
			s.launch(t, n, false, s.locality(t, n))
			return true, false
		}
	}
	return false, true
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
	if j.capReds > 0 && j.runReds >= j.capReds {
		return false
	}
	if q.capReds > 0 && queueRunning(q, false) >= q.capReds {
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
	var fallback *task
	for i := j.reduceQ.head; i < len(j.reduceQ.items); i++ {
		t := j.reduces[j.reduceQ.items[i]]
		if t.state != taskPending {
			if i == j.reduceQ.head {
				j.reduceQ.head++
			}
			continue
		}
		if b, ok := j.bind[int(t.idx)]; ok && b.expires > s.now {
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
		if !n.fits(c) {
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
		if a.node == n && a.task.kind == events.Map {
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
		t := j.maps[p.items[i]]
		if t.state == taskPending && slices.Contains(t.pref, n.idx) {
			return t
		}
	}
	return nil
}
