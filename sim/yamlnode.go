package sim

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ScenarioError is a bad scenario value: it names the file, the line and the
// key path (cluster.nodes[1].vcores) and says why.
type ScenarioError struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *ScenarioError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(':')
	}
	if e.Line > 0 {
		b.WriteString(strconv.Itoa(e.Line))
		b.WriteByte(':')
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ydec walks a yaml.Node tree. It keeps the first error: a scenario is
// fixed one mistake at a time, and later errors are often consequences.
type ydec struct {
	file string
	err  *ScenarioError
}

func (d *ydec) fail(n *yaml.Node, key, format string, args ...any) {
	if d.err != nil {
		return
	}
	line := 0
	if n != nil {
		line = n.Line
	}
	d.err = &ScenarioError{File: d.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// ymap is a mapping node with the keys a caller has read, so unknown keys
// can be reported.
type ymap struct {
	d    *ydec
	n    *yaml.Node
	path string
	seen map[string]bool
}

func (d *ydec) mapping(n *yaml.Node, path string) *ymap {
	m := &ymap{d: d, n: n, path: path, seen: map[string]bool{}}
	if n == nil {
		return m
	}
	if n.Kind == yaml.AliasNode {
		m.n = n.Alias
	}
	if m.n.Kind != yaml.MappingNode {
		d.fail(n, path, "must be a mapping")
		m.n = nil
	}
	return m
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// get returns the value node of key, or nil.
func (m *ymap) get(key string) *yaml.Node {
	m.seen[key] = true
	if m.n == nil {
		return nil
	}
	for i := 0; i+1 < len(m.n.Content); i += 2 {
		if m.n.Content[i].Value == key {
			v := m.n.Content[i+1]
			if v.Kind == yaml.AliasNode {
				v = v.Alias
			}
			return v
		}
	}
	return nil
}

// done reports the first key that no reader asked for.
func (m *ymap) done() {
	if m.n == nil {
		return
	}
	for i := 0; i+1 < len(m.n.Content); i += 2 {
		k := m.n.Content[i]
		if !m.seen[k.Value] {
			m.d.fail(k, join(m.path, k.Value), "unknown key")
			return
		}
	}
}

func (m *ymap) scalar(key string) (*yaml.Node, bool) {
	v := m.get(key)
	if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		return nil, false
	}
	if v.Kind != yaml.ScalarNode {
		m.d.fail(v, join(m.path, key), "must be a scalar")
		return nil, false
	}
	return v, true
}

// float reads key into *dst when present; check validates the value.
func (m *ymap) float(key string, dst *float64, check func(float64) string) {
	v, ok := m.scalar(key)
	if !ok {
		return
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(v.Value, "_", ""), 64)
	if err != nil {
		m.d.fail(v, join(m.path, key), "must be a number, got %q", v.Value)
		return
	}
	if check != nil {
		if msg := check(f); msg != "" {
			m.d.fail(v, join(m.path, key), "%s", msg)
			return
		}
	}
	*dst = f
}

func (m *ymap) int(key string, dst *int, check func(float64) string) {
	v, ok := m.scalar(key)
	if !ok {
		return
	}
	i, err := strconv.Atoi(strings.ReplaceAll(v.Value, "_", ""))
	if err != nil {
		m.d.fail(v, join(m.path, key), "must be an integer, got %q", v.Value)
		return
	}
	if check != nil {
		if msg := check(float64(i)); msg != "" {
			m.d.fail(v, join(m.path, key), "%s", msg)
			return
		}
	}
	*dst = i
}

func (m *ymap) uint64(key string, dst *uint64) {
	v, ok := m.scalar(key)
	if !ok {
		return
	}
	i, err := strconv.ParseUint(v.Value, 10, 64)
	if err != nil {
		m.d.fail(v, join(m.path, key), "must be a non-negative integer, got %q", v.Value)
		return
	}
	*dst = i
}

// bool reads key into *dst when present (true or false).
func (m *ymap) bool(key string, dst *bool) {
	v, ok := m.scalar(key)
	if !ok {
		return
	}
	b, err := strconv.ParseBool(v.Value)
	if err != nil {
		m.d.fail(v, join(m.path, key), "must be true or false, got %q", v.Value)
		return
	}
	*dst = b
}

func (m *ymap) str(key string, dst *string) {
	v, ok := m.scalar(key)
	if !ok {
		return
	}
	*dst = v.Value
}

func (m *ymap) seq(key string) []*yaml.Node {
	v := m.get(key)
	if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		m.d.fail(v, join(m.path, key), "must be a list")
		return nil
	}
	return v.Content
}

// Checks used by the scenario reader.
func positive(f float64) string {
	if !(f > 0) {
		return "must be > 0"
	}
	return ""
}

func nonNegative(f float64) string {
	if f < 0 {
		return "must be >= 0"
	}
	return ""
}

func unit(f float64) string {
	if f < 0 || f > 1 {
		return "must be in [0, 1]"
	}
	return ""
}
