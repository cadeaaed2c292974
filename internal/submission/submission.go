// Package submission finds the file to grade in what a learner handed in,
// as learners hand it in: a prediction file at the top, under the one
// folder a zip of a folder holds, in a subfolder, or a whole repository's
// predictions/; a test file anywhere. And it reads who handed it in from
// Gradescope's submission metadata.
//
// A submission is a learner's: it may hold thousands of files, links and
// FIFOs. Find never follows a link, reads no file, and walks at most
// 10000 entries, maxDepth folders deep; a link or a FIFO with a
// candidate's name is a candidate, which the grade then refuses, saying
// why.
package submission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/infile"
	"github.com/fencelab/fencelab/internal/text"
)

// Kind is what a submission holds: the assignment's file.
type Kind int

const (
	// Predictions is a prediction file, NAME.yaml or NAME.yml.
	Predictions Kind = iota
	// Tests is a Go test file, NAME_test.go.
	Tests
)

// Limits of a walk of a submission: it looks at most maxEntries files and
// folders, maxDepth folders deep.
const maxDepth = 8

var maxEntries = 10000

// ErrTooLarge is the error of Find in a submission of too many files: the
// learner's to fix.
var ErrTooLarge = errors.New("too many files and folders")

// Found is what Find found in a submission.
type Found struct {
	// Files are the candidates, paths under the submission's directory,
	// in lexical order.
	Files []string
	// Others are some of the other files the submission holds (at most 5;
	// of a repository, in its predictions/), for a message when there is
	// no candidate.
	Others []string
}

// Find returns the candidates of kind in the submission at dir. A
// submission with a predictions/ folder (a repository: at the top, or
// under one folder) is graded by the prediction files directly in it;
// one without, by every prediction file it holds. A test file is one
// anywhere. Folders whose names begin with a dot (.git, .github) and
// __MACOSX, which macOS adds to a zip, are not looked in.
func Find(dir string, kind Kind) (*Found, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory: -submission names the folder that holds what the learner handed in", text.Name(dir))
	}
	var files, others, predDirs []string
	entries := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if entries++; entries > maxEntries {
			return fmt.Errorf("%w: the submission holds more than %d: hand in your file, or your repository", ErrTooLarge, maxEntries)
		}
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			name := d.Name()
			if strings.HasPrefix(name, ".") || name == "__MACOSX" || strings.Count(rel, string(filepath.Separator)) >= maxDepth {
				return filepath.SkipDir
			}
			if name == "predictions" {
				predDirs = append(predDirs, rel)
			}
			return nil
		}
		if candidate(d.Name(), kind) {
			files = append(files, rel)
		} else {
			others = append(others, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	f := &Found{Files: files, Others: others}
	if kind == Predictions {
		if len(predDirs) > 0 {
			// A repository: its predictions/ folder, the shallowest.
			slices.SortFunc(predDirs, func(a, b string) int { return depth(a) - depth(b) })
			top := depth(predDirs[0])
			outside := func(p string) bool {
				d := filepath.Dir(p)
				return !slices.Contains(predDirs, d) || depth(d) != top
			}
			f.Files = slices.DeleteFunc(f.Files, outside)
			f.Others = slices.DeleteFunc(f.Others, outside)
		}
	}
	slices.Sort(f.Files)
	f.Others = f.Others[:min(len(f.Others), 5)]
	return f, nil
}

// depth is how many folders deep rel is.
func depth(rel string) int { return strings.Count(rel, string(filepath.Separator)) }

// candidate reports whether a file named name is one of kind.
func candidate(name string, kind Kind) bool {
	if kind == Tests {
		return strings.HasSuffix(name, "_test.go") && name != "_test.go"
	}
	ext := filepath.Ext(name)
	return (ext == ".yaml" || ext == ".yml") && len(name) > len(ext)
}

// describe names the file of kind, for a message.
func describe(kind Kind) string {
	if kind == Tests {
		return "test file (NAME_test.go)"
	}
	return "prediction file (NAME.yaml or NAME.yml)"
}

// Describe says, for the learner, what became of a submission with no
// candidate or several (found's): what to hand in; "" with one.
func (f *Found) Describe(kind Kind) string {
	switch len(f.Files) {
	case 1:
		return ""
	case 0:
		msg := "Not graded: no " + describe(kind) + " was handed in"
		if len(f.Others) > 0 {
			msg += " (the submission holds " + quoteAll(f.Others) + ")"
		} else {
			msg += " (the submission is empty)"
		}
		if kind == Tests {
			return msg + ". Hand in your test file, NAME_test.go, alone or in your repository."
		}
		return msg + ". Hand in your prediction file, NAME.yaml (go tool mutate template prints one to fill in), alone or in your repository's predictions/ folder."
	}
	if kind == Tests {
		return fmt.Sprintf("Not graded: %d test files were handed in (%s), and a grade is for one: keep your tests in one file and remove the others.",
			len(f.Files), quoteAll(f.Files))
	}
	return fmt.Sprintf("Not graded: %d prediction files were handed in (%s), and a grade is for one: keep your predictions in one file and remove the others.",
		len(f.Files), quoteAll(f.Files))
}

// quoteAll lists paths, each as a line shows it.
func quoteAll(paths []string) string {
	var q []string
	for _, p := range paths {
		q = append(q, text.Name(filepath.ToSlash(p)))
	}
	return strings.Join(q, ", ")
}

// Users are who handed a submission in, as Gradescope's
// submission_metadata.json says (its users: several for a group).
type Users []User

// User is one of them.
type User struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	SID   string `json:"sid"`
}

// String names the users: "Ann Lee <ann@example.edu> (sid 123)", joined
// by ", ".
func (us Users) String() string {
	var names []string
	for _, u := range us {
		n := u.Name
		if u.Email != "" {
			n = strings.TrimSpace(n + " <" + u.Email + ">")
		}
		if u.SID != "" {
			n = strings.TrimSpace(n + " (sid " + u.SID + ")")
		}
		if n != "" {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// maxMetadataSize is the most of a metadata file read.
const maxMetadataSize = 1 << 20

// ReadMetadata returns who handed the submission in, from Gradescope's
// submission metadata at path (https://gradescope-autograders.readthedocs.io/en/latest/submission_metadata/):
// its users, each with a name and an email, and the sid a course's roster
// may give. A file that holds no user is an error, as is one that is not
// JSON.
func ReadMetadata(path string) (Users, error) {
	data, err := infile.Read(path, maxMetadataSize)
	if err != nil {
		return nil, err
	}
	var md struct {
		Users []struct {
			Name  string `json:"name"`
			Email string `json:"email"`
			SID   any    `json:"sid"`
		} `json:"users"`
	}
	if err := json.Unmarshal(data, &md); err != nil {
		return nil, fmt.Errorf("%s: not Gradescope's submission metadata: %v", text.Name(path), err)
	}
	var us Users
	for _, u := range md.Users {
		sid := ""
		switch v := u.SID.(type) {
		case string:
			sid = v
		case float64:
			sid = fmt.Sprint(int64(v))
		}
		us = append(us, User{Name: oneLine(u.Name), Email: oneLine(u.Email), SID: oneLine(sid)})
	}
	if us.String() == "" {
		return nil, errors.New(text.Name(path) + ": the submission metadata names no user")
	}
	return us, nil
}

// oneLine is s on one line, at most 200 bytes.
func oneLine(s string) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	return string(r[:min(len(r), 200)])
}
