package gotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/text"
)

// Compile is one `go test -c` of one package.
type Compile struct {
	Go      string   // the go command; "go" if empty
	Dir     string   // where go runs: inside the module
	Package string   // the package, as go names it: "./stock"
	Flags   []string // extra build flags, such as -overlay=FILE
	Env     []string // extra environment variables, KEY=VALUE
	// Stderr, if set, receives each line that go writes to stderr while
	// it works, such as "go: downloading example.com/m v1.2.3".
	Stderr func(line string)
	// Say, if set, receives what the build says of itself: that it runs
	// again, slowed past its wall limit.
	Say func(msg string)
	// Keep, if set, is where the binary stays from one build to the next,
	// a path of its own in a directory of its own: go links it again only
	// when something it is made of changed, and Build copies it to out.
	// A kept binary whose content changed since it was linked is linked
	// again, and Changed, if set, is told.
	Keep    string
	Changed func(path string)
	// Limits, if set, bound the build.
	Limits BuildLimits
}

// BuildLimits bound one build: its wall time, and each process of it (the
// go command, each compile and link, which inherit the limits of the go
// command, set before it starts them) in CPU time, memory (the heap's
// mappings, RLIMIT_DATA: a Go program past it ends, out of memory) and the
// size of a file it writes. Zero is no limit; CPU time, memory and file
// size are bounded on Linux only.
type BuildLimits struct {
	Wall, CPU        time.Duration
	Memory, FileSize int64
}

// BuildError is returned when the package or its tests do not compile.
type BuildError struct {
	Package string
	Output  string // the compiler's messages
	// Costly says which of its limits (see BuildLimits) stopped the build,
	// if one did: "it took more than 3m0s".
	Costly string

	wall bool // its wall limit stopped it
}

func (e *BuildError) Error() string {
	if e.Costly != "" {
		return fmt.Sprintf("the build of %s was stopped at its limit: %s", e.Package, e.Costly)
	}
	return fmt.Sprintf("%s does not build:\n%s", e.Package, strings.TrimRight(e.Output, "\n"))
}

// buildEvent is one line of go build -json output.
type buildEvent struct {
	ImportPath string
	Action     string
	Output     string
}

// Build compiles the test binary of c's package to out. When the package
// or its tests do not compile, the error is a *BuildError; any other error
// means go could not do what it was asked (no such package, a module that
// cannot load).
func (c Compile) Build(ctx context.Context, out string) error {
	if c.Keep != "" {
		return c.buildKept(ctx, out)
	}
	return c.build(ctx, out)
}

// wallRetryFactor is how much longer the second try of a build stopped
// at its wall limit is: the wall limit guards against a build that hangs;
// its limits of CPU time and memory, which no load moves, say what is too
// costly (see build).
const wallRetryFactor = 4

func (c Compile) build(ctx context.Context, out string) error {
	err := c.buildOnce(ctx, out)
	var be *BuildError
	if errors.As(err, &be) && be.wall && c.Limits.Wall > 0 {
		// Stopped at its wall limit, within its CPU and memory limits:
		// the machine slowed it, or it waits. Once more, with a longer
		// one: a build too costly meets its CPU or memory limit there,
		// and a hang the longer wall limit.
		if c.Say != nil {
			c.Say(fmt.Sprintf("the build of %s took more than %s within its limits of CPU time and memory: the machine slowed it; once more, with %s", c.Package, c.Limits.Wall, wallRetryFactor*c.Limits.Wall))
		}
		again := c
		again.Limits.Wall *= wallRetryFactor
		err = again.buildOnce(ctx, out)
	}
	return err
}

func (c Compile) buildOnce(ctx context.Context, out string) error {
	parent := ctx
	if c.Limits.Wall > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Limits.Wall)
		defer cancel()
	}
	// vet says nothing about a mutant's verdict.
	args := append([]string{"test", "-c", "-json", "-vet=off", "-o", out}, c.Flags...)
	cmd := command(ctx, c.Go, append(args, c.Package)...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr := &Lines{Fn: c.Stderr}
	cmd.Stderr = stderr
	if err := start(cmd); err != nil {
		return err
	}
	// The go command loads the packages before it starts a compile: the
	// compiles and the link inherit what it is limited to.
	if err := limitProcess(cmd.Process.Pid, c.Limits); err != nil {
		cmd.Process.Kill()
		wait(cmd)
		return fmt.Errorf("limit the build: %w", err)
	}
	runErr := wait(cmd)
	switch {
	case parent.Err() != nil:
		return parent.Err()
	case ctx.Err() != nil:
		return &BuildError{Package: c.Package, Costly: fmt.Sprintf("it took more than %s", c.Limits.Wall), wall: true}
	case runErr == nil:
		if _, err := os.Stat(out); err != nil {
			// go test -c of a package with no test file writes nothing.
			return &BuildError{Package: c.Package, Output: "go test -c wrote no test binary: the package has no test file to build\n"}
		}
		return nil
	}
	var (
		msgs        strings.Builder
		failed      bool
		setupFailed bool
	)
	// go test -c -json writes build events, and for a package it cannot
	// even load, a test event that says "[setup failed]".
	for line := range strings.Lines(stdout.String()) {
		var e buildEvent
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		switch e.Action {
		case "build-output":
			msgs.WriteString(e.Output)
		case "build-fail":
			failed = true
		case "output":
			setupFailed = setupFailed || strings.HasSuffix(e.Output, " [setup failed]\n")
		}
	}
	if failed && !setupFailed {
		return &BuildError{Package: c.Package, Output: msgs.String(), Costly: c.Limits.costly(msgs.String(), maxResident(cmd.ProcessState))}
	}
	why := strings.TrimSpace(msgs.String() + "\n" + stderr.String())
	if why == "" {
		why = runErr.Error()
	}
	return fmt.Errorf("%s: %s", strings.Join(cmd.Args, " "), why)
}

// costly says which limit of l stopped a build that said out, if one did;
// peak is the largest resident memory of its processes (0 if unknown).
func (l BuildLimits) costly(out string, peak int64) string {
	switch {
	case l.Memory > 0 && (strings.Contains(out, "out of memory") || strings.Contains(out, "cannot allocate memory")),
		// A Go program whose mapping is refused at its limit does not
		// always say so: the compiler's garbage collector has been seen
		// to fault instead. A crash of the runtime near the limit is the
		// limit, not the package.
		l.Memory > 0 && peak >= l.Memory/2 && runtimeCrash(out):
		return fmt.Sprintf("a process of it needed more than %s of memory", text.Bytes(l.Memory))
	case l.FileSize > 0 && strings.Contains(out, "file too large"):
		return fmt.Sprintf("it wrote a file of more than %s", text.Bytes(l.FileSize))
	case l.CPU > 0 && strings.Contains(out, "signal: killed"):
		return fmt.Sprintf("a process of it used more than %s of CPU time", l.CPU)
	}
	return ""
}

// runtimeCrash reports whether out holds the crash of a Go program's
// runtime (a fault or a fatal error, with its goroutines), which no
// compile error of a package prints.
func runtimeCrash(out string) bool {
	for _, sign := range []string{"SIGSEGV: segmentation violation", "unexpected fault address", "fatal error: "} {
		if strings.Contains(out, sign) {
			return strings.Contains(out, "\ngoroutine ")
		}
	}
	return false
}

// command returns a go command that is killed with its process group when
// ctx is done.
func command(ctx context.Context, goCmd string, args ...string) *exec.Cmd {
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.CommandContext(ctx, goCmd, args...)
	killGroupOnCancel(cmd)
	return cmd
}

// Lines is an io.Writer that hands each complete line written to it to Fn,
// if set, and keeps everything written.
type Lines struct {
	Fn   func(string)
	mu   sync.Mutex
	all  bytes.Buffer
	part []byte
}

func (w *Lines) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			break
		}
		if w.Fn != nil {
			w.Fn(string(w.part[:i]))
		}
		w.part = w.part[i+1:]
	}
	return len(p), nil
}

// String returns everything written.
func (w *Lines) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

// Env returns the values of the go command's settings names.
func Env(ctx context.Context, goCmd string, names ...string) (map[string]string, error) {
	cmd := command(ctx, goCmd, append([]string{"env", "-json"}, names...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := output(cmd)
	if err != nil {
		return nil, fmt.Errorf("go env: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	env := map[string]string{}
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	return env, nil
}

// Assembly returns what the compiler emits for c's package, not its
// tests: the text of every function and data symbol, as go build
// -gcflags=-S prints it, without DWARF. Nothing is linked or kept; the
// build cache serves a package compiled before. When the package does not
// compile, the error is a *BuildError.
func (c Compile) Assembly(ctx context.Context) ([]byte, error) {
	args := append([]string{"build", "-gcflags=-S -dwarf=false", "-o", os.DevNull}, c.Flags...)
	cmd := command(ctx, c.Go, append(args, c.Package)...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	_, stderr, err := compiled(ctx, cmd, c.Package)
	return stderr, err
}

// compiled runs cmd, a compile of pkg, and returns what it printed on
// stdout and stderr: a failure is a *BuildError with its stderr, and a
// done ctx is ctx's error.
func compiled(ctx context.Context, cmd *exec.Cmd, pkg string) (stdout, stderr []byte, err error) {
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = run(cmd)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	if err != nil {
		return nil, nil, &BuildError{Package: pkg, Output: errOut.String()}
	}
	return out.Bytes(), errOut.Bytes(), nil
}
