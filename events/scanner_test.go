package events

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
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

// TestSmallDecimal: the fast float path gives exactly strconv.ParseFloat's
// value (bit for bit, sign of zero included) wherever it answers, and
// answers for the plain decimals events carry.
func TestSmallDecimal(t *testing.T) {
	ins := []string{"0", "-0", "0.0", "-0.0", "1", "0.42", "0.1", "0.3", "0.99", "4.5", "12.25", "123456789012345",
		"0.123456789012345", "9.99999999999999", "-1.5", "100000000000000.5", "1234567890123456", "0.1234567890123456",
		"1e3", "1.5E-2", "12345678901234567890"}
	r := rand.New(rand.NewPCG(7, 7))
	for range 20000 {
		digits := 1 + r.IntN(17)
		b := make([]byte, 0, 20)
		if r.IntN(4) == 0 {
			b = append(b, '-')
		}
		point := r.IntN(digits + 1)
		for i := range digits {
			if i == point && i > 0 {
				b = append(b, '.')
			}
			b = append(b, byte('0'+r.IntN(10)))
		}
		ins = append(ins, string(b))
	}
	answered := 0
	for _, in := range ins {
		want, err := strconv.ParseFloat(in, 64)
		if err != nil {
			t.Fatalf("bad test input %q: %v", in, err)
		}
		got, ok := smallDecimal([]byte(in))
		if !ok {
			continue
		}
		answered++
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("smallDecimal(%q) = %v, ParseFloat %v", in, got, want)
		}
	}
	for _, in := range []string{"0.42", "4", "0.3", "-0", "12.25"} {
		if _, ok := smallDecimal([]byte(in)); !ok {
			t.Errorf("smallDecimal(%q) did not answer", in)
		}
	}
	for _, in := range []string{"1e3", "1.5E-2", "1234567890123456", "0.1234567890123456"} {
		if _, ok := smallDecimal([]byte(in)); ok {
			t.Errorf("smallDecimal(%q) answered beyond 15 digits or with an exponent", in)
		}
	}
	if answered < len(ins)/2 {
		t.Fatalf("answered only %d of %d", answered, len(ins))
	}
}
