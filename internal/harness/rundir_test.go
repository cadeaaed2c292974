package harness

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The copy of a package directory holds its files and testdata, not the
// packages below it.
func TestCopyPackageDir_LeavesOutOtherPackages(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	for _, name := range []string{
		"p.go", "p_test.go", "notes.txt",
		"testdata/golden.txt", "testdata/mod/go.mod", "testdata/x/y.go",
		"fixtures/data.json",
		"sub/sub.go", "nested/go.mod", "nested/n.go", "vendor/v/v.go",
	} {
		path := filepath.Join(src, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := copyPackageDir(src, dst); err != nil {
		t.Fatalf("copyPackageDir() error = %v", err)
	}
	var got []string
	filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dst, path)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	want := []string{"fixtures/data.json", "notes.txt", "p.go", "p_test.go", "testdata/golden.txt", "testdata/mod/go.mod", "testdata/x/y.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("copied %v, want %v", got, want)
	}
}

// Messages name the sandbox's places by what they stand for.
func TestRunDir_CleanMessages(t *testing.T) {
	rd := &runDir{root: "/s/m/3", pkg: "/s/m/3/mod/lease", home: "/s/m/3/home", tmp: "/s/m/3/tmp"}
	for in, want := range map[string]string{
		"open /s/m/3/tmp/TestX123/001/jobs.db: no such file": "open $TMPDIR/TestX123/001/jobs.db: no such file",
		"read /s/m/3/mod/lease/testdata/g.txt":               "read testdata/g.txt",
		"cwd /s/m/3/mod/lease":                               "cwd .",
		"config /s/m/3/home/.config/x":                       "config $HOME/.config/x",
		"wrote /s/m/3/mod/x.db":                              "wrote $SANDBOX/mod/x.db",
		"nothing to clean":                                   "nothing to clean",
	} {
		if got := rd.clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}
