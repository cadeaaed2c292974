package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "report.json")
	if err := os.WriteFile(existing, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Check(existing, false); !errors.Is(err, ErrExists) {
		t.Errorf("Check(existing, false) = %v, want ErrExists", err)
	}
	if err := Check(existing, true); err != nil {
		t.Errorf("Check(existing, true) = %v, want nil", err)
	}
	nested := filepath.Join(dir, "out", "deeper", "report.html")
	if err := Check(nested, false); err != nil {
		t.Fatalf("Check(in a missing directory) = %v, want it made", err)
	}
	if fi, err := os.Stat(filepath.Dir(nested)); err != nil || !fi.IsDir() {
		t.Errorf("the directory of %s: %v, want it made", nested, err)
	}
	entries, err := os.ReadDir(filepath.Dir(nested))
	if err != nil || len(entries) != 0 {
		t.Errorf("left in the directory: %v (%v), want nothing", entries, err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Check(filepath.Join(file, "x.json"), false); err == nil {
		t.Error("Check(under a file) = nil, want an error")
	}
}

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "kill matrix\n"); return err }); err != nil {
		t.Fatalf("Write() = %v", err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "kill matrix\n" {
		t.Errorf("file = %q, %v; want the text written", got, err)
	}
	boom := errors.New("boom")
	if err := Write(path, func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("Write(failing) = %v, want the writer's error", err)
	}
}
