package cluster

import (
	"encoding/json"
	"math"
	"slices"
	"sort"
)

// History is a node's newest heartbeat samples, oldest first, at most the
// state's history length (WithHistoryLen), one per timestamp.
//
// It is held in a per-node ring rather than a []LoadSample: at 10,000 nodes
// of 64 samples the slices were 15 MB, 15 % of the live state, and adding a
// sample to a full slice shifted 1.5 KB. A ring keeps a sample's time as 4
// bytes from a base and its two values as 1-byte indexes into a palette of
// the distinct float64 values the ring holds (loads repeat: used vcores are
// integers, utilisation their quotients), 6 bytes a sample instead of 24.
// A ring whose samples have too many distinct values is narrow when their
// Load1 values are short decimals (what the bridge sends: YARN's
// nodeCPUUsage is a Java float, printed in at most 9 digits and parsed as
// the nearest float64, which a float32 does not hold but m/10^k does): a
// 4-byte time offset and a 4-byte decimal code for Load1, and CPUUtil
// derived from Load1 when it is the bridge's share of the node's vcores
// (8 bytes a sample), else as a code too (12) or a float64 (16). Else (or
// over a span of more than 49 days) it holds LoadSamples: at worst the
// slice's size plus the ring's header. Every form returns exactly the
// float64 values that were added (the palette compares bits; a code, or a
// derived CPUUtil, is used only when it gives back the same bits).
//
// A History is read through Len, At and Search; the zero History is empty.
// Copying a Node shares its ring: use Clone for a copy of one's own.
type History struct{ r *histRing }

// histRing is a History's storage: n samples from slot head on, cyclically
// over cap slots, either wide (LoadSamples), compact (offsets and palette
// indexes) or narrow (offsets and per-slot values, Load1 as a decimal code).
type histRing struct {
	base    int64 // compact, narrow: the time of offset 0, never after the oldest sample
	head, n int32
	wide    []LoadSample // len cap when wide, else nil
	// compact: TS - base per slot (len cap); narrow: those, then decimal
	// codes (decCode) of Load1 per slot (len 2·cap) when pal is not nil,
	// else of Load1 and CPUUtil per slot (len 3·cap). One slice for both
	// keeps the header at 112 bytes.
	off []uint32
	idx []uint8 // compact: palette indexes of Load1 and CPUUtil per slot (len 2·cap)
	// compact: the values the indexes name; narrow: CPUUtil per slot (len
	// cap) when it is neither held as codes nor derived from Load1, its
	// divisor (len 1, quotient) when derived, else nil.
	pal []float64
}

// HistoryOf returns a History holding samples (sorted by time, one per
// time), for tests and tools that build nodes by hand.
func HistoryOf(samples ...LoadSample) History {
	return History{buildRing(samples, len(samples), false)}
}

// Len is the number of samples.
func (h History) Len() int {
	if h.r == nil {
		return 0
	}
	return int(h.r.n)
}

// IsZero reports whether h holds no sample (encoding/json's omitzero, which
// leaves an empty history out of a node as omitempty did for the slice).
func (h History) IsZero() bool { return h.Len() == 0 }

// At returns the i-th sample, oldest first (0 <= i < Len).
func (h History) At(i int) LoadSample {
	r := h.r
	if i < 0 || i >= int(r.n) {
		panic("cluster: History.At index out of range")
	}
	s := r.slot(i)
	switch {
	case r.wide != nil:
		return r.wide[s]
	case r.idx != nil:
		return LoadSample{TS: r.base + int64(r.off[s]), Load1: r.pal[r.idx[2*s]], CPUUtil: r.pal[r.idx[2*s+1]]}
	case r.pal != nil:
		c := len(r.off) / 2
		l := decValue(r.off[c+s])
		if r.quotient() {
			return LoadSample{TS: r.base + int64(r.off[s]), Load1: l, CPUUtil: utilOf(l, r.pal[0])}
		}
		return LoadSample{TS: r.base + int64(r.off[s]), Load1: l, CPUUtil: r.pal[s]}
	}
	c := len(r.off) / 3
	return LoadSample{TS: r.base + int64(r.off[s]), Load1: decValue(r.off[c+2*s]), CPUUtil: decValue(r.off[c+2*s+1])}
}

// TS returns the time of the i-th sample (At(i).TS without the values).
func (h History) TS(i int) int64 {
	r := h.r
	if i < 0 || i >= int(r.n) {
		panic("cluster: History.TS index out of range")
	}
	s := r.slot(i)
	if r.wide != nil {
		return r.wide[s].TS
	}
	return r.base + int64(r.off[s])
}

// Search returns the smallest i with At(i).TS >= ts (Len if there is none).
func (h History) Search(ts int64) int {
	return sort.Search(h.Len(), func(i int) bool { return h.TS(i) >= ts })
}

// Samples returns a copy of the samples, oldest first (nil when empty).
func (h History) Samples() []LoadSample {
	if h.Len() == 0 {
		return nil
	}
	return h.appendTo(make([]LoadSample, 0, h.Len()))
}

// appendTo appends the samples, oldest first, to dst.
func (h History) appendTo(dst []LoadSample) []LoadSample {
	for i := range h.Len() {
		dst = append(dst, h.At(i))
	}
	return dst
}

// copyRing returns a copy of h's ring as it is laid out (Clone rebuilds it
// canonically, through a slice of the samples).
func (h History) copyRing() History {
	if h.r == nil {
		return History{}
	}
	r := *h.r
	r.wide, r.off, r.idx, r.pal = slices.Clone(r.wide), slices.Clone(r.off), slices.Clone(r.idx), slices.Clone(r.pal)
	return History{&r}
}

// Clone returns a copy of h that shares nothing with it. Its layout depends
// only on the samples, so clones of equal histories are deeply equal
// (Snapshot compares states that way).
func (h History) Clone() History {
	if h.Len() == 0 {
		return History{}
	}
	return HistoryOf(h.Samples()...)
}

// MarshalJSON writes the samples as the JSON array the []LoadSample field
// was, so checkpoints and snapshots keep their format.
func (h History) MarshalJSON() ([]byte, error) {
	s := h.Samples()
	if s == nil {
		return []byte("null"), nil
	}
	return json.Marshal(s)
}

// UnmarshalJSON reads that array.
func (h *History) UnmarshalJSON(b []byte) error {
	var s []LoadSample
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*h = HistoryOf(s...)
	return nil
}

func (r *histRing) cap() int {
	switch {
	case r.wide != nil:
		return len(r.wide)
	case r.idx != nil:
		return len(r.off)
	case r.pal != nil:
		return len(r.off) / 2
	}
	return len(r.off) / 3
}

// quotient reports whether a narrow ring derives CPUUtil from Load1
// (utilOf with the divisor pal[0]); such a ring has at least 2 slots, so
// that its one-value pal differs from a CPUUtil column.
func (r *histRing) quotient() bool { return len(r.pal) == 1 && len(r.off) > 2 }

// utilOf is CPUUtil as the bridge derives it (yarnclient's heartbeat) from
// busy vcores (Load1) and the node's vcores q: their quotient, clamped to
// [0, 1].
func utilOf(load1, q float64) float64 { return math.Max(0, math.Min(1, load1/q)) }

// quotientOf returns the q with utilOf(s.Load1, q) == s.CPUUtil (in bits)
// for every sample, and whether there is one: the bridge's loads. q is
// taken from the first sample with a CPUUtil strictly between 0 and 1 (the
// node's vcores, an integer), then checked on all.
func quotientOf(samples []LoadSample) (float64, bool) {
	q := 0.0
	for _, s := range samples {
		if s.CPUUtil > 0 && s.CPUUtil < 1 && s.Load1 > 0 {
			q = math.Round(s.Load1 / s.CPUUtil)
			break
		}
	}
	if !(q >= 1 && q < 1<<31) {
		return 0, false
	}
	for _, s := range samples {
		if math.Float64bits(utilOf(s.Load1, q)) != math.Float64bits(s.CPUUtil) {
			return 0, false
		}
	}
	return q, true
}

func (r *histRing) slot(i int) int {
	s := int(r.head) + i
	if c := r.cap(); s >= c {
		s -= c
	}
	return s
}

// palLimit is how many values a compact ring's palette may hold before it
// is rebuilt from the samples held: twice the slots (at most 255, the
// largest 1-byte index), so a compact ring (6 bytes a slot, 8 a palette
// entry) stays smaller than a wide one (24 bytes a slot).
func palLimit(cap int) int { return min(2*cap, 255) }

// buildRing returns a ring of cap slots (cap >= len(samples)) holding
// samples: compact when their values are few enough (at most half the
// palette limit, a quarter when the ring was not compact, so that a ring
// whose values hover at the limit does not switch back and forth), else
// narrow when every Load1 has a decimal code, else wide; compact and narrow
// only when the times are at most 2^32 ms after the first's.
func buildRing(samples []LoadSample, cap int, wasWide bool) *histRing {
	if cap == 0 {
		return nil
	}
	r := &histRing{n: int32(len(samples))}
	limit := palLimit(cap) / 2
	if wasWide {
		limit /= 2
	}
	for _, s := range samples {
		// Offsets from the first sample's time. Unsigned: the difference of
		// two int64 times may not fit an int64. A history out of time order
		// (a hand-made checkpoint) is held as it is, wide.
		if s.TS < samples[0].TS || uint64(s.TS)-uint64(samples[0].TS) > math.MaxUint32 {
			r.wide = make([]LoadSample, cap)
			copy(r.wide, samples)
			return r
		}
	}
	compact := true
	var pal []float64
	for _, s := range samples {
		for _, v := range [2]float64{s.Load1, s.CPUUtil} {
			if palIndex(pal, v) < 0 {
				pal = append(pal, v)
			}
		}
		if len(pal) > limit {
			compact = false
			break
		}
	}
	loads, utils := true, true
	for _, s := range samples {
		if compact {
			break
		}
		if _, ok := decCode(s.Load1); !ok {
			loads = false
			break
		}
		if utils {
			_, utils = decCode(s.CPUUtil)
		}
	}
	switch {
	case compact:
		r.off, r.idx = make([]uint32, cap), make([]uint8, 2*cap)
		r.pal = slices.Clone(pal) // exactly the values: most rings hold a few
		for i, s := range samples {
			r.idx[2*i], r.idx[2*i+1] = uint8(palIndex(pal, s.Load1)), uint8(palIndex(pal, s.CPUUtil))
		}
	case !loads:
		r.wide = make([]LoadSample, cap)
		copy(r.wide, samples)
		return r
	default:
		q, derived := quotientOf(samples)
		switch {
		case derived && cap >= 2: // CPUUtil derived: 8 bytes a sample
			r.off, r.pal = make([]uint32, 2*cap), []float64{q}
		case utils: // both as codes: 12 bytes a sample
			r.off = make([]uint32, 3*cap)
		default: // CPUUtil as float64: 16 bytes a sample
			r.off, r.pal = make([]uint32, 2*cap), make([]float64, cap)
		}
		dec := r.off[cap:]
		for i, s := range samples {
			switch {
			case r.pal == nil:
				dec[2*i], _ = decCode(s.Load1)
				dec[2*i+1], _ = decCode(s.CPUUtil)
			case r.quotient():
				dec[i], _ = decCode(s.Load1)
			default:
				dec[i], _ = decCode(s.Load1)
				r.pal[i] = s.CPUUtil
			}
		}
	}
	if len(samples) > 0 {
		r.base = samples[0].TS
	}
	for i, s := range samples {
		r.off[i] = uint32(s.TS - r.base)
	}
	return r
}

// size is the bytes r's slots and palette take.
func (r *histRing) size() int {
	return 24*len(r.wide) + 4*len(r.off) + len(r.idx) + 8*len(r.pal)
}

// A decimal code holds a value m/10^k (m < 2^decBits, k < 16) as k<<decBits
// | m. float64(m) and 10^k (k <= 22) are exact, so the value is one
// correctly rounded division, the same bits on every IEEE platform.
const (
	decBits = 28
	decMaxM = 1 << decBits
)

// decPow10 is 10^k for 0 <= k < 16 (a switch: an array literal was copied
// to the stack at every call).
func decPow10(k uint32) float64 {
	switch k & 15 {
	case 0:
		return 1
	case 1:
		return 1e1
	case 2:
		return 1e2
	case 3:
		return 1e3
	case 4:
		return 1e4
	case 5:
		return 1e5
	case 6:
		return 1e6
	case 7:
		return 1e7
	case 8:
		return 1e8
	case 9:
		return 1e9
	case 10:
		return 1e10
	case 11:
		return 1e11
	case 12:
		return 1e12
	case 13:
		return 1e13
	case 14:
		return 1e14
	}
	return 1e15
}

// decValue is the value of decimal code c.
func decValue(c uint32) float64 {
	return float64(c&(decMaxM-1)) / decPow10(c>>decBits)
}

// decCode returns a decimal code whose value has exactly v's bits, and
// whether there is one: for a non-negative v that is a decimal of at most 8
// significant digits (9 below 2.68), as every float32 printed shortest is.
// Only the largest k with v·10^k < 2^decBits is tried: a decimal M/10^j
// with j <= k is also M·10^(k-j)/10^k, the same quotient, and v·10^k is
// within far less than 0.5 of that integer, so Round finds it.
func decCode(v float64) (uint32, bool) {
	if !(v >= 0 && v < decMaxM) {
		return 0, false // negative, NaN, too large
	}
	// 10^k from 10^15 down: each quotient by 10 is an exact power of ten.
	k, p := uint32(15), 1e15
	for k > 0 && v*p >= decMaxM {
		k, p = k-1, p/10
	}
	m := math.Round(v * p)
	if m >= decMaxM {
		return 0, false
	}
	c := k<<decBits | uint32(m)
	return c, math.Float64bits(decValue(c)) == math.Float64bits(v) // -0 never: its code decodes to +0
}

// palIndex returns the index of v's bits in pal, or -1.
func palIndex(pal []float64, v float64) int {
	b := math.Float64bits(v)
	for i, p := range pal {
		if math.Float64bits(p) == b {
			return i
		}
	}
	return -1
}

// add keeps the newest limit samples sorted by time, one per time, as
// State.addSample did on a []LoadSample (TestHistoryMatchesSlice), and
// reports whether h changed.
func (h *History) add(smp LoadSample, limit int) bool {
	r := h.r
	if r == nil {
		h.r = buildRing([]LoadSample{smp}, max(limit, 1), false)
		return true
	}
	if r.n > 0 && h.TS(int(r.n)-1) < smp.TS && r.cap() >= limit {
		r.push(smp, limit)
		return true
	}
	// Out of order, or a limit above the ring's size: the slice's
	// algorithm on the samples, then a ring built from them.
	s := h.Samples()
	if k := len(s); k == 0 || s[k-1].TS < smp.TS {
		s = append(s, smp)
	} else {
		i := sort.Search(len(s), func(i int) bool { return s[i].TS >= smp.TS })
		if s[i].TS == smp.TS {
			return false
		}
		if len(s) >= limit && i == 0 {
			return false // older than everything kept
		}
		s = slices.Insert(s, i, smp)
	}
	if len(s) > limit {
		s = s[len(s)-limit:]
	}
	h.r = buildRing(s, max(limit, r.cap()), r.idx == nil)
	return true
}

// push appends smp, newer than every sample held, dropping the oldest
// beyond limit (limit <= cap).
func (r *histRing) push(smp LoadSample, limit int) {
	if over := int(r.n) + 1 - limit; over > 0 {
		r.head = int32(r.slot(over))
		r.n -= int32(over)
	}
	c := r.cap()
	s := r.slot(int(r.n))
	if r.wide != nil {
		r.wide[s] = smp
		r.n++
		r.turned(s)
		return
	}
	if r.n == 0 {
		r.base = smp.TS
	}
	if r.idx == nil { // narrow
		lc, lok := decCode(smp.Load1)
		uc, uok := uint32(0), true
		switch {
		case r.pal == nil:
			uc, uok = decCode(smp.CPUUtil)
		case r.quotient():
			uok = math.Float64bits(utilOf(smp.Load1, r.pal[0])) == math.Float64bits(smp.CPUUtil)
		}
		if !lok || !uok || uint64(smp.TS)-uint64(r.base) > math.MaxUint32 {
			all := append(History{r}.Samples(), smp)
			*r = *buildRing(all, c, true)
			return
		}
		r.off[s] = uint32(smp.TS - r.base)
		switch {
		case r.pal == nil:
			r.off[c+2*s], r.off[c+2*s+1] = lc, uc
		case r.quotient():
			r.off[c+s] = lc
		default:
			r.off[c+s], r.pal[s] = lc, smp.CPUUtil
		}
		r.n++
		r.turned(s)
		return
	}
	li, ui := palIndex(r.pal, smp.Load1), palIndex(r.pal, smp.CPUUtil)
	need := 0
	if li < 0 {
		need++
	}
	if ui < 0 && (li >= 0 || math.Float64bits(smp.CPUUtil) != math.Float64bits(smp.Load1)) {
		need++
	}
	if uint64(smp.TS)-uint64(r.base) > math.MaxUint32 || len(r.pal)+need > palLimit(c) {
		// Offset or palette out of room: rebuild from the samples held,
		// which rebases the offsets and drops values no longer used (or
		// makes the ring wide).
		all := append(History{r}.Samples(), smp)
		*r = *buildRing(all, c, false)
		return
	}
	if li < 0 {
		li = len(r.pal)
		r.pal = append(r.pal, smp.Load1)
	}
	if ui < 0 {
		if ui = palIndex(r.pal, smp.CPUUtil); ui < 0 {
			ui = len(r.pal)
			r.pal = append(r.pal, smp.CPUUtil)
		}
	}
	r.off[s] = uint32(smp.TS - r.base)
	r.idx[2*s], r.idx[2*s+1] = uint8(li), uint8(ui)
	r.n++
}

// turned is called after a sample was written to slot s of a wide or
// narrow ring: once per turn of the ring, it sees whether the samples held
// now fit a smaller form (fewer values, or decimal ones).
func (r *histRing) turned(s int) {
	c := r.cap()
	if s != c-1 {
		return
	}
	if r.quotient() && !r.fewValues(palLimit(c)/4) {
		return // the smallest form but compact, and not few-valued: no ring to build
	}
	if nr := buildRing(History{r}.Samples(), c, true); nr.size() < r.size() {
		*r = *nr
	}
}

// fewValues reports whether the samples held have at most limit distinct
// values, as buildRing counts them for a compact ring.
func (r *histRing) fewValues(limit int) bool {
	var buf [64]float64 // limit is at most 63 (palLimit)
	pal := buf[:0]
	h := History{r}
	for i := range h.Len() {
		smp := h.At(i)
		for _, v := range [2]float64{smp.Load1, smp.CPUUtil} {
			if palIndex(pal, v) < 0 {
				if pal = append(pal, v); len(pal) > limit {
					return false
				}
			}
		}
	}
	return true
}
