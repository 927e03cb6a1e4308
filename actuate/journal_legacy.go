package actuate

import (
	"strconv"

	"github.com/rmsidecar/rmsidecar/policy"
)

// legacyJournalKey is the journal key identity version 1 gave h: its
// content was fmt's %v of the Hint struct as it stood then. Journals
// written before version 2 hold such keys; OpenFileJournal keeps them
// apart and Seen honours them until they expire, so an upgrade does not
// actuate again a decision delivered just before it.
func legacyJournalKey(actuator string, h *policy.Hint) string {
	return hashKey(actuator, h.Target(), string(legacyContentV1(nil, h)))
}

// legacyContentV1 writes what fmt.Sprintf("%v", c) printed for the Hint
// struct of identity version 1 (fields in its order, with V, ID, TS,
// Policy, Reason, ExpiresTS and the estimates zeroed). It is frozen: the
// struct may change, this may not (actuate/testdata/journal_v1.jsonl).
func legacyContentV1(b []byte, h *policy.Hint) []byte {
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
		if n.Score > 0 && n.Score-n.Score != 0 { // +Inf: fmt writes "+Inf"
			b = append(b, "+Inf"...)
		} else {
			b = strconv.AppendFloat(b, n.Score, 'g', -1, 64)
		}
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
