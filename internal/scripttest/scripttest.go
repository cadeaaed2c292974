//go:build linux

// Package scripttest runs the end-to-end scripts of the mutate command
// (cmd/mutate/testdata/script, testscript's txtar files) from a test
// package: cmd/mutate runs most of them, and cmd/mutate/scripts/NAME the
// Groups. The scripts' own commands (exitcode, restrict, browse, …) are
// here; cmd/mutate/testdata/script/README.md lists them.
package scripttest

import (
	"archive/zip"
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/fencelab/fencelab/internal/cli"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/proc"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/reportschema"
	"github.com/fencelab/fencelab/internal/sandbox"
	"github.com/fencelab/fencelab/internal/testgrade"
)

// Main is the TestMain of a package of scripts: the scripts' commands
// mutate and restrict are its test binary, run again.
func Main(m *testing.M) {
	sandbox.Init() // mutate, run by the scripts, is this binary: the init of its sandboxes
	testgrade.ChildMain()
	// One script at a time in each package: go test runs two packages at
	// once, and each script's mutate runs a test binary per CPU. More
	// cost more CPU time, and so took longer: go test -count=1
	// ./cmd/mutate/... on 2 CPUs took 148 s and 259 s of CPU one at a
	// time, 160 s and 290 s two at a time, 179 s and 322 s four at a time.
	// -test.parallel still decides.
	flag.Set("test.parallel", "1")
	testscript.Main(m, map[string]func(){"mutate": cli.Command, "restrict": restrictMain})
}

// Groups are the scripts of cmd/mutate/testdata/script that run in test
// packages of their own (cmd/mutate/scripts/NAME), by name: each package
// is a test binary, with a time limit of its own (go test's -timeout, 10
// minutes by default, is per binary), and go test runs two at once. The
// rest run in cmd/mutate's. A group holds scripts of one subject, and the
// packages' CPU times are alike (51 to 73 s each, alone, on 2 CPUs), so
// that no package's scripts, one at a time, run on alone at the end.
var Groups = map[string][]string{
	// Sandboxes: what a mutant's or a learner's code can reach, in both
	// tiers, and what a loaded machine changes.
	"isolation": {"privilege", "isolation", "sandbox", "empty_root", "stall_load"},
	// Learners' files: test files and prediction files graded, a class's,
	// the autograders' recipes.
	"learners": {"tests_hostile", "check_tests", "autograders", "check", "class_files", "partial"},
	// Lease's own mutants: the gate in both tiers, the wheats and the
	// chaffs.
	"lease": {"run_lease", "wheats"},
}

// Run runs the scripts of group, one of Groups, or with "" those of none.
func Run(t *testing.T, group string) {
	goEnv := goEnvVars(t, "GOMOD", "GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GONOSUMDB", "GOPRIVATE", "GOFLAGS")
	if goEnv["GOMOD"] == "" || goEnv["GOMOD"] == os.DevNull {
		t.Fatal("the scripts run in fencelab's module: go env GOMOD names none")
	}
	root := filepath.Dir(goEnv["GOMOD"])
	delete(goEnv, "GOMOD")
	files, err := scriptFiles(filepath.Join(root, "cmd", "mutate", "testdata", "script"), group)
	if err != nil {
		t.Fatal(err)
	}
	// The exercise script resolves fencelab's module graph with the
	// network off (go get -tool): every go.mod of the graph must be in the
	// module cache, older versions that no build needs included, which
	// only go mod download fetches. It does nothing when they are there.
	download := exec.Command("go", "mod", "download")
	download.Dir = root
	if out, err := download.CombinedOutput(); err != nil {
		t.Fatalf("go mod download: %v\n%s", err, out)
	}
	artifacts := t.ArtifactDir()
	testscript.Run(t, testscript.Params{
		Files:       files,
		WorkdirRoot: scriptsRoot(t, group),
		// [browser]: a Chromium or Chrome is on PATH, for browse. CI
		// installs one: there, its absence is an error, not a skip.
		Condition: func(cond string) (bool, error) {
			// [namespaces], [landlock]: sandboxes of the tier can be made
			// here. With CI=true a tier that sandbox.NeedEnv names (as
			// .ci/run does both) must be.
			if tier, err := sandbox.ParseTier(cond); err == nil {
				err := sandbox.Check(tier)
				if err != nil && os.Getenv("CI") == "true" && slices.Contains(strings.Split(os.Getenv(sandbox.NeedEnv), ","), cond) {
					return false, fmt.Errorf("CI=true, %s=%s and no %s sandbox here: %v", sandbox.NeedEnv, os.Getenv(sandbox.NeedEnv), tier, err)
				}
				return err == nil, nil
			}
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			if cond == "unshare" {
				// unshare makes a user namespace here, whose root may
				// limit its namespaces (as root, or where they are
				// allowed): a script can take them away (restrict
				// -container).
				return exec.Command("unshare", "--user", "--map-root-user", "sh", "-c", "echo 0 > /proc/sys/user/max_user_namespaces").Run() == nil, nil
			}
			if cond == "browser" {
				found := findBrowser() != ""
				if !found && os.Getenv("CI") == "true" {
					return false, fmt.Errorf("CI=true and no Chromium or Chrome on PATH (looked for %v): .ci/run installs chromium", browsers)
				}
				return found, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			env.Setenv("GOTOOLCHAIN", "local")
			// Each script has a cache of results of its own.
			env.Setenv("XDG_CACHE_HOME", env.Getenv("WORK")+"/.cache")
			env.Setenv("MODROOT", root)
			return nil
		},
		Cmds: commands(artifacts),
	})
}

// commands are the scripts' own commands (README.md lists them, with
// mutate and restrict, which Main gives).
func commands(artifacts string) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"treesum":      cmdTreesum,
		"waitfiles":    cmdWaitfiles,
		"gone":         cmdGone,
		"reportjson":   cmdReportJSON,
		"emptydir":     cmdEmptydir,
		"exitcode":     cmdExitcode,
		"fill":         cmdFill,
		"samematrix":   cmdSameMatrix,
		"stryker":      cmdStryker,
		"browse":       cmdBrowse(artifacts),
		"workflowstep": cmdWorkflowStep,
		"nocmd":        cmdNocmd,
		"waitcmd":      cmdWaitcmd,
		"waitchild":    cmdWaitchild,
		"waitline":     cmdWaitline,
		"limits":       cmdLimits,
		"minimalset":   cmdMinimalSet,
		"holdport":     cmdHoldport,
		"noshm":        cmdNoshm,
		"stall":        cmdStall,
		"nobody":       cmdNobody,
		"unzip":        cmdUnzip,
		"gsresult":     cmdGSResult,
	}
}

// scriptFiles returns the scripts of group in dir, those of no group for
// "": each script is in one package's run.
func scriptFiles(dir, group string) ([]string, error) {
	all, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	if group != "" && Groups[group] == nil {
		return nil, fmt.Errorf("no group of scripts %q", group)
	}
	grouped := map[string]string{}
	for g, names := range Groups {
		for _, name := range names {
			grouped[name] = g
		}
	}
	var files []string
	for _, path := range all {
		if grouped[strings.TrimSuffix(filepath.Base(path), ".txtar")] == group {
			files = append(files, path)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no script of group %q in %s", group, dir)
	}
	return files, nil
}

// scriptsRoot returns where the scripts' work directories go: the same
// directory in every run of the user's, so that a script's fixture module
// has the same path each time and compiles from Go's build cache (its
// directory is in the key of every package it compiles). It is locked
// while the scripts run, and emptied before and after them (unless
// -testwork leaves the work directories for a person to read). When it
// cannot be had, "": a new temporary directory, as testscript makes by
// default.
func scriptsRoot(t *testing.T, group string) string {
	name := fmt.Sprintf("fencelab-scripts-%d", os.Getuid())
	if group != "" {
		name += "-" + group
	}
	work, lock, err := lockScriptsRoot(filepath.Join(os.TempDir(), name))
	if err != nil {
		t.Logf("scripts in a new temporary directory: %v", err)
		return ""
	}
	keep := flag.Lookup("testwork")
	t.Cleanup(func() {
		if keep == nil || keep.Value.String() != "true" {
			if err := removeAll(work); err != nil {
				t.Logf("scripts' work directories: %v", err)
			}
		}
		lock.Close()
	})
	return work
}

// lockScriptsRoot makes dir, a directory of the user's alone (mode 0700),
// or takes it if it is one; locks it, and returns its empty subdirectory
// work and the open lock, which holds while it is open.
func lockScriptsRoot(dir string) (work string, lock *os.File, err error) {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", nil, err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 || !ok || int(st.Uid) != os.Getuid() {
		return "", nil, fmt.Errorf("%s is not a directory of this user's alone", dir)
	}
	lock, err = os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return "", nil, fmt.Errorf("another run holds %s", dir)
	}
	work = filepath.Join(dir, "work")
	if err := removeAll(work); err != nil {
		lock.Close()
		return "", nil, err
	}
	if err := os.Mkdir(work, 0o700); err != nil {
		lock.Close()
		return "", nil, err
	}
	return work, lock, nil
}

// removeAll removes dir and what it holds, read-only directories (a
// script's module cache) included.
func removeAll(dir string) error {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

func goEnvVars(t *testing.T, names ...string) map[string]string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"env", "-json"}, names...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	if err := json.Unmarshal(out, &vars); err != nil {
		t.Fatal(err)
	}
	return vars
}

// treesum DIR FILE writes the SHA-256 of every file under DIR, except
// .git, to FILE, so that two sums can be compared with cmp.
func cmdTreesum(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: treesum DIR FILE")
	}
	root := ts.MkAbs(args[0])
	var lines []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		lines = append(lines, fmt.Sprintf("%x  %s", sha256.Sum256(data), filepath.ToSlash(rel)))
		return nil
	})
	ts.Check(err)
	slices.Sort(lines)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
}

// waitfiles N GLOB waits until GLOB matches at least N files. It
// synchronizes with a background command; the limit only guards against a
// hang of the script itself.
func cmdWaitfiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfiles N GLOB")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if matches, _ := filepath.Glob(ts.MkAbs(args[1])); len(matches) >= n {
			return
		}
	}
	ts.Fatalf("no %d files match %s", n, args[1])
}

// gone GLOB checks that no process named by a pid file matching GLOB
// exists any more.
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gone GLOB")
	}
	files, _ := filepath.Glob(ts.MkAbs(args[0]))
	if len(files) == 0 {
		ts.Fatalf("no pid files match %s", args[0])
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		ts.Check(err)
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		ts.Check(err)
		// Killed processes are gone within milliseconds on a quiet
		// machine; the minute only guards against one that never goes.
		if !proc.Gone(pid, time.Minute) {
			ts.Fatalf("process %d (%s) is still running a minute after it should have ended", pid, filepath.Base(f))
		}
	}
}

// exitcode N PROG ARGS... runs PROG like exec and checks that it exits
// with status N.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// fill TEMPLATE RESULTS OUT writes the tests that failed under each mutant
// of RESULTS (mutate run -json) into the empty predictions of TEMPLATE (mutate
// template), as a learner who predicted perfectly would.
func cmdFill(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: fill TEMPLATE RESULTS OUT")
	}
	tmpl, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	rep, err := report.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	out := string(tmpl)
	for _, m := range rep.Mutants {
		empty := "  " + m.ID + ":\n    fails:\n"
		if !strings.Contains(out, empty) {
			ts.Fatalf("template has no empty prediction for %s", m.ID)
		}
		out = strings.Replace(out, empty, "  "+m.ID+":\n    fails: ["+strings.Join(m.FailedTests, ", ")+"]\n", 1)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(out), 0o644))
}

// samematrix [-status] A B checks that two mutate run -json results have
// the same mutants with the same statuses and failed tests; with -status,
// the same statuses (an early-kill run names the first test that failed,
// and which one fails first depends on the order the run learned).
func cmdSameMatrix(ts *testscript.TestScript, neg bool, args []string) {
	statusOnly := len(args) > 0 && args[0] == "-status"
	if statusOnly {
		args = args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: samematrix [-status] A B")
	}
	a, err := report.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	b, err := report.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	if len(a.Mutants) != len(b.Mutants) {
		ts.Fatalf("%d mutants, then %d", len(a.Mutants), len(b.Mutants))
	}
	for i, m := range a.Mutants {
		n := b.Mutants[i]
		if m.ID != n.ID || m.Status != n.Status || !statusOnly && !slices.Equal(m.FailedTests, n.FailedTests) {
			ts.Fatalf("mutant %d: %s %s %v, then %s %s %v", i, m.ID, m.Status, m.FailedTests, n.ID, n.Status, n.FailedTests)
		}
	}
}

// minimalset DRAFT GENERATED checks a run of a catalog draft (DRAFT, mutate
// run -json) against the full generated run it was drafted from: every
// mutant of the draft is killed; their failing sets are pairwise distinct,
// none strictly contains another, and each is the failing set of the
// generated mutant of the same id; and there are no more of them than
// distinct failing sets in the generated run.
func cmdMinimalSet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: minimalset DRAFT GENERATED")
	}
	d, err := report.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	g, err := report.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	gen, distinct := map[string][]string{}, map[string]bool{}
	for _, m := range g.Mutants {
		gen[m.ID] = m.FailedTests
		if m.Status == report.Killed {
			distinct[strings.Join(m.FailedTests, ",")] = true
		}
	}
	contains := func(a, b []string) bool { // a ⊇ b
		for _, t := range b {
			if !slices.Contains(a, t) {
				return false
			}
		}
		return true
	}
	for i, m := range d.Mutants {
		if m.Status != report.Killed || !slices.Equal(m.FailedTests, gen[m.ID]) {
			ts.Fatalf("%s: %s by %v; generated: %v", m.ID, m.Status, m.FailedTests, gen[m.ID])
		}
		for _, n := range d.Mutants[:i] {
			if contains(m.FailedTests, n.FailedTests) || contains(n.FailedTests, m.FailedTests) {
				ts.Fatalf("%s %v and %s %v: one failing set contains the other", m.ID, m.FailedTests, n.ID, n.FailedTests)
			}
		}
	}
	if len(d.Mutants) == 0 || len(d.Mutants) > len(distinct) {
		ts.Fatalf("%d mutants in the draft, %d distinct failing sets in the generated run", len(d.Mutants), len(distinct))
	}
	ts.Logf("%d mutants in the draft, of %d distinct failing sets", len(d.Mutants), len(distinct))
}

// emptydir DIR checks that DIR holds nothing.
func cmdEmptydir(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: emptydir DIR")
	}
	entries, err := os.ReadDir(ts.MkAbs(args[0]))
	ts.Check(err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if empty := len(names) == 0; empty == neg {
		ts.Fatalf("%s holds %v", args[0], names)
	}
}

// reportjson FILE decodes a mutate run -json result strictly, checks the
// fields every consumer relies on, and prints one line per mutant:
// "ID STEP STATUS FAILED-TESTS...".
func cmdReportJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: reportjson FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var r report.Report
	if err := dec.Decode(&r); err != nil {
		ts.Fatalf("not a report: %v", err)
	}
	if r.Baseline.Tests == 0 || r.Baseline.Tests != len(r.Baseline.TestNames) || r.Baseline.Seconds <= 0 {
		ts.Fatalf("bad baseline: %+v", r.Baseline)
	}
	var written struct {
		Summary report.Summary `json:"summary"`
	}
	ts.Check(json.Unmarshal(data, &written))
	if !written.Summary.Equal(r.Summary()) {
		ts.Fatalf("summary %+v does not count the mutants", written.Summary)
	}
	for _, m := range r.Mutants {
		if m.ID == "" || m.Status == "" || m.File == "" || m.Line <= 0 || m.Seconds <= 0 {
			ts.Fatalf("mutant lacks id, status, file, line or seconds: %+v", m)
		}
		if !slices.IsSorted(m.FailedTests) || len(m.Failures) != len(m.FailedTests) {
			ts.Fatalf("mutant %s: failed_tests not sorted or failures not aligned", m.ID)
		}
		for i, f := range m.Failures {
			if f.Test != m.FailedTests[i] {
				ts.Fatalf("mutant %s: failure %d is for %s, want %s", m.ID, i, f.Test, m.FailedTests[i])
			}
		}
		fmt.Fprintf(ts.Stdout(), "%s %d %s %s\n", m.ID, m.Step, m.Status, strings.Join(m.FailedTests, " "))
	}
}

// stryker FILE checks that FILE (mutate run -stryker) follows the
// mutation-testing-report-schema, and prints one line per mutant, by file:
// "FILE ID STATUS KILLED-BY...".
func cmdStryker(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: stryker FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	if err := reportschema.Validate(data); err != nil {
		ts.Fatalf("%s does not follow the mutation-testing-report-schema: %v", args[0], err)
	}
	var r report.Stryker
	ts.Check(json.Unmarshal(data, &r))
	for _, file := range slices.Sorted(maps.Keys(r.Files)) {
		f := r.Files[file]
		if f.Source == "" {
			ts.Fatalf("%s has no source", file)
		}
		for _, m := range f.Mutants {
			fmt.Fprintf(ts.Stdout(), "%s %s %s %s\n", file, m.ID, m.Status, strings.Join(m.KilledBy, " "))
		}
	}
}

// workflowstep FILE JOB STEP OUT writes the run script of the step named
// STEP of job JOB of the GitHub workflow FILE to OUT, as GitHub runs it
// (bash -e -o pipefail), with `go tool mutate` as the mutate on PATH: the
// script then runs as written, on the script's module.
func cmdWorkflowStep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: workflowstep FILE JOB STEP OUT")
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(yaml.Unmarshal(data, &wf))
	job, ok := wf.Jobs[args[1]]
	if !ok {
		ts.Fatalf("%s: no job %q", args[0], args[1])
	}
	for _, step := range job.Steps {
		if step.Name == args[2] {
			script := "set -eo pipefail\n" + strings.ReplaceAll(step.Run, "go tool mutate ", "mutate ")
			ts.Check(os.WriteFile(ts.MkAbs(args[3]), []byte(script), 0o644))
			return
		}
	}
	ts.Fatalf("%s: job %s has no step %q", args[0], args[1], args[2])
}

// nocmd TEXT checks that no process's command line holds TEXT.
func cmdNocmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: nocmd TEXT")
	}
	// A process just killed may linger a moment as a zombie, with no
	// command line; a live one shows its own.
	if pid, cmdline := findCmd(args[0]); pid != "" {
		ts.Fatalf("process %s is still running: %q", pid, cmdline)
	}
}

// waitcmd TEXT waits until a process's command line holds TEXT. It
// synchronizes with a background command; the limit only guards against a
// hang of the script itself.
func cmdWaitcmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitcmd TEXT")
	}
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if pid, _ := findCmd(args[0]); pid != "" {
			return
		}
	}
	ts.Fatalf("no process's command line holds %q", args[0])
}

// waitchild TEXT waits until a process whose command line holds TEXT has
// started a child: mutate starts none before it handles signals, so a
// signal sent then reaches its handler however loaded the machine is.
func cmdWaitchild(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitchild TEXT")
	}
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		pid, _ := findCmd(args[0])
		if pid == "" {
			continue
		}
		tasks, _ := filepath.Glob(filepath.Join("/proc", pid, "task", "*", "children"))
		for _, t := range tasks {
			if data, _ := os.ReadFile(t); len(strings.TrimSpace(string(data))) > 0 {
				return
			}
		}
	}
	ts.Fatalf("no process whose command line holds %q started a child", args[0])
}

// findCmd returns the pid and command line of a process whose command
// line holds text, if there is one.
func findCmd(text string) (pid, cmdline string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(data), text) {
			return e.Name(), strings.ReplaceAll(string(data), "\x00", " ")
		}
	}
	return "", ""
}

// limits MB CPU PROG ARGS... runs PROG like exec (any exit code) and
// checks that its peak resident memory stays under MB megabytes and that
// it, with the processes it waited for, used at most CPU seconds of CPU
// time (user and system): what it cost, which no load moves. The peak is
// read from /proc while it runs, and from its resource usage when it
// ended. Its wall time only guards against a hang (a read that never
// returns uses no CPU): at limitsHangFactor times CPU, at least
// limitsHang, it is killed and the step fails, saying so.
func cmdLimits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: limits MB CPU PROG [ARGS...]")
	}
	mb, err := strconv.Atoi(args[0])
	ts.Check(err)
	secs, err := strconv.Atoi(args[1])
	ts.Check(err)
	prog := args[2]
	if prog == "mutate" {
		prog = os.Args[0] // testscript runs this binary as mutate
	}
	cmd := exec.Command(prog, args[3:]...)
	if args[2] == "mutate" {
		cmd.Args[0] = "mutate"
	}
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = os.Environ()
	for _, k := range []string{"HOME", "XDG_CACHE_HOME", "GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOFLAGS", "GOTOOLCHAIN", "WORK", "MODROOT", "PATH", harness.BlindBuildMemoryEnv} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	ts.Check(cmd.Start())
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	peak := 0
	status := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "status")
	guard := time.After(max(limitsHang, limitsHangFactor*time.Duration(secs)*time.Second))
	hung := false
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-guard:
			hung = true
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case <-time.After(20 * time.Millisecond):
		}
		if data, err := os.ReadFile(status); err == nil {
			for line := range strings.Lines(string(data)) {
				if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")))
					peak = max(peak, n/1024)
				}
			}
		}
	}
	wall := time.Since(start)
	var cpu time.Duration
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = max(peak, int(ru.Maxrss/1024)) // the peak of a run too short to be seen
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	ts.Stdout().Write([]byte(stdout.String()))
	ts.Stderr().Write([]byte(stderr.String()))
	ts.Logf("peak resident memory %d MB, %.1fs of CPU in %.1fs", peak, cpu.Seconds(), wall.Seconds())
	if hung {
		ts.Fatalf("limits: %s was still running after %.0fs (having used %.1fs of CPU, at most %ds expected): a hang; killed", strings.Join(args[2:], " "), wall.Seconds(), cpu.Seconds(), secs)
	}
	if peak == 0 || peak > mb {
		ts.Fatalf("peak resident memory %d MB, want under %d", peak, mb)
	}
	if cpu > time.Duration(secs)*time.Second {
		ts.Fatalf("used %.1fs of CPU, want at most %ds", cpu.Seconds(), secs)
	}
}

// limits' guard against a hang: a command still running after
// limitsHangFactor times the CPU time it may use, and at least limitsHang,
// is waiting for something, not computing.
const (
	limitsHang       = 2 * time.Minute
	limitsHangFactor = 4
)

// waitline FILE REGEXP waits until a line of FILE matches REGEXP: a
// background command's progress line says which phase it is in.
func cmdWaitline(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitline FILE REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		data, _ := os.ReadFile(ts.MkAbs(args[0]))
		for line := range strings.Lines(string(data)) {
			if re.MatchString(strings.TrimSuffix(line, "\n")) {
				return
			}
		}
	}
	data, _ := os.ReadFile(ts.MkAbs(args[0]))
	ts.Fatalf("no line of %s matches %s:\n%s", args[0], args[1], data)
}

// holdport ADDR... listens on each address, as the host, until the script
// ends, and answers every connection with "host".
func cmdHoldport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: holdport ADDR...")
	}
	for _, addr := range args {
		l, err := net.Listen("tcp", addr)
		ts.Check(err)
		ts.Defer(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Write([]byte("host\n"))
				c.Close()
			}
		}()
	}
}

// noshm KEY fails if a System V shared memory segment of KEY (decimal)
// exists on the host.
func cmdNoshm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: noshm KEY")
	}
	data, err := os.ReadFile("/proc/sysvipc/shm")
	ts.Check(err)
	for line := range strings.Lines(string(data)) {
		if f := strings.Fields(line); len(f) > 0 && f[0] == args[0] {
			ts.Fatalf("a segment of key %s is on the host: %s", args[0], line)
		}
	}
}

// stalls are the stall servers of the scripts running, by script.
var stalls = struct {
	sync.Mutex
	of map[*testscript.TestScript]net.Listener
}{of: map[*testscript.TestScript]net.Listener{}}

// stall ADDR SECONDS LOG [RULE...] serves, on ADDR, tests that report
// each run of theirs as a line ("active=ID cover=yes|no run=PATTERN") and
// wait for an answer: it answers at once, but a run that a RULE (a
// regular expression) matches waits SECONDS first, as if the machine had
// stalled it; each rule stalls one run, the first it matches that no rule
// before it took. Every line goes to LOG, "stalled" or "served" first.
// The server, and every stall, ends with the script, or when the script
// starts the next.
func cmdStall(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: stall ADDR SECONDS LOG [RULE...]")
	}
	secs, err := strconv.ParseFloat(args[1], 64)
	ts.Check(err)
	var rules []*regexp.Regexp
	for _, r := range args[3:] {
		re, err := regexp.Compile(r)
		ts.Check(err)
		rules = append(rules, re)
	}
	log, err := os.Create(ts.MkAbs(args[2]))
	ts.Check(err)
	stalls.Lock()
	if prev := stalls.of[ts]; prev != nil {
		prev.Close()
		delete(stalls.of, ts)
	}
	l, err := net.Listen("tcp", args[0])
	if err == nil {
		stalls.of[ts] = l
	}
	stalls.Unlock()
	ts.Check(err)
	var mu sync.Mutex
	done := make(chan struct{})
	ts.Defer(func() {
		stalls.Lock()
		if stalls.of[ts] == l {
			delete(stalls.of, ts)
		}
		stalls.Unlock()
		l.Close()
		close(done)
		mu.Lock()
		log.Close()
		mu.Unlock()
	})
	used := make([]bool, len(rules))
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(time.Minute))
				line, _ := bufio.NewReader(c).ReadString('\n')
				line = strings.TrimSpace(line)
				mu.Lock()
				stall := false
				for i, re := range rules {
					if !used[i] && re.MatchString(line) {
						used[i], stall = true, true
						break
					}
				}
				fmt.Fprintf(log, "%s %s\n", map[bool]string{true: "stalled", false: "served"}[stall], line)
				mu.Unlock()
				if stall {
					select {
					case <-time.After(time.Duration(secs * float64(time.Second))):
					case <-done:
						return
					}
				}
				c.Write([]byte("go\n"))
			}()
		}
	}()
}

// unzip ZIP DIR extracts ZIP into DIR, with each file's permissions, as
// Gradescope extracts an autograder's zip into /autograder/source.
func cmdUnzip(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: unzip ZIP DIR")
	}
	z, err := zip.OpenReader(ts.MkAbs(args[0]))
	ts.Check(err)
	defer z.Close()
	dir := ts.MkAbs(args[1])
	for _, f := range z.File {
		to := filepath.Join(dir, filepath.FromSlash(f.Name))
		if !strings.HasPrefix(to, dir+string(filepath.Separator)) {
			ts.Fatalf("%s: entry %q is outside the archive's directory", args[0], f.Name)
		}
		ts.Check(os.MkdirAll(filepath.Dir(to), 0o755))
		r, err := f.Open()
		ts.Check(err)
		data, err := io.ReadAll(r)
		r.Close()
		ts.Check(err)
		ts.Check(os.WriteFile(to, data, f.Mode().Perm()))
	}
}

// gsresult FILE checks that FILE is a results.json as Gradescope's
// autograder specification describes it (the schema of
// internal/predict/testdata/schemas), and prints what a learner is shown
// of it: "score S (visibility V)", then per test "NAME: SCORE/MAX STATUS
// VISIBILITY".
func cmdGSResult(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gsresult FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	schema := filepath.Join(ts.Getenv("MODROOT"), "internal", "predict", "testdata", "schemas", "gradescope-results.schema.json")
	if err := reportschema.ValidateFile(schema, data); err != nil {
		ts.Fatalf("%s does not follow Gradescope's format: %v", args[0], err)
	}
	var res struct {
		Score      float64
		Visibility string
		Tests      []struct {
			Name, Status, Visibility string
			Score                    float64
			MaxScore                 float64 `json:"max_score"`
		}
	}
	ts.Check(json.Unmarshal(data, &res))
	fmt.Fprintf(ts.Stdout(), "score %v (visibility %s)\n", res.Score, res.Visibility)
	for _, t := range res.Tests {
		fmt.Fprintf(ts.Stdout(), "%s: %v/%v %s %s\n", t.Name, t.Score, t.MaxScore, t.Status, t.Visibility)
	}
}
