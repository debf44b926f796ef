package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of the CPU times in /proc/<pid>/stat (USER_HZ,
// 100 on every Linux the project runs on).
const clockTick = 10 * time.Millisecond

// procCPU is the user and system CPU time process pid has used so far.
func procCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: count from after it.
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime and stime, fields 14 and 15
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// cpuMeter reads the CPU time of named groups of processes, so that a
// benchmark can report where the cores went during its window.
type cpuMeter struct {
	groups map[string][]int // name → pids
	start  map[string]time.Duration
}

func newCPUMeter() *cpuMeter {
	return &cpuMeter{groups: map[string][]int{}, start: map[string]time.Duration{}}
}

func (m *cpuMeter) add(group string, pid int) {
	if pid > 0 {
		m.groups[group] = append(m.groups[group], pid)
	}
}

func (m *cpuMeter) read() (map[string]time.Duration, error) {
	out := map[string]time.Duration{}
	for name, pids := range m.groups {
		for _, pid := range pids {
			d, err := procCPU(pid)
			if err != nil {
				return nil, err
			}
			out[name] += d
		}
	}
	return out, nil
}

// begin marks the start of the window.
func (m *cpuMeter) begin() error {
	var err error
	m.start, err = m.read()
	return err
}

// used is each group's CPU time since begin.
func (m *cpuMeter) used() (map[string]time.Duration, error) {
	now, err := m.read()
	if err != nil {
		return nil, err
	}
	for name := range now {
		now[name] -= m.start[name]
	}
	return now, nil
}
