package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// scratch is the directory of one mutate process's temporary files, under
// scratchDir. It holds a lock file that the process keeps locked while it
// lives: the system releases the lock when it dies, however it dies, and
// the next mutate to start removes what it left (see cleanStale).
type scratch struct {
	dir  string
	lock *os.File
}

// newScratch removes what dead mutate processes left in scratchDir and
// makes a scratch directory there; for a blind run (a learner's file),
// on disk, in the system's temporary directory, unless $MUTATE_TMPDIR
// says where: what its builds and runs write is bounded by file, not in
// all, and does not go to memory. When every user must pass through it
// (passable), and the temporary directory is a user's own, /tmp.
func newScratch(blind, passable bool) (*scratch, error) {
	root := scratchDir()
	if blind && os.Getenv("MUTATE_TMPDIR") == "" {
		root = os.TempDir()
		if passable && !passableDir(root) {
			root = "/tmp"
		}
	}
	if passable && !passableDir(root) {
		return nil, fmt.Errorf("test binaries run in Landlock sandboxes as users of their own, who cannot pass through %s, where their runs would be: set $MUTATE_TMPDIR to a directory any user may pass through, such as /tmp", root)
	}
	cleanStale(root)
	dir, err := os.MkdirTemp(root, "mutate-")
	if err != nil {
		return nil, err
	}
	// A Landlock sandbox's user of its own (when root runs mutate) passes
	// through it to its run directory; no other user may list it.
	if err := os.Chmod(dir, 0o711); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if !tryLock(lock) {
		lock.Close()
		os.RemoveAll(dir)
		return nil, &os.PathError{Op: "lock", Path: lock.Name(), Err: os.ErrExist}
	}
	return &scratch{dir: dir, lock: lock}, nil
}

// remove removes the scratch directory and releases its lock.
func (s *scratch) remove() error {
	err := os.RemoveAll(s.dir)
	s.lock.Close()
	return err
}

// staleAge is how old a scratch directory without a lock file must be to
// be taken for a dead process's: younger, it may be one that a live
// process has just made.
const staleAge = time.Hour

// cleanStale removes the scratch directories under root whose mutate
// process is gone, after killing any process still running inside them (a
// test binary or what it started, left by a mutate that was killed with
// SIGKILL).
func cleanStale(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "mutate-") {
			continue
		}
		dir := filepath.Join(root, e.Name())
		lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR, 0)
		if err != nil {
			info, err := e.Info()
			if err != nil || time.Since(info.ModTime()) < staleAge {
				continue
			}
		} else {
			free := tryLock(lock)
			if !free {
				lock.Close()
				continue // its mutate is running
			}
		}
		killInside(dir)
		os.RemoveAll(dir)
		if lock != nil {
			lock.Close()
		}
	}
}

// scratchDir returns where runs keep their temporary files: $MUTATE_TMPDIR
// if set, else /dev/shm where it is a writable directory that may hold and
// execute test binaries (in memory: the suite's SQLite files then cost no
// disk syncs, which halves its run time), else the system's temporary
// directory.
func scratchDir() string {
	if dir := os.Getenv("MUTATE_TMPDIR"); dir != "" {
		return dir
	}
	const shm = "/dev/shm"
	if fi, err := os.Stat(shm); err == nil && fi.IsDir() && roomy(shm) {
		if probe, err := os.MkdirTemp(shm, "mutate-probe-"); err == nil {
			os.Remove(probe)
			return shm
		}
	}
	return os.TempDir()
}

// tempEnv returns the environment that puts every temporary file of a go
// command or a test binary, the go command's work directory and the tests'
// own, under dir, so that removing the run's directory removes them even
// when the run was killed before it could clean up.
func tempEnv(dir string) ([]string, error) {
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	return []string{"TMPDIR=" + tmp, "GOTMPDIR=" + tmp}, nil
}

// writeOverlay writes files (absolute path in the package: source) under
// dir and the overlay that maps each path to its copy, and returns the
// overlay's path.
func writeOverlay(dir string, files map[string][]byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	replace := map[string]string{}
	for path, src := range files {
		file := filepath.Join(dir, filepath.Base(path))
		if err := os.WriteFile(file, src, 0o644); err != nil {
			return "", err
		}
		replace[path] = file
	}
	data, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, data, 0o644)
}
