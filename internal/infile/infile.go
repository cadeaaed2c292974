// Package infile reads the files a command is given, which may be a
// learner's: a file that is not one (a FIFO, a device, a directory), or
// that is larger than the command reads, is refused at once, and one of a
// class's files that links to a file outside its directory too.
package infile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fencelab/fencelab/internal/text"
)

// Read reads the regular file at path, of at most max bytes. It never
// blocks (a FIFO is refused at once, as are a device and a directory) and
// never reads more than one byte past max.
func Read(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, named(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): refused", text.Name(path), kind(fi.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is more than %s, more than this tool reads: is it the right file?", text.Name(path), text.Bytes(max))
	}
	return data, nil
}

// ReadConfined is Read of one of a class's files: a link is followed only
// to a file within the directory that path names (a submission's own
// files, as an archive may hold them), never outside it (to another
// learner's file, or a secret of the grader's machine).
func ReadConfined(path string, max int64) ([]byte, error) {
	if err := confined(path); err != nil {
		return nil, err
	}
	return Read(path, max)
}

// confined returns an error if path resolves to a file outside the
// directory it names.
func confined(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return named(err)
	}
	if rel, err := filepath.Rel(dir, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s links to a file outside its directory: refused", text.Name(path))
	}
	return nil
}

// named returns err with the path it names escaped (see text.Name).
func named(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: text.Name(pe.Path), Err: pe.Err}
	}
	return err
}

// kind names what a file that is not a regular one is.
func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}
