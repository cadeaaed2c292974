package cli

import (
	"context"
	"fmt"
	"strings"

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
your copy of the exercise grades it (docs/course.md).`

func handoutCmd(ctx context.Context, c *call, args []string) error {
	fs := newFlagSet(c, "-o DIR [flags]", handoutSummary)
	var files files
	fs.Var(&files, "mutants", "the exercise's mutants file (repeatable; default: the module's "+exercise.Catalog+")")
	out := fs.String("o", "", "write the hand-out into `dir`, which must not exist or be empty")
	var opt handout.Options
	fs.StringVar(&opt.Starter, "tests", "", "write the tests assignment, with this starter test `file` (FILE_test.go) in the exercise's package")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef(fs, "no -o DIR: where the hand-out goes")
	}
	if opt.Starter != "" && !strings.HasSuffix(opt.Starter, "_test.go") {
		return usagef(fs, "-tests %s: want a Go test file, FILE_test.go", opt.Starter)
	}
	set, err := exercise.Find(".", files)
	if err != nil {
		return err
	}
	if set.Withheld {
		return exercise.ErrWithheld
	}
	left, wrote, err := handout.Write(set, *out, opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "mutate: wrote %s, the hand-out; left out %s: %s; wrote %s\n",
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
