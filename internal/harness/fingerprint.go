package harness

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/filesum"
)

// fingerprint is the state of the files of a module that a run must not
// change: in a git checkout the files git tracks, elsewhere every file but
// .git's; and in either case every file of the mutated package's
// directory, where a new file would change the build. Files that mutate's
// own stdout or stderr write to are left out. It is cheap to compare: a
// file is hashed again only when its size or modification time moved.
type fingerprint struct {
	root  string // the module root
	pkg   string // the package directory
	git   bool
	own   []os.FileInfo        // mutate's stdout and stderr, when they are files
	files map[string]fileState // by path relative to root
}

type fileState struct {
	size  int64
	mtime time.Time
	sum   [sha256.Size]byte
}

// takeFingerprint records the files of the module at root.
func takeFingerprint(root, pkg string) (*fingerprint, error) {
	f := &fingerprint{root: root, pkg: pkg, files: map[string]fileState{}}
	if err := exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").Run(); err == nil {
		f.git = true
	}
	for _, out := range []*os.File{os.Stdout, os.Stderr} {
		if info, err := out.Stat(); err == nil && info.Mode().IsRegular() {
			f.own = append(f.own, info)
		}
	}
	names, err := f.list()
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		st, err := f.state(name, nil)
		if err != nil {
			return nil, err
		}
		if st != nil {
			f.files[name] = *st
		}
	}
	return f, nil
}

// changes returns the files that were added, removed or modified since
// the fingerprint was taken, each as "path (what)", sorted.
func (f *fingerprint) changes() ([]string, error) {
	names, err := f.list()
	if err != nil {
		return nil, err
	}
	var changed []string
	seen := map[string]bool{}
	for _, name := range names {
		seen[name] = true
		old, had := f.files[name]
		var prev *fileState
		if had {
			prev = &old
		}
		st, err := f.state(name, prev)
		if err != nil {
			return nil, err
		}
		switch {
		case st == nil && had:
			changed = append(changed, name+" (removed)")
		case st != nil && !had:
			changed = append(changed, name+" (new)")
		case st != nil && st.sum != old.sum:
			changed = append(changed, name+" (modified)")
		}
	}
	for name := range f.files {
		if !seen[name] {
			changed = append(changed, name+" (removed)")
		}
	}
	slices.Sort(changed)
	return changed, nil
}

// list returns the paths, relative to the root, that the fingerprint
// covers now.
func (f *fingerprint) list() ([]string, error) {
	set := map[string]bool{}
	if f.git {
		cmd := exec.Command("git", "ls-files", "-z")
		cmd.Dir = f.root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("git ls-files: %v: %s", err, strings.TrimSpace(stderr.String()))
		}
		for name := range strings.SplitSeq(string(out), "\x00") {
			if name != "" {
				set[filepath.FromSlash(name)] = true
			}
		}
	}
	dirs := []string{f.pkg}
	if !f.git {
		dirs = []string{f.root}
	}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() {
				rel, err := filepath.Rel(f.root, path)
				if err != nil {
					return err
				}
				set[rel] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// state returns the state of the file name, or nil if it does not exist.
// When prev has the same size and modification time, its hash is taken
// as is.
func (f *fingerprint) state(name string, prev *fileState) (*fileState, error) {
	path := filepath.Join(f.root, name)
	info, err := os.Lstat(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	st := &fileState{size: info.Size(), mtime: info.ModTime()}
	if prev != nil && prev.size == st.size && prev.mtime.Equal(st.mtime) {
		st.sum = prev.sum
		return st, nil
	}
	for _, own := range f.own {
		if os.SameFile(own, info) {
			return nil, nil
		}
	}
	if !info.Mode().IsRegular() {
		// A symbolic link or such: its target is what it holds.
		target, _ := os.Readlink(path)
		st.sum = sha256.Sum256([]byte(target))
		return st, nil
	}
	if st.sum, err = filesum.Of(path); err != nil {
		return nil, err
	}
	return st, nil
}
