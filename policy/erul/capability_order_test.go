package erul

import "testing"

// A stored document with several bad entries is refused naming the same one
// (the first node, then class, by name) every time, and a good document
// loads every entry.
func TestCapabilityLoadNamesTheSameEntryEveryTime(t *testing.T) {
	bad := capabilityDoc{Nodes: map[string]map[string]capEntry{
		"n1": {"nonsense": {Cap: 1, N: 1}, "zzz": {Cap: 1, N: 1}},
		"n2": {"nonsense": {Cap: 1, N: 1}},
		"n3": {"other": {Cap: 1, N: 1}},
		"n4": {DataLocal.String(): {Cap: -1, N: 1}},
	}}
	want := `node "n1": unknown task class "nonsense"`
	for i := range 200 {
		err := newCapabilities(0.3).load(bad)
		if err == nil || err.Error() != want {
			t.Fatalf("load %d: got %v, want %q", i, err, want)
		}
	}
	good := capabilityDoc{Nodes: map[string]map[string]capEntry{
		"n1": {DataLocal.String(): {Cap: 0.5, N: 2}, Reduce.String(): {Cap: 40, N: 1}},
		"n2": {OffRack.String(): {Cap: 2, N: 3}},
	}}
	c := newCapabilities(0.3)
	if err := c.load(good); err != nil {
		t.Fatal(err)
	}
	for node, m := range good.Nodes {
		for name, ce := range m {
			cls, _ := classByName(name)
			if got, ok := c.get(node, cls); !ok || got != ce.Cap {
				t.Errorf("%s %s: got %v %v, want %v", node, name, got, ok, ce.Cap)
			}
		}
	}
}
