package harness

import "syscall"

// minScratch is the free space a scratch directory needs: a few test
// binaries of a package like lease, linked at once.
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
