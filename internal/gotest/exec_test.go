//go:build unix

package gotest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/proc"
	"github.com/fencelab/fencelab/internal/sandbox"
	"github.com/fencelab/fencelab/third_party/test2json"
)

// writeModule writes a one-package module with the given test file.
func writeModule(t *testing.T, test string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":    "module example.com/m\n\ngo 1.26\n",
		"m.go":      "package m\n\nfunc Two() int { return 2 }\n",
		"m_test.go": test,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fixtureTests is the test file of the module that the tests of Exec run,
// built once; each test picks its test with -test.run and its behaviour
// with the environment.
const fixtureTests = `package m

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

func init() {
	if os.Getenv("EXIT_AT_INIT") != "" {
		os.Exit(3)
	}
}

func TestTwo(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		if os.Getenv("BREAK") != "" {
			t.Errorf("Two() = %d, broken", Two())
		}
	})
}

// TestNap sleeps 30ms, or $NAP.
func TestNap(t *testing.T) {
	nap, err := time.ParseDuration(os.Getenv("NAP"))
	if err != nil {
		nap = 30 * time.Millisecond
	}
	time.Sleep(nap)
}

// TestHang starts a child in its process group, whose pid goes to
// $PID_FILE.child, records its own pid in $PID_FILE, then hangs unless
// $PASS is set.
func TestHang(t *testing.T) {
	child := exec.Command("sleep", "1000")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(os.Getenv("PID_FILE")+".child", []byte(strconv.Itoa(child.Process.Pid)), 0o644)
	os.WriteFile(os.Getenv("PID_FILE"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	if os.Getenv("PASS") == "" {
		time.Sleep(time.Hour)
	}
}

// TestSpin spins until it is stopped.
func TestSpin(t *testing.T) {
	for n := 0; ; n++ {
	}
}

// TestLeaves starts a child that ignores SIGTERM, in a session of its own
// (with an empty environment if $CLEAN_ENV is set: not even the run's
// token), records its pid in $PID_FILE and passes.
func TestLeaves(t *testing.T) {
	child := exec.Command("sh", "-c", "trap '' TERM; sleep 1000")
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if os.Getenv("CLEAN_ENV") != "" {
		child.Env = []string{}
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(os.Getenv("PID_FILE"), []byte(strconv.Itoa(child.Process.Pid)), 0o644)
}

// TestForge creates the file the testing package writes its memory
// profile to at the end (the flag's value), prints the framing of a
// pass, and exits 0 (as os.Exit would not: -test.paniconexit0), as code
// under test could.
func TestForge(t *testing.T) {
	if f := flag.Lookup("test.memprofile"); f != nil && f.Value.String() != "" {
		os.WriteFile(f.Value.String(), []byte("forged"), 0o644)
	}
	fmt.Print("\x16--- PASS: TestForge (0.00s)\n\x16PASS\n")
	syscall.Exit(0)
}

// TestHoard holds $HOARD MiB of memory, written 32 MiB at a time, for
// $HOLD (an hour by default): in its heap, or, with $HOARD_IN=memfd, in a
// memfd that it never maps, or with $HOARD_IN=files, in files of 32 MiB in
// its working directory.
func TestHoard(t *testing.T) {
	mib, _ := strconv.Atoi(os.Getenv("HOARD"))
	if os.Getenv("HOARD_IN") == "files" {
		chunk := make([]byte, 32<<20)
		for written := 0; written < mib; written += 32 {
			if err := os.WriteFile(fmt.Sprintf("hoard-%d", written), chunk, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(time.Hour)
	}
	if os.Getenv("HOARD_IN") == "memfd" {
		// memfd_create, by its number: the syscall package has none.
		nr := map[string]uintptr{"amd64": 319, "arm64": 279}[runtime.GOARCH]
		if nr == 0 {
			t.Skip("no memfd_create's number for " + runtime.GOARCH)
		}
		name := []byte("hoard\x00")
		fd, _, errno := syscall.Syscall(nr, uintptr(unsafe.Pointer(&name[0])), 0, 0)
		if errno != 0 {
			t.Fatal(errno)
		}
		chunk := make([]byte, 32<<20)
		for i := range chunk {
			chunk[i] = 1
		}
		for written := 0; written < mib; written += 32 {
			if _, err := syscall.Write(int(fd), chunk); err != nil {
				t.Fatal(err)
			}
		}
		chunk = nil
		time.Sleep(time.Hour)
	}
	var held [][]byte
	for len(held)*32 < mib {
		chunk := make([]byte, 32<<20)
		for i := 0; i < len(chunk); i += 4096 {
			chunk[i] = 1
		}
		held = append(held, chunk)
	}
	hold, err := time.ParseDuration(os.Getenv("HOLD"))
	if err != nil {
		hold = time.Hour
	}
	time.Sleep(hold)
	if len(held) != (mib+31)/32 {
		t.Fatal("lost a chunk")
	}
}

func init() {
	if os.Getenv("SPIN_AT_INIT") != "" {
		for start := time.Now(); time.Since(start) < 300*time.Millisecond; {
		}
	}
}
`

var fixture struct {
	once sync.Once
	exec Exec
	err  error
}

// fixtureDir holds the fixture module and its test binary; TestMain
// removes it.
var fixtureDir string

// built returns an Exec of the fixture module's test binary, running only
// test.
func built(t testing.TB, test string) Exec {
	t.Helper()
	fixture.once.Do(func() {
		dir := filepath.Join(fixtureDir, "m")
		files := map[string]string{
			"go.mod":    "module example.com/m\n\ngo 1.26\n",
			"m.go":      "package m\n\nfunc Two() int { return 2 }\n",
			"m_test.go": fixtureTests,
		}
		for name, body := range files {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				fixture.err = err
				return
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				fixture.err = err
				return
			}
		}
		bin := filepath.Join(fixtureDir, "m.test")
		if err := (Compile{Dir: dir, Package: "."}).Build(context.Background(), bin); err != nil {
			fixture.err = err
			return
		}
		fixture.exec = Exec{Binary: bin, Dir: dir, ImportPath: "example.com/m"}
	})
	if fixture.err != nil {
		t.Fatalf("building the fixture: %v", fixture.err)
	}
	e := fixture.exec
	e.Args = []string{"-test.run=^" + test + "$"}
	return e
}

func TestExec_ReportsEveryTestAndTheMessagesOfFailures(t *testing.T) {
	e := built(t, "TestTwo")
	var events []string
	e.OnEvent = func(ev Event) {
		if ev.Test != "" && ev.Action != "output" {
			events = append(events, ev.Action+" "+ev.Test)
		}
	}
	res, err := e.Run(t.Context())
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if !res.Passed || res.ExitCode != 0 || strings.Join(res.Names(), ",") != "TestTwo,TestTwo/sub" {
		t.Fatalf("Run() passed %v, exit %d, names %v; want a pass of TestTwo and TestTwo/sub", res.Passed, res.ExitCode, res.Names())
	}
	if got, want := strings.Join(events, ","), "run TestTwo,run TestTwo/sub,pass TestTwo/sub,pass TestTwo"; got != want {
		t.Errorf("events = %s, want %s", got, want)
	}

	e.Env, e.OnEvent = []string{"BREAK=1"}, nil
	res, err = e.Run(t.Context())
	if err != nil {
		t.Fatalf("Run(BREAK) error = %v", err)
	}
	if res.Passed || res.ExitCode != 1 || strings.Join(res.Failed(), ",") != "TestTwo,TestTwo/sub" {
		t.Fatalf("Run(BREAK) passed %v, exit %d, failed %v; want TestTwo and TestTwo/sub to fail", res.Passed, res.ExitCode, res.Failed())
	}
	if got, want := res.Message("TestTwo/sub"), "m_test.go:25: Two() = 2, broken"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
}

// The converter in this process reads a test binary's output as the
// toolchain's test2json does: the same events, in the same order, and the
// same result, for tests that pass, fail (subtests too) and forge the
// framing of a pass.
// printedElapsed is the line that ends a test, with its duration.
var printedElapsed = regexp.MustCompile(`--- (PASS|FAIL|SKIP): (\S+) \((\d+\.\d+)s\)`)

func TestExec_ConvertsAsTheToolchainsTest2JSON(t *testing.T) {
	t2j, err := Test2JSON(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if v := runtime.Version(); version.Lang(v) != test2json.GoVersion {
		t.Skipf("the toolchain is %s, the converter %s's", v, test2json.GoVersion)
	}
	for _, tc := range []struct {
		test string
		env  []string
	}{{"TestTwo", nil}, {"TestTwo", []string{"BREAK=1"}}, {"TestForge", nil}} {
		run := func(prog string) (*Result, []string) {
			e := built(t, tc.test)
			e.Test2JSON, e.Env = prog, tc.env
			var events []string
			e.OnEvent = func(ev Event) { events = append(events, ev.Action+" "+ev.Test+" "+ev.Output) }
			res, err := e.Run(t.Context())
			if err != nil {
				t.Fatalf("Run(%s, %v, test2json %q) error = %v", tc.test, tc.env, prog, err)
			}
			return res, events
		}
		inside, insideEvents := run("")
		outside, outsideEvents := run(t2j)
		// Two runs: the durations they print are their own.
		for _, r := range []struct {
			res    *Result
			events []string
		}{{inside, insideEvents}, {outside, outsideEvents}} {
			for i, ev := range r.events {
				if m := printedElapsed.FindStringSubmatch(ev); m != nil {
					if d, _ := strconv.ParseFloat(m[3], 64); r.res.Tests[m[2]] == nil || r.res.Tests[m[2]].Elapsed != d {
						t.Errorf("%s %v: %q, but the result's elapsed is not %s", tc.test, tc.env, ev, m[3])
					}
				}
				r.events[i] = printedElapsed.ReplaceAllString(ev, "--- $1: $2 (…s)")
			}
		}
		if !slices.Equal(insideEvents, outsideEvents) {
			t.Errorf("%s %v: events in this process\n%q\nwith test2json\n%q", tc.test, tc.env, insideEvents, outsideEvents)
		}
		if inside.Passed != outside.Passed || inside.ExitCode != outside.ExitCode || !slices.Equal(inside.Names(), outside.Names()) || !slices.Equal(inside.Failed(), outside.Failed()) {
			t.Errorf("%s %v: passed %v exit %d tests %v failed %v in this process; with test2json passed %v exit %d tests %v failed %v", tc.test, tc.env,
				inside.Passed, inside.ExitCode, inside.Names(), inside.Failed(), outside.Passed, outside.ExitCode, outside.Names(), outside.Failed())
		}
		for _, name := range inside.Names() {
			if a, b := inside.Message(name), outside.Message(name); a != b {
				t.Errorf("%s: message %q in this process, %q with test2json", name, a, b)
			}
		}
	}
}

// A run that the testing package finished says so; one whose code wrote
// the report of a pass, created the file of the profile the testing
// package writes at its end, and exited, did not finish.
func TestExec_FinishedOnlyWhenTheTestingPackageFinished(t *testing.T) {
	for _, tc := range []struct {
		test string
		want bool
	}{{"TestTwo", true}, {"TestForge", false}} {
		e := built(t, tc.test)
		e.Finished = filepath.Join(t.TempDir(), "finished.prof")
		res, err := e.Run(t.Context())
		if err != nil {
			t.Fatalf("Run(%s) error = %v", tc.test, err)
		}
		if !res.Passed || res.ExitCode != 0 || res.Finished != tc.want {
			t.Errorf("Run(%s): passed %v, exit %d, finished %v; want a pass, exit 0, finished %v", tc.test, res.Passed, res.ExitCode, res.Finished, tc.want)
		}
		if _, err := os.Stat(e.Finished); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Run(%s) left the profile behind: %v", tc.test, err)
		}
	}
}

// The limits of a mutant's early-kill and confirming runs derive from the
// baseline's durations of its tests: each test's Elapsed must be what the
// testing package printed.
func TestExec_RecordsEachTestsDuration(t *testing.T) {
	res, err := built(t, "TestNap").Run(t.Context())
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if got := res.Tests["TestNap"]; got == nil || got.Outcome != Pass || got.Elapsed < 0.03 {
		t.Fatalf("TestNap = %+v; want a pass with Elapsed >= 0.03 (it sleeps 30ms)", got)
	}
}

func TestExec_ExitAtInitRunsNoTest(t *testing.T) {
	e := built(t, "TestTwo")
	e.Env = []string{"EXIT_AT_INIT=1"}
	res, err := e.Run(t.Context())
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if res.ExitCode != 3 || res.Passed || len(res.Tests) != 0 {
		t.Fatalf("Run() = exit %d, passed %v, tests %v; want exit 3 and no test", res.ExitCode, res.Passed, res.Names())
	}
}

// readPid returns the pid in file, or 0 if the file is not there.
func readPid(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(data))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// The deadline covers the test binary's run only: the binary is built
// before. When it passes, the binary and everything in its process group
// are killed, and the tests that were running are known.
func TestExec_DeadlineKillsTheWholeProcessGroup(t *testing.T) {
	e := built(t, "TestHang")
	pidFile := filepath.Join(t.TempDir(), "pid")
	e.Env = []string{"PID_FILE=" + pidFile}
	// A loaded machine may not even start the binary within a short
	// deadline; a longer one is tried then.
	for e.Timeout = time.Second; readPid(t, pidFile) == 0; e.Timeout *= 2 {
		if e.Timeout > time.Minute {
			t.Fatal("the test binary never started")
		}
		res, err := e.Run(t.Context())
		if err != nil {
			t.Fatalf("Run() error = %v", err)
		}
		if !res.TimedOut || res.Signal != "killed" {
			t.Fatalf("TimedOut, Signal = %v, %q; want true, killed", res.TimedOut, res.Signal)
		}
		if got := strings.Join(res.Unfinished(), ","); got != "TestHang" {
			t.Fatalf("Unfinished() = %s, want TestHang", got)
		}
	}
	for _, f := range []string{pidFile, pidFile + ".child"} {
		if pid := readPid(t, f); !proc.Gone(pid, 10*time.Second) {
			t.Errorf("process %d (%s) is still running after the deadline", pid, filepath.Base(f))
		}
	}
}

// A binary that passes leaves nothing running either.
func TestExec_KillsTheProcessGroupAfterANormalExit(t *testing.T) {
	e := built(t, "TestHang")
	pidFile := filepath.Join(t.TempDir(), "pid")
	e.Env = []string{"PID_FILE=" + pidFile, "PASS=1"}
	res, err := e.Run(t.Context())
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if !res.Passed || res.TimedOut || res.ExitCode != 0 {
		t.Fatalf("Run() passed %v, timed out %v, exit %d; want a pass", res.Passed, res.TimedOut, res.ExitCode)
	}
	if pid := readPid(t, pidFile+".child"); !proc.Gone(pid, 10*time.Second) {
		t.Errorf("child %d of the passing binary is still running", pid)
	}
}

// A binary past its CPU limit is stopped, in a sandbox too (where the
// process started is the sandbox's init, which waits): a loop that never
// ends is told from a slow run by the time it spends on a CPU, which a
// machine's load does not stretch.
func TestExec_CPULimitStopsABinaryThatSpins(t *testing.T) {
	if !cpuMetered {
		t.Skip("a running binary's CPU time is read on Linux only")
	}
	for _, tier := range runTiers {
		t.Run(cmp.Or(string(tier), "direct"), func(t *testing.T) {
			e := built(t, "TestSpin")
			if tier != "" {
				e.Isolate = fixtureSandbox(t, e, tier)
			}
			e.CPULimit, e.Timeout = 300*time.Millisecond, time.Minute
			res, err := e.Run(t.Context())
			if err != nil {
				t.Fatalf("Run() error = %v", err)
			}
			if !res.TimedOut || !res.OverCPU || res.Signal != "killed" {
				t.Fatalf("TimedOut, OverCPU, Signal = %v, %v, %q; want true, true, killed (CPU %.3fs, %.3fs before the first test, in %.1fs; unfinished %v)", res.TimedOut, res.OverCPU, res.Signal, res.CPU, res.StartCPU, res.Wall, res.Unfinished())
			}
			if got := strings.Join(res.Unfinished(), ","); got != "TestSpin" {
				t.Errorf("Unfinished() = %s, want TestSpin", got)
			}
			if res.CPU < 0.3 {
				t.Errorf("CPU = %.3fs, want at least the limit, 0.3s", res.CPU)
			}
		})
	}
}

// A binary that, with what it started, holds more memory than its limit
// is stopped, in a sandbox too: a mutant that allocates without end takes
// no more than its share of the machine.
func TestExec_MemoryLimitStopsABinaryThatHoards(t *testing.T) {
	if !memoryMetered {
		t.Skip("a running binary's memory is read on Linux only")
	}
	for _, tier := range runTiers {
		t.Run(cmp.Or(string(tier), "direct"), func(t *testing.T) {
			e := built(t, "TestHoard")
			if tier != "" {
				e.Isolate = fixtureSandbox(t, e, tier)
			}
			e.Env = []string{"HOARD=4096"}
			e.Memory, e.Timeout = 128<<20, time.Minute
			res, err := e.Run(t.Context())
			if err != nil {
				t.Fatalf("Run() error = %v", err)
			}
			if !res.TimedOut || !res.OverMemory || res.OverCPU || res.Signal != "killed" {
				t.Fatalf("TimedOut, OverMemory, OverCPU, Signal = %v, %v, %v, %q; want true, true, false, killed (peak %d MiB, in %.1fs)", res.TimedOut, res.OverMemory, res.OverCPU, res.Signal, res.PeakMemory>>20, res.Wall)
			}
			if res.PeakMemory <= e.Memory {
				t.Errorf("PeakMemory = %d, want more than the limit, %d", res.PeakMemory, e.Memory)
			}
			if got := strings.Join(res.Unfinished(), ","); got != "TestHoard" {
				t.Errorf("Unfinished() = %s, want TestHoard", got)
			}
		})
	}
}

// Memory held in a memfd counts, though it is in no resident set: a
// binary that writes one past its limit, and never maps it, is stopped.
func TestExec_MemoryInAMemfdCounts(t *testing.T) {
	if !memoryMetered {
		t.Skip("a running binary's memory is read on Linux only")
	}
	e := built(t, "TestHoard")
	e.Env = []string{"HOARD=512", "HOARD_IN=memfd"}
	stoppedAt128MiB(t, e)
}

// stoppedAt128MiB runs e, which holds 512 MiB, under a memory limit of 128
// MiB, and checks that it is stopped there.
func stoppedAt128MiB(t *testing.T, e Exec) {
	t.Helper()
	e.Memory, e.Timeout = 128<<20, time.Minute
	res, err := e.Run(t.Context())
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if !res.OverMemory || res.PeakMemory <= e.Memory {
		t.Fatalf("OverMemory = %v, peak %d MiB; want stopped past %d MiB (in %.1fs)", res.OverMemory, res.PeakMemory>>20, e.Memory>>20, res.Wall)
	}
}

// Under its limit, a binary runs to its end, and the most memory it held
// is recorded: the limits of later runs derive from the baseline's.
func TestExec_RecordsThePeakMemory(t *testing.T) {
	if !memoryMetered {
		t.Skip("a running binary's memory is read on Linux only")
	}
	e := built(t, "TestHoard")
	e.Env = []string{"HOARD=64", "HOLD=1s"}
	e.Memory = 1 << 30
	res, err := e.Run(t.Context())
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if !res.Passed || res.OverMemory || res.PeakMemory < 64<<20 || res.PeakMemory > 512<<20 {
		t.Fatalf("Run() passed %v, over memory %v, peak %d MiB; want a pass that held 64 MiB or a little more", res.Passed, res.OverMemory, res.PeakMemory>>20)
	}
}

// The CPU time a binary used before its first test (its start, init,
// TestMain) is recorded, for the CPU limits of runs of a few tests; and
// its CPU time in all, in a sandbox too (the init's, which waited for it).
func TestExec_RecordsTheCPUTimeBeforeTheFirstTest(t *testing.T) {
	if !cpuMetered {
		t.Skip("a running binary's CPU time is read on Linux only")
	}
	for _, tier := range runTiers {
		t.Run(cmp.Or(string(tier), "direct"), func(t *testing.T) {
			e := built(t, "TestNap")
			if tier != "" {
				e.Isolate = fixtureSandbox(t, e, tier)
			}
			e.Env = []string{"SPIN_AT_INIT=1", "NAP=1s"}
			res, err := e.Run(t.Context())
			if err != nil {
				t.Fatalf("Run() error = %v", err)
			}
			// The init spins 300ms of wall time, on a CPU when the
			// machine is quiet, less of it on a loaded one.
			if !res.Passed || res.StartCPU <= 0 || res.StartCPU > res.CPU {
				t.Fatalf("Run() passed %v, StartCPU %.3fs, CPU %.3fs; want a pass, with CPU time before the first test, and no more than in all", res.Passed, res.StartCPU, res.CPU)
			}
		})
	}
}

// A binary that waits uses no CPU time: only the deadline stops it.
func TestExec_CPULimitLeavesABinaryThatWaits(t *testing.T) {
	if !cpuMetered {
		t.Skip("a running binary's CPU time is read on Linux only")
	}
	e := built(t, "TestHang")
	e.Env = []string{"PID_FILE=" + filepath.Join(t.TempDir(), "pid")}
	e.CPULimit, e.Timeout = 500*time.Millisecond, 3*time.Second
	res, err := e.Run(t.Context())
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if !res.TimedOut || res.OverCPU {
		t.Fatalf("TimedOut, OverCPU = %v, %v (CPU %.3fs); want the deadline, not the CPU limit", res.TimedOut, res.OverCPU, res.CPU)
	}
}

// runTiers are how a test of every kind of run runs the fixture's binary:
// directly (""), and in a sandbox of each tier.
var runTiers = append([]sandbox.Tier{""}, sandbox.Tiers...)

// fixtureSandbox returns the sandbox of tier of a run of the fixture's
// binary, or skips the test where there is none.
func fixtureSandbox(t *testing.T, e Exec, tier sandbox.Tier) *sandbox.Spec {
	t.Helper()
	sandbox.Need(t, tier)
	spec := sandbox.Default()
	spec.Tier = tier
	spec.ReadOnly = []string{filepath.Dir(e.Binary), e.Dir}
	return &spec
}

// With Landlock, which has no private file system, what a binary writes
// in its own directories (Exec.Written) counts as memory it holds: past
// its limit it is stopped, as a binary that holds memory is.
func TestExec_LandlockCountsWhatABinaryWritesAsMemory(t *testing.T) {
	if !memoryMetered {
		t.Skip("a running binary's memory is read on Linux only")
	}
	e := built(t, "TestHoard")
	own, err := os.MkdirTemp(fixtureDir, "own-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(own)
	e.Isolate = fixtureSandbox(t, e, sandbox.Landlock)
	e.Isolate.Copies, e.Written, e.Dir = []string{own}, []string{own}, own
	e.Env = []string{"HOARD=512", "HOARD_IN=files"}
	stoppedAt128MiB(t, e)
	if n := proc.DiskUsage(own); n > 256<<20 {
		t.Errorf("%d MiB written when it was stopped, want about 128", n>>20)
	}
}

// A binary stopped at its limit in a Landlock sandbox leaves nothing
// running: its init ends what it started in a session of its own too,
// with no token of the run (which mutate's sweep goes by), before the run
// returns.
func TestExec_LandlockEndsWhatAStoppedBinaryStarted(t *testing.T) {
	e := built(t, "TestLeaves")
	e.Isolate = fixtureSandbox(t, e, sandbox.Landlock)
	e.Args = []string{"-test.run=^(TestLeaves|TestHoard)$"} // TestHoard holds nothing, for an hour
	pidFile := filepath.Join(fixtureDir, fmt.Sprintf("pid-%d", time.Now().UnixNano()))
	defer os.Remove(pidFile)
	e.Isolate.Files = []string{pidFile}
	if err := os.WriteFile(pidFile, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	e.Env = []string{"PID_FILE=" + pidFile, "CLEAN_ENV=1"}
	e.Timeout = 3 * time.Second
	res, err := e.Run(t.Context())
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if !res.TimedOut {
		t.Fatalf("Run() timed out %v; want the deadline to stop TestHoard", res.TimedOut)
	}
	if pid := readPid(t, pidFile); !proc.Gone(pid, 0) {
		t.Errorf("the child %d that TestLeaves left in a session of its own still runs", pid)
	}
}

func TestExec_CancelledContext(t *testing.T) {
	e := built(t, "TestHang")
	e.Env = []string{"PID_FILE=" + filepath.Join(t.TempDir(), "pid")}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := e.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run(cancelled) error = %v, want context.Canceled", err)
	}
}

func TestBuild_ReportsCompilerErrors(t *testing.T) {
	dir := writeModule(t, "package m\n\nfunc helper() { undefinedName() }\n")
	err := Compile{Dir: dir, Package: "."}.Build(t.Context(), filepath.Join(t.TempDir(), "m.test"))
	var be *BuildError
	if !errors.As(err, &be) || !strings.Contains(be.Output, "m_test.go:3:17: undefined: undefinedName") {
		t.Fatalf("Build() error = %v; want a BuildError with the compiler's message", err)
	}
}

func TestBuild_MissingPackageIsNotABuildError(t *testing.T) {
	dir := writeModule(t, "package m\n")
	err := Compile{Dir: dir, Package: "./nope"}.Build(t.Context(), filepath.Join(t.TempDir(), "m.test"))
	var be *BuildError
	if err == nil || errors.As(err, &be) || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("Build(./nope) error = %v; want a plain error naming the package", err)
	}
}

// BenchmarkExec_StartToFirstTest measures what a sandbox costs each run of
// a test binary: the time from Run's call to the first test's start,
// directly and in a sandbox of each tier, as a median over b.N runs
// (ms-to-first-test) and as each sandbox's ratio to the direct run
// measured in the same benchmark (namespaces/direct, landlock/direct).
// With BENCH_VARIANTS set, also with the host's network, and with the go
// command's caches overlaid, as every run of mutate's has them (with
// namespaces, a layer for each, made for each run).
func BenchmarkExec_StartToFirstTest(b *testing.B) {
	direct := median(b, "Direct", nil)
	for _, tier := range sandbox.Tiers {
		if sandbox.Check(tier) != nil {
			b.Logf("no %s sandbox here", tier)
			continue
		}
		spec := sandbox.Default()
		spec.Tier = tier
		name := strings.ToUpper(string(tier[:1])) + string(tier[1:])
		isolated := median(b, name, &spec)
		if direct > 0 && isolated > 0 {
			b.Logf("%s/direct = %.2f (%.1f ms against %.1f ms)", tier, isolated/direct, isolated, direct)
		}
		if os.Getenv("BENCH_VARIANTS") != "" {
			hostNet := spec
			hostNet.HostNetwork = true
			median(b, name+"HostNetwork", &hostNet)
			caches := spec
			for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
				out, err := exec.Command("go", "env", k).Output()
				if err != nil {
					b.Fatal(err)
				}
				caches.Overlay = append(caches.Overlay, strings.TrimSpace(string(out)))
			}
			median(b, name+"GoCaches", &caches)
		}
	}
}

// BenchmarkMeter_Memory measures one reading of the memory of a test
// binary and what it started, as a run under a memory limit makes every
// 50ms: the binary (this one) and one child.
func BenchmarkMeter_Memory(b *testing.B) {
	if !memoryMetered {
		b.Skip("a running binary's memory is read on Linux only")
	}
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		b.Fatal(err)
	}
	defer child.Process.Kill()
	m := cpuMeter{pid: os.Getpid()}
	for b.Loop() {
		if m.memory() <= 0 {
			b.Fatal("no memory read")
		}
	}
}

// median runs the fixture's TestTwo in a sub-benchmark named name, in a
// sandbox of spec if it is not nil, and returns the median time from Run's
// call to the first test's start, in milliseconds.
func median(b *testing.B, name string, spec *sandbox.Spec) float64 {
	var ms []float64
	b.Run(name, func(b *testing.B) {
		e := built(b, "TestTwo")
		e.Memory, e.CPULimit = 1<<30, time.Minute // as mutate runs it
		if spec != nil {
			s := *spec
			s.ReadOnly = []string{filepath.Dir(e.Binary), e.Dir}
			e.Isolate = &s
		}
		ms = ms[:0]
		for b.Loop() {
			var first time.Time
			e.OnEvent = func(ev Event) {
				if first.IsZero() && ev.Action == "run" {
					first = time.Now()
				}
			}
			start := time.Now()
			if _, err := e.Run(context.Background()); err != nil {
				b.Fatal(err)
			}
			ms = append(ms, float64(first.Sub(start).Microseconds())/1000)
		}
		slices.Sort(ms)
		b.ReportMetric(ms[len(ms)/2], "ms-to-first-test")
	})
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)/2]
}

// compileBomb is a test file of 1.2 KB whose generics instantiate each
// level twice over: its compile doubles its time and memory with each of
// its 24 levels.
var compileBomb = func() string {
	var b strings.Builder
	b.WriteString("package m\n\nimport \"testing\"\n\n")
	const levels = 24
	for i := range levels {
		fmt.Fprintf(&b, "func f%d[T any]() { f%d[[1]T](); f%d[[2]T]() }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "func f%d[T any]() { var x T; _ = x }\n\nfunc TestBomb(t *testing.T) { f0[byte]() }\n", levels)
	return b.String()
}()

// A compile that crashes in Go's runtime near its memory limit met the
// limit: the runtime, refused a mapping, has been seen to fault in its
// garbage collector rather than say "out of memory" (a CI run of
// TestBuild_StopsAtItsLimits, its compiler at 194 MiB of 256). Far from the
// limit, the same crash, or any compile error near it, is the package's.
func TestBuildLimits_CrashNearTheMemoryLimitIsTheLimit(t *testing.T) {
	const crash = "# example.com/m [example.com/m.test]\nSIGSEGV: segmentation violation\nPC=0x43cefd m=2 sigcode=1 addr=0x0\n\ngoroutine 0 gp=0x17582876eb40 m=2 [idle]:\nruntime.(*spanQueue).tryDrain(0x175800001000?)\n"
	const compileError = "# example.com/m [example.com/m.test]\n./m_test.go:5:2: undefined: fatal error: \n"
	limits := BuildLimits{Memory: 256 << 20}
	for _, tc := range []struct {
		name string
		out  string
		peak int64
		want string
	}{
		{"crash near the limit", crash, 194 << 20, "a process of it needed more than 256 MiB of memory"},
		{"crash far from it", crash, 40 << 20, ""},
		{"crash, peak unknown", crash, 0, ""},
		{"compile error near it", compileError, 200 << 20, ""},
		{"out of memory", "fatal error: runtime: out of memory\n", 0, "a process of it needed more than 256 MiB of memory"},
	} {
		if got := limits.costly(tc.out, tc.peak); got != tc.want {
			t.Errorf("%s: costly() = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := (BuildLimits{}).costly(crash, 194<<20); got != "" {
		t.Errorf("costly() without a memory limit = %q, want none", got)
	}
}

// A bounded build that meets a limit stops there, and its error says
// which (BuildError.Costly): the memory of a compile (on Linux), the size
// of a file it writes (on Linux), its wall time, which guards against a
// hang and is met twice (a build slowed past it runs again with a limit
// wallRetryFactor times as long, and says so). Within them, a build is as
// it would be unbounded.
func TestBuild_StopsAtItsLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles until a limit stops it: go test ./... (the full lane) runs it")
	}
	blob := "package m\n\nimport \"testing\"\n\nvar blob = [12 << 20]byte{12<<20 - 1: 1}\n\nfunc TestBlob(t *testing.T) { _ = blob[0] }\n"
	for _, tc := range []struct {
		name   string
		test   string
		limits BuildLimits
		want   string
	}{
		{"memory", compileBomb, BuildLimits{Memory: 256 << 20, CPU: time.Minute}, "a process of it needed more than 256 MiB of memory"},
		{"file size", blob, BuildLimits{FileSize: 8 << 20}, "it wrote a file of more than 8.0 MiB"},
		{"wall time", compileBomb, BuildLimits{Wall: 250 * time.Millisecond}, "it took more than 1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if runtime.GOOS != "linux" && tc.name != "wall time" {
				t.Skip("bounded on Linux only")
			}
			dir := writeModule(t, tc.test)
			var said []string
			err := Compile{Dir: dir, Package: ".", Limits: tc.limits, Say: func(msg string) { said = append(said, msg) }}.Build(t.Context(), filepath.Join(t.TempDir(), "m.test"))
			var be *BuildError
			if !errors.As(err, &be) || be.Costly != tc.want {
				t.Fatalf("Build() error = %v; want a BuildError, stopped: %s", err, tc.want)
			}
			if tc.name == "wall time" && (len(said) != 1 || said[0] != "the build of . took more than 250ms within its limits of CPU time and memory: the machine slowed it; once more, with 1s") {
				t.Errorf("the build said %q, want that it runs again with 4s", said)
			}
		})
	}
	dir := writeModule(t, "package m\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {}\n")
	limits := BuildLimits{Wall: time.Minute, CPU: time.Minute, Memory: 1 << 30, FileSize: 64 << 20}
	if err := (Compile{Dir: dir, Package: ".", Limits: limits}).Build(t.Context(), filepath.Join(t.TempDir(), "m.test")); err != nil {
		t.Errorf("Build(within its limits) error = %v", err)
	}
}

// go test -c of a package with no test file writes no binary: an error
// of the package's (a BuildError), not a binary that is not there.
func TestBuild_NoTestFileIsABuildError(t *testing.T) {
	dir := writeModule(t, "//go:build ignore\n\npackage m\n")
	err := Compile{Dir: dir, Package: "."}.Build(t.Context(), filepath.Join(t.TempDir(), "m.test"))
	var be *BuildError
	if !errors.As(err, &be) || !strings.Contains(be.Output, "wrote no test binary") {
		t.Fatalf("Build(no test file) error = %v; want a BuildError that says no binary was written", err)
	}
}
