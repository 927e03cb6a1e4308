package cluster

import "hash/maphash"

// attemptIndex finds an attempt by its id. It replaces a map[string]*Attempt
// (the lookup of a progress report's attempt was about half of the engine's
// time at 110,000 attempts, nearly all of it cache misses: the map's control
// word, its slot, and the key's bytes). Here a slot is the id's 64-bit hash
// and the attempt, 16 bytes in one flat array with linear probing, so a
// lookup usually reads one cache line of the index, then the attempt it
// needed anyway, whose ID is compared in full (a hash never decides alone).
type attemptIndex struct {
	slots []attemptSlot // len is zero or a power of two
	n     int
	seed  maphash.Seed
}

// idSlot is a slot of the id indexes: the id's hash (0: empty) and what
// the id names.
type idSlot[P any] struct {
	hash uint64
	p    P
}

type attemptSlot = idSlot[*Attempt]

// hashID is id's hash under seed, never 0 (0 marks an empty slot).
func hashID(seed maphash.Seed, id string) uint64 {
	h := maphash.String(seed, id)
	if h == 0 {
		h = 1
	}
	return h
}

// rehash returns old's slots placed in a table of size slots (a power of
// two), by linear probing from each hash's home.
func rehash[P any](old []idSlot[P], size int) []idSlot[P] {
	slots := make([]idSlot[P], size)
	mask := uint64(size - 1)
	for _, s := range old {
		if s.hash == 0 {
			continue
		}
		i := s.hash & mask
		for slots[i].hash != 0 {
			i = (i + 1) & mask
		}
		slots[i] = s
	}
	return slots
}

// hash is id's hash (the index has slots: grow made the seed).
func (x *attemptIndex) hash(id string) uint64 { return hashID(x.seed, id) }

// Len is the number of attempts indexed.
func (x *attemptIndex) Len() int { return x.n }

// get returns the attempt with id, or nil.
func (x *attemptIndex) get(id string) *Attempt {
	if x.n == 0 {
		return nil
	}
	h := x.hash(id)
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.hash == 0 {
			return nil
		}
		if s.hash == h && s.p.hasID(id) {
			return s.p
		}
	}
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
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.hash == 0 {
			*s = attemptSlot{h, at}
			x.n++
			return
		}
		if s.hash == h && s.p.hasID(at.ID) {
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
	mask := uint64(len(x.slots) - 1)
	i := h & mask
	for {
		s := &x.slots[i]
		if s.hash == 0 {
			return
		}
		if s.hash == h && s.p.hasID(id) {
			break
		}
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		s := x.slots[j]
		if s.hash == 0 {
			break
		}
		// s may move to the hole at i unless its home lies cyclically in (i, j].
		if home := s.hash & mask; (j-home)&mask < (j-i)&mask {
			continue
		}
		x.slots[i] = s
		i = j
	}
	x.slots[i] = attemptSlot{}
	x.n--
}

func (x *attemptIndex) grow() {
	if x.slots == nil {
		x.seed = maphash.MakeSeed()
	}
	x.slots = rehash(x.slots, max(1024, 2*len(x.slots)))
}

// nodeIndex finds a node by its id, as attemptIndex finds attempts: a flat
// table of (hash, *Node) slots with linear probing, the id compared against
// the node's own copy of it (Node.key). It replaces a map[string]*Node, whose
// look-up per heartbeat (a quarter of the live stream) read the map's group,
// then the key's bytes (their own allocation), then the node. Nodes are
// never removed.
type nodeIndex struct {
	slots []nodeSlot // len is zero or a power of two
	n     int
	seed  maphash.Seed
}

type nodeSlot = idSlot[*Node]

func (x *nodeIndex) hash(id string) uint64 { return hashID(x.seed, id) }

// get returns the node with id, or nil.
func (x *nodeIndex) get(id string) *Node {
	if x.n == 0 {
		return nil
	}
	h := x.hash(id)
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.hash == 0 {
			return nil
		}
		if s.hash == h && s.p.key.is(id, s.p.ID, "") {
			return s.p
		}
	}
}

// add indexes n, whose id no indexed node has, and gives n its copy of the id.
func (x *nodeIndex) add(n *Node) {
	n.key.set(n.ID, "")
	if 2*(x.n+1) > len(x.slots) { // at most half full: nodes are few
		x.grow()
	}
	h := x.hash(n.ID)
	mask := uint64(len(x.slots) - 1)
	i := h & mask
	for x.slots[i].hash != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = nodeSlot{h, n}
	x.n++
}

func (x *nodeIndex) grow() {
	if x.slots == nil {
		x.seed = maphash.MakeSeed()
	}
	x.slots = rehash(x.slots, max(64, 2*len(x.slots)))
}
