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
