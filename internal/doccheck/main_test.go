package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestMarkdownCommands(t *testing.T) {
	doc := "text\n```sh\ngo test ./...\n# a comment\n\ngo tool mutate check x.yaml  # exit 1 until exact\nlong \\\n  command\n```\n```yaml\nnot: run\n```\n```\nnot run either\n```\n"
	got := markdownCommands("doc.md", doc)
	want := []command{
		{where: "doc.md, line 3", script: "go test ./...", want: 0},
		{where: "doc.md, line 6", script: "go tool mutate check x.yaml  # exit 1 until exact", want: 1},
		{where: "doc.md, line 8", script: "long  command", want: 0},
	}
	if len(got) != len(want) {
		t.Fatalf("markdownCommands() = %+v, want %+v", got, want)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("command %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// Jobs run in the order of the file, and the step that scores the
// prediction files is recognised.
func TestWorkflowCommands(t *testing.T) {
	wf := []byte(`jobs:
  zeta:
    steps:
      - uses: actions/checkout@v4
      - name: t
        run: go test ./...
  alpha:
    steps:
      - name: feedback
        run: go tool mutate check -markdown predictions/*.yaml > f.md || true
  mid:
    steps:
      - run: echo mid
`)
	got, err := workflowCommands("wf.yml", wf)
	if err != nil {
		t.Fatal(err)
	}
	want := []command{
		{where: "wf.yml, job zeta, step 2 (t)", script: "set -eo pipefail\ngo test ./..."},
		{where: "wf.yml, job alpha, step 1 (feedback)", script: "set -eo pipefail\ngo tool mutate check -markdown predictions/*.yaml > f.md || true", feedback: true},
		{where: "wf.yml, job mid, step 1 ()", script: "set -eo pipefail\necho mid"},
	}
	if len(got) != len(want) {
		t.Fatalf("workflowCommands() = %+v, want %+v", got, want)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("command %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := workflowCommands("wf.yml", []byte("on: push\n")); err == nil {
		t.Fatal("workflowCommands(no jobs) error = nil")
	}
}

// Each distinct command runs once; one the caller ran already does not
// run; a command that exits otherwise than documented is counted.
func TestRunAll_EachDistinctCommandOnce(t *testing.T) {
	log := t.TempDir() + "/log"
	cmds := []command{
		{where: "a, line 1", script: "echo once >> " + log},
		{where: "b, line 1", script: "echo once >> " + log},
		{where: "b, line 2", script: "set -eo pipefail\necho once  >> " + log + "  # the same"},
		{where: "b, line 3", script: "echo done-by-caller >> " + log},
		{where: "b, line 4", script: "exit 3  # exit 3", want: 3},
		{where: "b, line 5", script: "exit 1"},
	}
	var out strings.Builder
	failed := runAll(&out, t.TempDir(), cmds, []string{"echo done-by-caller >> " + log})
	if failed != 1 {
		t.Errorf("runAll() = %d failed, want 1 (exit 1 where 0 is documented)", failed)
	}
	for _, want := range []string{"skip b, line 1: ran already (a, line 1)", "skip b, line 3: ran already (-done)", "FAIL b, line 5: exit 1, documented 0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, _ := io.ReadAll(f)
	if got := strings.Fields(string(data)); len(got) != 1 || got[0] != "once" {
		t.Errorf("log = %q, want one line: once", data)
	}
}

// A sample after a command is that command's; one after prose is a
// command of its own; its block keeps its lines, unindented.
func TestMarkdownCommands_Samples(t *testing.T) {
	doc := strings.Join([]string{
		"```sh",
		"go tool mutate list",
		"```",
		"<!-- output of: go tool mutate list -->",
		"```",
		"STEP  ID",
		"...",
		"```",
		"prose",
		"   <!-- output of: go tool mutate check x.yaml  # exit 1 -->",
		"   ```text",
		"   x.yaml: 0 of 8 exact",
		"   ```",
		"<!-- output of: nothing follows -->",
		"prose",
	}, "\n")
	got := markdownCommands("doc.md", doc)
	if len(got) != 3 {
		t.Fatalf("markdownCommands() = %+v, want 3 commands", got)
	}
	if got[0].script != "go tool mutate list" || strings.Join(got[0].sample, "|") != "STEP  ID|..." || got[0].sampleAt != "doc.md, line 5" {
		t.Errorf("command 0 = %+v, want the list with its sample from line 5", got[0])
	}
	if got[1].script != "go tool mutate check x.yaml  # exit 1" || got[1].want != 1 || strings.Join(got[1].sample, "|") != "x.yaml: 0 of 8 exact" {
		t.Errorf("command 1 = %+v, want check, exit 1, its sample unindented", got[1])
	}
	if got[2].sample == nil || got[2].sample[0] != "(no fenced block follows the comment)" {
		t.Errorf("command 2 = %+v, want a sample that can match nothing", got[2])
	}
}

func TestMatchSample(t *testing.T) {
	out := "baseline: 122 tests passed in 2.3s\n\nSTEP  MUTANT\n1     a  killed  6.2s\n2     b  killed  4.8s\n\n8 mutants\n"
	for _, tc := range []struct {
		sample []string
		ok     bool
		stuck  string
	}{
		{[]string{"baseline: 122 tests passed in …s", "", "STEP  MUTANT", "...", "8 mutants"}, true, ""},
		{[]string{"...", "2     b  killed  …s", "...", ""}, true, ""},
		{[]string{"baseline: 122 tests passed in …s", "", "STEP  MUTANT", "2     b  killed  …s", "...", "8 mutants"}, false, "2     b  killed  …s"},
		{[]string{"baseline: 98 tests passed in …s", "..."}, false, "baseline: 98 tests passed in …s"},
		{[]string{"baseline: …", "", "STEP  MUTANT"}, false, "(the end of the sample: the command printed more)"},
		{[]string{"...", "8 mutants", "more"}, false, "more"},
	} {
		ok, stuck := matchSample(tc.sample, out)
		if ok != tc.ok || stuck != tc.stuck {
			t.Errorf("matchSample(%q) = %v, %q; want %v, %q", tc.sample, ok, stuck, tc.ok, tc.stuck)
		}
	}
}

// A command with a sample runs even when the same command ran before,
// and one whose output differs from its sample fails.
func TestRunAll_Samples(t *testing.T) {
	cmds := []command{
		{where: "a, line 1", script: "echo hello"},
		{where: "a, line 3", script: "echo hello", sample: []string{"hel…"}, sampleAt: "a, line 4"},
		{where: "a, line 7", script: "printf 'one\\ntwo\\n'", sample: []string{"one", "three"}, sampleAt: "a, line 8"},
	}
	var out strings.Builder
	if failed := runAll(&out, t.TempDir(), cmds, nil); failed != 1 {
		t.Errorf("runAll() = %d failed, want 1:\n%s", failed, out.String())
	}
	for _, want := range []string{"ok   a, line 3, sample a, line 4: exit 0", "FAIL a, line 7: the sample at a, line 8 is not what it prints; no output matches its line\n    three"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// A step's outputs are kept by its id, and the autograding reporter's
// step is checked as the reporter reads its runners.
func TestRunAll_ClassroomReporter(t *testing.T) {
	wf := []byte(`jobs:
  grade:
    steps:
      - name: grade
        id: mutate
        run: echo "result=$(printf '%s' '{"version":1,"status":"pass","max_score":2,"tests":[{"name":"a","status":"pass","score":2}]}' | base64 -w0)" >> "$GITHUB_OUTPUT"
      - name: bad
        id: bad
        run: echo "result=not base64!" >> "$GITHUB_OUTPUT"
      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          MUTATE_RESULTS: "${{steps.mutate.outputs.result}}"
        with:
          runners: mutate
      - name: Reporter of a bad runner
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          BAD_RESULTS: "${{steps.bad.outputs.result}}"
        with:
          runners: bad
      - name: Reporter of a runner that wrote nothing
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          NONE_RESULTS: "${{steps.none.outputs.result}}"
        with:
          runners: none
`)
	cmds, err := workflowCommands("wf.yml", wf)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 5 || cmds[0].id != "mutate" || cmds[2].runners["mutate"] != "${{steps.mutate.outputs.result}}" {
		t.Fatalf("workflowCommands() = %+v", cmds)
	}
	var out strings.Builder
	if failed := runAll(&out, t.TempDir(), cmds, nil); failed != 2 {
		t.Errorf("runAll() = %d failed, want 2 (the bad runner and the missing one):\n%s", failed, out.String())
	}
	for _, want := range []string{
		"ok   wf.yml, job grade, step 3 (Autograding Reporter): the reporter reads mutate",
		"FAIL wf.yml, job grade, step 4 (Reporter of a bad runner): runner bad: not base64",
		"FAIL wf.yml, job grade, step 5 (Reporter of a runner that wrote nothing): runner none: step none wrote no output result",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// The code map in docs/internals.md names every package under internal/.
func TestCodeMap(t *testing.T) {
	doc, err := os.ReadFile("../../docs/internals.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "\n## Code map\n")
	if !ok {
		t.Fatal("docs/internals.md has no section \"## Code map\"")
	}
	section, _, _ := strings.Cut(after, "\n## ")
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(section, "`internal/"+e.Name()+"`") {
			t.Errorf("docs/internals.md's code map does not name internal/%s", e.Name())
		}
	}
	for _, missing := range missingFiles("../..", section) {
		t.Errorf("docs/internals.md's code map names %s, which is not there", missing)
	}
}

// mapFile is a name in backquotes that names a file: a path or a base
// name with the extension of one of the module's files.
var mapFile = regexp.MustCompile("`([\\w./-]+\\.(?:go|md|yaml|yml|txtar|sh))`")

// missingFiles returns the files that section, a part of a document about
// the module at root, names and that do not exist. It reads section by
// paragraph, a table's row or a list's item: a name in one is a path from
// root, or from a directory the same paragraph names (`internal/harness`
// then `mutant.go`).
func missingFiles(root, section string) []string {
	var missing []string
	for _, part := range regexp.MustCompile(`\n(?:\| |- |\n)`).Split(section, -1) {
		dirs := []string{"."}
		for _, m := range regexp.MustCompile("`([\\w./-]+)`").FindAllStringSubmatch(part, -1) {
			if fi, err := os.Stat(filepath.Join(root, m[1])); err == nil && fi.IsDir() {
				dirs = append(dirs, m[1])
			}
		}
		for _, m := range mapFile.FindAllStringSubmatch(part, -1) {
			found := false
			for _, dir := range dirs {
				if _, err := os.Stat(filepath.Join(root, dir, m[1])); err == nil {
					found = true
					break
				}
			}
			if !found {
				missing = append(missing, m[1])
			}
		}
	}
	return missing
}

// A file the code map names that is not there is found, in its
// paragraph's directories or from the root.
func TestMissingFiles_NamesWhatIsNotThere(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"internal/a/one.go", "internal/b/two.go", "docs/x.md"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	section := "| `internal/a` | its `one.go`, and `docs/x.md` |\n| `internal/b` | `one.go` is not here, `two.go` is |\n\n- a change: `internal/b/gone.go`\n"
	if got := missingFiles(root, section); !reflect.DeepEqual(got, []string{"one.go", "internal/b/gone.go"}) {
		t.Errorf("missingFiles() = %q, want one.go (not in internal/b) and internal/b/gone.go", got)
	}
}
