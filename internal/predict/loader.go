package predict

import (
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/fencelab/fencelab/internal/infile"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// Loader loads the prediction files of a class. An invalid file does not
// stop the others: it is set aside, with its problems, as long as one file
// is valid.
type Loader struct {
	Files   []string
	Partial bool // files may predict only some of the mutants
	// Invalid are the files set aside, and Problems their problems.
	Invalid  []Invalid
	Problems yamlfile.Errors
}

// Load loads every file, and returns the valid ones or every problem of
// every file.
func (lp *Loader) Load(known Known) ([]*File, error) {
	var pfs []*File
	for _, path := range lp.Files {
		f, err := Load(path, known, lp.Partial)
		if err != nil {
			lp.setAside(path, problemsOf(err))
			continue
		}
		pfs = append(pfs, f)
	}
	return lp.result(pfs)
}

// Recheck checks the files again with the full test names of a baseline.
func (lp *Loader) Recheck(pfs []*File, known Known) ([]*File, error) {
	var valid []*File
	for _, pf := range pfs {
		if errs := pf.Check(known, lp.Partial); len(errs) > 0 {
			lp.setAside(pf.Path, errs)
			continue
		}
		valid = append(valid, pf)
	}
	return lp.result(valid)
}

func (lp *Loader) setAside(path string, errs yamlfile.Errors) {
	inv := Invalid{File: path, Learner: learnerOf(path)}
	for _, e := range errs {
		inv.Problems = append(inv.Problems, e.Error())
	}
	lp.Invalid = append(lp.Invalid, inv)
	lp.Problems = append(lp.Problems, errs...)
}

func (lp *Loader) result(valid []*File) ([]*File, error) {
	if len(lp.Problems) > 0 && len(valid) == 0 {
		return nil, lp.Problems
	}
	return valid, nil
}

// NoneValid reports whether every file was set aside: the load failed
// for the files' problems alone.
func (lp *Loader) NoneValid() bool {
	return len(lp.Invalid) > 0 && len(lp.Invalid) >= len(lp.Files)
}

// problemsOf returns the problems of a file's error: its list, or itself.
func problemsOf(err error) yamlfile.Errors {
	var list yamlfile.Errors
	if errors.As(err, &list) {
		return list
	}
	return yamlfile.Errors{err}
}

// learnerLine is the learner's line of a prediction file, read as text.
var learnerLine = regexp.MustCompile(`(?m)^learner:[ \t]*["']?([^"'#\n]*?)["']?[ \t]*(?:#.*)?$`)

// learnerOf returns the learner that the file at path names, as far as it
// can be read: from its YAML, or, when that is not valid, from its
// learner: line; "" if neither says.
func learnerOf(path string) string {
	data, err := infile.ReadConfined(path, yamlfile.MaxSize)
	if err != nil || !utf8.Valid(data) {
		return ""
	}
	if root, err := yamlfile.Parse(path, data); err == nil && root.Kind() == "a mapping" {
		entries, _ := root.Entries()
		for _, e := range entries {
			if e.Key == "learner" {
				name, _ := e.Value.String()
				return name
			}
		}
		return ""
	}
	if m := learnerLine.FindSubmatch(data); m != nil {
		return strings.TrimSpace(string(m[1]))
	}
	return ""
}
