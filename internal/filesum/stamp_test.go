package filesum

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// A stamp tells an unchanged file from one that was written, even with
// its size and modification time put back, or replaced by another file
// of the same content; where it cannot tell (not Linux), it never says
// two are the same.
func TestStamp_ChangesWithEveryWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bin")
	if err := os.WriteFile(path, []byte("abcd"), 0o755); err != nil {
		t.Fatal(err)
	}
	before, err := StampOf(path)
	if err != nil {
		t.Fatal(err)
	}
	again, err := StampOf(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := before.Same(again), runtime.GOOS == "linux"; got != want {
		t.Fatalf("Same(unchanged) = %v, want %v", got, want)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // the change time moves on a clock tick
	if err := os.WriteFile(path, []byte("abce"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	written, err := StampOf(path)
	if err != nil {
		t.Fatal(err)
	}
	if before.Same(written) {
		t.Errorf("Same(written, size and modification time put back) = true, want false")
	}
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte("abce"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(other, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	replaced, err := StampOf(path)
	if err != nil {
		t.Fatal(err)
	}
	if written.Same(replaced) {
		t.Errorf("Same(replaced by another file) = true, want false")
	}
	if _, err := StampOf(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("StampOf(missing) error = %v, want not exist", err)
	}
}

// A link made to a file and removed again moves its change time only:
// SameExceptLinks still says it is the same, unchanged; Same does not. A
// write that changes its size or modification time, or another file in
// its place, is seen by both.
func TestStamp_SameExceptLinksSeesWritesButNotLinks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("stamps compare on Linux only")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "bin")
	before := writeStamped(t, path, "abcd")
	time.Sleep(10 * time.Millisecond) // the change time moves on a clock tick
	link := filepath.Join(dir, "link")
	if err := os.Link(path, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	linked := stampOf(t, path)
	if !before.SameExceptLinks(linked) || before.Same(linked) {
		t.Errorf("after a link made and removed: SameExceptLinks = %v, Same = %v; want true, false", before.SameExceptLinks(linked), before.Same(linked))
	}
	grown := writeStamped(t, path, "abcde")
	if before.SameExceptLinks(grown) {
		t.Errorf("SameExceptLinks(written, one byte longer) = true, want false")
	}
	time.Sleep(10 * time.Millisecond) // the modification time moves on a clock tick
	rewritten := writeStamped(t, path, "abcdf")
	if grown.SameExceptLinks(rewritten) {
		t.Errorf("SameExceptLinks(written, the same size) = true, want false")
	}
	other := filepath.Join(dir, "other")
	writeStamped(t, other, "abcdf")
	if err := os.Chtimes(other, rewritten.mtime, rewritten.mtime); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	if replaced := stampOf(t, path); rewritten.SameExceptLinks(replaced) {
		t.Errorf("SameExceptLinks(replaced by another file of the same size and time) = true, want false")
	}
}

// writeStamped writes data to path and returns its stamp.
func writeStamped(t *testing.T, path, data string) Stamp {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o755); err != nil {
		t.Fatal(err)
	}
	return stampOf(t, path)
}

func stampOf(t *testing.T, path string) Stamp {
	t.Helper()
	st, err := StampOf(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
