//go:build unix

package gotest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// listTests returns the tests that the test binary bin holds.
func listTests(t *testing.T, bin string) []string {
	t.Helper()
	out, err := exec.Command(bin, "-test.list", ".").Output()
	if err != nil {
		t.Fatalf("%s -test.list: %v", bin, err)
	}
	return strings.Fields(string(out))
}

// A kept binary is linked once and checked after that: an unchanged
// package gives the same file, a changed one a new link, and every build's
// output is a copy that holds the package as it was.
func TestBuild_KeptBinaryIsLinkedAgainOnlyAfterAChange(t *testing.T) {
	dir := writeModule(t, "package m\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {}\n")
	keep := filepath.Join(t.TempDir(), "bin", "k", "pkg.test")
	c := Compile{Dir: dir, Package: ".", Keep: keep}
	out := t.TempDir()
	build := func(name string) (string, os.FileInfo) {
		t.Helper()
		bin := filepath.Join(out, name)
		if err := c.Build(t.Context(), bin); err != nil {
			t.Fatalf("Build() error = %v", err)
		}
		info, err := os.Stat(keep)
		if err != nil {
			t.Fatalf("the kept binary: %v", err)
		}
		return bin, info
	}
	first, kept1 := build("1.test")
	second, kept2 := build("2.test")
	if !os.SameFile(kept1, kept2) {
		t.Error("an unchanged package was linked again")
	}
	if err := os.WriteFile(filepath.Join(dir, "two_test.go"), []byte("package m\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	third, kept3 := build("3.test")
	if os.SameFile(kept2, kept3) {
		t.Error("a changed package was not linked again")
	}
	for bin, want := range map[string][]string{first: {"TestOne"}, second: {"TestOne"}, third: {"TestOne", "TestTwo"}} {
		if got := listTests(t, bin); !slices.Equal(got, want) {
			t.Errorf("%s holds %v, want %v", filepath.Base(bin), got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(keep), "tmp")); !os.IsNotExist(err) {
		t.Errorf("the work directory of the kept binary is still there: %v", err)
	}
}

// A kept binary written over (its build ID kept, so go would trust it) is
// found by its content hash, linked again, and reported.
func TestBuild_KeptBinaryThatChangedIsLinkedAgain(t *testing.T) {
	dir := writeModule(t, "package m\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {}\n")
	keep := filepath.Join(t.TempDir(), "bin", "k", "pkg.test")
	var changed []string
	c := Compile{Dir: dir, Package: ".", Keep: keep, Changed: func(path string) { changed = append(changed, path) }}
	out := t.TempDir()
	if err := c.Build(t.Context(), filepath.Join(out, "1.test")); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(keep)
	if err != nil {
		t.Fatal(err)
	}
	// The same length, the build ID untouched: one byte near the end.
	poisoned := slices.Clone(good)
	poisoned[len(poisoned)-100] ^= 0xff
	if err := os.WriteFile(keep, poisoned, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := c.Build(t.Context(), filepath.Join(out, "2.test")); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(changed, []string{keep}) {
		t.Errorf("Changed saw %v, want [%s]", changed, keep)
	}
	again, err := os.ReadFile(filepath.Join(out, "2.test"))
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(good) {
		t.Error("the second build's binary is not the one first linked")
	}
}

// Builds that keep the same binary take turns, and each gets it whole.
func TestBuild_KeptBinaryTakesTurns(t *testing.T) {
	dir := writeModule(t, "package m\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {}\n")
	keep := filepath.Join(t.TempDir(), "k", "pkg.test")
	out := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() {
			errs[i] = Compile{Dir: dir, Package: ".", Keep: keep}.Build(t.Context(), filepath.Join(out, string(rune('a'+i))+".test"))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
		if got := listTests(t, filepath.Join(out, string(rune('a'+i))+".test")); !slices.Equal(got, []string{"TestOne"}) {
			t.Errorf("build %d holds %v, want [TestOne]", i, got)
		}
	}
}

// TrimKept keeps the most recently used binaries, and any that a build
// holds.
func TestTrimKept_KeepsTheNewestAndThoseInUse(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	for i, name := range []string{"newest", "older", "oldest", "busy"} {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(dir, "pkg.test")
		if err := os.WriteFile(bin, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin+".lock", nil, 0o644); err != nil {
			t.Fatal(err)
		}
		used := now.Add(-time.Duration(i) * time.Hour)
		if err := os.Chtimes(dir, used, used); err != nil {
			t.Fatal(err)
		}
	}
	busy, err := os.Open(filepath.Join(root, "busy", "pkg.test.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if err := syscall.Flock(int(busy.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if err := TrimKept(root, 2); err != nil {
		t.Fatalf("TrimKept() error = %v", err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{"busy", "newest", "older"}; !slices.Equal(left, want) {
		t.Fatalf("left %v, want %v", left, want)
	}
	if err := TrimKept(filepath.Join(root, "nothing"), 2); err != nil {
		t.Fatalf("TrimKept() of a missing directory: %v", err)
	}
}
