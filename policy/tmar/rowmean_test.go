package tmar

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/policy"
)

// orderSensitiveRow is a row of 64 entries whose sum depends on the order of
// its terms: every fourth is about 1e16, every other fourth (when negative)
// about -1e16, the rest small.
func orderSensitiveRow(negative bool) map[string]float64 {
	row := map[string]float64{}
	for i := range 64 {
		v := 1 + float64(i)/7
		switch {
		case i%4 == 0:
			v = 1e16 + float64(i)
		case i%4 == 2 && negative:
			v = -1e16 - float64(i)
		}
		row["node-"+strconv.Itoa(i)] = v
	}
	return row
}

// sumInKeyOrder sums the entries keep accepts in the order of their keys.
func sumInKeyOrder(row map[string]float64, keep func(float64) bool) float64 {
	keys := make([]string, 0, len(row))
	for k := range row {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var sum float64
	for _, k := range keys {
		if keep(row[k]) {
			sum += row[k]
		}
	}
	return sum
}

// TestRowMeanSameBitsEveryTime: the mean of a row whose sum depends on the
// order of its terms has the same bits however often it is recomputed, and
// is the sum taken in key order. Summed in the map's own order it changed
// from one call to the next.
func TestRowMeanSameBitsEveryTime(t *testing.T) {
	row := orderSensitiveRow(true)
	want := sumInKeyOrder(row, func(float64) bool { return true }) / float64(len(row))
	for range 200 {
		var cached float64
		if got := rowMean(row, &cached); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("rowMean gave %v, the sum in key order %v", got, want)
		}
	}
}

// TestSeedMeanSameBitsEveryTime: a configured Map_Matrix row's mean (the
// seed for nodes without a learned entry) is the same on every build of the
// plugin, the sum of its positive entries in key order.
func TestSeedMeanSameBitsEveryTime(t *testing.T) {
	row := orderSensitiveRow(false)
	row["skip"] = -1
	want := sumInKeyOrder(row, func(v float64) bool { return v > 0 }) / 64
	for range 100 {
		p, err := newPlugin(Name, false, policy.Handle{Args: argsFunc(func(_ string, into any) error {
			into.(*Config).MapMatrix = map[string]map[string]float64{"sort": row}
			return nil
		})})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.seedMean["sort"]; math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("seed mean %v, the sum in key order %v", got, want)
		}
	}
}
