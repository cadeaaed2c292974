package gotest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cpuMetered says that a running binary's CPU time can be read here.
const cpuMetered = true

// clockTicks is the unit of the CPU times in /proc/PID/stat (USER_HZ,
// 100 on every architecture Linux exports to user space).
const clockTicks = 100

// cpuMeter reads the CPU time of a running test binary: the process
// started (pid), or, when that is a sandbox's init (inner), its child.
type cpuMeter struct {
	pid    int
	inner  bool
	binary int // the binary's pid, once found
}

// used returns the CPU time the binary and the processes it has waited
// for have used so far; false while the binary is not found.
func (m *cpuMeter) used() (time.Duration, bool) {
	fields := m.stat()
	if len(fields) < 15 {
		return 0, false
	}
	// utime, stime, cutime and cstime.
	var ticks int64
	for _, f := range fields[11:15] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, true
}

// stat returns the fields of the binary's stat (see procStat), finding
// the binary first; nil while it is not found. In a sandbox the binary
// found is the init's child, and stays it only while its stat says so. A
// child found before the binary had started may be another, short-lived
// one (on a loaded machine the meter once read such a child, gone, for a
// whole run, and never saw the binary spin): a child gone by the next
// reading (ended, and its pid perhaps another process's now) was not the
// binary, which runs till the end, so the binary is looked for again.
func (m *cpuMeter) stat() []string {
	if m.binary != 0 {
		fields := procStat(m.binary)
		if !m.inner || len(fields) >= 2 && fields[1] == strconv.Itoa(m.pid) && fields[0] != "Z" {
			return fields
		}
		m.binary = 0
	}
	if !m.find() {
		return nil
	}
	return procStat(m.binary)
}

// find finds the binary: the process started, or the init's first child
// that is alive (a process the binary started in a session of its own
// may be the init's child too, once its parent is gone: it started
// later).
func (m *cpuMeter) find() bool {
	if !m.inner {
		m.binary = m.pid
		return true
	}
	first := int64(-1)
	for _, kid := range childPids(m.pid) {
		fields := procStat(kid)
		if len(fields) < 20 || fields[0] == "Z" {
			continue
		}
		if start, err := strconv.ParseInt(fields[19], 10, 64); err == nil && (first < 0 || start < first) {
			m.binary, first = kid, start
		}
	}
	return m.binary != 0
}

// childPids returns the pids of pid's children: from its threads'
// children files, which name them at once, where the kernel has them
// (CONFIG_PROC_CHILDREN), else from every process's stat. The meter
// polls them while the binary starts: one read of each of the init's
// threads instead of one of every process of the machine.
func childPids(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	if len(tasks) == 0 {
		var pids []int
		for _, c := range children(pid) {
			pids = append(pids, c.pid)
		}
		return pids
	}
	var pids []int
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for f := range strings.FieldsSeq(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
	}
	return pids
}

// procStat returns the fields of /proc/PID/stat after the command's name
// (the process's state first), or nil.
func procStat(pid int) []string {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	// pid (comm) state ...; comm may hold spaces and ')'.
	s := string(stat)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// memoryMetered says that the memory of a running binary can be read
// here: Exec.Memory is enforced.
const memoryMetered = true

// memory returns the memory that the processes under pid hold, pid itself
// included unless it is a sandbox's init: the sum of their anonymous and
// shared resident memory, as /proc/PID/status counts it (file pages, such
// as the binary's code, are the page cache's). A process that ends while
// it is read counts as what was read of it.
func (m *cpuMeter) memory() int64 {
	var sum int64
	var walk func(pid int, self bool)
	walk = func(pid int, self bool) {
		if self {
			sum += residentMemory(pid)
		}
		for _, kid := range childPids(pid) {
			walk(kid, true)
		}
	}
	walk(m.pid, !m.inner)
	return sum
}

// residentMemory returns the anonymous and shared resident memory of
// process pid, in bytes; 0 if it is gone.
func residentMemory(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	var kib int64
	for line := range strings.Lines(string(data)) {
		name, rest, _ := strings.Cut(line, ":")
		if name != "RssAnon" && name != "RssShmem" {
			continue
		}
		if f := strings.Fields(rest); len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			kib += n
		}
	}
	return kib << 10
}

// MachineMemory returns the machine's memory, in bytes.
func MachineMemory() int64 {
	var info unix.Sysinfo_t
	if err := unix.Sysinfo(&info); err != nil {
		return 0
	}
	return int64(info.Totalram) * int64(info.Unit)
}

// maxResident returns the largest resident memory, in bytes, of the
// process of ps and of the processes it waited for; 0 if unknown.
func maxResident(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10
	}
	return 0
}
