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
// A sample of output is checked too. A Markdown comment line
//
//	<!-- output of: CMD -->
//
// followed by a fenced block says that the block is what CMD prints on
// stdout: CMD runs in its place among the commands (with "# exit N" as
// above), and its output must match the block line by line, where a line
// "..." stands for any number of lines and "…" within a line for any
// text (a time, a count of seconds). When the command just before it is
// the same, that command's output is the one compared. A sample shown
// this way cannot go stale: the next CI run fails.
//
// A workflow step's outputs (what it writes to $GITHUB_OUTPUT) are kept
// by its id; a step that uses GitHub Classroom's autograding reporter is
// checked as the reporter would read its runners: each runner's
// RUNNER_RESULTS variable, an expression of a step's output, must hold
// base64 of a JSON result with a max_score and tests, each with a name,
// a status and a score.
//
// The workflow's step that gives feedback on the learners' prediction
// files is also run twice more: with an invalid prediction file added it
// must fail, and with a valid one that is not exact it must pass.
package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/fencelab/fencelab/internal/modcopy"
)

// defaultFiles are the documents whose commands are checked, in the order
// they run: the instructor's class commands score predictions/*.yaml, so
// they come before the learner's walkthrough adds alice.yaml there.
// generated.md, whose commands need nothing of the others, goes first:
// its run of lease's generated mutants spends most of its minute waiting
// for hung mutants to meet their wall limits, and CI runs doccheck beside
// the tests, which fill the cores that waiting leaves.
var defaultFiles = []string{
	"docs/generated.md",
	"docs/course.md",
	"README.md",
	"predictions/README.md",
	"docs/commands.md",
	"docs/statuses.md",
	"docs/mutants.md",
	"docs/internals.md",
	"docs/classroom.yml",
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
	// sample is the output the documentation shows for the command
	// (lines, "..." and "…" as wildcards), and sampleAt where; nil when
	// it shows none.
	sample   []string
	sampleAt string
	// id is a workflow step's id, whose outputs later steps read.
	id string
	// runners maps each runner of a step that uses the autograding
	// reporter to the expression of its results; the step has no script.
	runners map[string]string
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

var (
	exitComment   = regexp.MustCompile(`#\s*exit (\d+)\b`)
	outputComment = regexp.MustCompile(`^<!--\s*output of:\s*(.*?)\s*-->$`)
)

// markdownCommands returns the lines of the ```sh blocks of a document,
// and the commands of its samples (see the package's comment).
func markdownCommands(file, doc string) []command {
	var cmds []command
	lines := strings.Split(doc, "\n")
	inBlock := false
	pending := ""
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if m := outputComment.FindStringSubmatch(trimmed); !inBlock && m != nil {
			c := command{where: fmt.Sprintf("%s, line %d", file, i+1), script: m[1], want: exitOf(m[1])}
			sample, end := fencedBlock(lines, i+1)
			if end < 0 {
				c.sample = []string{"(no fenced block follows the comment)"}
				c.sampleAt = c.where
			} else {
				c.sample = sample
				c.sampleAt = fmt.Sprintf("%s, line %d", file, i+2)
				i = end
			}
			if n := len(cmds); n > 0 && cmds[n-1].sample == nil && key(cmds[n-1]) == key(c) {
				cmds[n-1].sample, cmds[n-1].sampleAt = c.sample, c.sampleAt
				continue
			}
			cmds = append(cmds, c)
			continue
		}
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
		c := command{where: fmt.Sprintf("%s, line %d", file, i+1), script: pending + trimmed, want: exitOf(trimmed)}
		pending = ""
		cmds = append(cmds, c)
	}
	return cmds
}

// exitOf returns the exit code that a command's "# exit N" comment
// documents, 0 without one.
func exitOf(line string) int {
	if m := exitComment.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// fencedBlock returns the lines of the fenced block that starts at line
// i (blank lines before it skipped), without its indentation, and the
// index of its closing fence; -1 if no block starts there.
func fencedBlock(lines []string, i int) ([]string, int) {
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
		return nil, -1
	}
	indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " "))]
	var body []string
	for j := i + 1; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) == "```" {
			return body, j
		}
		body = append(body, strings.TrimRight(strings.TrimPrefix(lines[j], indent), " \t"))
	}
	return nil, -1
}

// matchSample reports whether out matches the sample: line by line, a
// sample line "..." standing for any number of lines and "…" within a
// line for any text. On a mismatch it returns the first sample line
// that no way of matching got past.
func matchSample(sample []string, out string) (ok bool, stuck string) {
	got := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i := range got {
		got[i] = strings.TrimRight(got[i], " \t")
	}
	for len(sample) > 0 && sample[len(sample)-1] == "" {
		sample = sample[:len(sample)-1]
	}
	pats := make([]*regexp.Regexp, len(sample))
	for i, s := range sample {
		if strings.Contains(s, "…") {
			parts := strings.Split(s, "…")
			for j := range parts {
				parts[j] = regexp.QuoteMeta(parts[j])
			}
			pats[i] = regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
		}
	}
	lineOK := func(i, j int) bool {
		if pats[i] != nil {
			return pats[i].MatchString(got[j])
		}
		return sample[i] == got[j]
	}
	// reach[j]: the sample's first i lines can match got's first j.
	reach := make([]bool, len(got)+1)
	reach[0] = true
	furthest := 0
	for i := range sample {
		next := make([]bool, len(got)+1)
		any := false
		for j := 0; j <= len(got); j++ {
			if !reach[j] {
				continue
			}
			if strings.TrimSpace(sample[i]) == "..." {
				for k := j; k <= len(got); k++ {
					next[k] = true
				}
				any = true
				break
			}
			if j < len(got) && lineOK(i, j) {
				next[j+1] = true
				any = true
			}
		}
		if !any {
			return false, sample[furthest]
		}
		reach = next
		furthest = i + 1
	}
	if !reach[len(got)] {
		if furthest < len(sample) {
			return false, sample[furthest]
		}
		return false, "(the end of the sample: the command printed more)"
	}
	return true, ""
}

// workflow is the part of a GitHub workflow file that doccheck reads. Jobs
// keep their order in the file.
type workflow struct {
	Jobs yaml.MapSlice `yaml:"jobs"`
}

type job struct {
	Steps []struct {
		Name string            `yaml:"name"`
		ID   string            `yaml:"id"`
		Run  string            `yaml:"run"`
		Uses string            `yaml:"uses"`
		Env  map[string]string `yaml:"env"`
		With map[string]string `yaml:"with"`
	} `yaml:"steps"`
}

// reporterAction is GitHub Classroom's action that collects the results
// of the autograding runners.
const reporterAction = "classroom-resources/autograding-grading-reporter@"

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
			where := fmt.Sprintf("%s, job %v, step %d (%s)", file, item.Key, i+1, step.Name)
			if strings.HasPrefix(step.Uses, reporterAction) {
				c := command{where: where, runners: map[string]string{}}
				for _, r := range strings.Split(step.With["runners"], ",") {
					r = strings.TrimSpace(r)
					c.runners[r] = step.Env[strings.ToUpper(r)+"_RESULTS"]
				}
				cmds = append(cmds, c)
				continue
			}
			if step.Run == "" {
				continue
			}
			// GitHub runs a step's script with bash -e -o pipefail.
			cmds = append(cmds, command{
				where:    where,
				id:       step.ID,
				script:   "set -eo pipefail\n" + step.Run,
				feedback: strings.Contains(step.Run, "mutate check -markdown") && strings.Contains(step.Run, "predictions/*.yaml"),
			})
		}
	}
	return cmds, nil
}

// runAll runs the commands in order in dir and returns how many did not
// exit as documented, or did not print their sample. A command that ran
// before, or that done names, is skipped, unless it has a sample.
func runAll(w io.Writer, dir string, cmds []command, done []string) int {
	ran := map[string]string{}
	for _, d := range done {
		ran[key(command{script: d})] = "-done"
	}
	summary := filepath.Join(dir, ".step-summary")
	outputs := map[string]map[string]string{}
	failed := 0
	for _, c := range cmds {
		if c.runners != nil {
			if err := checkRunners(c.runners, outputs); err != nil {
				fmt.Fprintf(w, "FAIL %s: %v\n", c.where, err)
				failed++
			} else {
				fmt.Fprintf(w, "ok   %s: the reporter reads %s\n", c.where, strings.Join(slices.Sorted(maps.Keys(c.runners)), ", "))
			}
			continue
		}
		k := key(c)
		if first, ok := ran[k]; ok && c.sample == nil {
			fmt.Fprintf(w, "skip %s: ran already (%s)  %s\n", c.where, first, scriptHead(c.script))
			continue
		}
		ran[k] = c.where
		out := filepath.Join(dir, ".step-output")
		os.Remove(out)
		if !check(w, dir, summary, c, c.want, "") {
			failed++
		}
		if c.id != "" {
			outputs[c.id] = readOutputs(out)
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
	cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+summary, "GITHUB_OUTPUT="+filepath.Join(dir, ".step-output"))
	var stdout, all strings.Builder
	cmd.Stderr = &all
	cmd.Stdout = &all
	if c.sample != nil && variant == "" {
		cmd.Stdout = io.MultiWriter(&stdout, &all)
	}
	err := cmd.Run()
	out := all.String()
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
			strings.ReplaceAll(c.script, "\n", "\n  "), indent(out))
		return false
	}
	if c.sample != nil && variant == "" {
		if ok, stuck := matchSample(c.sample, stdout.String()); !ok {
			fmt.Fprintf(w, "FAIL %s: the sample at %s is not what it prints; no output matches its line\n    %s\n  it printed:\n%s\n",
				c.where, c.sampleAt, stuck, indent(stdout.String()))
			return false
		}
	}
	if c.sample != nil && variant == "" {
		variant = ", sample " + c.sampleAt
	}
	fmt.Fprintf(w, "ok   %s%s: exit %d (%.1fs, %.1fs of CPU)  %s\n", c.where, variant, got, time.Since(start).Seconds(), cpuOf(cmd.ProcessState).Seconds(), scriptHead(c.script))
	return true
}

// cpuOf returns the CPU time (user and system) of a command that ended,
// with what it waited for.
func cpuOf(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
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

// readOutputs reads the name=value lines of a step's $GITHUB_OUTPUT.
func readOutputs(path string) map[string]string {
	outs := map[string]string{}
	data, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(data), "\n") {
		if name, value, ok := strings.Cut(line, "="); ok {
			outs[name] = value
		}
	}
	return outs
}

var stepOutput = regexp.MustCompile(`^\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}$`)

// checkRunners reads each runner's results as GitHub Classroom's
// autograding reporter does (the base64 of a JSON result), from the
// outputs of the steps that ran, and returns what is wrong with them.
func checkRunners(runners map[string]string, outputs map[string]map[string]string) error {
	if len(runners) == 0 {
		return errors.New("the reporter has no runners")
	}
	for runner, expr := range runners {
		m := stepOutput.FindStringSubmatch(strings.TrimSpace(expr))
		if m == nil {
			return fmt.Errorf("runner %s: %s_RESULTS is %q, not a step's output", runner, strings.ToUpper(runner), expr)
		}
		value, ok := outputs[m[1]][m[2]]
		if !ok {
			return fmt.Errorf("runner %s: step %s wrote no output %s", runner, m[1], m[2])
		}
		data, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			return fmt.Errorf("runner %s: not base64: %v", runner, err)
		}
		var res struct {
			MaxScore *float64 `json:"max_score"`
			Tests    []struct {
				Name   string   `json:"name"`
				Status string   `json:"status"`
				Score  *float64 `json:"score"`
			} `json:"tests"`
		}
		if err := json.Unmarshal(data, &res); err != nil {
			return fmt.Errorf("runner %s: not a JSON result: %v", runner, err)
		}
		if res.MaxScore == nil || *res.MaxScore <= 0 || len(res.Tests) == 0 {
			return fmt.Errorf("runner %s: the result has no max_score or no tests: %s", runner, data)
		}
		for _, t := range res.Tests {
			if t.Name == "" || t.Score == nil || (t.Status != "pass" && t.Status != "fail" && t.Status != "error") {
				return fmt.Errorf("runner %s: a test without a name, a score or a status of pass, fail or error: %s", runner, data)
			}
		}
	}
	return nil
}
