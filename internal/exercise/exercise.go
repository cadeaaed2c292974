// Package exercise reads what makes a module an exercise: files of
// mutants, each naming the package it mutates. The tool knows no exercise
// by name; it knows where to look.
//
// A mutants file, the catalog and any other, is YAML:
//
//	package: ./stock                 # the package to mutate, from the module root
//	report:                          # optional: what `mutate report` regenerates
//	  file: REPORT.md
//	  mutants: [mutants/more.yaml]
//	  predictions: predictions/model.yaml
//	worksheet:                       # optional: the exercise's closing questions
//	  - id: earlier-steps            # lower-case letters, digits, '-'
//	    question: Why do the earlier steps' tests still hold in later steps?
//	tests:                           # optional: what learners' test files may be (check FILE_test.go)
//	  package: external              # external (stock_test, the default), internal (stock) or either
//	  imports: [encoding/csv]        # packages they may import beside the standard ones allowed
//	mutants:
//	  - id: take-boundary            # lower-case letters, digits, '-'
//	    step: 4                      # optional, as are title, contract,
//	    title: ...                   # rationale, seed, question and points
//	    target: Stock.Take           # a function, Type.Method, or package-level const or var
//	    kind: expr                   # expr, stmt, body or string
//	    find: n <= s.count
//	    replace: n < s.count
//	    occurrence: 2                # optional: which match, when find matches more than once
//	    line: 226                    # optional: the match on this line
//
// A module's catalog is mutants/catalog.yaml at its root: what mutate
// reads when no file is named. Every problem of a file is reported at once,
// each at its file:line:col.
//
// The catalog of a tests assignment's hand-out has "withheld: true" in
// place of its mutants: they are the chaffs, which stay with the grader.
// It names the package, and what learners' test files may be, so that
// check FILE_test.go can check a file and run it on the package.
package exercise

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// Catalog is where a module keeps its catalog, from its root.
const Catalog = "mutants/catalog.yaml"

// WheatsFile is the name of the file of the wheats, beside the catalog:
// correct alternatives to the package, in the form of mutants, which a
// learner's tests must pass (check FILE_test.go).
const WheatsFile = "wheats.yaml"

// errNoModule is returned by FindRoot outside a Go module.
var errNoModule = errors.New("not in a Go module: no go.mod here or in any directory above")

// FindRoot returns the root of the module that holds dir: the nearest
// directory at or above it with a go.mod.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if info, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !info.IsDir() {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%s: %w", dir, errNoModule)
		}
		d = parent
	}
}

// File is one mutants file.
type File struct {
	Path    string // as given
	Package string // the package it mutates, relative to the module root ("./stock"); "" if it names none
	Report  *Report
	// Worksheet are the exercise's closing questions, which a prediction
	// file answers beside its predictions.
	Worksheet []Question
	Mutants   []*mutation.Mutant
	// Tests says what learners' test files may be; nil for the default.
	Tests *Tests
	// Withheld says that the file's mutants stay with the grader: it has
	// none (a tests assignment's hand-out).
	Withheld bool
	// Story is the document that tells the exercise's story (its source,
	// its steps, its closing questions), relative to the module root; ""
	// for none.
	Story string

	packageAt, storyAt yamlfile.Pos
}

// Tests says what a learner's test file of the exercise may be, in the
// tests assignment.
type Tests struct {
	// Package is the package clause a learner's file may declare.
	Package TestPackage
	// Imports are the packages it may import besides the standard ones
	// that a contract test needs.
	Imports []string
	// Chaffs is the mutants file of the tests assignment's own chaffs,
	// relative to the module root: check FILE_test.go grades against it
	// instead of the catalog, whose mutants the predictions hand-out ships
	// (so a cohort can do both assignments). "" for the catalog's.
	Chaffs string

	chaffsAt yamlfile.Pos
}

// TestPackage is the package a learner's test file may be in.
type TestPackage string

// The packages a learner's test file may be in: the external test package
// (lease_test), which sees the exercise's public API alone; the package
// itself (lease), which sees its unexported names too; or either.
const (
	External TestPackage = "external"
	Internal TestPackage = "internal"
	Either   TestPackage = "either"
)

// ErrWithheld is the error of a command that needs the mutants of a
// withheld catalog.
var ErrWithheld = errors.New("the mutants of this exercise are withheld: it is a tests assignment, whose chaffs stay with the grader; go tool mutate check FILE_test.go checks a test file and runs it on the package")

// Report says what `mutate report` regenerates from a run of a catalog.
// Its paths are relative to the module root.
type Report struct {
	File        string   // the document with generated blocks, such as REPORT.md
	Mutants     []string // more mutants files that the report runs beside the catalog
	Predictions string   // a prediction file that the report scores, or ""
}

// Question is a question of an exercise's worksheet: what a learner
// answers in words, read by the instructor, never graded.
type Question struct {
	ID       string `json:"id"`
	Question string `json:"question"`
}

// fields are the keys of a mutant, in the order they are documented.
var fields = []string{"id", "step", "title", "contract", "rationale", "seed", "question", "points", "target", "kind", "find", "replace", "occurrence", "line"}

// required are the fields every mutant must give.
var required = []string{"id", "target", "kind", "find", "replace"}

// LoadFile reads a mutants file. Its error is a yamlfile.Errors with every
// problem of the file, each at its position.
func LoadFile(path string) (*File, error) {
	root, err := yamlfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path}
	var errs yamlfile.Errors
	if root.Kind() != "a mapping" {
		return nil, yamlfile.Errors{root.Errorf("a mutants file is a mapping with \"package:\" and \"mutants:\", got %s", root.Kind())}
	}
	top, dups := root.Entries()
	errs = append(errs, dups...)
	if err := yamlfile.CheckKeys(top, "a mutants file", "package", "story", "report", "worksheet", "tests", "withheld", "mutants"); err != nil {
		errs = append(errs, err)
	}
	found := false
	for _, e := range top {
		switch e.Key {
		case "package":
			if f.Package, err = e.Value.String(); err != nil {
				errs = append(errs, e.Value.Errorf("package must be a directory, such as ./stock, got %s", e.Value.Kind()))
			}
			f.Package = normalizePackage(f.Package)
			f.packageAt = e.Value.Pos()
		case "story":
			if f.Story, err = e.Value.String(); err != nil || !inModule(f.Story) {
				errs = append(errs, e.Value.Errorf("story must be a document of the module, such as docs/exercise.md, relative to its root"))
			}
			f.storyAt = e.Value.Pos()
		case "report":
			r, rerrs := decodeReport(e.Value)
			f.Report = r
			errs = append(errs, rerrs...)
		case "worksheet":
			var werrs yamlfile.Errors
			f.Worksheet, werrs = decodeWorksheet(e.Value)
			errs = append(errs, werrs...)
		case "tests":
			var terrs yamlfile.Errors
			f.Tests, terrs = decodeTests(e.Value)
			errs = append(errs, terrs...)
		case "withheld":
			if f.Withheld, err = e.Value.Bool(); err != nil {
				errs = append(errs, err)
			}
			if f.Withheld && found {
				errs = append(errs, e.KeyAt.Errorf("withheld: true says the file has no mutants, and it has a list under \"mutants:\": keep one"))
			}
		case "mutants":
			found = true
			ms, merrs := decodeMutants(e)
			f.Mutants = ms
			errs = append(errs, merrs...)
			if f.Withheld {
				errs = append(errs, e.KeyAt.Errorf("the file says withheld: true, and has a list under \"mutants:\": keep one"))
			}
		}
	}
	if !found && !f.Withheld {
		errs = append(errs, root.Errorf("no mutants: the file needs a list under \"mutants:\""))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return f, nil
}

// normalizePackage writes a package directory as go does: "./stock".
func normalizePackage(p string) string {
	if p == "" || p == "." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		return p
	}
	return "./" + p
}

// decodeTests reads what learners' test files may be.
func decodeTests(n yamlfile.Node) (*Tests, yamlfile.Errors) {
	if n.Kind() != "a mapping" {
		return nil, yamlfile.Errors{n.Errorf("tests must be a mapping with package, imports and chaffs, got %s", n.Kind())}
	}
	entries, errs := n.Entries()
	if err := yamlfile.CheckKeys(entries, "tests", "package", "imports", "chaffs"); err != nil {
		errs = append(errs, err)
	}
	t := &Tests{Package: External}
	for _, e := range entries {
		switch e.Key {
		case "package":
			s, err := e.Value.String()
			switch p := TestPackage(s); {
			case err != nil:
				errs = append(errs, err)
			case p == External || p == Internal || p == Either:
				t.Package = p
			default:
				errs = append(errs, e.Value.Errorf("tests package %q: want external (the package's _test package), internal (the package itself) or either", s))
			}
		case "imports":
			items, err := e.Value.Seq()
			if err != nil {
				errs = append(errs, err)
				continue
			}
			for _, item := range items {
				path, err := item.String()
				if err == nil && !validImportPath(path) {
					err = item.Errorf("import %q is not an import path, such as encoding/csv", path)
				}
				if err != nil {
					errs = append(errs, err)
					continue
				}
				t.Imports = append(t.Imports, path)
			}
		case "chaffs":
			var err error
			t.Chaffs, err = e.Value.String()
			if err != nil || !inModule(t.Chaffs) {
				errs = append(errs, e.Value.Errorf("chaffs must be a mutants file of the module, such as mutants/chaffs.yaml, relative to its root"))
			}
			t.chaffsAt = e.Value.Pos()
		}
	}
	return t, errs
}

// inModule reports whether p is written as a path in the module: relative,
// and not above its root.
func inModule(p string) bool {
	return p != "" && !filepath.IsAbs(p) && !strings.HasPrefix(filepath.ToSlash(filepath.Clean(p)), "..")
}

// validImportPath reports whether path is written as an import path: no
// space, quote, backslash or leading slash, no empty or dot element.
func validImportPath(path string) bool {
	if path == "" || strings.ContainsAny(path, " \t\\\"'`") || strings.HasPrefix(path, "/") {
		return false
	}
	for elem := range strings.SplitSeq(path, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
	}
	return true
}

func decodeReport(n yamlfile.Node) (*Report, yamlfile.Errors) {
	entries, errs := n.Entries()
	if n.Kind() != "a mapping" {
		return nil, yamlfile.Errors{n.Errorf("report must be a mapping with file, mutants and predictions, got %s", n.Kind())}
	}
	if err := yamlfile.CheckKeys(entries, "report", "file", "mutants", "predictions"); err != nil {
		errs = append(errs, err)
	}
	r := &Report{}
	for _, e := range entries {
		var err error
		switch e.Key {
		case "file":
			r.File, err = e.Value.String()
		case "predictions":
			r.Predictions, err = e.Value.String()
		case "mutants":
			var items []yamlfile.Node
			if items, err = e.Value.Seq(); err == nil {
				for _, item := range items {
					s, err := item.String()
					if err != nil {
						errs = append(errs, err)
						continue
					}
					r.Mutants = append(r.Mutants, s)
				}
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if r.File == "" && len(errs) == 0 {
		errs = append(errs, n.Errorf("report needs a file: the document whose generated blocks mutate report rewrites"))
	}
	return r, errs
}

// decodeWorksheet reads a worksheet: a list of questions, each with an id
// and the question.
func decodeWorksheet(n yamlfile.Node) ([]Question, yamlfile.Errors) {
	items, err := n.Seq()
	if err != nil {
		return nil, yamlfile.Errors{n.Errorf("worksheet must be a list of questions, each with an id and a question, got %s", n.Kind())}
	}
	var (
		qs   []Question
		errs yamlfile.Errors
		seen = map[string]int{}
	)
	for _, item := range items {
		if item.Kind() != "a mapping" {
			errs = append(errs, item.Errorf("a question of the worksheet is a mapping with id and question, got %s", item.Kind()))
			continue
		}
		entries, eerrs := item.Entries()
		errs = append(errs, eerrs...)
		if err := yamlfile.CheckKeys(entries, "a question", "id", "question"); err != nil {
			errs = append(errs, err)
		}
		var q Question
		for _, e := range entries {
			var err error
			switch e.Key {
			case "id":
				if q.ID, err = e.Value.String(); err == nil && !mutation.ValidID(q.ID) {
					err = e.Value.Errorf("question id %q: use lower-case letters, digits and '-'", q.ID)
				}
				if first, dup := seen[q.ID]; dup && err == nil {
					err = e.Value.Errorf("question %s: duplicate id (first at line %d)", q.ID, first)
				}
				seen[q.ID] = e.Value.Pos().Line
			case "question":
				q.Question, err = e.Value.String()
				q.Question = strings.TrimSpace(q.Question)
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
		if q.ID == "" || q.Question == "" {
			errs = append(errs, item.Errorf("a question of the worksheet needs an id and a question"))
			continue
		}
		qs = append(qs, q)
	}
	return qs, errs
}

func decodeMutants(e yamlfile.Entry) ([]*mutation.Mutant, yamlfile.Errors) {
	items, err := e.Value.Seq()
	if err != nil {
		return nil, yamlfile.Errors{e.Value.Errorf("mutants must be a list, got %s", e.Value.Kind())}
	}
	if len(items) == 0 {
		return nil, yamlfile.Errors{e.KeyAt.Errorf("the list of mutants is empty")}
	}
	var (
		ms   []*mutation.Mutant
		errs yamlfile.Errors
		seen = map[string]yamlfile.Pos{}
	)
	for _, item := range items {
		m, merrs := decodeMutant(item)
		errs = append(errs, merrs...)
		if m == nil {
			continue
		}
		if first, dup := seen[m.ID]; dup && m.ID != "" {
			errs = append(errs, &yamlfile.Error{Pos: m.Defined["id"], Msg: fmt.Sprintf("mutant %s: duplicate id (first at line %d): ids must be unique", m.ID, first.Line)})
			continue
		}
		seen[m.ID] = m.Defined["id"]
		if len(merrs) == 0 {
			ms = append(ms, m)
		}
	}
	return ms, errs
}

func decodeMutant(item yamlfile.Node) (*mutation.Mutant, yamlfile.Errors) {
	if item.Kind() != "a mapping" {
		return nil, yamlfile.Errors{item.Errorf("a mutant is a mapping of %s, got %s", strings.Join(required, ", "), item.Kind())}
	}
	entries, errs := item.Entries()
	if err := yamlfile.CheckKeys(entries, "a mutant", fields...); err != nil {
		errs = append(errs, err)
	}
	m := &mutation.Mutant{Defined: map[string]yamlfile.Pos{}}
	for _, e := range entries {
		m.Defined[e.Key] = e.Value.Pos()
		var err error
		switch e.Key {
		case "step", "occurrence", "line", "points":
			var n int
			switch n, err = e.Value.Int(); {
			case err != nil:
			case e.Key == "points" && n < 1:
				err = e.Value.Errorf("points must be 1 or more: what an exact prediction of the mutant earns")
			case n < 0:
				err = e.Value.Errorf("%s must be 0 or more", e.Key)
			}
			*intField(m, e.Key) = n
		case "kind":
			var k string
			k, err = e.Value.String()
			m.Kind = mutation.Kind(k)
		case "find", "replace":
			// Go source: "0" stays "0".
			var text string
			text, err = e.Value.Text()
			*stringField(m, e.Key) = strings.TrimRight(text, "\n")
		default:
			if p := stringField(m, e.Key); p != nil {
				*p, err = e.Value.String()
				*p = strings.TrimRight(*p, "\n")
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, f := range required {
		if _, ok := m.Defined[f]; !ok {
			name := m.ID
			if name == "" {
				name = "without an id"
			}
			errs = append(errs, item.Errorf("mutant %s: missing field %q (needs: %s)", name, f, strings.Join(required, ", ")))
		}
	}
	if len(errs) == 0 {
		errs = append(errs, m.Problems()...)
	}
	return m, errs
}

func intField(m *mutation.Mutant, key string) *int {
	switch key {
	case "step":
		return &m.Step
	case "occurrence":
		return &m.Occurrence
	case "points":
		return &m.Points
	}
	return &m.Line
}

func stringField(m *mutation.Mutant, key string) *string {
	switch key {
	case "id":
		return &m.ID
	case "title":
		return &m.Title
	case "contract":
		return &m.Contract
	case "rationale":
		return &m.Rationale
	case "seed":
		return &m.Seed
	case "question":
		return &m.Question
	case "target":
		return &m.Target
	case "find":
		return &m.Find
	case "replace":
		return &m.Replace
	}
	return nil
}

// display returns path relative to the current directory when it is below
// it, as messages show a path.
func display(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// Set is the mutants of one run, from one or more files, all of one
// package.
type Set struct {
	Root    string // the module root
	Files   []*File
	Mutants []*mutation.Mutant // in the order of the files
	// Package is the package the files name, relative to the module root;
	// "" when none names one.
	Package string
	// Worksheet are the files' closing questions, in order.
	Worksheet []Question
	// Tests says what learners' test files may be: the first file's that
	// says; the default (external) when none does.
	Tests Tests
	// Withheld says that a file's mutants stay with the grader (see
	// File.Withheld).
	Withheld bool
	// Story is the first file's story (see File.Story).
	Story string
}

// Load reads the mutants files at paths, or the module's catalog when
// there are none. Its error is a yamlfile.Errors with every problem of
// every file: the files' own, an id that two files use, and two packages.
func Load(root string, paths []string) (*Set, error) {
	if len(paths) == 0 {
		catalog := filepath.Join(root, filepath.FromSlash(Catalog))
		if _, err := os.Stat(catalog); err != nil {
			return nil, fmt.Errorf("no mutants: the module has no %s, and no -mutants FILE was given", Catalog)
		}
		paths = []string{display(catalog)}
	}
	s := &Set{Root: root, Tests: Tests{Package: External}}
	var testsFrom *File
	var (
		errs    yamlfile.Errors
		ids     = map[string]string{}
		pkgFrom *File
	)
	for _, path := range paths {
		f, err := LoadFile(path)
		var list yamlfile.Errors
		switch {
		case errors.As(err, &list):
			errs = append(errs, list...)
			continue
		case err != nil:
			errs = append(errs, err)
			continue
		}
		s.Files = append(s.Files, f)
		s.Worksheet = append(s.Worksheet, f.Worksheet...)
		s.Withheld = s.Withheld || f.Withheld
		if f.Story != "" && s.Story == "" {
			// Of the file's own module: a grader's copy of the package
			// loads the catalog where it is.
			own, err := FindRoot(filepath.Dir(f.Path))
			if err != nil {
				own = root
			}
			if _, err := os.Stat(filepath.Join(own, filepath.FromSlash(f.Story))); err != nil {
				errs = append(errs, &yamlfile.Error{Pos: f.storyAt, Msg: fmt.Sprintf("story %s: no such document in the module", f.Story)})
			}
			s.Story = f.Story
		}
		if f.Tests != nil && testsFrom == nil {
			s.Tests, testsFrom = *f.Tests, f
			if c := f.Tests.Chaffs; c != "" {
				own, err := FindRoot(filepath.Dir(f.Path))
				if err != nil {
					own = root
				}
				if info, err := os.Stat(filepath.Join(own, filepath.FromSlash(c))); err != nil || !info.Mode().IsRegular() {
					errs = append(errs, &yamlfile.Error{Pos: f.Tests.chaffsAt, Msg: fmt.Sprintf("tests chaffs %s: no such file in the module", c)})
				}
			}
		}
		if f.Package != "" {
			switch {
			case pkgFrom == nil:
				s.Package, pkgFrom = f.Package, f
			case f.Package != s.Package:
				errs = append(errs, &yamlfile.Error{Pos: f.packageAt, Msg: fmt.Sprintf(
					"package %s differs from %s of %s: one run mutates one package", f.Package, s.Package, pkgFrom.Path)})
			}
		}
		for _, m := range f.Mutants {
			if first, dup := ids[m.ID]; dup {
				errs = append(errs, &yamlfile.Error{Pos: m.Defined["id"], Msg: fmt.Sprintf(
					"mutant %s: id already used in %s; choose another", m.ID, first)})
				continue
			}
			ids[m.ID] = f.Path
			s.Mutants = append(s.Mutants, m)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// IsCatalog reports whether path is the catalog of the module at root.
func IsCatalog(root, path string) bool {
	a, errA := os.Stat(path)
	b, errB := os.Stat(filepath.Join(root, filepath.FromSlash(Catalog)))
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// Find reads the mutants files at paths, or the catalog, of the module
// that holds dir (see Load).
func Find(dir string, paths []string) (*Set, error) {
	root, err := FindRoot(dir)
	if err != nil {
		return nil, err
	}
	return Load(root, paths)
}

// ModelAnswer returns the absolute path of the exercise's model answer:
// the prediction file that the report section of one of its files names;
// "" when none names one.
func (s *Set) ModelAnswer() string {
	for _, f := range s.Files {
		if f.Report != nil && f.Report.Predictions != "" {
			return filepath.Join(s.Root, filepath.FromSlash(f.Report.Predictions))
		}
	}
	return ""
}

// MaxPoints returns what the set's mutants but those of except (by id:
// the wheats beside a catalog's chaffs) are worth together: each its
// points, 1 by default.
func (s *Set) MaxPoints(except map[string]bool) int {
	n := 0
	for _, m := range s.Mutants {
		if !except[m.ID] {
			n += max(m.Points, 1)
		}
	}
	return n
}
