package events

import (
	"bytes"
	"testing"
)

// rawReference is scanner.raw's plain byte loop, the definition its
// eight-bytes-at-a-time form must agree with.
func rawReference(b []byte, i int) (out []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	i++
	start := i
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return b[start:i], i + 1, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, i, false
		}
	}
	return nil, i, false
}

// TestScannerRaw: raw agrees with the byte loop for strings of every length
// up to two words with each kind of byte that ends or spoils a string at
// every position, followed by more text or by nothing.
func TestScannerRaw(t *testing.T) {
	special := []byte{'"', '\\', 0x00, 0x01, 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xff, 'a'}
	tails := []string{"", `"`, `,"k":"v"}`, "\\\x00\xff"}
	for n := 0; n <= 20; n++ {
		for pos := 0; pos <= n; pos++ {
			for _, c := range special {
				for _, tail := range tails {
					body := bytes.Repeat([]byte("x"), n)
					if pos < n {
						body[pos] = c
					}
					in := append(append(append([]byte(` "`), body...), '"'), tail...)
					s := scanner{b: in, i: 1}
					got, ok := s.raw()
					want, next, wantOK := rawReference(in, 1)
					if ok != wantOK || !bytes.Equal(got, want) || (ok && s.i != next) {
						t.Fatalf("raw(%q) = %q, %v (at %d); want %q, %v (at %d)", in, got, ok, s.i, want, wantOK, next)
					}
				}
			}
		}
	}
}
