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
//     place, which grades a learner's prediction file on every push.
//
// In a hand-out, go test ./... runs the exercise's suite, and go tool
// mutate list, show, template and check work as in the course's
// repository.
//
// A hand-out of the tests assignment (Options.Starter) is for learners who
// write the tests: the exercise's package loses its own tests too, and
// gets the starter test file, with a worked example; the worksheet asks
// for tests, describing each mutant by its step and contract (its fragment
// only with Options.Fragments); check FILE_test.go grades them.
package handout

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/modcopy"
)

// Workflow is the GitHub Classroom workflow a hand-out holds, at
// WorkflowPath: it grades the learner's prediction file on every push.
//
//go:embed classroom.yml
var Workflow []byte

// WorkflowPath is where a hand-out holds Workflow.
const WorkflowPath = ".github/workflows/classroom.yml"

// Options choose the assignment of a hand-out.
type Options struct {
	// Starter is the starter test file of the tests assignment; "" for
	// the predictions assignment.
	Starter string
	// Fragments: the tests worksheet shows each mutant's fragment.
	Fragments bool
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
	for _, path := range []string{".ci", ".github"} {
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

// addOwn writes the hand-out's own files: the worksheet in place of each
// report document, each mutants file without its report section, and the
// Classroom workflow.
func (h *handout) addOwn() error {
	for _, f := range h.set.Files {
		if f.Report == nil {
			continue
		}
		rel, err := filepath.Rel(h.set.Root, absolute(f.Path))
		if err != nil {
			return err
		}
		src, err := os.ReadFile(filepath.Join(h.dir, rel))
		if err != nil {
			return err
		}
		if err := h.write(rel, withoutReport(src)); err != nil {
			return err
		}
		sheet := Worksheet(h.set)
		if h.opt.Starter != "" {
			sheet = TestsWorksheet(h.set, filepath.Base(h.opt.Starter), h.opt.Fragments)
		}
		if err := h.write(f.Report.File, []byte(sheet)); err != nil {
			return err
		}
	}
	if h.opt.Starter != "" {
		// The Classroom workflow grades prediction files: a tests
		// assignment has none yet.
		src, err := os.ReadFile(h.opt.Starter)
		if err != nil {
			return err
		}
		return h.write(filepath.Join(h.set.Package, filepath.Base(h.opt.Starter)), src)
	}
	return h.write(WorkflowPath, Workflow)
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

// withoutReport returns a mutants file's YAML without its top-level report
// section and the comment lines just above it.
func withoutReport(src []byte) []byte {
	lines := strings.SplitAfter(string(src), "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "report:") })
	if start < 0 {
		return src
	}
	end := start + 1
	for end < len(lines) && (strings.HasPrefix(lines[end], " ") || strings.HasPrefix(lines[end], "\t")) {
		end++
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

// Worksheet returns the worksheet of the exercise set, as Markdown: each
// step's contract and faulty fragment, to review and predict, and the
// closing questions; where the learner answers.
func Worksheet(set *exercise.Set) string {
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

// TestsWorksheet returns the worksheet of the tests assignment, as
// Markdown: what to write (in starter, the starter test file's name), how
// it is graded, and each mutant to catch by its step and contract (with
// fragments, its faulty fragment too).
func TestsWorksheet(set *exercise.Set, starter string, fragments bool) string {
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

`+"`check`"+` grades one test file, its tests alone: each test must pass on the package and on
correct alternatives of it that change only what the contract leaves open
(an error's wording, an order it does not promise): a test that fails on
one is invalid, and earns nothing. Each fault below is worth its points when
a valid test fails under it.
`, pkg, starter)
	for _, m := range set.Mutants {
		title := m.Title
		if title == "" {
			title = m.ID
		}
		heading := title
		if m.Step > 0 {
			heading = fmt.Sprintf("Step %d: %s", m.Step, title)
		}
		fmt.Fprintf(&b, "\n## %s\n\n", heading)
		if m.Contract != "" {
			fmt.Fprintf(&b, "**Contract.** %s\n", m.Contract)
		}
		if fragments && m.Seed != "" {
			fmt.Fprintf(&b, "\n**The faulty fragment**, as the design note writes it:\n\n```\n%s\n```\n", m.Seed)
		}
	}
	return b.String()
}
