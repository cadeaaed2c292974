package cache

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Snapshot is the state of every file of the cache directory at a
// moment: a run whose test binaries run without sandboxes, as the user,
// takes one before they run and cleans what changed after (see Clean).
type Snapshot struct {
	dir   string
	files map[string]fileState
}

// fileState is what tells a file that was written from one that was not:
// its size, its times, and, where the system says, its change time and
// inode, which no write can keep as they were.
type fileState struct {
	size    int64
	mod     time.Time
	changed int64
	ino     uint64
}

// Take returns the state of the cache directory now.
func Take() (*Snapshot, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	s := &Snapshot{dir: dir}
	s.files, err = states(dir)
	return s, err
}

func states(dir string) (map[string]fileState, error) {
	files := map[string]fileState{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // gone meanwhile
		}
		files[path] = stateOf(fi)
		return nil
	})
	return files, err
}

// Clean removes every file of the cache directory that is new or written
// since the snapshot was taken, and returns their paths relative to the
// directory, sorted. A file removed meanwhile is no harm: it is made
// again when it is needed.
func (s *Snapshot) Clean() ([]string, error) {
	now, err := states(s.dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for path, st := range now {
		if before, ok := s.files[path]; ok && before == st {
			continue
		}
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return removed, err
		}
		rel, _ := filepath.Rel(s.dir, path)
		removed = append(removed, filepath.ToSlash(rel))
	}
	slices.Sort(removed)
	return removed, nil
}
