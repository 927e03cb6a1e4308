package engine

import (
	"cmp"
	"slices"
)

// Checkpoint is what an engine keeps besides its cluster state and the
// plugins' profiles: the hint sequence (so hint ids never repeat after a
// restart), the tick schedule and the hints still in force (so a restart does
// not re-announce them). The live sidecar stores it with the cluster
// checkpoint.
type Checkpoint struct {
	Seq      uint64       `json:"seq"`
	NextTick int64        `json:"next_tick"`
	Active   []ActiveHint `json:"active,omitempty"`
}

// ActiveHint is one hint in force: its target, its content and its expiry.
type ActiveHint struct {
	Target    string `json:"target"`
	Content   string `json:"content"`
	ExpiresTS int64  `json:"expires_ts"`
}

// Checkpoint returns the engine's resumable state, hints sorted by target.
func (e *Engine) Checkpoint() Checkpoint {
	c := Checkpoint{Seq: e.seq, NextTick: e.nextTick, Active: make([]ActiveHint, 0, len(e.active))}
	for t, a := range e.active {
		c.Active = append(c.Active, ActiveHint{Target: t, Content: a.content, ExpiresTS: a.expires})
	}
	slices.SortFunc(c.Active, func(a, b ActiveHint) int { return cmp.Compare(a.Target, b.Target) })
	return c
}

func (e *Engine) resume(c *Checkpoint) {
	e.seq, e.nextTick = c.Seq, c.NextTick
	for _, a := range c.Active {
		e.active[a.Target] = active{content: a.Content, expires: a.ExpiresTS}
	}
}
