package command

// The files a command is asked to write are checked before anything runs,
// so that a long run does not end in an error about its output.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrExists is returned by checkOut for a file that must not be overwritten.
var ErrExists = errors.New("exists")

// CheckOut checks that a file can be written at path: its directory exists,
// or is made, and takes new files; and unless overwrite, nothing is there
// yet (errExists).
func CheckOut(path string, overwrite bool) error {
	if _, err := os.Stat(path); err == nil && !overwrite {
		return fmt.Errorf("%s %w", path, ErrExists)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	probe, err := os.CreateTemp(dir, ".mutate-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// writeOut writes what write writes to path.
func writeOut(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
