package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// memProfileEvery is how often --memprofile looks at the live heap.
const memProfileEvery = 500 * time.Millisecond

// startMemProfile watches the live heap (the heap the last GC found
// reachable) while the simulation runs and keeps a heap profile of the
// largest one seen: a profile is taken whenever the live heap has grown
// by 5 % past the last one taken, and the last of them is written to path
// when the returned function is called ("" : none). The watcher runs on
// its own goroutine and reads only runtime statistics, so the simulation
// and its results do not depend on it.
func startMemProfile(path string) (func() error, error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--memprofile: %w", err)
	}
	done := make(chan struct{})
	result := make(chan []byte)
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var best []byte
		var peak uint64
		take := func() {
			metrics.Read(sample)
			live := sample[0].Value.Uint64()
			if best != nil && live <= peak+peak/20 {
				return
			}
			var b bytes.Buffer
			if err := pprof.Lookup("heap").WriteTo(&b, 0); err == nil {
				best, peak = b.Bytes(), live
			}
		}
		t := time.NewTicker(memProfileEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				take()
			case <-done:
				if best == nil {
					runtime.GC()
					take()
				}
				result <- best
				return
			}
		}
	}()
	return func() error {
		close(done)
		b := <-result
		_, err := f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("--memprofile: %w", err)
		}
		return nil
	}, nil
}
