package harness

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	prefix := dir + string(filepath.Separator)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		for _, link := range []string{"exe", "cwd"} {
			target, err := os.Readlink(filepath.Join("/proc", e.Name(), link))
			if err == nil && strings.HasPrefix(strings.TrimSuffix(target, " (deleted)")+string(filepath.Separator), prefix) {
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
}
