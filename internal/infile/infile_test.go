package infile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// What is not a regular file of at most the size asked is refused at once,
// each with why; a file of that size is read whole.
func TestRead_OnlyARegularFileOfBoundedSize(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo:                       "is not a regular file (a FIFO): refused",
		zero:                       "is not a regular file (a device): refused",
		dir:                        "is not a regular file (a directory): refused",
		write("big.yaml", 1025):    "is more than 1.0 KiB, more than this tool reads",
		filepath.Join(dir, "none"): "no such file or directory",
	} {
		if _, err := Read(path, 1024); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Read(%s) error = %v, want %q", filepath.Base(path), err, want)
		}
	}
	if data, err := Read(write("fits.yaml", 1024), 1024); err != nil || len(data) != 1024 {
		t.Errorf("Read(1024 bytes of 1024) = %d bytes, %v", len(data), err)
	}
}

// A class's file may link within its directory, never out of it.
func TestReadConfined_LinksStayInTheirDirectory(t *testing.T) {
	root := t.TempDir()
	class := filepath.Join(root, "class")
	if err := os.Mkdir(class, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(root, "secret")
	os.WriteFile(secret, []byte("alice:$6$salt$hash"), 0o600)
	os.WriteFile(filepath.Join(class, "real.yaml"), []byte("learner: ann\n"), 0o644)
	os.Symlink("real.yaml", filepath.Join(class, "within.yaml"))
	os.Symlink(secret, filepath.Join(class, "out.yaml"))
	os.Symlink("../secret", filepath.Join(class, "up.yaml"))
	if data, err := ReadConfined(filepath.Join(class, "within.yaml"), 1024); err != nil || string(data) != "learner: ann\n" {
		t.Errorf("ReadConfined(within) = %q, %v", data, err)
	}
	for _, name := range []string{"out.yaml", "up.yaml"} {
		data, err := ReadConfined(filepath.Join(class, name), 1024)
		if err == nil || !strings.Contains(err.Error(), "links to a file outside its directory: refused") || strings.Contains(err.Error(), "alice") {
			t.Errorf("ReadConfined(%s) = %q, %v; want refused, and nothing of the file", name, data, err)
		}
	}
}
