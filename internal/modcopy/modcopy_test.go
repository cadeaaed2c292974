package modcopy

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// Tracked copies what git tracks, with the working tree's edits, and
// nothing else: not an untracked learner's file, not an ignored one.
func TestTracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	src, dst := t.TempDir(), t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, body string) {
		t.Helper()
		path := filepath.Join(src, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write(".gitignore", "*.out\n")
	write("go.mod", "module m\n")
	write("a/b.go", "package a\n")
	write("gone.go", "package m\n")
	git("add", ".")
	write("a/b.go", "package a // edited\n")
	write("predictions/alice.yaml", "learner: alice\n")
	write("x.out", "ignored\n")
	if err := os.Remove(filepath.Join(src, "gone.go")); err != nil {
		t.Fatal(err)
	}
	if err := Tracked(src, dst); err != nil {
		t.Fatalf("Tracked() error = %v", err)
	}
	var got []string
	filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dst, path)
			data, _ := os.ReadFile(path)
			got = append(got, filepath.ToSlash(rel)+"="+string(data))
		}
		return err
	})
	want := []string{".gitignore=*.out\n", "a/b.go=package a // edited\n", "go.mod=module m\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("copied %q, want %q", got, want)
	}
}

// CopyIf leaves out what keep refuses: a file, or a directory whole.
func TestCopyIf_LeavesOutWhatKeepRefuses(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	for _, name := range []string{"a.go", "a_test.go", "sub/b.go", "testdata/fuzz/F/x", "testdata/in.txt"} {
		path := filepath.Join(src, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var asked []string
	err := CopyIf(src, dst, func(rel string, d fs.DirEntry) bool {
		asked = append(asked, rel)
		return rel != "a_test.go" && rel != "sub" && rel != "testdata/fuzz"
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dst, path)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if want := "a.go,testdata/in.txt"; strings.Join(got, ",") != want {
		t.Errorf("copied %v, want %s", got, want)
	}
	if strings.Contains(strings.Join(asked, ","), "sub/b.go") || strings.Contains(strings.Join(asked, ","), "testdata/fuzz/F") {
		t.Errorf("asked of %v: nothing below a directory left out", asked)
	}
}
