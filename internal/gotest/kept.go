package gotest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fencelab/fencelab/internal/filesum"
	"github.com/fencelab/fencelab/internal/modcopy"
)

// buildKept builds c's binary at c.Keep, where it stays from one build to
// the next, and copies it to out. go checks a binary that is already there
// against everything it is made of, and links again only when one of those
// changed. Builds that keep the same path take turns.
func (c Compile) buildKept(ctx context.Context, out string) error {
	release, err := lockKept(ctx, c.Keep)
	if errors.Is(err, errors.ErrUnsupported) {
		return c.build(ctx, out)
	}
	if err != nil {
		return err
	}
	defer release()
	// go writes the binary in its work directory and renames it into
	// place: with the work directory beside it, a build stopped half-way
	// never leaves half a binary at c.Keep.
	tmp := filepath.Join(filepath.Dir(c.Keep), "tmp")
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c.Env = append(slices.Clip(c.Env), "GOTMPDIR="+tmp)
	// go trusts a kept binary whose build ID matches: one that was
	// written over, its build ID kept, would be used again. Its content
	// hash, kept beside it, tells.
	if want, err := os.ReadFile(c.Keep + sumSuffix); err == nil {
		if got, err := filesum.Hex(c.Keep); err != nil || got != string(want) {
			os.Remove(c.Keep)
			if c.Changed != nil {
				c.Changed(c.Keep)
			}
		}
	}
	if err := c.build(ctx, c.Keep); err != nil {
		return err
	}
	sum, err := filesum.Hex(c.Keep)
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.Keep+sumSuffix, []byte(sum), 0o644); err != nil {
		return err
	}
	now := time.Now() // the directory's time is when it was last used
	if err := os.Chtimes(filepath.Dir(c.Keep), now, now); err != nil {
		return err
	}
	return modcopy.File(c.Keep, out)
}

// sumSuffix names the file beside a kept binary that holds its content
// hash, as filesum.Hex gives it.
const sumSuffix = ".sha256"

// TrimKept removes from root, a directory of kept binaries each in a
// directory of its own (see Compile.Keep), all but the n most recently
// used (by the time of their directories), leaving alone any that a build
// is using.
func TrimKept(root string, n int) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	type kept struct {
		dir  string
		used time.Time
	}
	var all []kept
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.IsDir() {
			all = append(all, kept{filepath.Join(root, e.Name()), info.ModTime()})
		}
	}
	slices.SortFunc(all, func(a, b kept) int { return b.used.Compare(a.used) })
	var errs []error
	for _, k := range all[min(n, len(all)):] {
		errs = append(errs, removeKept(k.dir))
	}
	return errors.Join(errs...)
}
