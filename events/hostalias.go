package events

import "strings"

// HostAliases renames block-replica hosts before an event reaches the
// cluster model (the config's model.host_aliases): a DataNode that registers
// another name than the NodeManager beside it (an IP, a second interface)
// would otherwise make no split local anywhere, and every locality policy
// blind. Keys are lower-case DataNode hosts, values NodeManager hosts or
// node ids.
type HostAliases map[string]string

// NewHostAliases builds the aliases from DataNode -> NodeManager pairs (nil
// when there are none).
func NewHostAliases(pairs map[string]string) HostAliases {
	if len(pairs) == 0 {
		return nil
	}
	h := make(HostAliases, len(pairs))
	for from, to := range pairs {
		h[strings.ToLower(from)] = to
	}
	return h
}

// Rewrite renames the split hosts of a task.pending event in place (the
// caller owns the decoded event) and reports how many it renamed. Host names
// compare case-insensitively, as DNS does.
func (h HostAliases) Rewrite(ev *Event) int {
	if len(h) == 0 || ev.Type != TaskPending {
		return 0
	}
	n := 0
	for i := range ev.Splits {
		for j, host := range ev.Splits[i].Hosts {
			if to, ok := h[strings.ToLower(host)]; ok {
				ev.Splits[i].Hosts[j] = to
				n++
			}
		}
	}
	return n
}
