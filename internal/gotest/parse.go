// Package gotest runs `go test -json` on one package and turns its event
// stream into per-test outcomes, with each failing test's own messages.
package gotest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Outcomes of a test.
const (
	Pass = "pass"
	Fail = "fail"
	Skip = "skip"
)

// Test is the outcome of one test or subtest.
type Test struct {
	Name    string   // full name; a subtest is "Parent/sub"
	Outcome string   // Pass, Fail or Skip; "" if the run ended before it did
	Output  []string // its output lines, framing lines included
	Elapsed float64  // seconds
}

// Result is the outcome of one `go test -json` run of one package.
type Result struct {
	Tests       map[string]*Test
	Passed      bool    // the package passed
	BuildFailed bool    // the test binary could not be built
	SetupFailed bool    // go test could not even load the package
	BuildOutput string  // the compiler's messages when BuildFailed
	Output      string  // output outside any test, such as a panic of TestMain
	Elapsed     float64 // seconds the test binary ran, as go test reports
	TimedOut    bool    // the test binary hit its -timeout alarm
}

// event is one line of `go test -json`: a test2json event or a build event.
type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	Elapsed     float64
	FailedBuild string
}

// Parse reads the events of a `go test -json` run of one package.
func Parse(r io.Reader) (*Result, error) {
	res := &Result{Tests: map[string]*Test{}}
	var build, pkgOut strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			// go test prints a few lines that are not JSON, such as
			// "go: downloading ..." on stdout of old toolchains.
			continue
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("go test -json: bad event %q: %w", line, err)
		}
		switch e.Action {
		case "build-output":
			build.WriteString(e.Output)
			continue
		case "build-fail":
			res.BuildFailed = true
			continue
		}
		if e.Test == "" {
			switch e.Action {
			case "output":
				pkgOut.WriteString(e.Output)
				if strings.HasPrefix(e.Output, "panic: test timed out after") {
					res.TimedOut = true
				}
				if strings.HasSuffix(e.Output, " [setup failed]\n") {
					res.SetupFailed = true
				}
			case "pass":
				res.Passed, res.Elapsed = true, e.Elapsed
			case "fail":
				res.Elapsed = e.Elapsed
				if e.FailedBuild != "" {
					res.BuildFailed = true
				}
			}
			continue
		}
		t := res.Tests[e.Test]
		if t == nil {
			t = &Test{Name: e.Test}
			res.Tests[e.Test] = t
		}
		switch e.Action {
		case "output":
			t.Output = append(t.Output, strings.TrimSuffix(e.Output, "\n"))
			if strings.HasPrefix(e.Output, "panic: test timed out after") {
				res.TimedOut = true
			}
		case Pass, Fail, Skip:
			t.Outcome, t.Elapsed = e.Action, e.Elapsed
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("go test -json: %w", err)
	}
	res.BuildOutput = build.String()
	res.Output = pkgOut.String()
	return res, nil
}

// Names returns the names of every test that ran, sorted.
func (r *Result) Names() []string {
	names := make([]string, 0, len(r.Tests))
	for name := range r.Tests {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Failed returns the names of the tests that failed, sorted. When no test
// reported a failure but some never finished, the binary stopped inside
// them (os.Exit, a timeout): those count as failed. When some test did
// fail, the tests that were merely running beside it when the binary
// stopped do not: which ones they were is up to the scheduler.
func (r *Result) Failed() []string {
	var failed, unfinished []string
	for name, t := range r.Tests {
		switch t.Outcome {
		case Fail:
			failed = append(failed, name)
		case "":
			unfinished = append(unfinished, name)
		}
	}
	if len(failed) == 0 {
		failed = unfinished
	}
	slices.Sort(failed)
	return failed
}

// Message returns what test name reported about its failure: its output
// without the framing lines that go test adds, and without the four spaces
// of indentation that t.Log and t.Error add.
func (r *Result) Message(name string) string {
	t := r.Tests[name]
	if t == nil {
		return ""
	}
	var lines []string
	for _, l := range t.Output {
		if isFraming(l) {
			continue
		}
		lines = append(lines, strings.TrimPrefix(l, "    "))
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// isFraming reports whether l is a line that go test writes around a
// test's own output.
func isFraming(l string) bool {
	l = strings.TrimLeft(l, " ")
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS", "--- FAIL", "--- SKIP"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}
