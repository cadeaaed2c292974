package modcopy

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCopy(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	files := map[string]string{"go.mod": "module m\n", "a/b.go": "package a\n", "run.sh": "#!/bin/sh\n", ".git/HEAD": "ref\n"}
	for name, body := range files {
		path := filepath.Join(src, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(src, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Copy(src, dst); err != nil {
		t.Fatalf("Copy() error = %v", err)
	}
	for _, name := range []string{"go.mod", "a/b.go", "run.sh"} {
		got, err := os.ReadFile(filepath.Join(dst, name))
		if err != nil || string(got) != files[name] {
			t.Errorf("%s = %q, %v; want %q", name, got, err, files[name])
		}
	}
	if fi, err := os.Stat(filepath.Join(dst, "run.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("run.sh lost its exec bit: %v, %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dst, ".git")); !os.IsNotExist(err) {
		t.Errorf(".git was copied: %v", err)
	}
}
