//go:build linux || darwin || freebsd

package api

import (
	"time"

	"golang.org/x/sys/unix"
)

var processStart = time.Now()

// threadCPU is the CPU time the calling OS thread has used; the caller
// locks its goroutine to the thread around what it measures. Should the
// clock fail, the wall clock stands in (screening is CPU-bound): a failure
// never makes a screening free.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return time.Since(processStart)
	}
	return time.Duration(ts.Nano())
}
