package main

import (
	"io"
	"os"
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
		if got[i] != want[i] {
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
		if got[i] != want[i] {
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
