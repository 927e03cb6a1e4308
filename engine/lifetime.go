package engine

import (
	"math"

	"github.com/rmsidecar/rmsidecar/policy"
)

// inForce is the engine's policy.InForce: what emit would find in force,
// read from the same table and with the same test, so a plugin that leaves
// out the hints it reports in force changes nothing that is emitted.
type inForce struct{ e *Engine }

// Now implements policy.InForce.
func (f inForce) Now() int64 { return f.e.roundTS }

// TTL implements policy.InForce.
func (f inForce) TTL(k policy.HintKind) int64 { return f.e.ttl[k] }

// Until implements policy.InForce with emit's test for a repeat.
func (f inForce) Until(target, content string) int64 {
	if a, ok := f.e.active[target]; ok && a.expires > f.e.roundTS && a.content == content {
		return a.expires
	}
	return math.MinInt64
}

// Others implements policy.InForce from the counts of emitted hints.
func (f inForce) Others(k policy.HintKind, name string) uint64 {
	var n uint64
	for c, v := range f.e.hints {
		if c.kind == k && c.policy != name {
			n += *v
		}
	}
	return n
}

// wireInForce gives the stack's plugins that ask for it the engine's view
// of the hints in force.
func (e *Engine) wireInForce() {
	for _, p := range e.stack.Plugins {
		if u, ok := p.(policy.InForceUser); ok {
			u.UseInForce(inForce{e})
		}
	}
}
