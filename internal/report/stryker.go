package report

import (
	"encoding/json"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/mutation"
)

// Sources is what a report shows beside the run's results: the source of
// the mutated files, and where each test is declared.
type Sources struct {
	Files  map[string]string   // path relative to the module root: its source
	Tests  map[string]Position // top-level test name: where it is declared
	TestAt map[string]string   // top-level test name: its file, relative to the module root
}

// ReadSources reads what the reports show beside rep, a run in the module
// at root: the source of each mutated file, and where each test of its
// packages is declared (by qualified name in a run of a pattern).
func ReadSources(root string, rep *Report) (Sources, error) {
	src := Sources{Files: map[string]string{}, Tests: map[string]Position{}, TestAt: map[string]string{}}
	for _, m := range rep.Mutants {
		if _, ok := src.Files[m.File]; ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
		if err != nil {
			return Sources{}, err
		}
		src.Files[m.File] = string(data)
	}
	pkgs, qualify := rep.Packages, true
	if len(pkgs) == 0 {
		pkgs, qualify = []string{rep.Package}, false
	}
	for _, pkg := range pkgs {
		dir := path.Clean(strings.TrimPrefix(pkg, "./"))
		funcs, err := mutation.TestFuncs(filepath.Join(root, filepath.FromSlash(dir)))
		if err != nil {
			return Sources{}, err
		}
		for _, f := range funcs {
			name := f.Name
			if qualify {
				name = Qualifier(pkg) + name
			}
			src.Tests[name] = Position{Line: f.Line, Column: f.Column}
			src.TestAt[name] = path.Join(dir, f.File)
		}
	}
	return src, nil
}

// Stryker is a run in the mutation-testing-report-schema of the Stryker
// project (schema version 2), which the mutation-testing-elements viewer
// and other tools read.
type Stryker struct {
	SchemaVersion string                     `json:"schemaVersion"`
	Thresholds    strykerThresholds          `json:"thresholds"`
	Files         map[string]strykerFile     `json:"files"`
	TestFiles     map[string]strykerTestFile `json:"testFiles"`
	Framework     strykerFramework           `json:"framework"`
	Config        map[string]any             `json:"config"`
}

type strykerThresholds struct {
	High int `json:"high"`
	Low  int `json:"low"`
}

type strykerFile struct {
	Language string          `json:"language"`
	Source   string          `json:"source"`
	Mutants  []strykerMutant `json:"mutants"`
}

type strykerMutant struct {
	ID           string   `json:"id"`
	MutatorName  string   `json:"mutatorName"`
	Description  string   `json:"description,omitempty"`
	Replacement  string   `json:"replacement,omitempty"`
	Location     Location `json:"location"`
	Status       string   `json:"status"`
	StatusReason string   `json:"statusReason,omitempty"`
	KilledBy     []string `json:"killedBy,omitempty"`
	CoveredBy    []string `json:"coveredBy,omitempty"`
	Duration     int64    `json:"duration"` // milliseconds
}

type strykerTestFile struct {
	Tests []strykerTest `json:"tests"`
}

type strykerTest struct {
	ID       string       `json:"id"`
	Name     string       `json:"name"`
	Location *strykerOpen `json:"location,omitempty"`
}

type strykerOpen struct {
	Start Position `json:"start"`
}

type strykerFramework struct {
	Name string `json:"name"`
}

// Stryker returns r in the mutation-testing-report-schema: each mutated
// file with its source and mutants (the kind as mutatorName, the title as
// description, where the rewritten node is, what replaces it, the
// status, its first failure message or reason, and the tests that killed
// it), and every test of the baseline, by file, with where it is declared.
func (r *Report) Stryker(src Sources) *Stryker {
	s := &Stryker{
		SchemaVersion: "2",
		Thresholds:    strykerThresholds{High: 80, Low: 60},
		Files:         map[string]strykerFile{},
		TestFiles:     map[string]strykerTestFile{},
		Framework:     strykerFramework{Name: "fencelab mutate"},
		Config:        map[string]any{"package": r.Package, "mode": r.Mode, "timeout_seconds": r.Limit},
	}
	if r.Isolation != "" {
		s.Config["isolation"] = r.Isolation
	}
	if r.LandlockABI > 0 {
		s.Config["landlock_abi"] = r.LandlockABI
	}
	if len(r.Binds) > 0 {
		s.Config["binds"] = r.Binds
	}
	if r.MemoryLimit > 0 {
		s.Config["memory_limit_bytes"] = r.MemoryLimit
	}
	for _, m := range r.Mutants {
		f, ok := s.Files[m.File]
		if !ok {
			f = strykerFile{Language: "go", Source: src.Files[m.File], Mutants: []strykerMutant{}}
		}
		sm := strykerMutant{
			ID: m.ID, MutatorName: string(m.Kind), Description: m.Title, Replacement: m.Replacement,
			Status: m.Status.def().stryker, KilledBy: m.FailedTests, CoveredBy: m.CoveredBy, Duration: int64(m.TestSeconds * 1000),
		}
		switch {
		case m.Generated():
			sm.MutatorName = string(m.Operator)
		case sm.MutatorName == "":
			sm.MutatorName = "fragment"
		}
		if m.Location != nil {
			sm.Location = *m.Location
		} else {
			at := Position{Line: max(m.Line, 1), Column: 1}
			sm.Location = Location{Start: at, End: at}
		}
		switch {
		case len(m.Failures) > 0:
			sm.StatusReason = m.Failures[0].Message
		case m.Reason != "":
			sm.StatusReason = m.Reason
		case m.Output != "":
			sm.StatusReason = m.Output
		}
		f.Mutants = append(f.Mutants, sm)
		s.Files[m.File] = f
	}
	for _, name := range r.Baseline.TestNames {
		top, _, _ := strings.Cut(name, "/")
		file := src.TestAt[top]
		if file == "" {
			file = path.Clean(r.Package)
		}
		t := strykerTest{ID: name, Name: name}
		if pos, ok := src.Tests[name]; ok {
			t.Location = &strykerOpen{Start: pos}
		}
		tf := s.TestFiles[file]
		tf.Tests = append(tf.Tests, t)
		s.TestFiles[file] = tf
	}
	for file, tf := range s.TestFiles {
		slices.SortFunc(tf.Tests, func(a, b strykerTest) int { return strings.Compare(a.ID, b.ID) })
		s.TestFiles[file] = tf
	}
	return s
}

// WriteStryker writes r in the mutation-testing-report-schema.
func (r *Report) WriteStryker(w io.Writer, src Sources) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Stryker(src))
}
