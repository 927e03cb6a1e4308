package sidecar

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/profiles"
)

// BenchmarkEngine applies the steady workload at 10,000 nodes and 100,000
// running containers and reports events/s (go test -bench Engine ./sidecar).
func BenchmarkEngine(b *testing.B) {
	o := QuickBench()
	o.EngineEvents = max(b.N, 100_000)
	o.Log = zerolog.Nop()
	ctx := context.Background()
	store := profiles.NewMemory()
	defer store.Close()
	stack, err := buildStack(o.Stack, store, o.Log)
	if err != nil {
		b.Fatal(err)
	}
	w, eng := setupEngine(ctx, o, stack)
	b.ResetTimer()
	spent, cpu := applySteady(ctx, w, eng, b.N)
	b.ReportMetric(float64(b.N)/spent.Seconds(), "events/s")
	b.ReportMetric(perCPU(b.N, cpu), "events/cpu-s")
}

// BenchmarkEndToEnd measures the Kafka path against a bare sarama consumer.
func BenchmarkEndToEnd(b *testing.B) {
	o := QuickBench()
	o.KafkaEvents = 100_000
	o.Log = zerolog.Nop()
	for range b.N {
		r, err := benchKafka(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.raw, "raw/s")
		b.ReportMetric(r.e2e, "e2e/s")
		b.ReportMetric(r.e2e/r.raw, "ratio")
		b.ReportMetric(r.e2eCPU/r.rawCPU, "cpu-ratio")
	}
}
