//go:build !linux

package filesum

import (
	"os"
	"time"
)

// identity reads nothing here: a stamp then tells no two files the same.
func identity(os.FileInfo) (dev, ino uint64, ctime time.Time, ok bool) {
	return 0, 0, time.Time{}, false
}
