//go:build unix

package bench

import (
	"syscall"
	"time"
)

// CPUTime returns the user and system CPU time the process has used: on a
// shared machine, CPU time per instance holds still where wall-clock
// throughput does not.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
