package submission

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// tree makes the files of paths under a new directory (a path ending in
// / is a folder), and returns it.
func tree(t *testing.T, paths ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Submissions as learners make them: the file alone, .yml, under the one
// folder a zip of a folder holds, in a subfolder, a whole repository
// (its predictions/, not its catalog or its workflow), a repository
// zipped under one folder; for tests, the one _test.go anywhere.
func TestFind_SubmissionsAsLearnersMakeThem(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kind  Kind
		paths []string
		want  []string
	}{
		{"one file", Predictions, []string{"ann.yaml"}, []string{"ann.yaml"}},
		{"yml", Predictions, []string{"ann.yml", "notes.txt"}, []string{"ann.yml"}},
		{"one top folder", Predictions, []string{"fencelab-main/ann.yaml"}, []string{"fencelab-main/ann.yaml"}},
		{"a subfolder", Predictions, []string{"work/mine/ann.yaml", "README.md"}, []string{"work/mine/ann.yaml"}},
		{"a repository", Predictions, []string{"go.mod", "mutants/catalog.yaml", ".github/workflows/classroom.yml", "predictions/README.md", "predictions/ann.yaml"}, []string{"predictions/ann.yaml"}},
		{"a zipped repository", Predictions, []string{"repo/go.mod", "repo/mutants/catalog.yaml", "repo/predictions/ann.yml", "__MACOSX/repo/predictions/._ann.yml"}, []string{"repo/predictions/ann.yml"}},
		{"two files", Predictions, []string{"a.yaml", "sub/b.yml"}, []string{"a.yaml", "sub/b.yml"}},
		{"nothing", Predictions, []string{"notes.txt"}, nil},
		{"a test file", Tests, []string{"repo/lease/lease.go", "repo/lease/mine_test.go", "repo/go.mod"}, []string{"repo/lease/mine_test.go"}},
		{"a test file alone", Tests, []string{"mine_test.go"}, []string{"mine_test.go"}},
		{"no test file", Tests, []string{"mine.go", "_test.go"}, nil},
	} {
		got, err := Find(tree(t, tc.paths...), tc.kind)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var rel []string
		for _, f := range got.Files {
			rel = append(rel, filepath.ToSlash(f))
		}
		if !slices.Equal(rel, tc.want) {
			t.Errorf("%s: Find = %q, want %q", tc.name, rel, tc.want)
		}
	}
}

// A grade of 0 says what was found, and what to hand in.
func TestFound_Describe(t *testing.T) {
	for _, tc := range []struct {
		kind  Kind
		paths []string
		want  string
	}{
		{Predictions, []string{"a.yaml", "sub/b.yml"}, "Not graded: 2 prediction files were handed in (a.yaml, sub/b.yml), and a grade is for one: keep your predictions in one file and remove the others."},
		{Predictions, []string{"notes.txt"}, "Not graded: no prediction file (NAME.yaml or NAME.yml) was handed in (the submission holds notes.txt). Hand in your prediction file, NAME.yaml (go tool mutate template prints one to fill in), alone or in your repository's predictions/ folder."},
		{Predictions, nil, "Not graded: no prediction file (NAME.yaml or NAME.yml) was handed in (the submission is empty)."},
		{Predictions, []string{".gitignore", "go.mod", "lease/lease.go", "predictions/README.md"}, "Not graded: no prediction file (NAME.yaml or NAME.yml) was handed in (the submission holds predictions/README.md)."},
		{Tests, []string{"a_test.go", "lease/b_test.go"}, "Not graded: 2 test files were handed in (a_test.go, lease/b_test.go), and a grade is for one: keep your tests in one file and remove the others."},
		{Tests, []string{"x.go"}, "Not graded: no test file (NAME_test.go) was handed in (the submission holds x.go). Hand in your test file, NAME_test.go, alone or in your repository."},
		{Tests, []string{"a_test.go"}, ""},
	} {
		f, err := Find(tree(t, tc.paths...), tc.kind)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Describe(tc.kind); !strings.HasPrefix(got, tc.want) || tc.want == "" && got != "" {
			t.Errorf("Describe(%q) = %q, want %q", tc.paths, got, tc.want)
		}
	}
}

// A learner's submission is walked, never followed or read: a link to a
// secret with a candidate's name is a candidate (which the grade then
// refuses), a link to a folder is not entered, a FIFO does not block, and
// a submission of too many files is an error.
func TestFind_HostileSubmissions(t *testing.T) {
	dir := tree(t, "secret/")
	if err := os.Symlink("/etc/shadow", filepath.Join(dir, "ann.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(dir, "etc")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "secret", "fifo.yml"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Find(dir, Predictions)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ann.yaml", filepath.Join("secret", "fifo.yml")}; !slices.Equal(f.Files, want) {
		t.Errorf("Find = %q, want %q: the link and the FIFO, and nothing under the linked folder", f.Files, want)
	}

	defer func(n int) { maxEntries = n }(maxEntries)
	maxEntries = 50
	many := t.TempDir()
	for i := range maxEntries {
		if err := os.WriteFile(filepath.Join(many, strconv.Itoa(i)+".txt"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Find(many, Predictions); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "the submission holds more than 50") {
		t.Errorf("Find(%d files) = %v, want an error", maxEntries, err)
	}
	if _, err := Find(filepath.Join(dir, "ann.yaml"), Predictions); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("Find(a file) = %v, want an error", err)
	}
}

// Who handed a submission in, from Gradescope's metadata: each user's
// name, email and sid, a group's joined; a file that names no one, or is
// not JSON, is an error.
func TestReadMetadata(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "submission_metadata.json")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	us, err := ReadMetadata(write(`{"id": 123456, "users": [{"email": "ann@example.edu", "id": 1234, "name": "Ann Lee", "sid": "s-42"}, {"email": "bo@example.edu", "name": "Bo\nRen", "sid": 7}], "assignment": {"title": "fencelab"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := us.String(), "Ann Lee <ann@example.edu> (sid s-42), Bo Ren <bo@example.edu> (sid 7)"; got != want {
		t.Errorf("users = %q, want %q", got, want)
	}
	for _, bad := range []string{`{"users": []}`, `{"users": [{"id": 1}]}`, `not json`} {
		if _, err := ReadMetadata(write(bad)); err == nil {
			t.Errorf("ReadMetadata(%s) = nil error, want one", bad)
		}
	}
}
