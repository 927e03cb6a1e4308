package cluster

import (
	"math"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// BenchmarkHeartbeatsVarying applies heartbeats that each bring a new load,
// as the bridge sends them (busy vcores a float32 printed shortest, their
// share of 16 vcores), to 10,000 nodes: the history's cost per heartbeat
// when its samples do not repeat.
func BenchmarkHeartbeatsVarying(b *testing.B) {
	const nodes = 10_000
	s := New()
	for i := range nodes {
		s.Apply(&events.Event{V: 1, ID: "r" + strconv.Itoa(i), Type: events.NodeRegistered, TS: 1,
			Node: "nm" + strconv.Itoa(i), VCores: 16})
	}
	evs := make([]events.Event, 1<<20)
	for i := range evs {
		h := uint64(i+1) * 0x9e3779b97f4a7c15
		busy := float32(float64(h>>11) / (1 << 53) * 16)
		load, err := strconv.ParseFloat(strconv.FormatFloat(float64(busy), 'g', -1, 32), 64)
		if err != nil {
			b.Fatal(err)
		}
		evs[i] = events.Event{V: 1, ID: "h" + strconv.Itoa(i), Type: events.NodeHeartbeat, TS: 1000 + int64(i/nodes)*1000,
			Node: "nm" + strconv.Itoa(i%nodes), Load1: load, CPUUtil: math.Max(0, math.Min(1, load/16))}
	}
	b.ResetTimer()
	for i := range b.N {
		if i > 0 && i%len(evs) == 0 {
			b.StopTimer()
			for j := range evs {
				evs[j].TS += int64(len(evs)/nodes+1) * 1000
			}
			b.StartTimer()
		}
		s.Apply(&evs[i%len(evs)])
	}
}
