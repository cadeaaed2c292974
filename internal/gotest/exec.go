package gotest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fencelab/fencelab/internal/sandbox"
	"github.com/fencelab/fencelab/third_party/test2json"
)

// drainGrace is how long the output of a test binary that has exited may
// still arrive: a process it started outside its process group can hold
// the pipe open, and its lines are not waited for longer than this.
const drainGrace = 2 * time.Second

// cpuPoll is how often a binary's CPU time is read, under a CPU limit.
const cpuPoll = 50 * time.Millisecond

// stopGrace is how long a sandbox's init that ends its run itself may take
// to, once asked: it kills every process of the run and reaps them.
const stopGrace = 5 * time.Second

// Test2JSON returns the path of the go command's test2json program,
// building it if the toolchain does not ship it built.
func Test2JSON(ctx context.Context, goCmd string) (string, error) {
	cmd := command(ctx, goCmd, "tool", "-n", "test2json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := output(cmd)
	if err != nil {
		return "", fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(stderr.String()))
	}
	path := strings.TrimSpace(string(out))
	if path == "" || strings.ContainsAny(path, "\n ") {
		return "", fmt.Errorf("%s printed %q, not the path of test2json", strings.Join(cmd.Args, " "), out)
	}
	return path, nil
}

// runEnv is the environment variable that carries, into a test binary and
// everything it starts, the token of its run, by which what it leaves
// running is told from what other runs do. A token is random: it says
// nothing of the run, not even how many ran before it.
const runEnv = "MUTATE_RUN"

// Exec is one run of a compiled test binary.
type Exec struct {
	// Test2JSON is the test2json program (see Test2JSON); if empty, the
	// output is converted in this process (package test2json, vendored),
	// which a test binary of release test2json.GoVersion needs.
	Test2JSON  string
	Binary     string   // the test binary
	Dir        string   // its working directory
	ImportPath string   // the package, as events name it
	Args       []string // extra flags, such as -test.run=^TestX$
	Env        []string // extra environment variables, KEY=VALUE
	// Clean runs the binary with Env alone (and runEnv), nothing of this
	// process's environment.
	Clean   bool
	Timeout time.Duration // kill the binary after this long; 0 for no limit
	// CPULimit, if set, kills the binary once it, with the processes it
	// has waited for, has used this much CPU time (Result.OverCPU); on
	// Linux only, elsewhere it is ignored. Unlike Timeout, a machine's
	// load does not bring a run nearer to it.
	CPULimit time.Duration
	// Memory, if set, kills the binary once it, with every process it
	// started, holds more than this many bytes of memory (anonymous and
	// shared, read as often as the CPU time): Result.OverMemory. On
	// Linux only, elsewhere it is ignored.
	Memory int64
	// OnEvent, if set, is called with each event as it arrives, from one
	// goroutine.
	OnEvent func(Event)
	// Isolate, if set, runs the binary in a sandbox of its own (see
	// package sandbox), whose end is the end of everything the binary
	// started. The caller checks that its tier is available.
	Isolate *sandbox.Spec
	// Written are directories whose files count as memory the binary
	// holds, under Memory: those a sandbox without a private file system
	// (Landlock's) lets it write.
	Written []string
	// Finished, if set, is a file that does not exist yet, where the
	// testing package writes a memory profile once its run is over (after
	// every test, and TestMain's return): Result.Finished says whether it
	// did. The profile must be a heap profile of the sampling rate that
	// this run alone was given (see finished): a file the code under test
	// merely creates, after printing "PASS" and exiting, is not one.
	Finished string
}

// Run runs the test binary with -test.v=test2json, its output piped
// through test2json, and returns the outcome of every test. The binary is
// the leader of a process group of its own: when it exits, or its
// deadline passes, or ctx is done, the whole group is killed. Failing
// tests, a crash or a timeout are not errors; an error means the binary
// could not be run as asked, or ctx is done.
//
// A run goes through four steps: start (test2json, then the binary, its
// output piped through test2json and parsed as it comes), watch (until the
// binary exits, or a limit or ctx ends it), stop (what is left of it is
// killed and reaped, its output drained) and collect (the result).
func (e Exec) Run(ctx context.Context) (*Result, error) {
	r := &running{Exec: e, p: newParser()}
	if err := r.start(); err != nil {
		return nil, err
	}
	defer r.outR.Close()
	r.watch(ctx)
	r.stop()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return r.collect()
}

// running is one run of a test binary, from its start to its result.
type running struct {
	Exec
	token string // of the run (RunEnv)
	rate  int    // the memory profile's sampling rate (see Finished)

	outR             *os.File // the read end of the binary's output
	conv             *exec.Cmd
	convIn           io.WriteCloser
	convOut          io.ReadCloser
	convErr          bytes.Buffer
	bin              *exec.Cmd
	box              *sandbox.Cmd // nil unless isolated
	meter            *cpuMeter    // of the binary
	first            *firstRun
	begin            time.Time
	p                *eventParser
	lastEvent        atomic.Int64  // nanoseconds since begin
	copied           chan struct{} // the output is all with test2json
	parsed           chan error    // test2json's events are all parsed
	exited           chan struct{} // the binary has exited
	reaped           bool
	waitErr          error
	timedOut         bool
	overCPU, overMem bool
	used             time.Duration // CPU time, as last read
	peak             int64         // memory, as last read
	wall             time.Duration
}

// start starts the converter (test2json, or one in this process) and then
// the binary, and the goroutines that copy the binary's output to the
// converter, parse its events and wait for the binary. On an error nothing
// is left running.
func (r *running) start() error {
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	r.outR = outR
	if err := r.startConverter(); err != nil {
		outR.Close()
		outW.Close()
		return err
	}
	if err := r.startBinary(outW); err != nil {
		r.convIn.Close()
		io.Copy(io.Discard, r.convOut)
		r.convOut.Close()
		r.waitConverter()
		outR.Close()
		return err
	}
	r.meter = &cpuMeter{pid: r.bin.Process.Pid, inner: r.box != nil, written: r.Written}
	r.first = &firstRun{r: outR, meter: r.meter}
	r.copied, r.parsed, r.exited = make(chan struct{}), make(chan error, 1), make(chan struct{})
	go func() {
		io.Copy(r.convIn, r.first)
		r.convIn.Close()
		close(r.copied)
	}()
	go func() {
		err := decode(r.convOut, func(ev Event) {
			// A test that starts or ends is progress; a test that prints
			// without end is not.
			if ev.Test != "" && ev.Action != "output" {
				r.lastEvent.Store(int64(time.Since(r.begin)))
			}
			r.p.add(ev)
			if r.OnEvent != nil {
				r.OnEvent(ev)
			}
		})
		// Past a bad event, the rest is read, unparsed: the converter
		// never waits on a reader that stopped.
		io.Copy(io.Discard, r.convOut)
		r.convOut.Close()
		r.parsed <- err
	}()
	go func() {
		r.reaped, r.waitErr = waitUnreaped(r.bin)
		close(r.exited)
	}()
	return nil
}

// startConverter starts test2json, its input and output piped; or, without
// a test2json program, a converter in this process, behind the same pipes.
func (r *running) startConverter() error {
	if r.Test2JSON == "" {
		// A pipe with the kernel's buffer: the converter writes its first
		// event before anything reads.
		out, convOut, err := os.Pipe()
		if err != nil {
			return err
		}
		// Timestamps: a test's Elapsed comes only with them, and the
		// limits of later runs derive from it (as with test2json -t).
		conv := test2json.NewConverter(convOut, r.ImportPath, test2json.Timestamp)
		r.convIn = converterInput{conv, convOut}
		r.convOut = out
		return nil
	}
	// -t: test2json gives a test's Elapsed only with its time stamps,
	// and the limits of later runs derive from it.
	r.conv = exec.Command(r.Test2JSON, "-t", "-p", r.ImportPath)
	setProcAttr(r.conv)
	var err error
	if r.convIn, err = r.conv.StdinPipe(); err != nil {
		return err
	}
	if r.convOut, err = r.conv.StdoutPipe(); err != nil {
		return err
	}
	r.conv.Stderr = &r.convErr
	if err := start(r.conv); err != nil {
		return fmt.Errorf("start test2json: %w", err)
	}
	return nil
}

// waitConverter waits for the test2json program, if one was started.
func (r *running) waitConverter() error {
	if r.conv == nil {
		return nil
	}
	return wait(r.conv)
}

// converterInput is the input of a converter in this process: closing it
// ends the conversion, as closing test2json's input does, and then its
// output.
type converterInput struct {
	conv *test2json.Converter
	out  *os.File
}

func (c converterInput) Write(b []byte) (int, error) { return c.conv.Write(b) }

func (c converterInput) Close() error {
	err := c.conv.Close()
	c.out.Close()
	return err
}

// startBinary starts the test binary, in its sandbox when isolated, its
// output and errors written to out, which it closes: the binary and what
// it starts hold the only write ends.
func (r *running) startBinary(out *os.File) error {
	defer out.Close()
	args := append([]string{"-test.v=test2json", "-test.count=1", "-test.paniconexit0"}, r.Args...)
	r.rate = finishedRate()
	if r.Finished != "" {
		args = append(args, "-test.memprofile="+r.Finished, "-test.memprofilerate="+strconv.Itoa(r.rate))
	}
	r.token = rand.Text()
	env := os.Environ()
	if r.Clean {
		env = nil
	}
	env = append(append(env, r.Env...), runEnv+"="+r.token)
	if r.Isolate != nil {
		box, err := sandbox.Command(*r.Isolate, r.Dir, env, r.Binary, args...)
		if err != nil {
			return err
		}
		r.box, r.bin = box, box.Cmd
	} else {
		r.bin = exec.Command(r.Binary, args...)
		r.bin.Dir, r.bin.Env = r.Dir, env
		setProcAttr(r.bin)
	}
	r.bin.Stdout, r.bin.Stderr = out, out
	r.begin = time.Now()
	err := start(r.bin)
	if r.box != nil {
		r.box.Started()
	}
	if err != nil {
		return fmt.Errorf("start %s: %w", r.Binary, err)
	}
	return nil
}

// watch waits until the binary exits, its deadline passes, ctx is done,
// or, read every cpuPoll, it holds more memory or has used more CPU time
// than its limits.
func (r *running) watch(ctx context.Context) {
	var deadline <-chan time.Time
	if r.Timeout > 0 {
		t := time.NewTimer(r.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	var tick <-chan time.Time
	if r.CPULimit > 0 && cpuMetered || r.Memory > 0 && memoryMetered {
		t := time.NewTicker(cpuPoll)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-r.exited:
			return
		case <-deadline:
			r.timedOut = true
			return
		case <-ctx.Done():
			return
		case <-tick:
			if r.overLimit() {
				r.timedOut = true
				return
			}
		}
	}
}

// overLimit reads the binary's memory and CPU time, and reports whether
// either is over its limit.
func (r *running) overLimit() bool {
	if r.Memory > 0 {
		if held := r.meter.memory(); held > r.peak {
			if r.peak = held; r.peak > r.Memory {
				r.overMem = true
				return true
			}
		}
	}
	if r.CPULimit > 0 {
		if now, ok := r.meter.used(); ok {
			if r.used = now; r.used > r.CPULimit {
				r.overCPU = true
				return true
			}
		}
	}
	return false
}

// stop kills what is left of the binary's group and reaps the binary, kills
// what it started outside its group, and waits for its output.
func (r *running) stop() {
	// A sandbox whose init ends the run itself is asked to, and given a
	// while: it ends what the binary started in other groups and sessions
	// too.
	if r.box != nil && r.box.Stop() {
		select {
		case <-r.exited:
		case <-time.After(stopGrace):
		}
	}
	// On Linux while the binary's pid is still taken (it has exited, but
	// it is not reaped yet): nothing it started in its group outlives it,
	// and the group cannot be another's.
	killGroup(r.bin.Process)
	<-r.exited
	if r.reaped {
		forget(r.bin)
	} else {
		r.waitErr = wait(r.bin)
	}
	r.wall = time.Since(r.begin)
	// What the binary started outside its group, such as a process in a
	// session of its own, is reparented here by now: kill it too.
	SweepOrphans(r.token)
	select {
	case <-r.copied:
	case <-time.After(drainGrace):
		r.outR.Close() // a process outside the group holds the output open
		<-r.copied
	}
}

// collect returns the result of the run: its tests' events, and how the
// binary ended.
func (r *running) collect() (*Result, error) {
	decodeErr := <-r.parsed
	convWaitErr := r.waitConverter()
	if decodeErr != nil {
		return nil, decodeErr
	}
	if convWaitErr != nil {
		return nil, fmt.Errorf("test2json: %v: %s", convWaitErr, strings.TrimSpace(r.convErr.String()))
	}
	res := r.p.result()
	res.Wall, res.TimedOut, res.OverCPU, res.OverMemory = r.wall.Seconds(), r.timedOut, r.overCPU, r.overMem
	// What the kernel saw of the biggest process (the binary, which the
	// init waited for), should it have ended before a reading.
	res.PeakMemory = max(r.peak, maxResident(r.bin.ProcessState))
	res.StartCPU = r.first.cpu.Seconds()
	if r.bin.ProcessState != nil {
		res.CPU = (r.bin.ProcessState.UserTime() + r.bin.ProcessState.SystemTime()).Seconds()
	}
	// A sandbox's init killed with the binary may not have waited for it.
	res.CPU = max(res.CPU, r.used.Seconds())
	res.Idle = max(r.wall-time.Duration(r.lastEvent.Load()), 0).Seconds()
	res.ExitCode, res.Signal = exitStatus(r.waitErr)
	if err := r.sandboxStatus(res); err != nil {
		return nil, err
	}
	if res.ExitCode < 0 && res.Signal == "" {
		return nil, fmt.Errorf("%s: %w", r.Binary, r.waitErr)
	}
	if r.Finished != "" {
		res.Finished = finished(r.Finished, r.rate)
		os.Remove(r.Finished)
	}
	return res, nil
}

// sandboxStatus sets res's exit status from what the sandbox's init
// reported of the binary: the init's own status is the binary's, unless it
// was killed at the limit, which its report says nothing of.
func (r *running) sandboxStatus(res *Result) error {
	if r.box == nil {
		return nil
	}
	st, err := r.box.Ending()
	switch {
	case err == nil:
		res.ExitCode, res.Signal = st.Code, st.Signal
	case r.timedOut:
	case errors.Is(err, sandbox.ErrInitEnded):
		// Killed from outside: a fact about this run, not a failure of
		// the harness.
		res.Lost = err.Error()
		if res.ExitCode >= 0 {
			res.ExitCode, res.Signal = -1, "killed"
		}
	default:
		return fmt.Errorf("%s in a sandbox: %w", r.Binary, err)
	}
	return nil
}

// firstRun reads a test binary's output, and the binary's CPU time when
// its first test starts (its first "=== RUN" line), on Linux.
type firstRun struct {
	r     io.Reader
	meter *cpuMeter
	seen  bool
	cpu   time.Duration
}

func (f *firstRun) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if !f.seen && cpuMetered && bytes.Contains(p[:n], []byte("=== RUN")) {
		f.seen = true
		f.cpu, _ = f.meter.used()
	}
	return n, err
}

// exitStatus returns the exit code of a process that Wait returned err
// for, or -1 and the signal that ended it.
func exitStatus(err error) (int, string) {
	if err == nil {
		return 0, ""
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return -1, ""
	}
	if code := ee.ExitCode(); code >= 0 {
		return code, ""
	}
	return -1, signalOf(ee.ProcessState)
}
