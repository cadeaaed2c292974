package testgrade

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/modcopy"
)

// copyModule copies to dst, a new directory, what a run of learners'
// tests of the package t needs from its module, and nothing else of the
// grader's checkout: go.mod and go.sum (and vendor, if the module has
// one); the package without its tests, with its testdata but the corpora
// of its own fuzz tests; and, likewise, every package of the module that
// the package imports.
func copyModule(t *exercise.Target, dst string) error {
	for _, name := range []string{"go.mod", "go.sum"} {
		if err := modcopy.File(filepath.Join(t.ModuleDir, name), filepath.Join(dst, name)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	if vendor := filepath.Join(t.ModuleDir, "vendor"); isDir(vendor) {
		if err := modcopy.Copy(vendor, filepath.Join(dst, "vendor")); err != nil {
			return err
		}
	}
	// The module's root package is left out: its directory holds the
	// grader's documents (as before, a package that imports it does not
	// build in the copy).
	dirs := []string{t.Dir}
	for _, dir := range t.PackageDirs(t.Uses()) {
		if dir != t.ModuleDir {
			dirs = append(dirs, dir)
		}
	}
	for _, dir := range dirs {
		rel, err := filepath.Rel(t.ModuleDir, dir)
		if err != nil {
			return err
		}
		if err := copyPackage(dir, filepath.Join(dst, rel)); err != nil {
			return err
		}
	}
	return nil
}

// copyPackage copies the package directory src into dst: its files but
// its tests, and its testdata but the corpora of its fuzz tests
// (testdata/fuzz), which belong to its own tests. Subdirectories are other
// packages, and are left out.
func copyPackage(src, dst string) error {
	return modcopy.CopyIf(src, dst, func(rel string, d fs.DirEntry) bool {
		parts := strings.Split(rel, "/")
		if d.IsDir() {
			return parts[0] == "testdata" && !(len(parts) == 2 && parts[1] == "fuzz")
		}
		return len(parts) > 1 || !strings.HasSuffix(d.Name(), "_test.go")
	})
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
