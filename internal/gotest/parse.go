// Package gotest builds a package's test binary, runs it through
// test2json, and turns its event stream into per-test outcomes, with each
// failing test's own messages.
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
	Name    string // full name; a subtest is "Parent/sub"
	Outcome string // Pass, Fail or Skip; "" if the run ended before it did
	// Output are its output lines, framing lines included: the first and
	// the last outputCap bytes of them, with a line that says how much was
	// dropped between. A test that passed or skipped keeps none.
	Output  []string
	Elapsed float64 // seconds

	started bool
	out     *clipped // while it may still fail; nil once it passed or skipped
}

// outputCap is how much is kept of a test's output, and of the output
// outside any test: its first outputCap bytes and its last outputCap
// bytes. Whatever a test prints, a run's memory stays bounded.
const outputCap = 64 << 10

// clipped holds the lines of an output: the first and the last outputCap
// bytes of them, and how many lines and bytes were dropped between.
type clipped struct {
	head, tail            []string
	headBytes, tailBytes  int
	droppedLines, dropped int
}

func (c *clipped) add(line string) {
	if len(line) > outputCap {
		c.dropped += len(line) - outputCap
		line = line[:outputCap]
	}
	n := len(line) + 1
	if len(c.tail) == 0 && c.headBytes+n <= outputCap {
		c.head = append(c.head, line)
		c.headBytes += n
		return
	}
	c.tail = append(c.tail, line)
	c.tailBytes += n
	for c.tailBytes > outputCap && len(c.tail) > 1 {
		c.tailBytes -= len(c.tail[0]) + 1
		c.dropped += len(c.tail[0]) + 1
		c.droppedLines++
		c.tail = c.tail[1:]
	}
	if cap(c.tail) > 4*len(c.tail)+64 {
		c.tail = slices.Clone(c.tail) // let go of the dropped lines
	}
}

// lines returns the lines kept, with a line between head and tail that
// says what was dropped.
func (c *clipped) lines() []string {
	lines := slices.Clone(c.head)
	if c.dropped > 0 {
		lines = append(lines, fmt.Sprintf("[… %d bytes of output dropped (%d lines) …]", c.dropped, c.droppedLines))
	}
	return append(lines, c.tail...)
}

// Result is the outcome of one run of a test binary.
type Result struct {
	Tests   map[string]*Test
	Passed  bool    // the binary reported PASS for the package
	Output  string  // output outside any test, such as a panic in TestMain (clipped, see OutputCap)
	Elapsed float64 // seconds the binary ran, as test2json reports it
	// Forged says why the events cannot be those of the testing package,
	// if they cannot: an outcome for a test that had not started, or a
	// second outcome for one that had finished. Code under test can print
	// the framing that test2json reads; such a run proves nothing.
	Forged string
	// Finished says that the testing package finished its run (see
	// Exec.Finished): set by Exec.Run when it was asked to tell.
	Finished bool

	// Set by Exec.Run: how the binary ended.
	ExitCode int     // -1 when a signal ended it
	Signal   string  // the signal that ended it, if any
	Wall     float64 // seconds from start to exit, as measured here
	Idle     float64 // seconds from its last event (or its start) to its end
	// TimedOut says that a limit stopped it: its deadline, its CPU limit
	// (OverCPU) or its memory limit (OverMemory).
	TimedOut   bool
	OverCPU    bool // it was the CPU limit (Exec.CPULimit)
	OverMemory bool // it was the memory limit (Exec.Memory)
	// PeakMemory is the most memory, in bytes, that the binary and the
	// processes it started held at one reading (Linux only, and when
	// Exec.Memory is set).
	PeakMemory int64
	// Lost says why how the binary ended is not known, when it is not:
	// its sandbox's init was killed from outside.
	Lost string
	// CPU is the CPU time, in seconds, of the binary and of the processes
	// it waited for (of the sandbox's init, which waits for the binary,
	// when isolated); of a run that was killed, at least what it was when
	// last read under a CPU limit, and otherwise perhaps less than it used.
	CPU float64
	// StartCPU is the CPU time, in seconds, the binary had used when its
	// first test started (Linux only): its start, its package's init,
	// TestMain's set-up.
	StartCPU float64
}

// Ended says how the binary ended: "exited with status N" or "was killed
// by signal S".
func (r *Result) Ended() string {
	if r.Signal != "" {
		return "was killed by signal " + r.Signal
	}
	return fmt.Sprintf("exited with status %d", r.ExitCode)
}

// TopLevel returns the names of the top-level tests that ran, sorted.
func (r *Result) TopLevel() []string {
	var names []string
	for _, name := range r.Names() {
		if !strings.Contains(name, "/") {
			names = append(names, name)
		}
	}
	return names
}

// Event is one line of go test -json / test2json output.
type Event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// eventParser accumulates the events of one run into a Result.
type eventParser struct {
	res *Result
	out clipped
}

func newParser() *eventParser {
	return &eventParser{res: &Result{Tests: map[string]*Test{}}}
}

// add records one event.
func (p *eventParser) add(e Event) {
	res := p.res
	if e.Test == "" {
		switch e.Action {
		case "output":
			p.out.add(strings.TrimSuffix(e.Output, "\n"))
		case Pass:
			res.Passed, res.Elapsed = true, e.Elapsed
		case Fail:
			res.Elapsed = e.Elapsed
		}
		return
	}
	t := res.Tests[e.Test]
	if t == nil {
		t = &Test{Name: e.Test}
		res.Tests[e.Test] = t
	}
	switch e.Action {
	case "output":
		if t.Outcome == "" || t.Outcome == Fail {
			if t.out == nil {
				t.out = &clipped{}
			}
			t.out.add(strings.TrimSuffix(e.Output, "\n"))
		}
	case "run":
		if t.started {
			p.forged(fmt.Sprintf("%s started twice", e.Test))
		}
		t.started = true
	case Pass, Fail, Skip:
		switch {
		case t.Outcome != "":
			p.forged(fmt.Sprintf("a %s of %s was reported after its %s", e.Action, e.Test, t.Outcome))
			return
		case !t.started:
			p.forged(fmt.Sprintf("a %s of %s, which had not started, was reported", e.Action, e.Test))
		}
		t.Outcome, t.Elapsed = e.Action, e.Elapsed
		if e.Action != Fail {
			// Only a failure's messages are ever read: a run of many
			// passing tests holds their names, never their output.
			t.out = nil
		}
	}
}

// forged records the first sign that the events were not all written by
// the testing package.
func (p *eventParser) forged(why string) {
	if p.res.Forged == "" {
		p.res.Forged = why
	}
}

func (p *eventParser) result() *Result {
	var out strings.Builder
	for _, l := range p.out.lines() {
		out.WriteString(l + "\n")
	}
	p.res.Output = out.String()
	for _, t := range p.res.Tests {
		if t.out != nil {
			t.Output, t.out = t.out.lines(), nil
		}
	}
	return p.res
}

// decode reads events from r, one JSON object per line, and hands each to
// fn. Lines that are not JSON objects are skipped.
func decode(r io.Reader, fn func(Event)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return fmt.Errorf("test2json: bad event %q: %w", line, err)
		}
		fn(e)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("test2json: %w", err)
	}
	return nil
}

// Parse reads the test2json events of one run of one package.
func Parse(r io.Reader) (*Result, error) {
	p := newParser()
	if err := decode(r, p.add); err != nil {
		return nil, err
	}
	return p.result(), nil
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

// Failed returns the names of the tests that reported a failure, sorted.
func (r *Result) Failed() []string {
	return r.with(Fail)
}

// Unfinished returns the names of the tests that started but never
// reported an outcome, sorted: the binary stopped while they ran.
func (r *Result) Unfinished() []string {
	return r.with("")
}

func (r *Result) with(outcome string) []string {
	var names []string
	for name, t := range r.Tests {
		if t.Outcome == outcome {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Message returns what test name reported about its failure: the lines
// it logged (t.Log, t.Error, t.Fatal), without the four spaces of
// indentation the testing package gives them, and a panic or fatal error
// with its trace. Other lines credited to the test, such as what a process
// it started printed, may belong to another test that ran at the same
// time (test2json cannot tell), and are left out unless the test logged
// nothing at all.
func (r *Result) Message(name string) string {
	t := r.Tests[name]
	if t == nil {
		return ""
	}
	var logged, all []string
	crashing := false
	for _, l := range t.Output {
		if isFraming(l) {
			continue
		}
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			crashing = true
		}
		line := strings.TrimPrefix(l, "    ")
		all = append(all, line)
		if crashing || strings.HasPrefix(l, "    ") {
			logged = append(logged, line)
		}
	}
	if len(logged) == 0 {
		logged = all
	}
	return strings.TrimRight(strings.Join(logged, "\n"), "\n")
}

// isFraming reports whether l is a line that the testing package writes
// around a test's own output.
func isFraming(l string) bool {
	l = strings.TrimLeft(l, " ")
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS", "--- FAIL", "--- SKIP"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}
