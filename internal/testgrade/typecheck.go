package testgrade

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// CheckRequest is a learner's file to type-check and to hold to the rules
// on types (see reachProblems), with what it needs.
type CheckRequest struct {
	// Path is the import path of the package the file is checked in: the
	// external test package, or the package itself.
	Path string `json:"path"`
	// Own are the package's own files, checked with the learner's when it
	// is in the package itself.
	Own []string `json:"own,omitempty"`
	// Name is the learner's file's name in messages, and Src its source.
	Name string `json:"name"`
	Src  []byte `json:"src"`
	// Exports are the files of export data of the packages the files
	// import, by import path (see gotest.ExportFiles).
	Exports map[string]string `json:"exports"`
	// Allowed are the packages beyond exercise.StandardImports that the catalog lets the
	// file import (Rules.Imports): values of theirs are not refused.
	Allowed []string `json:"allowed,omitempty"`
}

// checkHere type-checks the request in this process: its problems, at the
// learner's file's lines; an error if the request cannot be checked (its
// own files do not parse).
func checkHere(req CheckRequest) (yamlfile.Errors, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range req.Own {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	f, err := parser.ParseFile(fset, req.Name, req.Src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return syntaxErrors(err).(yamlfile.Errors), nil
	}
	return typeErrors(fset, req.Path, append(files, f), gotest.Importer(req.Exports), req.Allowed), nil
}

// Bounds of a type check in a process of its own (CheckBounded): go/types
// spells out every type a file's generics make, and 756 bytes of them can
// make one of 2^30 fields. A contract test's file takes a fraction of a
// second and tens of MiB.
const (
	checkWall   = time.Minute
	checkCPU    = 20 * time.Second
	checkMemory = 512 << 20 // RLIMIT_DATA: the Go heap's mappings
)

// checkEnv marks the process that CheckBounded starts: ChildMain takes
// over.
const checkEnv = "MUTATE_TYPECHECK"

// errTooCostly is the error of a learner's file that its type check or its
// build would take more than its bounds: the file's problem, no one
// else's.
var errTooCostly = errors.New("too costly")

// CheckBounded type-checks the request in a process of its own, this
// program started again (whose main calls ChildMain first), bounded in
// CPU time (checkCPU) and memory (checkMemory), and guarded in wall time
// (checkWall, then four times that once: a machine's load moves wall
// time, not the others): a file whose check meets a bound is too costly
// (errTooCostly), and costs the grader no more than the bounds.
func CheckBounded(ctx context.Context, req CheckRequest) (yamlfile.Errors, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var (
		cmd            *exec.Cmd
		stdout, stderr bytes.Buffer
		runErr         error
	)
	// The wall limit guards against a check that waits without end; its
	// limits of CPU time and memory, which no load moves, say what is too
	// costly. A check stopped at the wall limit within them was slowed by
	// the machine: it runs once more, with a limit four times as long.
	for wall := checkWall; ; wall *= 4 {
		wctx, cancel := context.WithTimeout(ctx, wall)
		// The arguments run no test, should this be a test binary.
		cmd = exec.CommandContext(wctx, self, "-test.run=^$")
		cmd.Env = append(os.Environ(), checkEnv+"=1")
		cmd.Stdin = bytes.NewReader(data)
		stdout.Reset()
		stderr.Reset()
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		runErr = cmd.Run()
		slowed := wctx.Err() == context.DeadlineExceeded && ctx.Err() == nil
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case slowed && wall == checkWall:
			continue
		case slowed:
			return nil, fmt.Errorf("%w to type-check: it took more than %s, twice", errTooCostly, wall)
		}
		break
	}
	if runErr != nil {
		if why := costly(cmd.ProcessState, stderr.String()); why != "" {
			return nil, fmt.Errorf("%w to type-check: %s", errTooCostly, why)
		}
		return nil, fmt.Errorf("type-checking %s: %v: %s", req.Name, runErr, strings.TrimSpace(stderr.String()))
	}
	var out checkResult
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("type-checking %s: %w", req.Name, err)
	}
	if out.Err != "" {
		return nil, errors.New(out.Err)
	}
	var errs yamlfile.Errors
	for _, p := range out.Problems {
		errs = append(errs, &yamlfile.Error{Pos: yamlfile.Pos{File: p.File, Line: p.Line, Col: p.Col}, Msg: p.Msg})
	}
	return errs, nil
}

// costly says which bound ended the check, from how its process ended and
// what it said: "" if none did.
func costly(ps *os.ProcessState, stderr string) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ps.UserTime()+ps.SystemTime() >= checkCPU-time.Second {
		return fmt.Sprintf("it used more than %s of CPU time", checkCPU)
	}
	if strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory") {
		return fmt.Sprintf("it needed more than %d MiB of memory", checkMemory>>20)
	}
	return ""
}

// checkResult is what the process of CheckBounded writes.
type checkResult struct {
	Problems []checkProblem `json:"problems"`
	Err      string         `json:"error,omitempty"`
}

type checkProblem struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Msg  string `json:"msg"`
}

// ChildMain makes this process the type check of CheckBounded, if it was
// started as one: it then never returns. Call it first in main, and in the
// TestMain of a test whose process checks files in a process of their own.
func ChildMain() {
	if os.Getenv(checkEnv) == "" {
		return
	}
	os.Exit(childCheck())
}

func childCheck() int {
	if err := boundCheck(); err != nil {
		fmt.Fprintf(os.Stderr, "bound the check: %v\n", err)
		return 1
	}
	var req CheckRequest
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fmt.Fprintf(os.Stderr, "bad request: %v\n", err)
		return 1
	}
	var out checkResult
	errs, err := checkHere(req)
	if err != nil {
		out.Err = err.Error()
	}
	for _, e := range errs {
		var ye *yamlfile.Error
		if errors.As(e, &ye) {
			out.Problems = append(out.Problems, checkProblem{ye.Pos.File, ye.Pos.Line, ye.Pos.Col, ye.Msg})
		} else {
			out.Problems = append(out.Problems, checkProblem{Msg: e.Error()})
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 1
	}
	return 0
}
