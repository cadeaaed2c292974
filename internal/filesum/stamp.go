package filesum

import (
	"os"
	"time"
)

// A Stamp is what the file system says of a file without reading it: its
// identity, size and times. Any write to the file changes its stamp: the
// write moves its modification time, and the change time moves with every
// write and every change of the other times, which no unprivileged process
// can set back. A file whose stamp is the same is the same file, unchanged.
// Where the change time is not read (another system than Linux), no two
// stamps are the same: the file must be read to tell.
type Stamp struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
	ctime    time.Time
	known    bool // the change time and identity were read
}

// StampOf returns the stamp of the file at path.
func StampOf(path string) (Stamp, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Stamp{}, err
	}
	st := Stamp{size: info.Size(), mtime: info.ModTime()}
	st.dev, st.ino, st.ctime, st.known = identity(info)
	return st, nil
}

// Same reports whether two stamps are of the same file, unchanged; false
// where that cannot be told without reading the file.
func (s Stamp) Same(o Stamp) bool {
	return s.known && o.known && s.dev == o.dev && s.ino == o.ino && s.size == o.size && s.mtime.Equal(o.mtime) && s.ctime.Equal(o.ctime)
}

// SameExceptLinks is Same without the change time, which a link made to
// the file, or one removed, moves as well: a file linked into a run's
// directory and unlinked after it has the same identity, size and
// modification time. A write that puts the modification time back goes
// unseen: a caller that must see every write reads the file in the end.
func (s Stamp) SameExceptLinks(o Stamp) bool {
	return s.known && o.known && s.dev == o.dev && s.ino == o.ino && s.size == o.size && s.mtime.Equal(o.mtime)
}
