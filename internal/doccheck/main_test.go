package main

import "testing"

func TestMarkdownCommands(t *testing.T) {
	doc := "text\n```sh\ngo test ./...\n# a comment\n\ngo run ./cmd/mutate check x.yaml  # exit 1 until exact\nlong \\\n  command\n```\n```yaml\nnot: run\n```\n```\nnot run either\n```\n"
	got := markdownCommands(doc)
	want := []command{
		{where: "line 3", script: "go test ./...", want: 0},
		{where: "line 6", script: "go run ./cmd/mutate check x.yaml  # exit 1 until exact", want: 1},
		{where: "line 8", script: "long  command", want: 0},
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

func TestWorkflowCommands(t *testing.T) {
	wf := []byte("jobs:\n  a:\n    steps:\n      - uses: actions/checkout@v4\n      - name: t\n        run: go test ./...\n")
	got, err := workflowCommands("wf.yml", wf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].script != "set -eo pipefail\ngo test ./..." || got[0].want != 0 || got[0].where != "step 2 (t)" {
		t.Fatalf("workflowCommands() = %+v", got)
	}
	if _, err := workflowCommands("wf.yml", []byte("on: push\n")); err == nil {
		t.Fatal("workflowCommands(no jobs) error = nil")
	}
}
