package sim

import "slices"

// Reducers of a job that fetches per source rack (job.rackFetch) list one
// fetch per rack, and a poll folds the job's new map outputs into them in
// order: for each output, its bytes go to the listed entry of its rack, or
// to a new entry appended for the rack, or to the reducer's own input when
// the output is on its node. Such jobs are the largest of a day (a reducer
// of a 100,000-map job takes every output), and reducers poll rarely while
// they fetch, so a poll typically takes thousands of outputs. Full chunks
// of rackChunkLen outputs are therefore summarised once per job: the racks
// in order of their first output, with their output counts, so a reducer
// applies a chunk in about one step per rack instead of one per output,
// with the same entries, in the same order, with the same bytes (sums of
// the same integers).

// rackChunkLen is the number of outputs a chunk summarises (sim.chunkLen;
// Options.rackChunk changes it for tests).
const rackChunkLen = 1024

// rackChunks summarises a rack-fetch job's map outputs.
type rackChunks struct {
	ents []chunkRack // the chunks' racks, chunk k at ents[at[k]:at[k+1]]
	at   []int32
	// byNode is, per node, the positions (in job.outputs) of the outputs
	// it produced, ascending: a reducer counts those of its own node.
	byNode [][]int32
	// lastPos is the position of the job's last map's output (the only one
	// of size outLast), -1 before it is produced.
	lastPos int32
	seen    []int32 // scratch: rack -> entry of the chunk being built, -1
}

// chunkRack is one rack's outputs in one chunk.
type chunkRack struct {
	rack      int32
	first     int32 // position of its first output
	firstNode int32 // node of that output
	second    int32 // position of its first output from another node, -1 if none
	n         int32 // its outputs in the chunk
	last      bool  // one of them is the job's last map's output
}

// outputAdded records the output just appended to j.outputs (last: of the
// job's last map) and summarises the chunk it completes.
func (s *sim) outputAdded(j *job, last bool) {
	c := &j.chunks
	pos := int32(len(j.outputs) - 1)
	if c.byNode == nil {
		c.byNode = make([][]int32, len(s.nodes))
		c.at = []int32{0}
		c.lastPos = -1
	}
	o := j.outputs[pos]
	c.byNode[o.node] = append(c.byNode[o.node], pos)
	if last {
		c.lastPos = pos
	}
	if len(j.outputs)%s.chunkLen != 0 {
		return
	}
	if len(c.seen) < len(s.racks) {
		c.seen = slices.Repeat([]int32{-1}, len(s.racks))
	}
	base := len(c.ents)
	lo := int32(len(j.outputs) - s.chunkLen)
	for p := lo; p <= pos; p++ {
		o := j.outputs[p]
		e := c.seen[o.rack]
		if e < 0 {
			c.seen[o.rack] = int32(len(c.ents))
			c.ents = append(c.ents, chunkRack{rack: o.rack, first: p, firstNode: o.node, second: -1, n: 1, last: p == c.lastPos})
			continue
		}
		r := &c.ents[e]
		r.n++
		if r.second < 0 && o.node != r.firstNode {
			r.second = p
		}
		if p == c.lastPos {
			r.last = true
		}
	}
	for _, r := range c.ents[base:] {
		c.seen[r.rack] = -1
	}
	c.at = append(c.at, int32(len(c.ents)))
}

// pollRacks is poll for a reducer of a rack-fetch job: the rack's first
// node stands for its nodes, and the fetch index is a table by rack (never
// cleared, like fetchIndex.dense). Outputs up to a chunk boundary are
// taken one by one, full chunks from their summaries.
func (s *sim) pollRacks(a *attempt) {
	j := a.task.job
	x := a.pend
	if len(x.racks) < len(s.racks) {
		x.racks = make([]int32, len(s.racks))
	}
	end := len(j.outputs)
	for a.cursor < end {
		if a.cursor%s.chunkLen == 0 && a.cursor+s.chunkLen <= end {
			s.pollChunk(a, a.cursor/s.chunkLen)
			a.cursor += s.chunkLen
			continue
		}
		stop := min(end, (a.cursor/s.chunkLen+1)*s.chunkLen)
		s.pollOutputs(a, stop)
	}
}

// pollOutputs takes the outputs from a.cursor to stop one by one.
func (s *sim) pollOutputs(a *attempt, stop int) {
	j := a.task.job
	x := a.pend
	me := a.node.idx
	shareOut, shareB := a.shareOut, a.shareB
	fetched := a.fetched
	q, head := a.fetchQ, int(a.fetchHead)
	for k, o := range j.outputs[a.cursor:stop] {
		if ob := j.outBytesAt(a.cursor + k); ob != shareOut {
			// A job's outputs have at most two sizes: compute each once.
			shareOut, shareB = ob, a.task.share(j.partBytes(ob, a.partition))
		}
		if o.node == me {
			fetched += shareB // local output: read from disk in the merge
			continue
		}
		src := s.rackRep[o.rack]
		if i := x.racks[o.rack]; int(i) >= head && int(i) < len(q) && q[i].src == src { // still listed
			q[i].bytes += shareB
		} else {
			x.racks[o.rack] = int32(len(q))
			q = append(q, pendFetch{src: src, bytes: shareB})
		}
	}
	a.cursor = stop
	a.shareOut, a.shareB, a.fetched, a.fetchQ = shareOut, shareB, fetched, q
}

// pollChunk takes full chunk k from its summary: what pollOutputs would
// do over its outputs. The reducer's own node's outputs go to its input;
// the rest of a rack's outputs to the rack's entry, the racks in order of
// their first output that is not on the reducer's node (only the
// reducer's own rack can move: when its first output is local).
func (s *sim) pollChunk(a *attempt, k int) {
	j := a.task.job
	c := &j.chunks
	s.m.chunksPolled++
	me, myRack := a.node.idx, a.node.rack
	lo, hi := int32(k*s.chunkLen), int32((k+1)*s.chunkLen)
	full := a.task.share(j.partBytes(j.outPer, a.partition))
	lastB := a.task.share(j.partBytes(j.outLast, a.partition))
	// The reducer's node's outputs in the chunk.
	mine := c.byNode[me]
	for a.localCur < len(mine) && mine[a.localCur] < lo {
		a.localCur++
	}
	local := int32(0)
	for a.localCur < len(mine) && mine[a.localCur] < hi {
		local++
		a.localCur++
	}
	localLast := c.lastPos >= lo && c.lastPos < hi && j.outputs[c.lastPos].node == me
	if local > 0 {
		if localLast {
			a.fetched += int64(local-1)*full + lastB
		} else {
			a.fetched += int64(local) * full
		}
	}
	add := func(r *chunkRack, n int32, last bool) {
		b := int64(n) * full
		if last {
			b += lastB - full
		}
		src := s.rackRep[r.rack]
		q := a.fetchQ
		if i := a.pend.racks[r.rack]; i >= a.fetchHead && int(i) < len(q) && q[i].src == src { // still listed
			q[i].bytes += b
		} else {
			a.pend.racks[r.rack] = int32(len(q))
			a.fetchQ = append(q, pendFetch{src: src, bytes: b})
		}
	}
	var moved *chunkRack // the reducer's rack, when its first output is local
	for i := c.at[k]; i < c.at[k+1]; i++ {
		r := &c.ents[i]
		if moved != nil && r.first > moved.second {
			add(moved, moved.n-local, moved.last && !localLast)
			moved = nil
		}
		if r.rack == myRack && local > 0 {
			if r.n == local {
				continue // all local
			}
			if r.firstNode == me {
				moved = r // comes at its first output from another node
				continue
			}
			add(r, r.n-local, r.last && !localLast)
			continue
		}
		add(r, r.n, r.last)
	}
	if moved != nil {
		add(moved, moved.n-local, moved.last && !localLast)
	}
}
