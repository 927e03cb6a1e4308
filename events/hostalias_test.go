package events

import (
	"slices"
	"testing"
)

func TestHostAliasesRewriteSplitHosts(t *testing.T) {
	h := NewHostAliases(map[string]string{
		"10.0.0.5":           "worker5.example.com",
		"DN1.rmsidecar.test": "localhost:40001",
	})
	for _, c := range []struct {
		name  string
		ev    Event
		want  [][]string
		count int
	}{
		{"ip to host name", Event{Type: TaskPending, Splits: []Split{{Hosts: []string{"10.0.0.5", "10.0.0.6"}}}},
			[][]string{{"worker5.example.com", "10.0.0.6"}}, 1},
		{"case-insensitive, to a node id", Event{Type: TaskPending, Splits: []Split{{Hosts: []string{"dn1.RMSIDECAR.test"}}, {Hosts: []string{"10.0.0.5"}}}},
			[][]string{{"localhost:40001"}, {"worker5.example.com"}}, 2},
		{"no alias", Event{Type: TaskPending, Splits: []Split{{Hosts: []string{"dn2.rmsidecar.test"}}}},
			[][]string{{"dn2.rmsidecar.test"}}, 0},
		{"other event types untouched", Event{Type: MapOutput, Splits: []Split{{Hosts: []string{"10.0.0.5"}}}},
			[][]string{{"10.0.0.5"}}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if n := h.Rewrite(&c.ev); n != c.count {
				t.Errorf("renamed %d, want %d", n, c.count)
			}
			for i, s := range c.ev.Splits {
				if !slices.Equal(s.Hosts, c.want[i]) {
					t.Errorf("split %d hosts %v, want %v", i, s.Hosts, c.want[i])
				}
			}
		})
	}
	var none HostAliases
	ev := Event{Type: TaskPending, Splits: []Split{{Hosts: []string{"10.0.0.5"}}}}
	if none.Rewrite(&ev) != 0 || ev.Splits[0].Hosts[0] != "10.0.0.5" {
		t.Error("no aliases renamed a host")
	}
}
