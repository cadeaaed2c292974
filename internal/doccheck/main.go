// Command doccheck runs every command that the project's documentation
// tells a reader to run, exactly as written, and fails if one does not exit
// as the documentation says.
//
// It runs, from the module root:
//
//	go run ./internal/doccheck [FILE...]
//
// For a Markdown file, every line of every ```sh block is a command; a
// trailing comment "# exit N" says that the command is meant to exit with
// N, otherwise it must exit 0. For a GitHub workflow file, every step's
// run script is a command. Each file's commands run in order, in a fresh
// copy of the module, so that one file's commands cannot depend on
// another's and the checkout itself is never touched.
package main

import (
	"errors"
	"flag"
	"fmt"
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

// defaultFiles are the documents whose commands are checked.
var defaultFiles = []string{
	"README.md",
	"docs/course.md",
	"predictions/README.md",
	".github/workflows/fencelab.yml",
}

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/doccheck [FILE...]")
	}
	flag.Parse()
	files := flag.Args()
	if len(files) == 0 {
		files = defaultFiles
	}
	failed := 0
	for _, file := range files {
		cmds, err := commandsOf(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "doccheck: %v\n", err)
			os.Exit(2)
		}
		n, err := runAll(file, cmds)
		if err != nil {
			fmt.Fprintf(os.Stderr, "doccheck: %v\n", err)
			os.Exit(2)
		}
		failed += n
	}
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "doccheck: %d commands did not run as documented\n", failed)
		os.Exit(1)
	}
}

// command is one documented command.
type command struct {
	where  string // where it is written: "line 12" or "step 3 (Tests)"
	script string // bash source
	want   int    // the exit code the documentation says
}

func commandsOf(file string) ([]command, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(file, ".yml") || strings.HasSuffix(file, ".yaml") {
		return workflowCommands(file, data)
	}
	return markdownCommands(string(data)), nil
}

var exitComment = regexp.MustCompile(`#\s*exit (\d+)\b`)

// markdownCommands returns the lines of the ```sh blocks of a document.
func markdownCommands(doc string) []command {
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
		c := command{where: fmt.Sprintf("line %d", i+1), script: pending + trimmed}
		pending = ""
		if m := exitComment.FindStringSubmatch(trimmed); m != nil {
			c.want, _ = strconv.Atoi(m[1])
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// workflowCommands returns the run scripts of every step of every job.
func workflowCommands(file string, data []byte) ([]command, error) {
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(wf.Jobs) == 0 {
		return nil, fmt.Errorf("%s: no jobs", file)
	}
	var cmds []command
	for _, job := range wf.Jobs {
		for i, step := range job.Steps {
			if step.Run != "" {
				// GitHub runs a step's script with bash -e -o pipefail.
				cmds = append(cmds, command{
					where:  fmt.Sprintf("step %d (%s)", i+1, step.Name),
					script: "set -eo pipefail\n" + step.Run,
				})
			}
		}
	}
	return cmds, nil
}

// runAll runs the commands of file in a fresh copy of the module and
// returns how many did not exit as documented.
func runAll(file string, cmds []command) (int, error) {
	dir, err := os.MkdirTemp("", "doccheck-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	if err := modcopy.Copy(".", dir); err != nil {
		return 0, err
	}
	summary := filepath.Join(dir, ".step-summary")
	failed := 0
	for _, c := range cmds {
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
			return failed, err
		}
		where := file + ", " + c.where
		if got != c.want {
			failed++
			fmt.Printf("FAIL %s: exit %d, documented %d (%.1fs)\n  %s\n%s\n", where, got, c.want, time.Since(start).Seconds(),
				strings.ReplaceAll(c.script, "\n", "\n  "), indent(string(out)))
			continue
		}
		fmt.Printf("ok   %s: exit %d (%.1fs)  %s\n", where, got, time.Since(start).Seconds(), firstLine(c.script))
	}
	return failed, nil
}

func firstLine(s string) string {
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
