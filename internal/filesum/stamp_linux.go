package filesum

import (
	"os"
	"syscall"
	"time"
)

// identity returns the device and inode of the file of info, and its
// change time.
func identity(info os.FileInfo) (dev, ino uint64, ctime time.Time, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, time.Time{}, false
	}
	return uint64(st.Dev), uint64(st.Ino), time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)), true
}
