package command

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "report.json")
	if err := os.WriteFile(existing, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckOut(existing, false); !errors.Is(err, ErrExists) {
		t.Errorf("checkOut(existing, false) = %v, want errExists", err)
	}
	if err := CheckOut(existing, true); err != nil {
		t.Errorf("checkOut(existing, true) = %v, want nil", err)
	}
	nested := filepath.Join(dir, "out", "deeper", "report.html")
	if err := CheckOut(nested, false); err != nil {
		t.Fatalf("checkOut(in a missing directory) = %v, want it made", err)
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
	if err := CheckOut(filepath.Join(file, "x.json"), false); err == nil {
		t.Error("checkOut(under a file) = nil, want an error")
	}
}

func TestWriteOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	if err := writeOut(path, func(w io.Writer) error { _, err := io.WriteString(w, "kill matrix\n"); return err }); err != nil {
		t.Fatalf("writeOut() = %v", err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "kill matrix\n" {
		t.Errorf("file = %q, %v; want the text written", got, err)
	}
	boom := errors.New("boom")
	if err := writeOut(path, func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("writeOut(failing) = %v, want the writer's error", err)
	}
}
