package course

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/command"
	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/handout"
	"github.com/fencelab/fencelab/internal/text"
)

const handoutSummary = `Write the repository that learners get for the exercise into DIR, a new
directory: the module's files that git tracks, without the model answer (the
prediction file that the catalog's report section names), with the worksheet
in place of the report document (each step's contract and fragment, and the
closing questions), without the tests of every package but the exercise's
(they name the answers) and without the instructor's CI, with a GitHub
Classroom workflow that grades each push. Push DIR as the assignment's
template repository; in it, go test ./... and go tool mutate list, show,
template and check work.

-tests FILE writes the tests assignment instead: the exercise's package
without its own tests, with FILE, a starter test file with a worked example,
beside it, and a worksheet that asks for tests by each step's contract. The
chaffs and wheats stay with you: the hand-out holds no mutants file (its
catalog says withheld: true), no docs and a README of its own; there, go
tool mutate check FILE_test.go checks a file and runs it on the package, and
your copy of the exercise grades it (docs/course.md).

-gradescope FILE.zip writes the autograder's zip of the assignment for
Gradescope instead (of the tests assignment with -tests): this module as
git tracks it, the grader's, with setup.sh and run_autograder at its root
(docs/gradescope shows both recipes), and the starter in .autograder/.
Upload it as the assignment's autograder.`

func Handout(ctx context.Context, c *command.Call, args []string) error {
	fs := command.NewFlagSet(c, "-o DIR | -gradescope FILE.zip [flags]", handoutSummary)
	var files command.Files
	fs.Var(&files, "mutants", "the exercise's mutants file (repeatable; default: the module's "+exercise.Catalog+")")
	out := fs.String("o", "", "write the hand-out into `dir`, which must not exist or be empty")
	gradescope := fs.String("gradescope", "", "write the autograder's zip for Gradescope to `file` instead (FILE.zip)")
	var opt handout.Options
	fs.StringVar(&opt.Starter, "tests", "", "write the tests assignment, with this starter test `file` (FILE_test.go) in the exercise's package")
	if err := command.ParseFlagsOnly(fs, args); err != nil {
		return err
	}
	switch {
	case *out == "" && *gradescope == "":
		return command.Usagef(fs, "no -o DIR: where the hand-out goes (or -gradescope FILE.zip, the autograder's zip)")
	case *out != "" && *gradescope != "":
		return command.Usagef(fs, "-o writes the hand-out and -gradescope the autograder's zip: one at a time")
	case *gradescope != "" && !strings.HasSuffix(*gradescope, ".zip"):
		return command.Usagef(fs, "-gradescope %s: want a zip file, FILE.zip", *gradescope)
	}
	if opt.Starter != "" && !strings.HasSuffix(opt.Starter, "_test.go") {
		return command.Usagef(fs, "-tests %s: want a Go test file, FILE_test.go", opt.Starter)
	}
	set, err := exercise.Find(".", files)
	if err != nil {
		return err
	}
	if set.Withheld {
		return exercise.ErrWithheld
	}
	if *gradescope != "" {
		return gradescopeZip(c, set, *gradescope, opt)
	}
	left, wrote, err := handout.Write(set, *out, opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stderr, "mutate: wrote %s, the hand-out; left out %s: %s; wrote %s\n",
		*out, text.Count(len(left), "path", "paths"), summarize(left, 6), strings.Join(wrote, ", "))
	return nil
}

// summarize lists the first n of paths, and counts the rest.
func summarize(paths []string, n int) string {
	if len(paths) <= n {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:n], ", ") + fmt.Sprintf(" and %d more", len(paths)-n)
}

// gradescopeZip writes the autograder's zip of the assignment that opt
// chooses to path.
func gradescopeZip(c *command.Call, set *exercise.Set, path string, opt handout.Options) error {
	if err := command.CheckOut(path, true); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mutate-zip-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	n, err := handout.GradescopeZip(set, tmp, opt)
	if cerr := tmp.Chmod(0o644); err == nil {
		err = cerr
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	what := "the predictions assignment's"
	if opt.Starter != "" {
		what = "the tests assignment's"
	}
	fmt.Fprintf(c.Stderr, "mutate: wrote %s, %s autograder for Gradescope: %s, setup.sh and run_autograder at its root; upload it as the assignment's autograder (docs/course.md)\n",
		path, what, text.Count(n, "file", "files"))
	return nil
}
