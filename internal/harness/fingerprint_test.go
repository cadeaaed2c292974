package harness

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A change of the module's files is found and named; a file touched but
// not changed is not a change.
func TestFingerprint_NamesEveryChange(t *testing.T) {
	root := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		path := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module m\n")
	write("p/p.go", "package p\n")
	write("p/p_test.go", "package p\n")
	write("p/testdata/golden.txt", "gold\n")
	write("README.md", "read me\n")
	f, err := takeFingerprint(root, filepath.Join(root, "p"))
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := f.changes(); err != nil || len(changed) != 0 {
		t.Fatalf("changes() of an untouched tree = %v, %v", changed, err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "README.md"), later, later); err != nil {
		t.Fatal(err)
	}
	write("p/p.go", "package p // changed\n")
	write("p/PWNED.txt", "pwned")
	if err := os.RemoveAll(filepath.Join(root, "p/testdata")); err != nil {
		t.Fatal(err)
	}
	changed, err := f.changes()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p/PWNED.txt (new)", "p/p.go (modified)", "p/testdata/golden.txt (removed)"}
	for i := range want {
		want[i] = filepath.FromSlash(want[i])
	}
	if !slices.Equal(changed, want) {
		t.Fatalf("changes() = %v, want %v", changed, want)
	}
}
