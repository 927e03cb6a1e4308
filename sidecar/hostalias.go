package sidecar

import (
	"strings"

	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/events"
)

// hostAliases renames block-replica hosts (model.host_aliases) before an
// event reaches the model: a DataNode that registers another name than the
// NodeManager beside it (an IP, a second interface) would otherwise make no
// split local anywhere, and every locality policy blind.
type hostAliases map[string]string // lower-case DataNode host -> NodeManager host or node id

func newHostAliases(as []config.HostAlias) hostAliases {
	if len(as) == 0 {
		return nil
	}
	m := make(hostAliases, len(as))
	for _, a := range as {
		m[strings.ToLower(a.DataNode)] = a.NodeManager
	}
	return m
}

// rewrite renames the split hosts of a task.pending event in place (the
// loop owns each decoded event) and reports how many it renamed. Host names
// compare case-insensitively, as DNS does.
func (h hostAliases) rewrite(ev *events.Event) int {
	if len(h) == 0 || ev.Type != events.TaskPending {
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
