package gotest

import (
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fencelab/fencelab/internal/proc"
)

// cpuMetered says that a running binary's CPU time can be read here.
const cpuMetered = true

// clockTicks is the unit of the CPU times in /proc/PID/stat (USER_HZ,
// 100 on every architecture Linux exports to user space).
const clockTicks = 100

// cpuMeter reads the CPU time of a running test binary: the process
// started (pid), or, when that is a sandbox's init (inner), its child.
type cpuMeter struct {
	pid     int
	inner   bool
	written []string   // directories whose files count as memory
	mu      sync.Mutex // the watch and the reader of the output both read it
	binary  int        // the binary's pid, once found
}

// used returns the CPU time the binary and the processes it has waited
// for have used so far; false while the binary is not found.
func (m *cpuMeter) used() (time.Duration, bool) {
	st, ok := m.stat()
	if !ok {
		return 0, false
	}
	ticks, ok := st.CPUTicks()
	return time.Duration(ticks) * time.Second / clockTicks, ok
}

// stat returns the binary's stat, finding the binary first; false while
// it is not found. In a sandbox the binary found is the init's child, and
// stays it only while its stat says so. A child found before the binary
// had started may be another, short-lived one (on a loaded machine the
// meter once read such a child, gone, for a whole run, and never saw the
// binary spin): a child gone by the next reading (ended, and its pid
// perhaps another process's now) was not the binary, which runs till the
// end, so the binary is looked for again.
func (m *cpuMeter) stat() (proc.Stat, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.binary != 0 {
		st, ok := proc.ReadStat(m.binary)
		if ok && (!m.inner || st.Parent() == m.pid && !st.Zombie()) {
			return st, true
		}
		m.binary = 0
	}
	if !m.find() {
		return proc.Stat{}, false
	}
	return proc.ReadStat(m.binary)
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
	for _, kid := range proc.Children(m.pid) {
		st, ok := proc.ReadStat(kid)
		if !ok || st.Zombie() {
			continue
		}
		if start := st.Started(); start >= 0 && (first < 0 || start < first) {
			m.binary, first = kid, start
		}
	}
	return m.binary != 0
}

// memoryMetered says that the memory of a running binary can be read
// here: Exec.Memory is enforced.
const memoryMetered = true

// memory returns the memory that the processes under pid hold, pid itself
// included unless it is a sandbox's init: the sum of their anonymous and
// shared resident memory (see proc.ResidentMemory), of the memfds they
// hold open, mapped or not, each once (see proc.MemfdMemory), and of the
// files in the written directories. A process that ends while it is read
// counts as what was read of it.
func (m *cpuMeter) memory() int64 {
	sum := proc.DiskUsage(m.written...)
	seen := map[[2]uint64]bool{}
	var walk func(pid int, self bool)
	walk = func(pid int, self bool) {
		if self {
			sum += proc.ResidentMemory(pid) + proc.MemfdMemory(pid, seen)
		}
		for _, kid := range proc.Children(pid) {
			walk(kid, true)
		}
	}
	walk(m.pid, !m.inner)
	return sum
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

// limitProcess sets the limits of l (but its wall time) on process pid,
// and so on every process it starts from now on.
func limitProcess(pid int, l BuildLimits) error {
	for _, r := range []struct {
		resource int
		value    int64
	}{
		{unix.RLIMIT_CPU, int64(l.CPU.Seconds())},
		{unix.RLIMIT_DATA, l.Memory},
		{unix.RLIMIT_FSIZE, l.FileSize},
	} {
		if r.value <= 0 {
			continue
		}
		lim := unix.Rlimit{Cur: uint64(r.value), Max: uint64(r.value)}
		if err := unix.Prlimit(pid, r.resource, &lim, nil); err != nil {
			return err
		}
	}
	return nil
}
