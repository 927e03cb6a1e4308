package hdfslocality

import (
	"container/list"
	"time"
)

// entry is one cached path.
type entry struct {
	key     string
	res     Result // Files etc. valid when has is true
	has     bool   // res holds an answer from the NameNode
	fetched time.Time
	lastErr error     // last refresh failure since the answer in res
	retryAt time.Time // no refresh before this after a failure
}

// lru bounds the cache by entry count; the least recently used goes first.
// Not safe for concurrent use: the Resolver's mutex guards it.
type lru struct {
	max int
	ll  *list.List
	m   map[string]*list.Element
}

func newLRU(max int) *lru {
	return &lru{max: max, ll: list.New(), m: map[string]*list.Element{}}
}

// get returns the entry and marks it most recently used.
func (l *lru) get(key string) (*entry, bool) {
	el, ok := l.m[key]
	if !ok {
		return nil, false
	}
	l.ll.MoveToFront(el)
	return el.Value.(*entry), true
}

// put inserts or replaces e and evicts beyond the bound.
func (l *lru) put(e *entry) {
	if el, ok := l.m[e.key]; ok {
		el.Value = e
		l.ll.MoveToFront(el)
		return
	}
	l.m[e.key] = l.ll.PushFront(e)
	for l.ll.Len() > l.max {
		old := l.ll.Back()
		l.ll.Remove(old)
		delete(l.m, old.Value.(*entry).key)
	}
}

func (l *lru) len() int { return l.ll.Len() }
