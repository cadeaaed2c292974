// Package proc reads what the harness needs of the machine's processes
// from Linux's /proc: their ids, parents, groups and states, their
// children, memory, environments and links. Every function returns what
// it could read: a process that ends while it is read reads as gone (nil,
// 0, ""), never as an error, since processes come and go. Elsewhere than
// Linux the package reads nothing.
package proc

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// PIDs returns the ids of every process, in /proc's order.
func PIDs() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Stat is what /proc/PID/stat says of a process, after its command's name:
// Fields[0] is its state, [1] its parent, [2] its process group, [19]
// when it started (see proc(5)).
type Stat struct {
	Fields []string
}

// ReadStat reads the stat of process pid; ok is false if it is gone.
func ReadStat(pid int) (st Stat, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	// pid (comm) state ...; comm may hold spaces and ')'.
	s := string(data)
	st.Fields = strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return st, len(st.Fields) >= 3
}

// Zombie reports whether the process has ended and is not reaped.
func (st Stat) Zombie() bool { return len(st.Fields) > 0 && st.Fields[0] == "Z" }

// Parent returns the id of the process's parent.
func (st Stat) Parent() int { return st.int(1) }

// Group returns the id of the process's group.
func (st Stat) Group() int { return st.int(2) }

// Started returns when the process started, in clock ticks since boot; -1
// if unknown.
func (st Stat) Started() int64 {
	if len(st.Fields) < 20 {
		return -1
	}
	n, err := strconv.ParseInt(st.Fields[19], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// CPUTicks returns the CPU time of the process and of the children it
// waited for (utime, stime, cutime and cstime), in clock ticks; ok is
// false if unknown.
func (st Stat) CPUTicks() (ticks int64, ok bool) {
	if len(st.Fields) < 15 {
		return 0, false
	}
	for _, f := range st.Fields[11:15] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += n
	}
	return ticks, true
}

func (st Stat) int(i int) int {
	if len(st.Fields) <= i {
		return 0
	}
	n, _ := strconv.Atoi(st.Fields[i])
	return n
}

// Children returns the ids of pid's children: from its threads' children
// files, which name them at once, where the kernel has them
// (CONFIG_PROC_CHILDREN), else from every process's stat.
func Children(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil // gone
	}
	var kids []int
	for _, t := range tasks {
		data, err := os.ReadFile(dir + t.Name() + "/children")
		if errors.Is(err, fs.ErrNotExist) && !childrenFiles() {
			return childrenFromStats(pid)
		}
		if err != nil {
			continue // the thread ended
		}
		for f := range strings.FieldsSeq(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids
}

// childrenFiles says whether the kernel has the threads' children files:
// this process's main thread has one.
var childrenFiles = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children")
	return err == nil
})

// childrenFromStats returns the ids of pid's children from every
// process's stat.
func childrenFromStats(pid int) []int {
	var kids []int
	for _, p := range PIDs() {
		if st, ok := ReadStat(p); ok && st.Parent() == pid {
			kids = append(kids, p)
		}
	}
	return kids
}

func ResidentMemory(pid int) int64 {
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

// maxFDs bounds the descriptors of one process that MemfdMemory looks at,
// so that a process holding very many costs its reader no more.
const maxFDs = 4096

// MemfdMemory returns the memory that process pid holds in memfds, open
// as descriptors, that seen (by device and inode) does not hold yet, and
// adds them to seen: the pages written to each, whether mapped or not
// (an unmapped one is in no resident set). It looks at the first maxFDs
// descriptors of the process.
func MemfdMemory(pid int, seen map[[2]uint64]bool) int64 {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	f, err := os.Open(dir)
	if err != nil {
		return 0
	}
	names, _ := f.Readdirnames(maxFDs)
	f.Close()
	var sum int64
	for _, name := range names {
		path := dir + "/" + name
		target, err := os.Readlink(path)
		if err != nil || !strings.HasPrefix(target, "/memfd:") {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(path, &st) != nil {
			continue
		}
		key := [2]uint64{uint64(st.Dev), st.Ino}
		if !seen[key] {
			seen[key] = true
			sum += st.Blocks * 512
		}
	}
	return sum
}

// Environ returns the environment process pid started with, KEY=VALUE.
func Environ(pid int) []string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
}

// Link returns where the link name of process pid points ("exe", "cwd"),
// without the " (deleted)" of a file that is gone; "" if unknown.
func Link(pid int, name string) string {
	target, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), name))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(target, " (deleted)")
}

// TasksOf returns how many tasks (threads) the processes of the real user
// uid have, as the kernel counts them against RLIMIT_NPROC: of those this
// process can see.
func TasksOf(uid int) int {
	n := 0
	want := strconv.Itoa(uid)
	for _, pid := range PIDs() {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			continue // gone
		}
		var real, threads string
		for line := range strings.Lines(string(data)) {
			if v, ok := strings.CutPrefix(line, "Uid:"); ok {
				if f := strings.Fields(v); len(f) > 0 {
					real = f[0]
				}
			}
			if v, ok := strings.CutPrefix(line, "Threads:"); ok {
				threads = strings.TrimSpace(v)
			}
		}
		if real == want {
			t, _ := strconv.Atoi(threads)
			n += max(t, 1)
		}
	}
	return n
}

// DiskUsage returns the bytes that the files under dirs take on their file
// systems (their blocks), each file once however many links it has: a
// file that goes while it is read counts as nothing.
func DiskUsage(dirs ...string) int64 {
	var sum int64
	seen := map[[2]uint64]bool{}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if st, ok := info.Sys().(*syscall.Stat_t); ok && !seen[[2]uint64{st.Dev, st.Ino}] {
				seen[[2]uint64{st.Dev, st.Ino}] = true
				sum += st.Blocks * 512
			}
			return nil
		})
	}
	return sum
}
