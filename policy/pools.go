package policy

import (
	"fmt"
	"maps"
	"slices"
)

// CheckPoolWeights returns an error naming the first pool (by name) whose
// weight is not > 0, so a config with several bad pools is refused with the
// same message every run (a map's own order changes from run to run). DHSA
// and PreScheduling weigh their fair order by these pools.
func CheckPoolWeights(pools map[string]float64) error {
	for _, name := range slices.Sorted(maps.Keys(pools)) {
		if w := pools[name]; !(w > 0) {
			return fmt.Errorf("pools.%s: weight must be > 0, got %v", name, w)
		}
	}
	return nil
}
