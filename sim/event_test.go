package sim

import (
	"strconv"
	"testing"
)

// nextDecimal counts as strconv formats: "s1", "s2", ... through the carries.
func TestNextDecimal(t *testing.T) {
	var b []byte
	for i := uint64(1); i <= 1_200_000; i++ {
		b = nextDecimal(b)
		if want := "s" + strconv.FormatUint(i, 10); string(b) != want {
			t.Fatalf("id %d: %q, want %q", i, b, want)
		}
	}
}

// The event ids handed out from chunks are the ids one string each gave
// before (nextDecimal of the last, from "s1"), across chunk boundaries
// and the carries to more digits.
func TestEventIDsChunkedAsEach(t *testing.T) {
	s := &sim{}
	var ref []byte
	for i := 1; i <= 150_000; i++ {
		ref = nextDecimal(ref)
		if got := s.nextEventID(); got != string(ref) {
			t.Fatalf("event %d: id %q, want %q", i, got, ref)
		}
	}
}
