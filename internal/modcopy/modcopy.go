// Package modcopy copies a module's tree, so that commands can be run in a
// copy without touching the checkout.
package modcopy

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Copy copies every regular file and directory under src into dst, with
// its permissions, leaving out .git.
func Copy(src, dst string) error {
	return CopyIf(src, dst, func(_ string, d fs.DirEntry) bool { return !d.IsDir() || d.Name() != ".git" })
}

// CopyIf copies the regular files and directories under src that keep
// reports true of (by their path relative to src, with forward slashes)
// into dst, with their permissions; a directory it leaves out is left out
// whole. src itself is always copied.
func CopyIf(src, dst string, keep func(rel string, d fs.DirEntry) bool) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if rel != "." && !keep(filepath.ToSlash(rel), d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		return File(path, target)
	})
}

// File copies the regular file src to dst, with its permissions; anything
// else (a link, a device) is left out.
func File(src, dst string) error {
	info, err := os.Lstat(src)
	if err != nil || !info.Mode().IsRegular() {
		return err
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, info.Mode().Perm())
}

// Tracked copies the files of the git checkout at src that git tracks into
// dst, with their permissions: what a fresh clone would hold, with the
// working tree's edits. Untracked and ignored files are left out, and so
// are tracked files deleted from the working tree.
func Tracked(src, dst string) error {
	names, err := TrackedFiles(src)
	if err != nil {
		return err
	}
	for _, name := range names {
		to := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := File(filepath.Join(src, filepath.FromSlash(name)), to); err != nil {
			return err
		}
	}
	return nil
}

// TrackedFiles returns the paths, relative to src and with forward
// slashes, of the files that git tracks in the checkout at src and that
// the working tree holds, in git's order.
func TrackedFiles(src string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = src
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %v: %s", src, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var names []string
	for name := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(src, filepath.FromSlash(name))); errors.Is(err, fs.ErrNotExist) {
			continue // deleted from the working tree
		}
		names = append(names, name)
	}
	return names, nil
}
