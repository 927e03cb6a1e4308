//go:build !linux

package cluster

import "time"

// threadCPUTime is 0 where the thread's CPU clock is not read (Linux only).
func threadCPUTime() time.Duration { return 0 }
