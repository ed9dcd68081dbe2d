//go:build !(linux || darwin || freebsd)

package api

import "time"

var processStart = time.Now()

// threadCPU falls back to the wall clock where no thread CPU clock is at
// hand: screening is CPU-bound, so it charges about the same.
func threadCPU() time.Duration { return time.Since(processStart) }
