package main

import (
	"log/slog"
	"os"
	"runtime"
	"strings"
)

// Replicas that share a machine share its CPUs. Go runs code on as many
// threads at once as the machine (or its container's CPU limit) has CPUs,
// so three replicas on a 2-CPU machine run six, and the operating system
// switches between more busy threads than cores: every process, the store
// and Redis too, then pays more CPU for the same work (BENCHMARKS.md, issue
// 11). A replica that sees, at its heartbeat, n live replicas of its
// cluster on its machine (the same kernel boot id, which containers on one
// host share) runs on its share of the CPUs, rounded up, and on all of them
// again when alone. GOMAXPROCS set in the environment is the operator's
// choice and is kept.

// machineID names the machine this process runs on: the kernel's boot id,
// else the host name.
func machineID() string {
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		if id := strings.TrimSpace(string(b)); id != "" {
			return id
		}
	}
	host, _ := os.Hostname()
	return host
}

// cpuShare sizes GOMAXPROCS to this replica's share of the machine. The
// lease manager calls neighbours, from one goroutine.
type cpuShare struct {
	log  *slog.Logger
	all  int // the CPUs Go would use alone: the machine's, or its CPU limit
	used int
}

// newCPUShare returns nil when getenv sets GOMAXPROCS.
func newCPUShare(getenv func(string) string, log *slog.Logger) *cpuShare {
	if getenv("GOMAXPROCS") != "" {
		return nil
	}
	n := runtime.GOMAXPROCS(0)
	return &cpuShare{log: log, all: n, used: n}
}

// neighbours runs on the share of the CPUs of n replicas.
func (s *cpuShare) neighbours(n int) {
	want := (s.all + n - 1) / max(n, 1)
	if want == s.used {
		return
	}
	if want == s.all {
		runtime.SetDefaultGOMAXPROCS() // and follow a changing CPU limit again
	} else {
		runtime.GOMAXPROCS(want)
	}
	s.used = want
	s.log.Info("replicas on this machine share its CPUs (set GOMAXPROCS to choose)",
		"replicas_here", n, "cpus", want, "of", s.all)
}
