package sqlbench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The machine the benchmarks run on is shared: wall-clock times stretch
// with everyone else's load. CPU time spent by the engine's processes
// stretches far less, so the reports give it beside the wall time.

// clockTick is the unit of /proc/<pid>/stat's times (USER_HZ, 100 on
// Linux).
const clockTick = 10 * time.Millisecond

// procStat reads a process's parent, its CPU time, and the CPU time of
// its children that have exited and been waited for.
func procStat(pid int) (ppid int, self, reaped time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	// The command name, in parentheses, may hold spaces: fields start
	// after its closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return 0, 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	n := func(k int) int64 { v, _ := strconv.ParseInt(f[k], 10, 64); return v }
	// f[0] is field 3 (state): ppid is field 4, utime..cstime 14..17.
	return int(n(1)), time.Duration(n(11)+n(12)) * clockTick, time.Duration(n(13)+n(14)) * clockTick, nil
}

// ProcCPU is the CPU time of one process (its threads included).
func ProcCPU(pid int) (time.Duration, error) {
	_, self, _, err := procStat(pid)
	return self, err
}

// TreeCPU is the CPU time of a process, its children that have exited
// (PostgreSQL's parallel workers) and its live children (the backends).
func TreeCPU(pid int) (time.Duration, error) {
	_, self, reaped, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	total := self + reaped
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		child, err := strconv.Atoi(filepath.Base(d))
		if err != nil || child == pid {
			continue
		}
		ppid, cself, creaped, err := procStat(child)
		if err == nil && ppid == pid {
			total += cself + creaped
		}
	}
	return total, nil
}

// SelfCPU is the CPU time of this process (DuckDB runs in it).
func SelfCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
