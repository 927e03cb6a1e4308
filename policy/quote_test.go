package policy

import (
	"math/rand/v2"
	"strconv"
	"testing"
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
		if got != want {
			t.Fatalf("plainASCII(%q) = %v, the byte loop says %v", s, got, want)
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
