package harness

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fencelab/fencelab/internal/proc"
)

// minScratch is the free space a scratch directory needs: a few test
// binaries of a package with large dependencies, linked at once.
const minScratch = 512 << 20

// roomy reports whether dir may execute programs and has minScratch bytes
// free. Docker mounts its small /dev/shm noexec, for one.
func roomy(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	const noexec = 0x8 // ST_NOEXEC
	return st.Flags&noexec == 0 && st.Bavail*uint64(st.Bsize) >= minScratch
}

// killInside kills every process whose program or working directory is
// under dir.
func killInside(dir string) {
	prefix := dir + string(filepath.Separator)
	for _, pid := range proc.PIDs() {
		if pid == os.Getpid() {
			continue
		}
		for _, link := range []string{"exe", "cwd"} {
			if target := proc.Link(pid, link); target != "" && strings.HasPrefix(target+string(filepath.Separator), prefix) {
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
}

// passableDir reports whether any user may pass through dir and every
// directory above it.
func passableDir(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		var st syscall.Stat_t
		if syscall.Stat(d, &st) != nil || st.Mode&0o001 == 0 {
			return false
		}
		if d == "/" {
			return true
		}
	}
}
