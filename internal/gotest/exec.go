package gotest

import (
	"bytes"
	"context"
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
)

// drainGrace is how long the output of a test binary that has exited may
// still arrive: a process it started outside its process group can hold
// the pipe open, and its lines are not waited for longer than this.
const drainGrace = 2 * time.Second

// cpuPoll is how often a binary's CPU time is read, under a CPU limit.
const cpuPoll = 50 * time.Millisecond

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

// RunEnv is the environment variable that carries, into a test binary and
// everything it starts, the token of its run, by which what it leaves
// running is told from what other runs do.
const RunEnv = "MUTATE_RUN"

// runs counts the runs of test binaries, for their tokens.
var runs atomic.Int64

// Exec is one run of a compiled test binary.
type Exec struct {
	Test2JSON  string        // the test2json program (see Test2JSON)
	Binary     string        // the test binary
	Dir        string        // its working directory
	ImportPath string        // the package, as events name it
	Args       []string      // extra flags, such as -test.run=^TestX$
	Env        []string      // extra environment variables, KEY=VALUE
	Timeout    time.Duration // kill the binary after this long; 0 for no limit
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
	// Isolate, if set, runs the binary in a sandbox of its own: its own
	// user, mount and PID namespaces (see package sandbox), whose end is
	// the end of everything the binary started. The caller checks that
	// sandbox.Available.
	Isolate *sandbox.Spec
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
func (e Exec) Run(ctx context.Context) (*Result, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer outR.Close()

	// -t: test2json gives a test's Elapsed only with its time stamps,
	// and the limits of later runs derive from it.
	conv := exec.Command(e.Test2JSON, "-t", "-p", e.ImportPath)
	setProcAttr(conv)
	convIn, err := conv.StdinPipe()
	if err != nil {
		outW.Close()
		return nil, err
	}
	convOut, err := conv.StdoutPipe()
	if err != nil {
		outW.Close()
		return nil, err
	}
	var convErr bytes.Buffer
	conv.Stderr = &convErr
	if err := start(conv); err != nil {
		outW.Close()
		return nil, fmt.Errorf("start test2json: %w", err)
	}

	args := append([]string{"-test.v=test2json", "-test.count=1", "-test.paniconexit0"}, e.Args...)
	rate := finishedRate()
	if e.Finished != "" {
		args = append(args, "-test.memprofile="+e.Finished, "-test.memprofilerate="+strconv.Itoa(rate))
	}
	token := strconv.FormatInt(runs.Add(1), 10) + "-" + strconv.Itoa(os.Getpid())
	env := append(append(os.Environ(), e.Env...), RunEnv+"="+token)
	var (
		bin *exec.Cmd
		box *sandbox.Cmd
	)
	if e.Isolate != nil {
		if box, err = sandbox.Command(*e.Isolate, e.Dir, env, e.Binary, args...); err != nil {
			outW.Close()
			convIn.Close()
			wait(conv)
			return nil, err
		}
		bin = box.Cmd
	} else {
		bin = exec.Command(e.Binary, args...)
		bin.Dir, bin.Env = e.Dir, env
		setProcAttr(bin)
	}
	bin.Stdout, bin.Stderr = outW, outW
	begin := time.Now()
	err = start(bin)
	outW.Close() // the binary and what it starts hold the only write ends
	if box != nil {
		box.Started()
	}
	if err != nil {
		convIn.Close()
		io.Copy(io.Discard, convOut)
		wait(conv)
		return nil, fmt.Errorf("start %s: %w", e.Binary, err)
	}

	copied := make(chan struct{})
	first := &firstRun{r: outR, meter: cpuMeter{pid: bin.Process.Pid, inner: box != nil}}
	go func() {
		io.Copy(convIn, first)
		convIn.Close()
		close(copied)
	}()
	p := newParser()
	parsed := make(chan error, 1)
	var lastEvent atomic.Int64 // nanoseconds since start
	go func() {
		parsed <- decode(convOut, func(ev Event) {
			// A test that starts or ends is progress; a test that prints
			// without end is not.
			if ev.Test != "" && ev.Action != "output" {
				lastEvent.Store(int64(time.Since(begin)))
			}
			p.add(ev)
			if e.OnEvent != nil {
				e.OnEvent(ev)
			}
		})
	}()

	exited := make(chan struct{})
	var (
		reaped  bool
		waitErr error
	)
	go func() {
		reaped, waitErr = waitUnreaped(bin)
		close(exited)
	}()
	var deadline <-chan time.Time
	if e.Timeout > 0 {
		t := time.NewTimer(e.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	var tick <-chan time.Time
	if e.CPULimit > 0 && cpuMetered || e.Memory > 0 && memoryMetered {
		t := time.NewTicker(cpuPoll)
		defer t.Stop()
		tick = t.C
	}
	meter := cpuMeter{pid: bin.Process.Pid, inner: box != nil}
	timedOut, overCPU, overMemory := false, false, false
	var (
		used time.Duration // as last read
		peak int64
	)
watch:
	for {
		select {
		case <-exited:
			break watch
		case <-deadline:
			timedOut = true
			break watch
		case <-ctx.Done():
			break watch
		case <-tick:
			if e.Memory > 0 {
				if held := meter.memory(); held > peak {
					if peak = held; peak > e.Memory {
						timedOut, overMemory = true, true
						break watch
					}
				}
			}
			if e.CPULimit <= 0 {
				continue
			}
			if now, ok := meter.used(); ok {
				if used = now; used > e.CPULimit {
					timedOut, overCPU = true, true
					break watch
				}
			}
		}
	}
	// Kill what is left of the group, on Linux while the binary's pid is
	// still taken (it has exited, but it is not reaped yet): nothing it
	// started in its group outlives it, and the group cannot be another's.
	killGroup(bin.Process)
	<-exited
	if reaped {
		forget(bin)
	} else {
		waitErr = wait(bin)
	}
	wall := time.Since(begin)
	// What the binary started outside its group, such as a process in a
	// session of its own, is reparented here by now: kill it too.
	SweepOrphans(token)

	select {
	case <-copied:
	case <-time.After(drainGrace):
		outR.Close() // a process outside the group holds the output open
		<-copied
	}
	decodeErr := <-parsed
	convWaitErr := wait(conv)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if decodeErr != nil {
		return nil, decodeErr
	}
	if convWaitErr != nil {
		return nil, fmt.Errorf("test2json: %v: %s", convWaitErr, strings.TrimSpace(convErr.String()))
	}
	res := p.result()
	res.Wall, res.TimedOut, res.OverCPU, res.OverMemory = wall.Seconds(), timedOut, overCPU, overMemory
	// What the kernel saw of the biggest process (the binary, which the
	// init waited for), should it have ended before a reading.
	res.PeakMemory = max(peak, maxResident(bin.ProcessState))
	res.StartCPU = first.cpu.Seconds()
	if bin.ProcessState != nil {
		res.CPU = (bin.ProcessState.UserTime() + bin.ProcessState.SystemTime()).Seconds()
	}
	// A sandbox's init killed with the binary may not have waited for it.
	res.CPU = max(res.CPU, used.Seconds())
	res.Idle = max(wall-time.Duration(lastEvent.Load()), 0).Seconds()
	res.ExitCode, res.Signal = exitStatus(waitErr)
	if box != nil {
		// The init's status is the binary's, unless it was killed at the
		// limit, which its report, read here, says nothing of.
		st, err := box.Status()
		switch {
		case err == nil:
			res.ExitCode, res.Signal = st.Code, st.Signal
		case timedOut:
		case errors.Is(err, sandbox.ErrInitEnded):
			// Killed from outside: a fact about this run, not a
			// failure of the harness.
			res.Lost = err.Error()
			if res.ExitCode >= 0 {
				res.ExitCode, res.Signal = -1, "killed"
			}
		default:
			return nil, fmt.Errorf("%s in a sandbox: %w", e.Binary, err)
		}
	}
	if res.ExitCode < 0 && res.Signal == "" {
		return nil, fmt.Errorf("%s: %w", e.Binary, waitErr)
	}
	if e.Finished != "" {
		res.Finished = finished(e.Finished, rate)
		os.Remove(e.Finished)
	}
	return res, nil
}

// firstRun reads a test binary's output, and the binary's CPU time when
// its first test starts (its first "=== RUN" line), on Linux.
type firstRun struct {
	r     io.Reader
	meter cpuMeter
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
