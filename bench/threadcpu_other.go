//go:build !linux

package bench

import "time"

// threadCPUTime is 0 where the thread's CPU clock is not read (Linux only).
func threadCPUTime() time.Duration { return 0 }
