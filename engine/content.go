package engine

import (
	"strconv"

	"github.com/rmsidecar/rmsidecar/policy"
)

// appendContent appends h.Content() to b without fmt's reflection: the
// engine compares every hint it emits with the one in force, and a
// speculation scan on a large cluster emits thousands in one tick.
// TestAppendContentMatchesContent holds it to policy.Hint.Content for every
// field (a field added to Hint fails that test until it is added here).
func appendContent(b []byte, h *policy.Hint) []byte {
	// Content zeroes V, ID, TS, Policy, Reason, ExpiresTS and the estimates.
	b = append(b, "{0  0  "...)
	b = append(b, h.Kind...)
	b = append(b, "  0 "...)
	for _, s := range [...]string{h.App, h.Queue, h.Task, h.Attempt, h.Container, h.Node} {
		b = append(b, s...)
		b = append(b, ' ')
	}
	b = append(b, "0 0 "...)
	b = strconv.AppendBool(b, h.MapSlow)
	b = append(b, ' ')
	b = strconv.AppendBool(b, h.ReduceSlow)
	b = append(b, " ["...)
	for i, n := range h.Nodes {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, '{')
		b = append(b, n.Node...)
		b = append(b, ' ')
		b = appendFloatV(b, n.Score)
		b = append(b, ' ')
		b = append(b, n.Locality...)
		b = append(b, '}')
	}
	b = append(b, "] "...)
	b = strconv.AppendBool(b, h.Strict)
	for _, v := range [...]int{h.Partition, h.Reducers, h.MaxMaps, h.MaxReduces, h.VCores, h.MemoryMB, h.Priority} {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return append(b, '}')
}

// AppendTarget appends h.Target() to b without the allocations of
// strings.Builder (TestAppendContentMatchesContent checks it).
func AppendTarget(b []byte, h *policy.Hint) []byte {
	b = append(b, h.Kind...)
	for _, s := range [...]string{h.App, h.Queue, h.Task, h.Attempt, h.Container, h.Node} {
		b = append(b, '|')
		b = append(b, s...)
	}
	if h.Kind == policy.KindReduceBinding {
		b = append(b, '|')
		b = strconv.AppendInt(b, int64(h.Partition), 10)
	}
	return b
}

// appendFloatV formats f as fmt's %v does.
func appendFloatV(b []byte, f float64) []byte {
	if f > 0 && f-f != 0 { // +Inf: fmt writes "+Inf"
		return append(b, "+Inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}
