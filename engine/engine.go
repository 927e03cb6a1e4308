package engine

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// DefaultTickMS is the default event-time interval between policy ticks.
const DefaultTickMS = 1000

// DefaultTTL is how long a hint stays in force, per kind, unless configured.
var defaultTTL = map[policy.HintKind]int64{
	policy.KindSpeculate:       30_000,
	policy.KindDenySpeculation: 30_000,
	policy.KindKill:            60_000,
	policy.KindNodeClass:       300_000,
	policy.KindPlace:           60_000,
	policy.KindReduceBinding:   600_000,
	policy.KindRatio:           60_000,
	policy.KindNodeCapacity:    300_000,
	policy.KindPriority:        600_000,
}

// Options configure an Engine.
type Options struct {
	// TickMS is the event-time interval between ticks (0: DefaultTickMS).
	TickMS int64
	// TTL overrides the time a hint of a kind stays in force (ms).
	TTL map[policy.HintKind]int64
	// IDPrefix starts every hint id (then 16 hex digits of a hash of the
	// hint: see hintID), so instances do not collide.
	IDPrefix string
	Log      zerolog.Logger
	// State is the state to start from (nil: empty).
	State *cluster.State
	// Resume continues a checkpointed engine (nil: start afresh).
	Resume *Checkpoint
	// ManualTick stops Apply from ticking when event time crosses a tick
	// boundary; the caller runs ticks with Tick (the simulator reports
	// progress first, then ticks).
	ManualTick bool
}

// Stats counts what the engine has done.
type Stats struct {
	Events     uint64                 // events applied
	Unchanged  uint64                 // events that changed nothing (duplicates, stale)
	Ticks      uint64                 // policy ticks run
	Hints      map[string]uint64      // by "policy/kind"
	Suppressed uint64                 // repeats of hints still in force
	Panics     map[string]uint64      // by policy
	Errors     map[string]uint64      // Error statuses by policy
	Invalid    map[string]uint64      // hints failing validation, by policy
	ByType     map[events.Type]uint64 // events applied, by type
	_          struct{}
}

// Engine is the event -> state -> policies -> hints pipeline.
type Engine struct {
	state    *cluster.State
	stack    *policy.Stack
	tickMS   int64
	ttl      map[policy.HintKind]int64
	idPrefix string
	log      zerolog.Logger
	manual   bool

	nextTick int64
	seq      uint64
	active   map[string]active
	// activeRoom is the size active was made with (by growActive): it
	// takes that many hints without growing.
	activeRoom int
	// outRoom is the room for a round's hints reserve made last; shrink
	// keeps a buffer that size.
	outRoom int
	stats   Stats
	// hints counts emitted hints by policy and kind (Stats.Hints keys them
	// "policy/kind"; building that string per hint costs an allocation).
	// A round's hints come in runs of one policy and kind: lastCounter and
	// lastCount are the run's counter, found once.
	hints       map[hintCounter]*uint64
	lastCounter hintCounter
	lastCount   *uint64
	// lastKind and lastTTL cache the TTL of the kind emitted last.
	lastKind policy.HintKind
	lastTTL  int64
	// placeBy and placeReason cache the place hint's reason ("ranked by "
	// and the placers that ranked), built once, not per task.
	placeBy, placeReason string
	// byType counts applied events by type for Stats.ByType: a handful of
	// types searched in order of first sight, where a map keyed by the
	// type string hashed it for every event.
	byType []typeCount
	// out holds the hints of the call under way. Tick swaps in tickOut
	// for its call (and back after): a tick's hints stay where they are
	// while Apply runs (see Tick).
	out     []policy.Hint
	tickOut []policy.Hint
	// round holds the hints Apply or Tick returns when they are a
	// speculation round or a binder's hints stamped in the plugin's own
	// slice (emitInPlace); nil when they are in out.
	round []policy.Hint
	// target holds a block's hints' policy, target, content and time, as
	// their ids hash them, from inputs[k] for the k-th kept (emitBlock).
	target []byte
	inputs []int32
	ids    []byte // a block's ids
	// touched keeps prepare's loads from being optimized away.
	touched byte
	id      []byte // hint id buffer
	nowDec  []byte // an emit's time in decimal, for its hints' ids
	// roundTS is the event time of the current round (an event's time in
	// Apply, the tick's in tick): emit's now, for policy.InForce.
	roundTS int64
}

type hintCounter struct {
	policy string
	kind   policy.HintKind
}

type typeCount struct {
	t events.Type
	n uint64
}

type active struct {
	content string
	expires int64
}

// New returns an engine running stack.
func New(stack *policy.Stack, opts Options) *Engine {
	e := &Engine{
		state:    opts.State,
		stack:    stack,
		tickMS:   opts.TickMS,
		ttl:      make(map[policy.HintKind]int64, len(defaultTTL)),
		idPrefix: opts.IDPrefix,
		log:      opts.Log,
		manual:   opts.ManualTick,
		active:   make(map[string]active),
		hints:    map[hintCounter]*uint64{},
		stats: Stats{Panics: map[string]uint64{}, Errors: map[string]uint64{},
			Invalid: map[string]uint64{}},
	}
	if e.state == nil {
		e.state = cluster.New()
	}
	if e.tickMS <= 0 {
		e.tickMS = DefaultTickMS
	}
	for k, v := range defaultTTL {
		e.ttl[k] = v
	}
	for k, v := range opts.TTL {
		e.ttl[k] = v
	}
	if e.idPrefix == "" {
		e.idPrefix = "h"
	}
	if opts.Resume != nil {
		e.resume(opts.Resume)
	}
	e.wireInForce()
	return e
}

// State returns the engine's cluster state (read-only for callers).
func (e *Engine) State() *cluster.State { return e.state }

// Stack returns the policy stack.
func (e *Engine) Stack() *policy.Stack { return e.stack }

// Stats returns a copy of the counters.
func (e *Engine) Stats() Stats {
	s := e.stats
	s.Hints = make(map[string]uint64, len(e.hints))
	for k, n := range e.hints {
		s.Hints[k.policy+"/"+string(k.kind)] = *n
	}
	s.Panics, s.Errors, s.Invalid = clone(s.Panics), clone(s.Errors), clone(s.Invalid)
	s.ByType = make(map[events.Type]uint64, len(e.byType))
	for _, c := range e.byType {
		s.ByType[c.t] = c.n
	}
	return s
}

func clone[K comparable](m map[K]uint64) map[K]uint64 {
	c := make(map[K]uint64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Apply folds one event into the state and returns the hints it produced
// (including those of any tick the event's time crossed). The returned slice
// is only valid until the next call.
func (e *Engine) Apply(ctx context.Context, ev *events.Event) []policy.Hint {
	e.out, e.round = e.shrink(e.out), nil
	e.roundTS = ev.TS
	if !e.state.Apply(ev) {
		e.stats.Unchanged++
		return e.maybeTick(ctx, ev.TS)
	}
	e.stats.Events++
	e.countType(ev.Type)
	v := e.state
	for i := 0; i < len(e.stack.Observers); {
		i = e.observeFrom(ctx, i, ev)
	}
	// The look-ups below are made only for a stack that uses them: a
	// heartbeat is a quarter of the stream, and looking its node up again
	// for a stack without assigners was a map access per heartbeat.
	switch ev.Type {
	case events.AppSubmitted:
		if len(e.stack.Speculators) > 0 {
			e.reserve(len(v.Apps()))
		}
	case events.TaskPending:
		if len(e.stack.Placers) == 0 {
			break
		}
		if app := v.App(ev.App); app != nil {
			if t := app.Task(ev.Task); t != nil && t.State == cluster.TaskPending {
				e.place(ctx, t, ev.TS)
			}
		}
	case events.NodeHeartbeat:
		if len(e.stack.Assigners) == 0 {
			break
		}
		if n := v.Node(ev.Node); n != nil {
			for _, a := range e.stack.Assigners {
				var hs []policy.Hint
				var st *policy.Status
				e.guard(a.Name(), func() { hs, st = a.Assign(ctx, v, n) })
				e.emit(a.Name(), hs, st, ev.TS)
			}
		}
	}
	for _, s := range e.stack.Shapers {
		d, ok := s.(policy.DemandShaper)
		if !ok {
			continue
		}
		var on bool
		e.guard(d.Name(), func() { on = d.ShapeOn(ev) })
		if !on {
			continue
		}
		var hs []policy.Hint
		var st *policy.Status
		e.guard(d.Name(), func() { hs, st = d.Shape(ctx, v) })
		e.emit(d.Name(), hs, st, ev.TS)
	}
	return e.maybeTick(ctx, ev.TS)
}

// countType counts one applied event of type t.
func (e *Engine) countType(t events.Type) {
	for i := range e.byType {
		if e.byType[i].t == t {
			e.byType[i].n++
			return
		}
	}
	e.byType = append(e.byType, typeCount{t: t, n: 1})
}

// place combines the placers' scores into one place hint for t. A node
// named more than once, by one placer or several, keeps its first entry
// with the scores summed. The usual stack has one placer: its scores are
// merged without a copy first, and the "ranked by" reason is built once
// per set of placers, not per task (57 MB over the FB-2009 day under tmar).
func (e *Engine) place(ctx context.Context, t *cluster.Task, now int64) {
	var (
		all    []policy.NodeScore
		by     string
		strict bool
	)
	for _, p := range e.stack.Placers {
		var scores []policy.NodeScore
		var st *policy.Status
		e.guard(p.Name(), func() { scores, st = p.Place(ctx, e.state, t) })
		if st.Code() == policy.Error {
			e.stats.Errors[p.Name()]++
			e.log.Warn().Str("policy", p.Name()).Err(st.Err()).Msg("place failed")
			continue
		}
		if st.Code() == policy.Skip || len(scores) == 0 {
			continue
		}
		if by != "" {
			by += "+"
		}
		by += p.Name()
		if sp, ok := p.(policy.StrictPlacer); ok && sp.StrictPlacement() {
			strict = true
		}
		if all == nil {
			all = scores // the placer's own slice: merged into a copy below
		} else {
			all = append(slices.Clip(all), scores...)
		}
	}
	if len(all) == 0 {
		return
	}
	combined := mergeScores(all)
	sortScores(combined)
	if e.placeBy != by || e.placeReason == "" {
		e.placeBy, e.placeReason = by, "ranked by "+by
	}
	e.emit(by, []policy.Hint{{Kind: policy.KindPlace, App: t.App.ID, Task: t.ID, Nodes: combined, Strict: strict,
		Reason: e.placeReason}}, nil, now)
}

// mergeScores copies the placers' scores into a new slice, a node named
// more than once merged into its first entry (scores summed), as a map
// from node to entry would (mergeScoresRef). Placers name a node once, and a few nodes at most: the check
// for repeats is a scan of the entries kept so far, a map only past
// mergeScan entries.
func mergeScores(scores []policy.NodeScore) []policy.NodeScore {
	out := make([]policy.NodeScore, 0, len(scores))
	if len(scores) > mergeScan {
		index := make(map[string]int, len(scores))
		for _, s := range scores {
			if i, ok := index[s.Node]; ok {
				out[i].Score += s.Score
				continue
			}
			index[s.Node] = len(out)
			out = append(out, s)
		}
		return out
	}
next:
	for _, s := range scores {
		for i := range out {
			if out[i].Node == s.Node {
				out[i].Score += s.Score
				continue next
			}
		}
		out = append(out, s)
	}
	return out
}

// mergeScan is the most entries mergeScores checks for repeats by a scan.
const mergeScan = 32

// Tick runs the periodic extension points now, regardless of the tick
// schedule (the simulator and the live loop's wall-clock ticker use it).
// The returned slice is valid until the next tick (the next Tick, or an
// Apply that ticks: never one with ManualTick): an Apply in between leaves
// it as it is. The simulator applies a tick's hints where they lie while
// the events they cause go through Apply; it copied all of them first
// (400,000 hold hints, 116 MB, at the FB-2010 day's peak under tmar).
func (e *Engine) Tick(ctx context.Context, now int64) []policy.Hint {
	// The tick's hints go in tickOut (or a plugin's scratch, e.round),
	// which Apply does not touch; Apply's are in out.
	e.out, e.tickOut = e.shrink(e.tickOut), e.out
	e.round = nil
	e.tick(ctx, now)
	hs := e.result()
	e.out, e.tickOut = e.tickOut, e.out
	return hs
}

// shrink empties a call's hint buffer for the next call, and drops its
// array when a huge round (hundreds of thousands of hints) left it far
// larger than the last call needed and than the room reserve makes, so the
// array of the day's largest round is not kept for the rest of a run. The
// cost is a new array if a round that large comes again.
func (e *Engine) shrink(hs []policy.Hint) []policy.Hint {
	if c := cap(hs); c > shrinkAbove && c > 2*e.outRoom && len(hs) < c/8 {
		return nil
	}
	return hs[:0]
}

// shrinkAbove is the capacity (hints, about 290 bytes each) over which
// shrink drops a buffer: a few MB, above the rounds a speculator's scan
// makes on a cluster of 10,000 nodes.
const shrinkAbove = 16 << 10

func (e *Engine) maybeTick(ctx context.Context, now int64) []policy.Hint {
	if !e.manual && now >= e.nextTick {
		e.tick(ctx, now)
	}
	return e.result()
}

// result is what Apply and Tick return: the hints emitted, in e.out or,
// when a speculation round was all of them, in the speculator's slice
// (e.round, see emitInPlace).
func (e *Engine) result() []policy.Hint {
	if len(e.round) > 0 {
		return e.round
	}
	return e.out
}

// scratchHints is a Speculator or Binder whose returned hints are its own
// scratch, made anew by every call and read by nothing but the engine (and
// its caller, which gets them back stamped) until the next call: the
// engine may stamp and keep them where they are.
type scratchHints interface{ HintsAreScratch() bool }

func (e *Engine) tick(ctx context.Context, now int64) {
	e.stats.Ticks++
	e.roundTS = now
	e.nextTick = now - now%e.tickMS + e.tickMS
	v := e.state
	if len(e.stack.Speculators) > 0 {
		var proposed []policy.Hint
		for _, s := range e.stack.Speculators {
			var hs []policy.Hint
			var st *policy.Status
			e.guard(s.Name(), func() { hs, st = s.Speculate(ctx, v) })
			if e.failed(s.Name(), st) {
				continue
			}
			for i := range hs {
				if hs[i].Policy == "" {
					hs[i].Policy = s.Name()
				}
			}
			if proposed == nil {
				proposed = hs[:len(hs):len(hs)] // no copy of one speculator's round; a second one's appends reallocate
			} else {
				proposed = append(proposed, hs...)
			}
		}
		for _, g := range e.stack.Gates {
			var kept []policy.Hint
			var st *policy.Status
			in := proposed
			e.guard(g.Name(), func() { kept, st = g.Gate(ctx, v, in) })
			if e.failed(g.Name(), st) {
				continue
			}
			for i := range kept {
				if kept[i].Policy == "" {
					kept[i].Policy = g.Name()
				}
			}
			proposed = kept
		}
		if s, ok := e.stack.Speculators[0].(scratchHints); ok && len(e.stack.Speculators) == 1 &&
			len(e.stack.Gates) == 0 && len(e.out) == 0 && s.HintsAreScratch() {
			e.emitInPlace("", proposed, now)
		} else {
			e.emit("", proposed, nil, now)
		}
	}
	for _, s := range e.stack.Shapers {
		var hs []policy.Hint
		var st *policy.Status
		e.guard(s.Name(), func() { hs, st = s.Shape(ctx, v) })
		e.emit(s.Name(), hs, st, now)
	}
	for _, b := range e.stack.Binders {
		var hs []policy.Hint
		var st *policy.Status
		e.guard(b.Name(), func() { hs, st = b.Bind(ctx, v) })
		if e.failed(b.Name(), st) {
			continue
		}
		// A binder's scratch hints, when nothing was emitted before them,
		// are kept in its slice as a speculator's are (TMaR's hold
		// renewals: 400,000 hints a tick at the FB-2010 day's peak).
		if s, ok := b.(scratchHints); ok && len(e.out) == 0 && len(e.round) == 0 && s.HintsAreScratch() {
			e.emitInPlace(b.Name(), hs, now)
		} else {
			e.emit(b.Name(), hs, nil, now)
		}
	}
	// Forget hints that have expired so a later identical decision is news again.
	if e.stats.Ticks%64 == 0 {
		for k, a := range e.active {
			if a.expires <= now {
				delete(e.active, k)
			}
		}
	}
}

func (e *Engine) failed(name string, st *policy.Status) bool {
	if st.Code() != policy.Error {
		return false
	}
	e.stats.Errors[name]++
	e.log.Warn().Str("policy", name).Err(st.Err()).Msg("policy failed")
	return true
}

// emit stamps hints and appends the ones that are news to e.out.
func (e *Engine) emit(name string, hs []policy.Hint, st *policy.Status, now int64) {
	if e.failed(name, st) || len(hs) == 0 {
		return
	}
	if e.round != nil { // more hints after a round kept in place: all go to e.out
		e.out, e.round = append(e.out, e.round...), nil
	}
	e.out = slices.Grow(e.out, len(hs)) // a large round grows the slice once
	e.emitInto(&e.out, name, hs, now)
}

// emitInPlace is emit of a speculator's or binder's scratch hints
// (scratchHints) into e.out when they are the first of the call: they are
// stamped where they are, those that are not news dropped by moving the
// later ones down, and the call returns them (e.round). Copying each into
// e.out read and wrote its 300 bytes again, a twentieth of a 2,000-copy
// round, and kept a second copy of a binder's largest round.
func (e *Engine) emitInPlace(name string, hs []policy.Hint, now int64) {
	if len(hs) == 0 {
		return
	}
	e.round = hs[:0:len(hs)]
	e.emitInto(&e.round, name, hs, now)
}

// emitInto is emit's work: it stamps the news among hs at the end of *dst,
// which has room for them (or is hs itself, from its start).
func (e *Engine) emitInto(dst *[]policy.Hint, name string, hs []policy.Hint, now int64) {
	large := len(hs) > warmBlock
	if large {
		e.prepare(hs)
	}
	e.nowDec = strconv.AppendInt(e.nowDec[:0], now, 10)
	for from := 0; from < len(hs); from += warmBlock {
		block := hs[from:min(from+warmBlock, len(hs))]
		if large {
			e.warm(block)
		}
		e.emitBlock(dst, name, block, now)
	}
}

// emitBlock is emit of a block of at most warmBlock hints. The ids of the
// hints kept are hashed and made one string (they all have the prefix's
// length plus 16) at the end of the block, while its hints are still in
// the core's cache: a string per hint was a third of a large round's
// allocations, and setting the ids after the whole round was one more pass
// over 2,000 hints (600 KB) that had left the cache.
func (e *Engine) emitBlock(dst *[]policy.Hint, name string, hs []policy.Hint, now int64) {
	start := len(*dst)
	// Each kept hint's id hash input, "policy\x00target\x00content\x00time"
	// (see hintID), lies in e.target from e.inputs[k]; the target and
	// content are written once there, looked up and kept where they are,
	// not copied again.
	e.target, e.inputs = e.target[:0], e.inputs[:0]
	for i := range hs {
		// Stamped in place at the end of *dst (a Hint is large: one copy,
		// not two, and none when *dst is hs and nothing was dropped), and
		// taken back if it is not news.
		w := len(*dst)
		*dst = (*dst)[:w+1]
		h := &(*dst)[w]
		if h != &hs[i] {
			*h = hs[i]
		}
		if h.Policy == "" {
			h.Policy = name
		}
		if err := h.Validate(); err != nil {
			e.stats.Invalid[h.Policy]++
			e.log.Warn().Str("policy", h.Policy).Err(err).Msg("policy returned an invalid hint")
			*dst = (*dst)[:w]
			continue
		}
		at := len(e.target)
		e.target = append(e.target, h.Policy...)
		e.target = append(e.target, 0)
		t0 := len(e.target)
		var nt int
		e.target, nt = policy.AppendTargetContent(e.target, h, 0)
		target, content := e.target[t0:nt], e.target[nt+1:]
		a, ok := e.active[string(target)]
		if ok && a.expires > now && a.content == string(content) {
			e.stats.Suppressed++
			*dst = (*dst)[:w]
			e.target = e.target[:at]
			continue
		}
		ttl := e.kindTTL(h.Kind)
		// One allocation holds the key and the content it maps to.
		both := string(e.target[t0:])
		e.active[both[:nt-t0]] = active{content: both[nt-t0+1:], expires: now + ttl}
		e.seq++
		h.V = policy.HintVersion
		e.target = append(e.target, 0)
		e.target = append(e.target, e.nowDec...)
		e.inputs = append(e.inputs, int32(at))
		h.TS = now
		if h.ExpiresTS == 0 {
			h.ExpiresTS = now + ttl
		}
		e.countHint(h.Policy, h.Kind)
	}
	kept := (*dst)[start:]
	if len(kept) == 0 {
		return
	}
	e.inputs = append(e.inputs, int32(len(e.target)))
	e.ids = appendIDs(e.ids[:0], e.idPrefix, e.target, e.inputs)
	all, w := string(e.ids), len(e.idPrefix)+16
	for i := range kept {
		kept[i].ID = all[i*w : (i+1)*w]
	}
}

// prepare readies a large round (a speculation scan over a big cluster
// proposes thousands of copies at once): the map of hints in force is sized
// for the round first, rather than rehashed as it doubles under the
// round's inserts.
func (e *Engine) prepare(hs []policy.Hint) {
	if n := len(e.active) + len(hs); n > e.activeRoom && len(e.active) < len(hs) {
		e.growActive(n)
	}
}

// warmBlock is how many hints of a large round warm reads ahead of emit.
const warmBlock = 64

// warm reads the ids a block of hints names in a pass of independent
// loads: they are the app's, the task's and the node's own strings, seldom
// in cache, and the keys built one hint at a time waited on each of those
// misses in turn. A block at a time, not the whole round at once: by the
// turn of a round's later hints, the hints, keys and map entries written
// since had evicted most of what a pass over all 2,000 had read (the copy
// of the ids into the keys was still a third of emit's samples).
func (e *Engine) warm(hs []policy.Hint) {
	var sum byte
	for i := range hs {
		h := &hs[i]
		sum += ends(h.App) + ends(h.Task) + ends(h.Attempt) + ends(h.Node)
	}
	e.touched += sum
}

// growActive makes the map of hints in force anew with room for n.
func (e *Engine) growActive(n int) {
	m := make(map[string]active, n)
	for k, a := range e.active {
		m[k] = a
	}
	e.active, e.activeRoom = m, n
}

// reserve makes room, as apps arrive, for a speculation round that proposes
// a copy in each of apps apps (and a fourth more): the hints of a round and
// the map of hints in force. A large round otherwise grew both itself, and
// its first writes to the fresh memory took a page fault per 4 KB (about
// 150 for 2,000 hints, 600 KB), a tenth of the round at 10,000 nodes. Like
// the yarn scan's buffers, the room is kept once made.
func (e *Engine) reserve(apps int) {
	n := apps + apps/4 + 16
	// The room goes where rounds are emitted: a manual engine's ticks are
	// Tick's, in tickOut; otherwise they are Apply's, in out.
	out := &e.out
	if e.manual {
		out = &e.tickOut
	}
	if cap(*out) < apps {
		e.outRoom = n
		*out = slices.Grow(*out, n-len(*out))
		// Fresh pages are mapped on the first write, which the allocator
		// skips when it knows them zero: write them now.
		clear((*out)[len(*out):cap(*out)])
	}
	if len(e.active)+apps > e.activeRoom {
		e.growActive(len(e.active) + n)
	}
	// A block's hash inputs too: the first large round grew e.target
	// from a small emit's size to a block's (64 keys of 200 to 300 bytes)
	// by doubling, each time into fresh memory (page faults and copies,
	// about 2 % of the first 2,000-copy round, the one the latency
	// benchmark times).
	if apps > warmBlock/2 && cap(e.target) < targetRoom {
		e.target = slices.Grow(e.target[:0], targetRoom)
		clear(e.target[:cap(e.target)])
		e.inputs = slices.Grow(e.inputs[:0], warmBlock+1)
		e.ids = slices.Grow(e.ids[:0], warmBlock*(len(e.idPrefix)+16))
		clear(e.ids[:cap(e.ids)])
	}
}

// targetRoom is the room reserve gives a block's hash inputs (e.target):
// 64 keys of 512 bytes.
const targetRoom = warmBlock * 512

// ends reads the first and the last byte of s: an id of 17 to 24 bytes
// (a 24-byte allocation) lies across two cache lines often enough that
// reading the first only left a miss on a third of a round's copies.
func ends(s string) byte {
	if s == "" {
		return 0
	}
	return s[0] + s[len(s)-1]
}

// kindTTL is how long a hint of kind k stays in force.
func (e *Engine) kindTTL(k policy.HintKind) int64 {
	if k != e.lastKind || e.lastKind == "" {
		e.lastKind, e.lastTTL = k, e.ttl[k]
	}
	return e.lastTTL
}

// countHint counts one emitted hint of a policy and kind.
func (e *Engine) countHint(name string, k policy.HintKind) {
	c := hintCounter{name, k}
	if e.lastCount == nil || c != e.lastCounter {
		n := e.hints[c]
		if n == nil {
			n = new(uint64)
			e.hints[c] = n
		}
		e.lastCounter, e.lastCount = c, n
	}
	*e.lastCount++
}

// hintID names a hint by what it is: the prefix, then 16 hex digits of a
// hash (idHash) of its policy, target, content and time. A restart that
// applies events again (at-least-once) gives a hint emitted again the id it
// had, and can never give an id to a different hint, as a counter restored
// from a checkpoint would when a policy decides differently the second time.
func (e *Engine) hintID(policyName string, target, content []byte, now int64) string {
	return string(e.appendHintID(nil, policyName, target, content, strconv.AppendInt(nil, now, 10)))
}

// appendHintID appends hintID's id to b; nowDec is the time in decimal
// (strconv.AppendInt(nil, now, 10)). emit builds the same bytes in place
// and hashes them there; this plain form is what TestEmitIDsSameAsHintID
// holds it to.
func (e *Engine) appendHintID(b []byte, policyName string, target, content, nowDec []byte) []byte {
	e.id = append(e.id[:0], policyName...)
	e.id = append(e.id, 0)
	e.id = append(e.id, target...)
	e.id = append(e.id, 0)
	e.id = append(e.id, content...)
	e.id = append(e.id, 0)
	e.id = append(e.id, nowDec...)
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], idHash(e.id))
	b = append(b, e.idPrefix...)
	return hex.AppendEncode(b, sum[:])
}

// guard runs one plugin call, turning a panic into a counted, logged error.
func (e *Engine) guard(name string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			e.panicked(name, r)
		}
	}()
	f()
}

// panicked counts and logs plugin name's panic r (called by the deferred
// recover, so the stack is the panic's).
func (e *Engine) panicked(name string, r any) {
	e.stats.Panics[name]++
	e.log.Error().Str("policy", name).Str("panic", fmt.Sprint(r)).Bytes("stack", debug.Stack()).
		Msg("policy panicked; its output is dropped, the others go on")
}

// observeFrom gives ev to the observers from index i on, under one
// recover, and returns the index after the last one called: the next
// after one that panicked (counted and logged as guard does), so Apply
// goes on from there. A guard per observer (its name, a closure and a
// deferred recover for each) cost every event about 10 ns, with only a
// panic needing them.
func (e *Engine) observeFrom(ctx context.Context, i int, ev *events.Event) (next int) {
	obs := e.stack.Observers
	next = i
	defer func() {
		if r := recover(); r != nil {
			e.panicked(obs[next].Name(), r)
			next++
		}
	}()
	for ; next < len(obs); next++ {
		obs[next].Observe(ctx, ev, e.state)
	}
	return next
}

// Flush asks every plugin that persists state to save it.
func (e *Engine) Flush(ctx context.Context) error {
	var first error
	for _, f := range e.stack.Flushers {
		var err error
		e.guard(f.Name(), func() { err = f.Flush(ctx) })
		if err != nil && first == nil {
			first = fmt.Errorf("flush %s: %w", f.Name(), err)
		}
	}
	return first
}
