package prescheduling

import (
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
)

// onHost answers what n.OnHost answers, for node ids and replica hosts of
// every form: bare names, host:port, bracketed and bare IPv6, empty.
func TestOnHostSameAsNodeOnHost(t *testing.T) {
	forms := []string{"", "n1", "n2", "n1:8041", "n1:8042", "nm1.example", "nm1.example:8041", "::1", "[::1]",
		"[::1]:8041", "fe80::2", "[fe80::2]:1", ":8041", "n1:", "[n1]", "[n1]:8041", "10.0.0.1", "10.0.0.1:8041"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		n := &cluster.Node{ID: forms[r.IntN(len(forms))]}
		h := forms[r.IntN(len(forms))]
		if got, want := onHost(n)(h), n.OnHost(h); got != want {
			t.Fatalf("node %q, host %q: onHost = %v, OnHost = %v", n.ID, h, got, want)
		}
	}
}
