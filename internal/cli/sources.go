package cli

import (
	"io"
	"path"
	"strings"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/report"
)

// reportFiles are the files a run's result may be written to besides
// stdout, beyond JUnit: the mutation-testing-report-schema's JSON and the
// HTML page that draws it.
type reportFiles struct {
	stryker, html string
}

// check checks, before anything runs, that the files can be written.
func (rf *reportFiles) check() error {
	for _, file := range []string{rf.stryker, rf.html} {
		if file != "" {
			if err := checkOutput(file, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// write writes rep to the files asked for.
func (rf *reportFiles) write(s *session, rep *report.Report) error {
	if rf.stryker == "" && rf.html == "" {
		return nil
	}
	src, err := s.sources()
	if err != nil {
		return err
	}
	if rf.stryker != "" {
		if err := writeFile(rf.stryker, func(w io.Writer) error { return rep.WriteStryker(w, src) }); err != nil {
			return err
		}
	}
	if rf.html != "" {
		return writeFile(rf.html, func(w io.Writer) error { return rep.WriteHTML(w, src) })
	}
	return nil
}

// sources returns what the reports show beside a run: the reference
// source of each mutated file, where each test of the package is
// declared, and what each mutant stands for, with its diff.
func (s *session) sources() (report.Sources, error) {
	src := report.Sources{
		Files:   map[string]string{},
		Tests:   map[string]report.Position{},
		TestAt:  map[string]string{},
		Mutants: map[string]report.MutantDoc{},
	}
	for _, a := range s.Applied {
		file := s.RelFile(a)
		src.Files[file] = string(a.Original)
		m := a.Mutant
		src.Mutants[m.ID] = report.MutantDoc{Contract: m.Contract, Rationale: m.Rationale, Seed: m.Seed, Diff: a.Diff(file)}
	}
	funcs, err := gotest.TestFuncs(s.Target.Dir)
	if err != nil {
		return report.Sources{}, err
	}
	dir := strings.TrimPrefix(s.Target.Rel, "./")
	for _, f := range funcs {
		src.Tests[f.Name] = report.Position{Line: f.Line, Column: f.Column}
		src.TestAt[f.Name] = path.Join(dir, f.File)
	}
	return src, nil
}
