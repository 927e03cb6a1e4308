package policy

import "strconv"

// IdentityVersion is the version of the hint identity (Target and Content).
// Version 1 was fmt's %v of the Go struct, so any change to Hint changed
// every identity; version 2 names each field by its wire name and writes
// nothing for a zero value, so adding a field keeps the identity of every
// hint that leaves it zero. The actuation journal stores this version with
// each entry.
const IdentityVersion = 2

// Target identifies what a hint is about (kind plus subject), so the engine
// can tell a repeat from a change.
func (h *Hint) Target() string { return string(AppendTarget(nil, h)) }

// AppendTarget appends h.Target() to b: kind, app, queue, task, attempt,
// container and node separated by '|', then the partition of a
// reduce-binding (a partition is its own subject).
func AppendTarget(b []byte, h *Hint) []byte {
	b = append(b, h.Kind...)
	for _, s := range [...]string{h.App, h.Queue, h.Task, h.Attempt, h.Container, h.Node} {
		b = append(b, '|')
		b = append(b, s...)
	}
	if h.Kind == KindReduceBinding {
		b = append(b, '|')
		b = strconv.AppendInt(b, int64(h.Partition), 10)
	}
	return b
}

// Content is the decision a hint carries, without its identity, time,
// reason, policy or estimates: two hints with the same Target and Content
// say the same thing. It is stable across releases (see IdentityVersion).
func (h *Hint) Content() string { return string(AppendContent(nil, h)) }

// AppendContent appends h.Content() to b without reflection (the engine
// compares every hint it emits with the one in force). The form is
// "v2 kind=<q>" followed by " name=value" for each non-zero field, in wire
// names, strings quoted; a field added to Hint must be added here or to
// the exclusions of TestContentCoversEveryField.
func AppendContent(b []byte, h *Hint) []byte { return appendContent(b, h, false) }

// AppendTargetContent appends AppendTarget(h), then sep, then
// AppendContent(h), and returns where the target ends in b. The target
// holds every string the content quotes but the nodes' (kind and ids
// between '|'s): when it is plain ASCII as a whole, tested once, the
// content's fields need no test each (the engine emits both for every
// hint; the tests were a sixth of a large round's emit).
func AppendTargetContent(b []byte, h *Hint, sep byte) ([]byte, int) {
	t0 := len(b)
	b = AppendTarget(b, h)
	end := len(b)
	plain := plainASCII(b[t0:end])
	b = append(b, sep)
	return appendContent(b, h, plain), end
}

// appendContent is AppendContent; plain says that the kind and the six id
// strings need no escapes.
func appendContent(b []byte, h *Hint, plain bool) []byte {
	quote := func(b []byte, s string) []byte {
		if !plain {
			return appendQuoted(b, s)
		}
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	b = append(b, "v2 kind="...)
	b = quote(b, string(h.Kind))
	for _, f := range [...]struct{ name, v string }{{"app", h.App}, {"queue", h.Queue}, {"task", h.Task},
		{"attempt", h.Attempt}, {"container", h.Container}, {"node", h.Node}} {
		if f.v != "" {
			b = append(b, ' ')
			b = append(b, f.name...)
			b = append(b, '=')
			b = quote(b, f.v)
		}
	}
	if h.MapSlow {
		b = append(b, " map_slow=true"...)
	}
	if h.ReduceSlow {
		b = append(b, " reduce_slow=true"...)
	}
	if len(h.Nodes) > 0 {
		b = append(b, " nodes=["...)
		for i, n := range h.Nodes {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQuoted(b, n.Node)
			b = append(b, ':')
			b = strconv.AppendFloat(b, n.Score, 'g', -1, 64)
			if n.Locality != "" {
				b = append(b, ':')
				b = appendQuoted(b, string(n.Locality))
			}
		}
		b = append(b, ']')
	}
	if h.Strict {
		b = append(b, " strict=true"...)
	}
	for _, f := range [...]struct {
		name string
		v    int
	}{{"partition", h.Partition}, {"reducers", h.Reducers}, {"max_maps", h.MaxMaps}, {"max_reduces", h.MaxReduces},
		{"vcores", h.VCores}, {"memory_mb", h.MemoryMB}, {"priority", h.Priority}} {
		if f.v != 0 {
			b = append(b, ' ')
			b = append(b, f.name...)
			b = append(b, '=')
			b = strconv.AppendInt(b, int64(f.v), 10)
		}
	}
	return b
}

// appendQuoted appends s in Go quotes; plain ASCII (every id YARN makes)
// skips strconv.AppendQuote's per-rune work, with the same result.
func appendQuoted(b []byte, s string) []byte {
	if !plainASCII(s) {
		return strconv.AppendQuote(b, s)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainASCII reports whether every byte of s is one strconv.AppendQuote
// writes as it is: 0x20-0x7e but '"' and '\\'. It tests 8 bytes a step (the
// byte-at-a-time loop was a sixth of a large round's emit; a tail is
// tested as the last 8 bytes again, or as two overlapping 4-byte halves).
func plainASCII[S string | []byte](s S) bool {
	all := s
	for ; len(s) >= 8; s = s[8:] {
		if !plainWord(load64(s[:8])) {
			return false
		}
	}
	switch {
	case len(s) == 0:
		return true
	case len(all) >= 8:
		return plainWord(load64(all[len(all)-8:]))
	case len(s) >= 4:
		return plainWord(uint64(load32(s[:4])) | uint64(load32(s[len(s)-4:]))<<32)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// plainWord reports whether each of w's 8 bytes is plain (see plainASCII),
// with the "has a zero byte" and "has a byte less than n" word tests
// (Anderson, Bit Twiddling Hacks): neither misses a byte it looks for.
func plainWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	bad := w | (w-0x20*ones)&^w // a byte >= 0x80, or one < 0x20
	q, bs, del := w^0x22*ones, w^0x5c*ones, w^0x7f*ones
	bad |= (q-ones)&^q | (bs-ones)&^bs | (del-ones)&^del // a byte '"', '\\' or 0x7f
	return bad&highs == 0
}

// load64 reads the 8 bytes of s (len 8) as a little-endian word.
func load64[S string | []byte](s S) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// load32 reads the 4 bytes of s (len 4) as a little-endian word.
func load32[S string | []byte](s S) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
