package policy

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// plainASCIIBytewise is the byte-at-a-time test plainASCII replaced.
func plainASCIIBytewise(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// TestPlainASCIISameAsBytewise holds the word-at-a-time plainASCII to the
// byte loop it replaced, and appendQuoted to strconv.AppendQuote, over
// random strings of every length up to 40 whose bytes are mostly plain
// with one or more of the edge bytes (each side of 0x20, 0x22, 0x5c, 0x7f,
// 0x80, zero, 0xff) at random places.
func TestPlainASCIISameAsBytewise(t *testing.T) {
	edges := []byte{0, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f, 0x80, 0x81, 0xc3, 0xff}
	r := rand.New(rand.NewPCG(20, 4))
	plain := 0
	for n := range 200_000 {
		b := make([]byte, r.IntN(41))
		for i := range b {
			b[i] = byte(0x20 + r.IntN(0x5f))
		}
		switch n % 4 {
		case 1: // one edge byte
			if len(b) > 0 {
				b[r.IntN(len(b))] = edges[r.IntN(len(edges))]
			}
		case 2: // several
			for range 1 + r.IntN(4) {
				if len(b) > 0 {
					b[r.IntN(len(b))] = edges[r.IntN(len(edges))]
				}
			}
		case 3: // any bytes
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
		}
		s := string(b)
		got, want := plainASCII(s), plainASCIIBytewise(s)
		if got != want || plainASCII(b) != want {
			t.Fatalf("plainASCII(%q) = %v (of its bytes %v), the byte loop says %v", s, got, plainASCII(b), want)
		}
		if got {
			plain++
		}
		if q, w := string(appendQuoted([]byte("x"), s)), string(strconv.AppendQuote([]byte("x"), s)); q != w {
			t.Fatalf("appendQuoted(%q) = %s, strconv.AppendQuote gives %s", s, q, w)
		}
	}
	if plain < 50_000 || plain > 150_000 {
		t.Fatalf("%d plain strings of 200,000: the cases do not cover both sides", plain)
	}
}

// TestAppendTargetContentSameAsBoth holds AppendTargetContent to
// AppendTarget, the separator and AppendContent written one after the
// other (each string field tested for escapes), over random hints: every
// kind and unknown ones, each string field empty, plain or needing escapes
// (in the target's strings or only in a node's), nodes, flags and numbers.
func TestAppendTargetContentSameAsBoth(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 20))
	str := func() string {
		switch r.IntN(6) {
		case 0, 1:
			return ""
		case 2, 3:
			return "application_1700000000000_" + strconv.Itoa(r.IntN(100000))
		case 4:
			return "nm" + strconv.Itoa(r.IntN(10000)) + `"q\` + string(rune(r.IntN(0x3000)))
		}
		b := make([]byte, r.IntN(20))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return string(b)
	}
	num := func() int { return []int{0, 0, 1, -1, 7, 12345}[r.IntN(6)] }
	plain := 0
	for range 30_000 {
		h := Hint{Kind: HintKinds[r.IntN(len(HintKinds))], MapSlow: r.IntN(2) == 0, ReduceSlow: r.IntN(2) == 0,
			Strict: r.IntN(2) == 0, Partition: num(), Reducers: num(), MaxMaps: num(), MaxReduces: num(), VCores: num(),
			MemoryMB: num(), Priority: num()}
		if r.IntN(4) > 0 { // mostly plain ids, as YARN's are
			h.App, h.Task, h.Node = "application_1_"+strconv.Itoa(r.IntN(99)), "task_1_m_"+strconv.Itoa(r.IntN(99)), "nm1:8041"
		} else {
			h.App, h.Queue, h.Task, h.Attempt, h.Container, h.Node = str(), str(), str(), str(), str(), str()
		}
		if r.IntN(10) == 0 {
			h.Kind = HintKind(str())
		}
		for range r.IntN(3) {
			h.Nodes = append(h.Nodes, NodeScore{Node: str(), Score: r.Float64(), Locality: events.Locality(str())})
		}
		sep := byte(r.IntN(2))
		got, end := AppendTargetContent([]byte("x"), &h, sep)
		want := append(append(AppendTarget([]byte("x"), &h), sep), AppendContent(nil, &h)...)
		if string(got) != string(want) || end != len(AppendTarget([]byte("x"), &h)) {
			t.Fatalf("AppendTargetContent(%+v):\n got  %q (target ends at %d)\n want %q", h, got, end, want)
		}
		if plainASCII(AppendTarget(nil, &h)) {
			plain++
		}
	}
	if plain < 10_000 || plain > 28_000 {
		t.Fatalf("%d hints of 30,000 with a plain target: the cases do not cover both sides", plain)
	}
}
