package erul

import (
	"context"
	"fmt"
	"maps"
	"slices"
)

// ProfileNamespace is the profile-store namespace of the three policies.
const ProfileNamespace = "erul"

// capEntry is one node's capability for one task class (eq. 14): seconds
// per MB for maps, seconds for reduces; N counts the finished tasks behind it.
type capEntry struct {
	Cap float64 `json:"cap"`
	N   int     `json:"n"`
}

// capabilities holds what the plugin has learned per node and class.
type capabilities struct {
	alpha float64
	nodes map[string]*[numClasses]capEntry
	dirty bool
}

func newCapabilities(alpha float64) *capabilities {
	return &capabilities{alpha: alpha, nodes: map[string]*[numClasses]capEntry{}}
}

// learn folds one finished task into the node's capability: the first
// sample sets it, later ones update it by eq. 14.
func (c *capabilities) learn(node string, cls TaskClass, sample float64) {
	e := c.nodes[node]
	if e == nil {
		e = new([numClasses]capEntry)
		c.nodes[node] = e
	}
	if e[cls].N == 0 {
		e[cls].Cap = sample
	} else {
		e[cls].Cap = ewmaCapability(c.alpha, e[cls].Cap, sample)
	}
	e[cls].N++
	c.dirty = true
}

// get returns the learned capability, if any task of the class has finished
// on the node.
func (c *capabilities) get(node string, cls TaskClass) (float64, bool) {
	e := c.nodes[node]
	if e == nil || e[cls].N == 0 {
		return 0, false
	}
	return e[cls].Cap, true
}

// capabilityDoc is the stored form: node -> class name -> entry. JSON
// writes map keys sorted, so equal states store equal bytes.
type capabilityDoc struct {
	Nodes map[string]map[string]capEntry `json:"nodes"`
}

func (c *capabilities) doc() capabilityDoc {
	d := capabilityDoc{Nodes: make(map[string]map[string]capEntry, len(c.nodes))}
	for node, e := range c.nodes {
		m := map[string]capEntry{}
		for cls, ce := range e {
			if ce.N > 0 {
				m[TaskClass(cls).String()] = ce
			}
		}
		d.Nodes[node] = m
	}
	return d
}

// load reads the nodes and classes in key order, so that of several bad
// entries the same one is named every run.
func (c *capabilities) load(d capabilityDoc) error {
	for _, node := range slices.Sorted(maps.Keys(d.Nodes)) {
		m := d.Nodes[node]
		e := new([numClasses]capEntry)
		for _, name := range slices.Sorted(maps.Keys(m)) {
			ce := m[name]
			cls, ok := classByName(name)
			if !ok {
				return fmt.Errorf("node %q: unknown task class %q", node, name)
			}
			if ce.N < 0 || ce.Cap < 0 {
				return fmt.Errorf("node %q class %s: negative capability or count", node, name)
			}
			e[cls] = ce
		}
		c.nodes[node] = e
	}
	return nil
}

func classByName(name string) (TaskClass, bool) {
	for i, n := range classNames {
		if n == name {
			return TaskClass(i), true
		}
	}
	return 0, false
}

// profileKey is where a policy keeps its capabilities; each policy has its
// own key so that erul, mcp and exmcp runs never blend what they learned.
func profileKey(policyName string) string { return "capabilities/" + policyName }

// store is the part of policy.ProfileStore the plugin uses.
type store interface {
	Get(ctx context.Context, ns, key string, v any) (bool, error)
	Put(ctx context.Context, ns, key string, v any) error
}
