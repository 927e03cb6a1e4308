package dhsa

import "testing"

// With several bad pools, Validate names the same one (the first by name)
// every time: ranging over the map named whichever its random order gave.
func TestValidateNamesTheSamePoolEveryTime(t *testing.T) {
	c := DefaultConfig()
	c.Pools = map[string]float64{"q1": 0, "q2": -1, "q3": 0, "q4": -2, "ok": 1}
	want := "pools.q1: weight must be > 0, got 0"
	for i := range 200 {
		err := c.Validate()
		if err == nil || err.Error() != want {
			t.Fatalf("call %d: got %v, want %q", i, err, want)
		}
	}
}
