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

// TestScannerInteger: integer agrees with strconv.ParseInt on every number
// text it accepts, around the 18-digit boundary of its own loop too, and
// refuses fractions, exponents and values beyond int64.
func TestScannerInteger(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"-0", 0, true},
		{"7", 7, true},
		{"-7", -7, true},
		{"1763719205000", 1763719205000, true},
		{"999999999999999999", 999999999999999999, true},     // 18 digits
		{"-99999999999999999", -99999999999999999, true},     // 18 characters
		{"-999999999999999999", -999999999999999999, true},   // 19 characters
		{"1000000000000000000", 1000000000000000000, true},   // 19 digits
		{"9223372036854775807", 9223372036854775807, true},   // max int64
		{"-9223372036854775808", -9223372036854775808, true}, // min int64
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"12345678901234567890123", 0, false},
		{"1.5", 0, false},
		{"1e3", 0, false},
		{"01", 0, true}, // number reads "0" and stops (the caller then rejects the "1")
		{"-", 0, false},
	} {
		s := scanner{b: []byte(tc.in)}
		got, ok := s.integer()
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("integer(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
