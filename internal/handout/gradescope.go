package handout

import (
	"archive/zip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/modcopy"
)

// recipes are Gradescope's autograder scripts of the two assignments,
// which docs/gradescope shows: setup.sh and run_autograder of the
// predictions assignment, and of the tests assignment under tests/.
//
//go:embed gradescope
var recipes embed.FS

// starterPath is where the autograder's zip of the tests assignment
// holds the starter, relative to its root: go ignores a directory whose
// name begins with a dot, so ./... never builds it; the tests recipe's
// setup.sh grades it once.
const starterPath = ".autograder/starter_test.go"

// zipTime is every entry's time: the same files make the same zip.
var zipTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// GradescopeZip writes to w the autograder's zip of the exercise set for
// Gradescope (https://gradescope-autograders.readthedocs.io/en/latest/specs/:
// "setup.sh" and "run_autograder" at the root of the archive, which
// Gradescope extracts into /autograder/source): the module as git tracks
// it (every file but .git outside a checkout), with the assignment's
// recipe at its root, and, for the tests assignment (opt.Starter), the
// starter at starterPath. The module is the grader's: the tests
// assignment's chaffs and wheats are in it, out of the learners' reach
// (their tests run in sandboxes that hide it). It returns the number of
// files the zip holds.
func GradescopeZip(set *exercise.Set, w io.Writer, opt Options) (int, error) {
	names, err := modcopy.TrackedFiles(set.Root)
	if err != nil {
		// Not a git checkout: every file but .git.
		names, err = moduleFiles(set.Root)
		if err != nil {
			return 0, err
		}
	}
	recipe := "gradescope"
	if opt.Starter != "" {
		recipe = "gradescope/tests"
	}
	own := []string{"setup.sh", "run_autograder"}
	if opt.Starter != "" {
		own = append(own, starterPath)
	}
	for _, name := range names {
		if slices.Contains(own, name) || strings.HasPrefix(name, path.Dir(starterPath)+"/") && opt.Starter != "" {
			return 0, fmt.Errorf("the module holds %s, which the autograder's zip holds of its own: move it", name)
		}
	}
	z := zip.NewWriter(w)
	files := 0
	add := func(name string, mode fs.FileMode, data []byte) error {
		files++
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipTime}
		h.SetMode(mode.Perm())
		fw, err := z.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = fw.Write(data)
		return err
	}
	for _, name := range own[:2] {
		data, err := recipes.ReadFile(recipe + "/" + name)
		if err != nil {
			return 0, err
		}
		if err := add(name, 0o755, data); err != nil {
			return 0, err
		}
	}
	if opt.Starter != "" {
		data, err := os.ReadFile(opt.Starter)
		if err != nil {
			return 0, err
		}
		if err := add(starterPath, 0o644, data); err != nil {
			return 0, err
		}
	}
	slices.Sort(names)
	for _, name := range names {
		p := filepath.Join(set.Root, filepath.FromSlash(name))
		info, err := os.Lstat(p)
		if err != nil {
			return 0, err
		}
		if !info.Mode().IsRegular() {
			continue // a link, as a copy of the module leaves it out
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return 0, err
		}
		if err := add(name, info.Mode(), data); err != nil {
			return 0, err
		}
	}
	if err := z.Close(); err != nil {
		return 0, err
	}
	return files, nil
}

// moduleFiles returns the paths of the regular files under root but
// .git's, relative to it, with forward slashes.
func moduleFiles(root string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	return names, err
}
