package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParseSWIMDay parses the FB-2009 day-0 trace (5,894 jobs) for a
// 600-node cluster; it reports jobs parsed per second.
func BenchmarkParseSWIMDay(b *testing.B) {
	data := readShared(b, "SWIM_FB-2009_samples_24_times_1hr_0.tsv")
	b.SetBytes(int64(len(data)))
	var n int
	for b.Loop() {
		jobs, err := ParseSWIM(bytes.NewReader(data), SWIMOptions{Nodes: 600})
		if err != nil {
			b.Fatal(err)
		}
		n += len(jobs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkParseRumen parses the two-job SLS sample (400 KB, mostly job
// configuration that the parser skips).
func BenchmarkParseRumen(b *testing.B) {
	data := readShared(b, "rumen-2jobs2min.json")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseRumen(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func readShared(b *testing.B, name string) []byte {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "traces", name))
	if err != nil {
		b.Fatal(err)
	}
	return data
}
