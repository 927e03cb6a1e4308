package policy

// Lapses is what a plugin knows of when its own hints lapse in its engine
// (InForce), so that it returns only the hints the engine would emit (the
// engine drops the others as repeats, after building their target and
// content). A lapse is known within a span: the span ends when a hint of a
// kind the plugin follows is emitted under another policy name, which may
// have replaced one of the plugin's, and then each lapse is asked of the
// engine again (Until). Within a span only the hints the plugin returns
// move its lapses, which Returned records. TMaR's holds and bindings and
// DHSA's ratio hints use it.
type Lapses struct {
	f      InForce // nil: not run by an engine, every hint is returned
	kinds  []HintKind
	gen    uint64 // the span; a Lapse of another is not known
	others []uint64
	ttl    []int64
	now    int64
	stale  bool // a new InForce: the next Begin starts a span
}

// Lapse is when one hint of a plugin's lapses in the engine, known in one
// span of its Lapses (the zero Lapse is not known).
type Lapse struct {
	At  int64 // ms; math.MinInt64 when the engine has no such hint
	gen uint64
}

// NewLapses follows the hints of kinds; Returned names a kind by its index
// here.
func NewLapses(kinds ...HintKind) Lapses {
	return Lapses{kinds: kinds, others: make([]uint64, len(kinds)), ttl: make([]int64, len(kinds))}
}

// Use sets the engine's InForce (nil: none) and forgets every lapse.
func (l *Lapses) Use(f InForce) {
	l.f, l.stale = f, true
	l.gen++
}

// Wired tells whether the plugin runs in an engine that reports its hints
// in force.
func (l *Lapses) Wired() bool { return l.f != nil }

// Begin reads the engine's round at the start of a plugin call under name:
// its time, and whether another policy emitted a hint of a followed kind
// since the last Begin (then a new span begins, and the TTLs, which are the
// engine's for its life, are read with it).
func (l *Lapses) Begin(name string) {
	if l.f == nil {
		return
	}
	l.now = l.f.Now()
	changed := l.gen == 0 || l.stale
	for i, k := range l.kinds {
		if n := l.f.Others(k, name); n != l.others[i] {
			l.others[i], changed = n, true
		}
	}
	if changed {
		for i, k := range l.kinds {
			l.ttl[i] = l.f.TTL(k)
		}
		l.gen, l.stale = l.gen+1, false
	}
}

// Known tells whether at is known in this span.
func (l *Lapses) Known(at Lapse) bool { return at.gen == l.gen }

// Ask sets at from the engine: when its hint with target and content
// lapses (AppendTarget, AppendContent).
func (l *Lapses) Ask(at *Lapse, target, content string) {
	*at = Lapse{At: l.f.Until(target, content), gen: l.gen}
}

// Live tells whether at, known, has not lapsed at the round's time.
func (l *Lapses) Live(at Lapse) bool { return at.At > l.now }

// Returned records that the plugin returns the hint whose lapse is at, of
// the kind at index kind of NewLapses, while it is not in force: the engine
// emits it, in force for its TTL from now. Not wired, nothing is recorded.
func (l *Lapses) Returned(at *Lapse, kind int) {
	if l.f == nil {
		return
	}
	*at = Lapse{At: l.now + l.ttl[kind], gen: l.gen}
}
