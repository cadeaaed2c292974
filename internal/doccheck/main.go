// Command doccheck runs every command that the project's documentation
// tells a reader to run, exactly as written, and fails if one does not exit
// as the documentation says.
//
// It runs, from the module root:
//
//	go run ./internal/doccheck [-done CMD]... [FILE...]
//
// For a Markdown file, every line of every ```sh block is a command; a
// trailing comment "# exit N" says that the command is meant to exit with
// N, otherwise it must exit 0. For a GitHub workflow file, every step's
// run script is a command, job after job in file order. The commands of
// all files run in order in one copy of the files git tracks (what a fresh
// clone holds), so that a reader's untracked files cannot change the
// outcome and the checkout itself is never touched. A command written the
// same way in several places runs once; -done names a command the caller
// has already run on the same files (CI's own steps), which is not run
// again.
//
// The workflow's step that gives feedback on the learners' prediction
// files is also run twice more: with an invalid prediction file added it
// must fail, and with a valid one that is not exact it must pass.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/fencelab/fencelab/internal/modcopy"
)

// defaultFiles are the documents whose commands are checked, in the order
// they run: the instructor's class commands score predictions/*.yaml, so
// they come before the learner's walkthrough adds alice.yaml there.
var defaultFiles = []string{
	"docs/course.md",
	"README.md",
	"predictions/README.md",
	".github/workflows/fencelab.yml",
}

// multi is a flag that may be given many times.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ", ") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var done multi
	flag.Var(&done, "done", "a `command` already run on the same files; it is not run again (repeatable)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/doccheck [-done CMD]... [FILE...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	files := flag.Args()
	if len(files) == 0 {
		files = defaultFiles
	}
	var all []command
	for _, file := range files {
		cmds, err := commandsOf(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "doccheck: %v\n", err)
			os.Exit(2)
		}
		all = append(all, cmds...)
	}
	dir, err := os.MkdirTemp("", "doccheck-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "doccheck: %v\n", err)
		os.Exit(2)
	}
	defer os.RemoveAll(dir)
	if err := modcopy.Tracked(".", dir); err != nil {
		fmt.Fprintf(os.Stderr, "doccheck: %v\n", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	failed := runAll(os.Stdout, dir, all, done)
	os.RemoveAll(dir)
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "doccheck: %d commands did not run as documented\n", failed)
		os.Exit(1)
	}
}

// command is one documented command.
type command struct {
	where    string // where it is written: "README.md, line 12" or "….yml, job x, step 3 (Tests)"
	script   string // bash source
	want     int    // the exit code the documentation says
	feedback bool   // the workflow step that scores the prediction files
}

func commandsOf(file string) ([]command, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(file, ".yml") || strings.HasSuffix(file, ".yaml") {
		return workflowCommands(file, data)
	}
	return markdownCommands(file, string(data)), nil
}

var exitComment = regexp.MustCompile(`#\s*exit (\d+)\b`)

// markdownCommands returns the lines of the ```sh blocks of a document.
func markdownCommands(file, doc string) []command {
	var cmds []command
	inBlock := false
	pending := ""
	for i, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !inBlock && trimmed == "```sh":
			inBlock = true
			continue
		case inBlock && trimmed == "```":
			inBlock = false
			continue
		case !inBlock || trimmed == "" || strings.HasPrefix(trimmed, "#"):
			continue
		}
		if strings.HasSuffix(trimmed, `\`) {
			pending += strings.TrimSuffix(trimmed, `\`) + " "
			continue
		}
		c := command{where: fmt.Sprintf("%s, line %d", file, i+1), script: pending + trimmed}
		pending = ""
		if m := exitComment.FindStringSubmatch(trimmed); m != nil {
			c.want, _ = strconv.Atoi(m[1])
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// workflow is the part of a GitHub workflow file that doccheck reads. Jobs
// keep their order in the file.
type workflow struct {
	Jobs yaml.MapSlice `yaml:"jobs"`
}

type job struct {
	Steps []struct {
		Name string `yaml:"name"`
		Run  string `yaml:"run"`
	} `yaml:"steps"`
}

// workflowCommands returns the run scripts of every step of every job, in
// the order of the file.
func workflowCommands(file string, data []byte) ([]command, error) {
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(wf.Jobs) == 0 {
		return nil, fmt.Errorf("%s: no jobs", file)
	}
	var cmds []command
	for _, item := range wf.Jobs {
		raw, err := yaml.Marshal(item.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: job %v: %w", file, item.Key, err)
		}
		var j job
		if err := yaml.Unmarshal(raw, &j); err != nil {
			return nil, fmt.Errorf("%s: job %v: %w", file, item.Key, err)
		}
		for i, step := range j.Steps {
			if step.Run == "" {
				continue
			}
			// GitHub runs a step's script with bash -e -o pipefail.
			cmds = append(cmds, command{
				where:    fmt.Sprintf("%s, job %v, step %d (%s)", file, item.Key, i+1, step.Name),
				script:   "set -eo pipefail\n" + step.Run,
				feedback: strings.Contains(step.Run, "mutate check") && strings.Contains(step.Run, "predictions/*.yaml"),
			})
		}
	}
	return cmds, nil
}

// runAll runs the commands in order in dir and returns how many did not
// exit as documented. A command that ran before, or that done names, is
// skipped.
func runAll(w io.Writer, dir string, cmds []command, done []string) int {
	ran := map[string]string{}
	for _, d := range done {
		ran[key(command{script: d})] = "-done"
	}
	summary := filepath.Join(dir, ".step-summary")
	failed := 0
	for _, c := range cmds {
		k := key(c)
		if first, ok := ran[k]; ok {
			fmt.Fprintf(w, "skip %s: ran already (%s)  %s\n", c.where, first, scriptHead(c.script))
			continue
		}
		ran[k] = c.where
		if !check(w, dir, summary, c, c.want, "") {
			failed++
		}
		if c.feedback {
			failed += checkFeedback(w, dir, summary, c)
		}
	}
	return failed
}

// key is what makes two commands the same: their words, without a
// trailing comment or the workflow's shell options, and the exit code the
// documentation gives.
func key(c command) string {
	script := strings.TrimPrefix(c.script, "set -eo pipefail\n")
	if !strings.Contains(script, "\n") {
		if i := strings.Index(script, " #"); i >= 0 {
			script = script[:i]
		}
	}
	return fmt.Sprintf("%s (exit %d)", strings.Join(strings.Fields(script), " "), c.want)
}

// checkFeedback runs the step that scores the prediction files twice
// more: an invalid prediction file must make it fail, and a valid one that
// is not exact must not. It returns how many of the two went otherwise.
func checkFeedback(w io.Writer, dir, summary string, c command) int {
	failed := 0
	invalid := filepath.Join(dir, "predictions", "doccheck-invalid.yaml")
	if err := os.WriteFile(invalid, []byte("predictions:\n  no-such-mutant:\n    fails: []\n"), 0o644); err != nil {
		fmt.Fprintf(w, "FAIL %s: %v\n", c.where, err)
		return 1
	}
	if !check(w, dir, summary, c, 1, " with an invalid prediction file") {
		failed++
	}
	os.Remove(invalid)
	// A file straight from the template predicts that every mutant
	// survives: valid, and not exact.
	template := command{where: c.where + ", preparing", script: "go tool mutate template -q -o predictions/doccheck-inexact.yaml"}
	if !check(w, dir, summary, template, 0, "") {
		return failed + 1
	}
	if !check(w, dir, summary, c, 0, " with a valid, inexact prediction file") {
		failed++
	}
	os.Remove(filepath.Join(dir, "predictions", "doccheck-inexact.yaml"))
	return failed
}

// check runs c in dir and reports whether it exited with want.
func check(w io.Writer, dir, summary string, c command, want int, variant string) bool {
	start := time.Now()
	cmd := exec.Command("bash", "-c", c.script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+summary)
	out, err := cmd.CombinedOutput()
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		fmt.Fprintf(w, "FAIL %s%s: %v\n", c.where, variant, err)
		return false
	}
	if got != want {
		fmt.Fprintf(w, "FAIL %s%s: exit %d, documented %d (%.1fs)\n  %s\n%s\n", c.where, variant, got, want, time.Since(start).Seconds(),
			strings.ReplaceAll(c.script, "\n", "\n  "), indent(string(out)))
		return false
	}
	fmt.Fprintf(w, "ok   %s%s: exit %d (%.1fs)  %s\n", c.where, variant, got, time.Since(start).Seconds(), scriptHead(c.script))
	return true
}

// scriptHead returns the first line of a script, and " ..." if more follow.
func scriptHead(s string) string {
	s = strings.TrimPrefix(s, "set -eo pipefail\n")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 40 {
		lines = append(lines[:20], append([]string{"..."}, lines[len(lines)-20:]...)...)
	}
	return "    | " + strings.Join(lines, "\n    | ")
}
