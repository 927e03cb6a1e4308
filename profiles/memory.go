package profiles

import (
	"slices"
	"sync"
)

// NewMemory returns a store kept in memory with the same semantics as a bbolt
// store (atomic batches, revisions, export and import); for the simulator
// and tests.
func NewMemory() *DB {
	return &DB{b: &memBackend{data: map[string]map[string]envelope{}}}
}

type memBackend struct {
	mu   sync.RWMutex
	data map[string]map[string]envelope
	cur  uint64
}

func (m *memBackend) view(fn func(r reader) error) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return fn(memReader{m})
}

// update stages writes in an overlay and applies them only when fn succeeds,
// so a failing or panicking batch leaves no trace, as in bbolt.
func (m *memBackend) update(fn func(w writer) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := &memWriter{base: m, staged: map[nsKey]*envelope{}, cur: m.cur}
	if err := fn(w); err != nil {
		return err
	}
	for k, e := range w.staged {
		if e == nil {
			if inner := m.data[k.ns]; inner != nil {
				delete(inner, k.key)
				if len(inner) == 0 {
					delete(m.data, k.ns)
				}
			}
			continue
		}
		inner := m.data[k.ns]
		if inner == nil {
			inner = map[string]envelope{}
			m.data[k.ns] = inner
		}
		inner[k.key] = cloneEnvelope(*e)
	}
	m.cur = w.cur
	return nil
}

func (m *memBackend) close() error { return nil }

type nsKey struct{ ns, key string }

// cloneEnvelope copies the value bytes so callers never alias stored data.
func cloneEnvelope(e envelope) envelope {
	e.Value = slices.Clone(e.Value)
	return e
}

type memReader struct{ m *memBackend }

func (r memReader) get(ns, key string) (envelope, bool, error) {
	e, ok := r.m.data[ns][key]
	if !ok {
		return envelope{}, false, nil
	}
	return cloneEnvelope(e), true, nil
}

func (r memReader) has(ns, key string) (bool, error) {
	_, ok := r.m.data[ns][key]
	return ok, nil
}

func (r memReader) keys(ns string) ([]string, error) {
	out := make([]string, 0, len(r.m.data[ns]))
	for k := range r.m.data[ns] {
		out = append(out, k)
	}
	slices.Sort(out)
	return out, nil
}

func (r memReader) namespaces() ([]string, error) {
	out := make([]string, 0, len(r.m.data))
	for ns := range r.m.data {
		out = append(out, ns)
	}
	slices.Sort(out)
	return out, nil
}

func (r memReader) rev() (uint64, error) { return r.m.cur, nil }

type memWriter struct {
	base   *memBackend
	staged map[nsKey]*envelope // nil value = deleted
	cur    uint64
}

func (w *memWriter) get(ns, key string) (envelope, bool, error) {
	if e, ok := w.staged[nsKey{ns, key}]; ok {
		if e == nil {
			return envelope{}, false, nil
		}
		return cloneEnvelope(*e), true, nil
	}
	return memReader{w.base}.get(ns, key)
}

func (w *memWriter) has(ns, key string) (bool, error) {
	if e, ok := w.staged[nsKey{ns, key}]; ok {
		return e != nil, nil
	}
	return memReader{w.base}.has(ns, key)
}

func (w *memWriter) keys(ns string) ([]string, error) {
	set := map[string]bool{}
	for k := range w.base.data[ns] {
		set[k] = true
	}
	for k, e := range w.staged {
		if k.ns == ns {
			set[k.key] = e != nil
		}
	}
	out := make([]string, 0, len(set))
	for k, ok := range set {
		if ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (w *memWriter) namespaces() ([]string, error) {
	set := map[string]bool{}
	for ns := range w.base.data {
		set[ns] = true
	}
	for k := range w.staged {
		set[k.ns] = true
	}
	var out []string
	for ns := range set {
		if keys, _ := w.keys(ns); len(keys) > 0 {
			out = append(out, ns)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (w *memWriter) rev() (uint64, error) { return w.cur, nil }

func (w *memWriter) setRev(rev uint64) error {
	w.cur = rev
	return nil
}

func (w *memWriter) put(ns, key string, e envelope) error {
	c := cloneEnvelope(e)
	w.staged[nsKey{ns, key}] = &c
	return nil
}

func (w *memWriter) del(ns, key string) error {
	w.staged[nsKey{ns, key}] = nil
	return nil
}
