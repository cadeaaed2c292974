//go:build !linux

package cache

import "io/fs"

func stateOf(fi fs.FileInfo) fileState {
	return fileState{size: fi.Size(), mod: fi.ModTime()}
}
