package cluster

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPUTime is the calling OS thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID, as package bench reads it): with the goroutine
// locked to its thread, what the applies cost whatever else the shared
// machine runs, which wall-clock ns/op does not tell.
func threadCPUTime() time.Duration {
	const clockThreadCPUTime = 3 // not in package syscall
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
