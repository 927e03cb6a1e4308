package tmar

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/policy"
)

// TestRowMeanSameBitsEveryTime: the mean of a row whose sum depends on the
// order of its terms (large values of both signs beside small ones) has the
// same bits however often it is recomputed, and is the sum taken in key
// order. Summed in the map's own order it changed from one call to the next.
func TestRowMeanSameBitsEveryTime(t *testing.T) {
	row := map[string]float64{}
	for i := range 64 {
		v := 1 + float64(i)/7
		switch i % 4 {
		case 0:
			v = 1e16 + float64(i)
		case 2:
			v = -1e16 - float64(i)
		}
		row["node-"+strconv.Itoa(i)] = v
	}
	keys := make([]string, 0, len(row))
	for k := range row {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var sum float64
	for _, k := range keys {
		sum += row[k]
	}
	want := sum / float64(len(row))
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
	row := map[string]float64{"skip": -1}
	for i := range 64 {
		v := 1 + float64(i)/7
		if i%4 == 0 {
			v = 1e16 + float64(i)
		}
		row["node-"+strconv.Itoa(i)] = v
	}
	keys := make([]string, 0, len(row))
	for k := range row {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var sum float64
	for _, k := range keys {
		if row[k] > 0 {
			sum += row[k]
		}
	}
	want := sum / 64
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
