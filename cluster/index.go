package cluster

import "hash/maphash"

// attemptIndex finds an attempt by its id. It replaces a map[string]*Attempt
// (the lookup of a progress report's attempt was about half of the engine's
// time at 110,000 attempts, nearly all of it cache misses: the map's control
// word, its slot, and the key's bytes). Here a slot is 32 bits of the id's
// hash, the attempt's position in order and the attempt, 16 bytes in one
// flat array with linear probing, so a lookup usually reads one cache line
// of the index, then the attempt it needed anyway, whose ID is compared in
// full (a hash never decides alone).
type attemptIndex struct {
	slots []idSlot[*Attempt] // len is zero or a power of two
	n     int
	seed  maphash.Seed
	// order holds the attempts in order of insertion (nil where one was
	// deleted; Attempt.ord is the position), so that next can try the
	// attempt the stream's order predicts before a slot (see cursor).
	order []*Attempt
	holes int // nil entries in order
	// progress is the cursor of progress reports (State.taskProgress), the
	// one kind of look-up that walks the attempts in a stable order.
	progress cursor
}

// cursor predicts the position in an insertion order that the next look-up
// of a stream of look-ups names. The bridge reports its nodes and the
// attempts of its apps in the same sorted order every poll, the simulator
// in the order of its own lists, and both first saw them in about that
// order, so successive look-ups tend to be a fixed step apart in it (the
// bench's progress reports: 3). A look-up at the predicted position reads
// that entity (its lines follow the last one's, where the hardware's
// prefetch finds them) instead of a hash slot at random, the cache miss
// that was half of a progress report's cost. The prediction is only tried
// after the same step twice in a row, and it is checked against the id in
// full like a slot, so a stream in no order pays a comparison per look-up
// and nothing else.
type cursor struct {
	last, step int  // position of the last look-up; its distance from the one before
	on         bool // the last two steps were equal: try last+step first
}

// predict returns the position to try first, or -1.
func (c *cursor) predict() int {
	if !c.on {
		return -1
	}
	return c.last + c.step
}

// hit records that the predicted position was the one looked up.
func (c *cursor) hit() { c.last += c.step }

// found records a look-up that found the entity at position p by its hash.
func (c *cursor) found(p int) {
	step := p - c.last
	c.on = step == c.step
	c.last, c.step = p, step
}

// idSlot is a slot of the id indexes: 32 bits of the id's hash (0: empty),
// which are also its home, what the id names and its position in the
// index's order of insertion, so that a cursor learns where a look-up was
// without reading the entity's line that holds it (a 64-bit hash made the
// same 16 bytes).
type idSlot[P any] struct {
	tag uint32
	pos int32
	p   P
}

// hashID is id's hash under seed, never 0 (0 marks an empty slot).
func hashID(seed maphash.Seed, id string) uint32 {
	h := uint32(maphash.String(seed, id))
	if h == 0 {
		h = 1
	}
	return h
}

// rehash returns old's slots placed in a table of size slots (a power of
// two), by linear probing from each hash's home.
func rehash[P any](old []idSlot[P], size int) []idSlot[P] {
	slots := make([]idSlot[P], size)
	mask := uint32(size - 1)
	for _, s := range old {
		if s.tag == 0 {
			continue
		}
		i := s.tag & mask
		for slots[i].tag != 0 {
			i = (i + 1) & mask
		}
		slots[i] = s
	}
	return slots
}

// hash is id's hash (the index has slots: grow made the seed).
func (x *attemptIndex) hash(id string) uint32 { return hashID(x.seed, id) }

// Len is the number of attempts indexed.
func (x *attemptIndex) Len() int { return x.n }

// get returns the attempt with id, or nil.
func (x *attemptIndex) get(id string) *Attempt {
	if s := x.find(id); s != nil {
		return s.p
	}
	return nil
}

// find returns the slot of the attempt with id, or nil.
func (x *attemptIndex) find(id string) *idSlot[*Attempt] {
	if x.n == 0 {
		return nil
	}
	h := x.hash(id)
	mask := uint32(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.tag == 0 {
			return nil
		}
		if s.tag == h && s.p.hasID(id) {
			return s
		}
	}
}

// next is get for the look-ups c follows: the attempt at c's predicted
// position when it has id, else the one the slots find (the same attempt:
// ids are unique in the index and order holds only indexed attempts).
func (x *attemptIndex) next(id string, c *cursor) *Attempt {
	if p := c.predict(); uint(p) < uint(len(x.order)) {
		if at := x.order[p]; at != nil && at.hasID(id) {
			c.hit()
			return at
		}
	}
	s := x.find(id)
	if s == nil {
		c.on = false
		return nil
	}
	c.found(int(s.pos))
	return s.p
}

// put indexes at under at.ID, replacing an attempt with the same id. It
// gives at its copy of the id (Attempt.setKey), which get compares.
func (x *attemptIndex) put(at *Attempt) {
	at.setKey()
	// Up to seven eighths full: a hit probes about four 16-byte slots
	// (one or two cache lines) and the table is half the size it is at a
	// load of one half. At 110,000 attempts that is 2 MB instead of 4, and
	// the smaller table misses the caches less: the engine got faster.
	if (x.n+1)*8 > len(x.slots)*7 {
		x.grow()
	}
	h := x.hash(at.ID)
	mask := uint32(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.tag == 0 {
			at.ord = int32(len(x.order))
			*s = idSlot[*Attempt]{h, at.ord, at}
			x.order = append(x.order, at)
			x.n++
			return
		}
		if s.tag == h && s.p.hasID(at.ID) {
			at.ord = s.pos
			x.order[at.ord] = at
			s.p = at
			return
		}
	}
}

// del removes the attempt with id, shifting later entries of its probe run
// back so that no tombstones are needed.
func (x *attemptIndex) del(id string) {
	if x.n == 0 {
		return
	}
	h := x.hash(id)
	mask := uint32(len(x.slots) - 1)
	i := h & mask
	var at *Attempt
	for {
		s := x.slots[i]
		if s.tag == 0 {
			return
		}
		if s.tag == h && s.p.hasID(id) {
			at = s.p
			break
		}
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		s := x.slots[j]
		if s.tag == 0 {
			break
		}
		// s may move to the hole at i unless its home lies cyclically in (i, j].
		if home := s.tag & mask; (j-home)&mask < (j-i)&mask {
			continue
		}
		x.slots[i] = s
		i = j
	}
	x.slots[i] = idSlot[*Attempt]{}
	x.n--
	x.unorder(at)
}

func (x *attemptIndex) grow() {
	if x.slots == nil {
		x.seed = maphash.MakeSeed()
	}
	x.slots = rehash(x.slots, max(1024, 2*len(x.slots)))
}

// unorder takes at, which has left the slots, out of order. Once half of
// order is holes it is compacted (positions change: the slots are
// renumbered and the cursor starts over), so a long-lived sidecar's order
// stays within twice the attempts it holds.
func (x *attemptIndex) unorder(at *Attempt) {
	x.order[at.ord] = nil
	x.holes++
	if x.holes < 1024 || 2*x.holes < len(x.order) {
		return
	}
	k := 0
	for _, a := range x.order {
		if a != nil {
			a.ord = int32(k)
			k++
		}
	}
	for i, s := range x.slots {
		if s.tag != 0 {
			x.slots[i].pos = s.p.ord
		}
	}
	for _, a := range x.order {
		if a != nil {
			x.order[a.ord] = a // a.ord is at most a's old position
		}
	}
	clear(x.order[k:])
	x.order = x.order[:k]
	x.holes = 0
	x.progress = cursor{}
}

// nodeIndex finds a node by its id, as attemptIndex finds attempts: a flat
// table of (hash, position, *Node) slots with linear probing, the id
// compared against the node's own copy of it (Node.key). It replaces a
// map[string]*Node, whose look-up per heartbeat (a quarter of the live
// stream) read the map's group, then the key's bytes (their own
// allocation), then the node. Nodes are never removed, so list (the nodes
// in order of first sight, State.Nodes) is also the order a cursor follows.
type nodeIndex struct {
	slots []idSlot[*Node] // len is zero or a power of two
	list  []*Node
	seed  maphash.Seed
	// heartbeat is the cursor of heartbeats (State.nodeHeartbeat): the
	// bridge and the simulator report every node in the same order each
	// round.
	heartbeat cursor
}

func (x *nodeIndex) hash(id string) uint32 { return hashID(x.seed, id) }

// get returns the node with id, or nil.
func (x *nodeIndex) get(id string) *Node {
	if s := x.find(id); s != nil {
		return s.p
	}
	return nil
}

// find returns the slot of the node with id, or nil.
func (x *nodeIndex) find(id string) *idSlot[*Node] {
	if len(x.list) == 0 {
		return nil
	}
	h := x.hash(id)
	mask := uint32(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.tag == 0 {
			return nil
		}
		if s.tag == h && s.p.key.is(id, s.p.ID, "") {
			return s
		}
	}
}

// next is get for the look-ups c follows (see attemptIndex.next).
func (x *nodeIndex) next(id string, c *cursor) *Node {
	if p := c.predict(); uint(p) < uint(len(x.list)) {
		if n := x.list[p]; n.key.is(id, n.ID, "") {
			c.hit()
			return n
		}
	}
	s := x.find(id)
	if s == nil {
		c.on = false
		return nil
	}
	c.found(int(s.pos))
	return s.p
}

// add indexes n, whose id no indexed node has, appends it to list and gives
// n its copy of the id.
func (x *nodeIndex) add(n *Node) {
	n.key.set(n.ID, "")
	if 2*(len(x.list)+1) > len(x.slots) { // at most half full: nodes are few
		x.grow()
	}
	h := x.hash(n.ID)
	mask := uint32(len(x.slots) - 1)
	i := h & mask
	for x.slots[i].tag != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = idSlot[*Node]{h, int32(len(x.list)), n}
	x.list = append(x.list, n)
}

func (x *nodeIndex) grow() {
	if x.slots == nil {
		x.seed = maphash.MakeSeed()
	}
	x.slots = rehash(x.slots, max(64, 2*len(x.slots)))
}
