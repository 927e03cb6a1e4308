package hdfslocality

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
)

// DefaultRack is Hadoop's rack for hosts no topology knows.
const DefaultRack = "/default-rack"

// RackResolver maps a datanode host (name or IP, optionally with :port) to
// its rack. ok is false when the host is unknown.
type RackResolver interface {
	Rack(host string) (rack string, ok bool)
}

// RackOf returns r's rack for host, or DefaultRack (r may be nil).
func RackOf(r RackResolver, host string) string {
	if r != nil {
		if rack, ok := r.Rack(host); ok {
			return rack
		}
	}
	return DefaultRack
}

// hostKey normalizes a host for map lookups: no port, no trailing dot,
// lower case, canonical IP text.
func hostKey(h string) string {
	h = strings.TrimSpace(h)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	if ip := net.ParseIP(h); ip != nil {
		return ip.String()
	}
	return strings.ToLower(h)
}

// lookupHost tries the exact key, then the short host name, because the RM
// and topology files often use short names while datanodes report FQDNs
// (or the other way round, which callers cover by listing both).
func lookupHost(m map[string]string, host string) (string, bool) {
	k := hostKey(host)
	if r, ok := m[k]; ok {
		return r, true
	}
	if net.ParseIP(k) == nil {
		if i := strings.IndexByte(k, '.'); i > 0 {
			if r, ok := m[k[:i]]; ok {
				return r, true
			}
		}
	}
	return "", false
}

// TopologyTable is Hadoop's table mapping (net.topology.table.file.name):
// one "host rack" pair per line, host being a name or an IP address.
// Immutable after loading, hence safe for concurrent use.
type TopologyTable struct {
	m map[string]string
}

// LoadTopologyFile reads a topology table file.
func LoadTopologyFile(path string) (*TopologyTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hdfslocality: topology file: %w", err)
	}
	defer f.Close()
	return ParseTopology(f, path)
}

// ParseTopology parses the table format. Blank lines and '#' comments are
// skipped. Hadoop itself ignores malformed lines with a warning; here they are
// errors naming name:line, because a silently dropped host means silently
// wrong rack locality.
func ParseTopology(r io.Reader, name string) (*TopologyTable, error) {
	t := &TopologyTable{m: map[string]string{}}
	seenAt := map[string]int{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("hdfslocality: %s:%d: want 2 columns (host rack), got %d", name, n, len(f))
		}
		host, rack := hostKey(f[0]), f[1]
		if host == "" {
			return nil, fmt.Errorf("hdfslocality: %s:%d: empty host", name, n)
		}
		if !strings.HasPrefix(rack, "/") {
			return nil, fmt.Errorf("hdfslocality: %s:%d: rack %q must start with /", name, n, rack)
		}
		if prev, ok := t.m[host]; ok && prev != rack {
			return nil, fmt.Errorf("hdfslocality: %s:%d: host %s already mapped to %s on line %d", name, n, f[0], prev, seenAt[host])
		}
		t.m[host] = rack
		seenAt[host] = n
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("hdfslocality: %s: %w", name, err)
	}
	return t, nil
}

// Rack implements RackResolver.
func (t *TopologyTable) Rack(host string) (string, bool) { return lookupHost(t.m, host) }

// Len returns the number of hosts in the table.
func (t *TopologyTable) Len() int { return len(t.m) }

// StaticRacks is a host->rack map the caller fills, typically from the RM's
// node list (node.registered events carry the rack). Safe for concurrent use.
type StaticRacks struct {
	mu sync.RWMutex
	m  map[string]string
}

// NewStaticRacks copies m into a new resolver.
func NewStaticRacks(m map[string]string) *StaticRacks {
	s := &StaticRacks{}
	s.Replace(m)
	return s
}

// Set maps one host.
func (s *StaticRacks) Set(host, rack string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[hostKey(host)] = rack
}

// Replace swaps in a whole new map (a fresh RM node list).
func (s *StaticRacks) Replace(m map[string]string) {
	nm := make(map[string]string, len(m))
	for h, r := range m {
		nm[hostKey(h)] = r
	}
	s.mu.Lock()
	s.m = nm
	s.mu.Unlock()
}

// Rack implements RackResolver.
func (s *StaticRacks) Rack(host string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return lookupHost(s.m, host)
}

// RackChain asks each resolver in order; the first that knows the host wins.
type RackChain []RackResolver

// Rack implements RackResolver.
func (c RackChain) Rack(host string) (string, bool) {
	for _, r := range c {
		if r == nil {
			continue
		}
		if rack, ok := r.Rack(host); ok {
			return rack, true
		}
	}
	return "", false
}
