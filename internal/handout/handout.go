// Package handout writes the repository that learners get for an
// exercise: the module as git tracks it (every file, outside a git
// checkout), without what gives the answers away, with the worksheet,
// ready to push as a GitHub Classroom template.
//
// What a hand-out leaves out:
//
//   - the model answer: the prediction file that a mutants file's report
//     section names;
//   - the report document that section names (REPORT.md), answered from a
//     run: a worksheet of the same name takes its place, with each step's
//     contract and fragment and the closing questions, and the catalog
//     loses its report section;
//   - the tests and test data of every package but the exercise's: the
//     harness's own tests name the tests that fail under each mutant;
//   - the instructor's CI (.ci, .github): the Classroom workflow takes its
//     place, which grades a learner's prediction file on every push; and
//     CONTRIBUTING.md, how the course's repository is worked on;
//   - the instructor's documents: the README (one of the hand-out's own
//     takes its place) and docs, but for the exercise's story (the
//     catalog's story:) and what learners' documents link to there.
//
// A hand-out never holds a link to a file it leaves out: Write refuses to
// write one that would.
//
// In a hand-out, go test ./... runs the exercise's suite, and go tool
// mutate list, show, template and check work as in the course's
// repository.
//
// A hand-out of the tests assignment (Options.Starter) is for learners who
// write the tests: the exercise's package loses its own tests too, and
// gets the starter test file, with a worked example. The chaffs (the
// catalog's mutants) and the wheats stay with the grader: the hand-out
// holds no mutants file but a withheld catalog (the package, and the rules
// of learners' files), no instructor's document (docs, the README, whose
// samples show mutants) but a README of its own, and a worksheet that asks
// for tests, describing each step by its contract, never a mutant's code.
// There, check FILE_test.go checks a file and runs it on the package; the
// grader's copy of the exercise grades it.
package handout

import (
	"bytes"
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/modcopy"
	"github.com/fencelab/fencelab/internal/text"
)

// workflow is the GitHub Classroom workflow a hand-out holds, at
// workflowPath: it grades the learner's prediction file on every push.
//
//go:embed classroom.yml
var workflow []byte

// workflowPath is where a hand-out holds workflow.
const workflowPath = ".github/workflows/classroom.yml"

// Options choose the assignment of a hand-out.
type Options struct {
	// Starter is the starter test file of the tests assignment; "" for
	// the predictions assignment.
	Starter string
}

// Write writes the hand-out of the exercise set (read from the module at
// set.Root) into dir, which must not exist or be empty, and returns the
// paths it left out and the files it wrote of its own, relative to dir.
func Write(set *exercise.Set, dir string, opt Options) (left, wrote []string, err error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, nil, fmt.Errorf("%s is not empty: the hand-out goes into a new directory", dir)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), ".handout-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	if err := modcopy.Tracked(set.Root, tmp); err != nil {
		// Not a git checkout: every file but .git.
		if err := modcopy.Copy(set.Root, tmp); err != nil {
			return nil, nil, err
		}
	}
	h := &handout{set: set, dir: tmp, opt: opt}
	if err := h.leaveOut(); err != nil {
		return nil, nil, err
	}
	if err := h.addOwn(); err != nil {
		return nil, nil, err
	}
	if err := h.keepDocs(); err != nil {
		return nil, nil, err
	}
	if broken := brokenLinks(tmp); len(broken) > 0 {
		return nil, nil, fmt.Errorf("the hand-out would hold links to files it leaves out; fix them, or link to what learners get:\n  %s", strings.Join(broken, "\n  "))
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, nil, err
	}
	slices.Sort(h.left)
	slices.Sort(h.wrote)
	return h.left, h.wrote, nil
}

// handout is a hand-out being made in dir, a copy of the module.
type handout struct {
	set         *exercise.Set
	dir         string
	opt         Options
	left, wrote []string
}

// leaveOut removes from the copy what gives answers away or is the
// instructor's.
func (h *handout) leaveOut() error {
	for _, f := range h.set.Files {
		if f.Report == nil {
			continue
		}
		for _, path := range []string{f.Report.Predictions, f.Report.File} {
			if path != "" {
				if err := h.remove(path); err != nil {
					return err
				}
			}
		}
	}
	gone := []string{".ci", ".github", "CONTRIBUTING.md"}
	if c := h.set.Tests.Chaffs; c != "" {
		// The tests assignment's own chaffs: the grader's alone, in
		// either hand-out.
		gone = append(gone, c)
	}
	if h.opt.Starter != "" {
		// The chaffs and wheats, and the instructor's documents, whose
		// samples show them.
		gone = append(gone, "docs", "README.md", h.rel(filepath.Join(filepath.Dir(h.catalog()), exercise.WheatsFile)))
		// Every mutants file beside the catalog: the experiments and
		// whatever else an instructor keeps there.
		beside, err := filepath.Glob(filepath.Join(h.dir, filepath.Dir(filepath.FromSlash(exercise.Catalog)), "*.yaml"))
		if err != nil {
			return err
		}
		for _, p := range beside {
			gone = append(gone, h.relOf(p))
		}
		for _, f := range h.set.Files {
			gone = append(gone, h.rel(f.Path))
			if f.Report != nil {
				gone = append(gone, f.Report.Mutants...)
				if dir := path.Dir(f.Report.Predictions); f.Report.Predictions != "" && dir != "." {
					gone = append(gone, dir) // the prediction files': a tests assignment predicts nothing
				}
			}
		}
	}
	for _, path := range gone {
		if err := h.remove(path); err != nil {
			return err
		}
	}
	pkg := filepath.Clean(filepath.FromSlash(h.set.Package))
	var tests []string
	err := filepath.WalkDir(h.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(h.dir, path)
		own := filepath.Dir(rel) == pkg || rel == pkg || strings.HasPrefix(rel, pkg+string(filepath.Separator)+"testdata")
		if own && (h.opt.Starter == "" || d.IsDir() || !strings.HasSuffix(d.Name(), "_test.go")) {
			return nil // the exercise's own suite, and its test data
		}
		if d.IsDir() && d.Name() == "testdata" || !d.IsDir() && strings.HasSuffix(d.Name(), "_test.go") {
			tests = append(tests, filepath.ToSlash(rel))
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, rel := range tests {
		if err := h.remove(rel); err != nil {
			return err
		}
	}
	return nil
}

// catalog returns the path of the exercise's catalog.
func (h *handout) catalog() string {
	return filepath.Join(h.set.Root, filepath.FromSlash(exercise.Catalog))
}

// rel returns path (as given, from the current directory) relative to the
// module root, with forward slashes.
func (h *handout) rel(path string) string {
	rel, err := filepath.Rel(h.set.Root, absolute(path))
	if err != nil {
		return path
	}
	return filepath.ToSlash(rel)
}

// remove removes path, relative to the module root, from the copy, if it
// is there.
func (h *handout) remove(rel string) error {
	path := filepath.Join(h.dir, filepath.FromSlash(rel))
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	h.left = append(h.left, filepath.ToSlash(rel))
	return os.RemoveAll(path)
}

// addOwn writes the hand-out's own files: of the predictions
// assignment, the worksheet in place of each report document, each
// mutants file without its report section, and the Classroom workflow; of
// the tests assignment, the withheld catalog, the tests worksheet, a
// README and the starter.
func (h *handout) addOwn() error {
	if h.opt.Starter != "" {
		return h.addTests()
	}
	sheet := ""
	for _, f := range h.set.Files {
		chaffs := f.Tests != nil && f.Tests.Chaffs != ""
		if f.Report == nil && !chaffs {
			continue
		}
		rel := h.rel(f.Path)
		src, err := os.ReadFile(filepath.Join(h.dir, rel))
		if err != nil {
			return err
		}
		if err := h.write(rel, withoutKey(withoutKey(src, "report"), "tests", "chaffs")); err != nil {
			return err
		}
		if chaffs {
			if g, err := exercise.LoadFile(filepath.Join(h.dir, rel)); err == nil && g.Tests != nil && g.Tests.Chaffs != "" {
				// Not a block this can edit: never ship the name.
				return fmt.Errorf("%s: could not leave tests: chaffs: out of the hand-out's copy: write tests: as a block, one key per line", f.Path)
			}
		}
		if f.Report == nil {
			continue
		}
		if err := h.write(f.Report.File, []byte(worksheet(h.set))); err != nil {
			return err
		}
		sheet = cmp.Or(sheet, f.Report.File)
	}
	if err := h.write("README.md", []byte(predictionsReadme(h.set, sheet))); err != nil {
		return err
	}
	return h.write(workflowPath, workflow)
}

// addTests writes the tests assignment's own files. (The Classroom
// workflow grades prediction files: a tests assignment is graded on the
// grader's side, which holds the chaffs.)
func (h *handout) addTests() error {
	starter := filepath.Base(h.opt.Starter)
	if err := h.write(exercise.Catalog, []byte(withheldCatalog(h.set))); err != nil {
		return err
	}
	sheet := "REPORT.md"
	for _, f := range h.set.Files {
		if f.Report != nil {
			sheet = f.Report.File
		}
	}
	if err := h.write(sheet, []byte(testsWorksheet(h.set, starter))); err != nil {
		return err
	}
	if err := h.write("README.md", []byte(testsReadme(h.set, starter, sheet))); err != nil {
		return err
	}
	src, err := os.ReadFile(h.opt.Starter)
	if err != nil {
		return err
	}
	return h.write(filepath.Join(h.set.Package, starter), src)
}

func (h *handout) write(rel string, data []byte) error {
	path := filepath.Join(h.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	h.wrote = append(h.wrote, filepath.ToSlash(rel))
	return os.WriteFile(path, data, 0o644)
}

func absolute(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	return abs
}

// withoutKey returns a mutants file's YAML without its top-level section
// key (its lines, and the comments right above it), or, with sub, without
// the line sub[0] of that section (and the comments right above it), and
// without the section when nothing else is left in it. A section written
// in flow style ({...}) keeps its sub-keys.
func withoutKey(src []byte, key string, sub ...string) []byte {
	lines := strings.SplitAfter(string(src), "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, key+":") })
	if start < 0 {
		return src
	}
	end := start + 1
	for end < len(lines) && (strings.HasPrefix(lines[end], " ") || strings.HasPrefix(lines[end], "\t")) {
		end++
	}
	if len(sub) > 0 {
		// Only sub[0] of the section: its line, and the comments right
		// above it; the whole section when nothing else is left.
		var kept []string
		drop := 0
		for i := start + 1; i < end; i++ {
			if strings.HasPrefix(strings.TrimSpace(lines[i]), sub[0]+":") {
				for drop > 0 {
					kept, drop = kept[:len(kept)-1], drop-1
				}
				continue
			}
			if strings.HasPrefix(strings.TrimSpace(lines[i]), "#") {
				drop++
			} else {
				drop = 0
			}
			kept = append(kept, lines[i])
		}
		if slices.ContainsFunc(kept, func(l string) bool { t := strings.TrimSpace(l); return t != "" && !strings.HasPrefix(t, "#") }) ||
			strings.TrimSpace(strings.TrimPrefix(lines[start], key+":")) != "" {
			return []byte(strings.Join(slices.Concat(lines[:start+1], kept, lines[end:]), ""))
		}
	}
	for start > 0 && strings.HasPrefix(lines[start-1], "#") {
		start--
	}
	// One blank line stays between what was around it.
	for end < len(lines) && strings.TrimSpace(lines[end]) == "" && start > 0 && strings.TrimSpace(lines[start-1]) == "" {
		end++
	}
	var b bytes.Buffer
	for _, l := range slices.Concat(lines[:start], lines[end:]) {
		b.WriteString(l)
	}
	return b.Bytes()
}

// worksheet returns the worksheet of the exercise set, as Markdown: each
// step's contract and faulty fragment, to review and predict, and the
// closing questions; where the learner answers.
func worksheet(set *exercise.Set) string {
	var b strings.Builder
	b.WriteString(`# The worksheet

Each step below is a code review: a faulty fragment breaks the contract of
the function that holds it. Before running anything, predict for each which
tests fail under it, and which input, error or state exposes the difference.

Your answers go in a prediction file of your own:

` + "```sh" + `
go tool mutate template -learner YOURNAME -o predictions/YOURNAME.yaml
go tool mutate show ID      # the mutant of one step, as a diff
go tool mutate check predictions/YOURNAME.yaml
` + "```" + `

` + "`check`" + ` runs the mutants and compares them with your predictions; it
shows what failed only under the mutants you answered. The questions at the
end have a place in the same file, under ` + "`worksheet:`" + `: your
instructor reads them.
`)
	if set.Story != "" {
		fmt.Fprintf(&b, "\nThe exercise's story, where its steps come from: [%[1]s](%[1]s).\n", set.Story)
	}
	for _, m := range set.Mutants {
		title := m.Title
		if title == "" {
			title = m.ID
		}
		heading := fmt.Sprintf("%s (`%s`)", title, m.ID)
		if m.Step > 0 {
			heading = fmt.Sprintf("Step %d: %s", m.Step, heading)
		}
		fmt.Fprintf(&b, "\n## %s\n\n", heading)
		if m.Contract != "" {
			fmt.Fprintf(&b, "**Contract.** %s\n\n", m.Contract)
		}
		if m.Seed != "" {
			fmt.Fprintf(&b, "**The faulty fragment**, as the design note writes it:\n\n```\n%s\n```\n\n", m.Seed)
		}
		fmt.Fprintf(&b, "**The mutant:** %s (`go tool mutate show %s`).\n", m.Describe(), m.ID)
		if m.Question != "" {
			fmt.Fprintf(&b, "\n**Question.** %s\n", m.Question)
		}
	}
	if len(set.Worksheet) > 0 {
		b.WriteString("\n## Closing questions\n\nAnswer each in your prediction file, under `worksheet:`, after your predictions.\n")
		for _, q := range set.Worksheet {
			fmt.Fprintf(&b, "\n- **%s**: %s\n", q.ID, q.Question)
		}
	}
	return b.String()
}

// testsWorksheet returns the worksheet of the tests assignment, as
// Markdown: what to write (in starter, the starter test file's name), the
// rules of the file, how it is graded, and each step of the exercise by
// its contract, with how many faults it holds: never a mutant's code, nor
// its title, which says what the fault is.
func testsWorksheet(set *exercise.Set, starter string) string {
	var b strings.Builder
	pkg := strings.TrimPrefix(set.Package, "./")
	fmt.Fprintf(&b, `# The worksheet: tests

Write the tests of package %[1]s in %[1]s/%[2]s, below its worked example.
Choose as the observation an input that ought to be rejected, or the state
after a failure.

`+"```sh"+`
go test ./%[1]s
go tool mutate check %[1]s/%[2]s
`+"```"+`

`+"`check`"+` checks your file against the rules below and runs it on the
package: each test must pass there. Your instructor grades it: each test
must also pass on correct alternatives of the package that change only what
the contract leaves open (an error's wording, an order it does not
promise), or it is invalid and earns nothing; each fault of the package
that a valid test catches (it fails under the fault) earns its points. The
faults stay with your instructor: your tests pin the contract, whatever
the fault.

## The rules of your file

%[3]s
`, pkg, starter, rules(set))
	type step struct {
		n         int
		faults    int
		contracts []string
	}
	var steps []*step
	for _, m := range set.Mutants {
		i := slices.IndexFunc(steps, func(s *step) bool { return s.n == m.Step })
		if i < 0 {
			steps = append(steps, &step{n: m.Step})
			i = len(steps) - 1
		}
		s := steps[i]
		s.faults++
		if m.Contract != "" && !slices.Contains(s.contracts, m.Contract) {
			s.contracts = append(s.contracts, m.Contract)
		}
	}
	for _, s := range steps {
		heading := "Other faults"
		if s.n > 0 {
			heading = fmt.Sprintf("Step %d", s.n)
		}
		fmt.Fprintf(&b, "\n## %s\n\n", heading)
		for _, c := range s.contracts {
			fmt.Fprintf(&b, "**Contract.** %s\n\n", c)
		}
		fmt.Fprintf(&b, "%s to catch.\n", text.Count(s.faults, "fault", "faults"))
	}
	return b.String()
}

// rules says, as Markdown, what a learner's test file may be (see
// testgrade.Rules).
func rules(set *exercise.Set) string {
	pkg := path.Base(strings.TrimPrefix(set.Package, "./"))
	clause := map[exercise.TestPackage]string{
		exercise.External: fmt.Sprintf("`package %s_test`: your tests use the package's exported API, as its users do", pkg),
		exercise.Internal: fmt.Sprintf("`package %s`", pkg),
		exercise.Either:   fmt.Sprintf("`package %s_test` (the exported API, as its users see it) or `package %s`", pkg, pkg),
	}[set.Tests.Package]
	imports := slices.Concat(exercise.StandardImports, set.Tests.Imports)
	for i, p := range imports {
		imports[i] = "`" + p + "`"
	}
	list := text.Wrap("It imports the package, and only these others: "+strings.Join(imports, ", ")+
		". Nothing that reads files, the environment, the process or memory (`os`, `path/filepath`, `unsafe`, `syscall`, `runtime`, `reflect` and the like).", 76, "  ")
	return fmt.Sprintf(`- The file declares %s.
- %s
- It declares no `+"`TestMain`"+` and holds no directive (`+"`//go:`"+`, `+"`//line`"+`); its tests
  are `+"`TestXxx`"+`, `+"`FuzzXxx`"+` (their seeds run) and examples with an `+"`// Output:`"+` comment.
- A file that breaks a rule earns nothing; `+"`check`"+` names each problem at its
  file:line:col.`, clause, strings.TrimPrefix(list, "  "))
}

// withheldCatalog returns the catalog of a tests assignment's hand-out:
// the package, and the rules of learners' files, with the chaffs withheld.
func withheldCatalog(set *exercise.Set) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# The tests assignment of this exercise. Its faults (the chaffs your tests
# must catch) and its correct alternatives (the wheats they must pass) stay
# with your instructor's grader: go tool mutate check FILE_test.go checks
# your file and runs it on the package.
package: %s
withheld: true
`, set.Package)
	if set.Tests.Package != exercise.External || len(set.Tests.Imports) > 0 {
		fmt.Fprintf(&b, "tests:\n  package: %s\n", set.Tests.Package)
		if len(set.Tests.Imports) > 0 {
			fmt.Fprintf(&b, "  imports: [%s]\n", strings.Join(set.Tests.Imports, ", "))
		}
	}
	return b.String()
}

// testsReadme returns the README of a tests assignment's hand-out.
func testsReadme(set *exercise.Set, starter, sheet string) string {
	pkg := strings.TrimPrefix(set.Package, "./")
	return fmt.Sprintf(`# The tests assignment

Write the tests of package %[1]s in [%[1]s/%[2]s](%[1]s/%[2]s); the
worksheet, [%[3]s](%[3]s), says what they must pin and the rules of the
file.

`+"```sh"+`
go test ./%[1]s                              # run your tests
go tool mutate check %[1]s/%[2]s   # check your file, and run it on the package
`+"```"+`

Go 1.26 or newer is all it needs. Your instructor grades the file.
`, pkg, starter, sheet)
}
