//go:build linux

package cache

import (
	"io/fs"
	"syscall"
)

func stateOf(fi fs.FileInfo) fileState {
	st := fileState{size: fi.Size(), mod: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.changed = int64(sys.Ctim.Sec)*1e9 + int64(sys.Ctim.Nsec)
		st.ino = sys.Ino
	}
	return st
}
