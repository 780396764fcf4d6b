//go:build !unix

package graph

import "time"

// threadCPU is not measured on this platform.
func threadCPU() time.Duration { return 0 }

// cpuTime is not measured on this platform.
func cpuTime() time.Duration { return 0 }
