package hdfslocality

import (
	"os"
	"strings"
	"testing"
)

func TestTopologyFile(t *testing.T) {
	tab, err := LoadTopologyFile("testdata/topology.txt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ host, want string }{
		{"dn1.example.com", "/dc1/rack1"},
		{"DN2.Example.com.", "/dc1/rack1"},     // case, trailing dot
		{"dn1.example.com:9866", "/dc1/rack1"}, // with port
		{"10.0.2.3", "/dc1/rack2"},             // IP entry
		{"10.0.2.3:9866", "/dc1/rack2"},        // IP with port
		{"dn4.example.com", "/dc1/rack2"},      // short name in the file
		{"dn5.example.com", "/dc1/rack3"},      // trailing comment
		{"dn9.example.com", DefaultRack},       // unknown
		{"10.0.9.9", DefaultRack},              // unknown IP, no short-name guess
		{"[::1]:9866", DefaultRack},            // IPv6 unknown
	}
	for _, tc := range tests {
		if got := RackOf(tab, tc.host); got != tc.want {
			t.Errorf("RackOf(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
	if tab.Len() != 5 {
		t.Errorf("Len = %d", tab.Len())
	}
}

func TestTopologyParseErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one column", "a /r1\nb\n", "topo:2: want 2 columns (host rack), got 1"},
		{"three columns", "\n\na /r1 extra\n", "topo:3: want 2 columns (host rack), got 3"},
		{"rack without slash", "a r1\n", "topo:1: rack \"r1\" must start with /"},
		{"conflict", "a /r1\n# c\nA /r2\n", "topo:3: host A already mapped to /r1 on line 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTopology(strings.NewReader(tc.in), "topo")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if tab, err := ParseTopology(strings.NewReader("a /r1\na /r1\n"), "topo"); err != nil || tab.Len() != 1 {
		t.Fatalf("repeated identical line: %v", err)
	}
	if _, err := LoadTopologyFile("testdata/nope.txt"); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Fatalf("missing file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestStaticRacksAndChain(t *testing.T) {
	s := NewStaticRacks(map[string]string{"NM1.example.com": "/r1"})
	s.Set("nm2", "/r2")
	tab, _ := ParseTopology(strings.NewReader("nm3 /t3\nnm1.example.com /t1\n"), "t")
	chain := RackChain{nil, s, tab}
	tests := []struct{ host, want string }{
		{"nm1.example.com", "/r1"}, // static wins over the table
		{"nm2.example.com", "/r2"}, // short-name fallback
		{"nm3", "/t3"},
		{"nm4", DefaultRack},
	}
	for _, tc := range tests {
		if got := RackOf(chain, tc.host); got != tc.want {
			t.Errorf("RackOf(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
	s.Replace(map[string]string{"nm9": "/r9"})
	if got := RackOf(s, "nm1.example.com"); got != DefaultRack {
		t.Errorf("after Replace: %q", got)
	}
	if got := RackOf(nil, "x"); got != DefaultRack {
		t.Errorf("nil resolver: %q", got)
	}
}
