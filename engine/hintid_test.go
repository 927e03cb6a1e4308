package engine

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/policy"
)

// TestEmitIDsSameAsHintID holds the ids emit builds for a round in one
// buffer to hintID's, one hint at a time, over a round with repeats (not
// news), invalid hints and a second round at another time.
func TestEmitIDsSameAsHintID(t *testing.T) {
	hs := make([]policy.Hint, 0, 300)
	for i := range 300 {
		s := strconv.Itoa(i % 250) // the last 50 repeat earlier hints
		h := policy.Hint{Kind: policy.KindSpeculate, Policy: "yarn", App: "application_1_" + s, Task: "task_1_" + s + "_m_7",
			Attempt: "task_1_" + s + "_m_7_0", Node: "nm" + s + ":8041", Reason: "r" + strconv.Itoa(i)}
		if i%37 == 5 {
			h.App = "" // invalid: dropped
		}
		hs = append(hs, h)
	}
	for _, prefix := range []string{"", "instance-b"} {
		e := New(policy.NewStack(), Options{Log: zerolog.Nop(), IDPrefix: prefix})
		seen := map[string]bool{}
		for _, now := range []int64{1_000, 40_000, 80_000} {
			e.out = e.out[:0]
			e.emit("", hs, nil, now)
			if len(e.out) == 0 {
				t.Fatalf("now %d: no hint kept", now)
			}
			for i := range e.out {
				h := &e.out[i]
				target := policy.AppendTarget(nil, h)
				want := e.hintID(h.Policy, target, policy.AppendContent(nil, h), now)
				if h.ID != want {
					t.Fatalf("now %d hint %d: id %q, hintID gives %q", now, i, h.ID, want)
				}
				if seen[h.ID] {
					t.Fatalf("id %q given twice", h.ID)
				}
				seen[h.ID] = true
			}
		}
	}
}

// TestIDHashDistinct checks idHash over inputs shaped like ids' (long common
// prefixes, one byte or the length apart, zero bytes) for collisions, and
// pins a value: ids must not change between builds of one release.
func TestIDHashDistinct(t *testing.T) {
	seen := map[uint64]string{}
	add := func(b []byte) {
		h := idHash(b)
		if prev, ok := seen[h]; ok && prev != string(b) {
			t.Fatalf("idHash(%q) = idHash(%q) = %x", b, prev, h)
		}
		seen[h] = string(b)
	}
	base := []byte("yarn\x00speculate|application_1_0001||task_1_0001_m_000007|task_1_0001_m_000007_0||nm1:8041\x00v2 kind=\"speculate\"\x001700000000000")
	for n := range len(base) + 1 {
		add(base[:n]) // every prefix, the empty one too
		padded := append(append([]byte{}, base[:n]...), 0)
		add(padded) // a trailing zero byte is not the shorter input
	}
	for i := range base {
		for _, c := range []byte{0, '0', '9', 'a', 0xff} {
			b := append([]byte{}, base...)
			b[i] ^= c | 1
			add(b)
		}
	}
	for i := range 200_000 {
		add(strconv.AppendInt(append([]byte{}, base...), int64(i), 10))
	}
	if got := idHash([]byte("yarn")); got != 0x8b80308ff2967ce2 {
		t.Fatalf("idHash(yarn) = %#x: the ids of every hint changed", got)
	}
}

// TestAppendHex16SameAsHex holds appendHex16 to hex.AppendEncode of the
// value's 8 big-endian bytes, over every single nibble value at every place
// and random values.
func TestAppendHex16SameAsHex(t *testing.T) {
	check := func(v uint64) {
		var be [8]byte
		binary.BigEndian.PutUint64(be[:], v)
		want := string(hex.AppendEncode([]byte("p-"), be[:]))
		if got := string(appendHex16([]byte("p-"), v)); got != want {
			t.Fatalf("appendHex16(%#x) = %q, hex gives %q", v, got, want)
		}
	}
	for shift := 0; shift < 64; shift += 4 {
		for n := range uint64(16) {
			check(n << shift)
			check(^(n << shift))
		}
	}
	r := rand.New(rand.NewPCG(4, 20))
	for range 100_000 {
		check(r.Uint64())
	}
}

// TestAppendIDsSameAsIDHash holds appendIDs to the prefix and idHash's
// digits of each input, for runs of 0 to 9 inputs of 0 to 300 random bytes
// back to back.
func TestAppendIDsSameAsIDHash(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 20))
	for n := range 10 {
		var in, want []byte
		var at []int32
		for range n {
			b := make([]byte, r.IntN(301))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			at = append(at, int32(len(in)))
			in = append(in, b...)
			want = append(want, "p-"...)
			want = appendHex16(want, idHash(b))
		}
		at = append(at, int32(len(in)))
		if got := appendIDs(nil, "p-", in, at); string(got) != string(want) {
			t.Fatalf("%d inputs: appendIDs %q, want %q", n, got, want)
		}
	}
}
