//go:build unix

package gotest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/proctest"
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

func TestRun_ReportsFailingTest(t *testing.T) {
	dir := writeModule(t, `package m

import "testing"

func TestTwo(t *testing.T) {
	if Two() != 3 {
		t.Errorf("Two() = %d, want 3", Two())
	}
}
`)
	res, wall, err := Run(t.Context(), Command{Dir: dir, Package: "."})
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if res.Passed || strings.Join(res.Failed(), ",") != "TestTwo" {
		t.Fatalf("Run() passed = %v, failed = %v; want TestTwo to fail", res.Passed, res.Failed())
	}
	if got, want := res.Message("TestTwo"), "m_test.go:7: Two() = 2, want 3"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
	if wall <= 0 {
		t.Errorf("wall = %v, want > 0", wall)
	}
}

func TestRun_TimeoutKillsTheWholeProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	dir := writeModule(t, `package m

import (
	"os"
	"strconv"
	"testing"
)

func TestHang(t *testing.T) {
	os.WriteFile(os.Getenv("PID_FILE"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	select {}
}
`)
	res, _, err := Run(t.Context(), Command{
		Dir: dir, Package: ".", Env: []string{"PID_FILE=" + pidFile}, Timeout: 3 * time.Second,
	})
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if !res.TimedOut {
		t.Fatalf("TimedOut = false, want true")
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the test binary never started: %v", err)
	}
	pid, err := strconv.Atoi(string(data))
	if err != nil {
		t.Fatal(err)
	}
	// The test binary is a grandchild: go test started it.
	if !proctest.Gone(pid, 10*time.Second) {
		t.Fatalf("test binary %d is still running after the timeout", pid)
	}
}

func TestRun_MissingPackageIsAnError(t *testing.T) {
	dir := writeModule(t, "package m\n")
	_, _, err := Run(t.Context(), Command{Dir: dir, Package: "./nope"})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("Run(./nope) error = %v, want one naming the package", err)
	}
}

func TestRun_CancelledContext(t *testing.T) {
	dir := writeModule(t, "package m\n")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, err := Run(ctx, Command{Dir: dir, Package: "."})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run(cancelled) error = %v, want context.Canceled", err)
	}
}

func TestList_TopLevelNamesWithoutRunning(t *testing.T) {
	dir := writeModule(t, `package m

import (
	"fmt"
	"testing"
)

func TestB(t *testing.T) { t.Run("sub", func(t *testing.T) { t.Fatal("must not run") }) }
func TestA(t *testing.T) { t.Fatal("must not run") }
func BenchmarkC(b *testing.B) {}
func ExampleTwo() {
	fmt.Println(Two())
	// Output: 2
}
`)
	names, err := List(t.Context(), Command{Dir: dir, Package: "."})
	if err != nil {
		t.Fatalf("List() error = %v", err)
	}
	if got, want := strings.Join(names, ","), "ExampleTwo,TestA,TestB"; got != want {
		t.Fatalf("List() = %s, want %s", got, want)
	}
}

func TestBuildAndRunBinary_SameEventsAsGoTest(t *testing.T) {
	dir := writeModule(t, `package m

import (
	"os"
	"testing"
)

func TestTwo(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		if os.Getenv("BREAK") != "" {
			t.Errorf("Two() = %d, broken", Two())
		}
	})
}
`)
	bin := filepath.Join(t.TempDir(), "m.test")
	if msgs, err := Build(t.Context(), Command{Dir: dir, Package: "."}, bin); err != nil {
		t.Fatalf("Build() error = %v\n%s", err, msgs)
	}
	b := Binary{Path: bin, Dir: dir, ImportPath: "example.com/m"}
	res, _, err := RunBinary(t.Context(), b)
	if err != nil {
		t.Fatalf("RunBinary() error = %v", err)
	}
	if !res.Passed || strings.Join(res.Names(), ",") != "TestTwo,TestTwo/sub" {
		t.Fatalf("RunBinary() passed %v, names %v; want a pass of TestTwo and TestTwo/sub", res.Passed, res.Names())
	}
	b.Env = []string{"BREAK=1"}
	res, _, err = RunBinary(t.Context(), b)
	if err != nil {
		t.Fatalf("RunBinary(BREAK) error = %v", err)
	}
	if res.Passed || strings.Join(res.Failed(), ",") != "TestTwo,TestTwo/sub" {
		t.Fatalf("RunBinary(BREAK) failed = %v, want TestTwo and TestTwo/sub", res.Failed())
	}
	if got, want := res.Message("TestTwo/sub"), "m_test.go:11: Two() = 2, broken"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
}

func TestBuild_ReportsCompilerErrors(t *testing.T) {
	dir := writeModule(t, "package m\n\nfunc helper() { undefinedName() }\n")
	msgs, err := Build(t.Context(), Command{Dir: dir, Package: "."}, filepath.Join(t.TempDir(), "m.test"))
	if err == nil || !strings.Contains(msgs, "m_test.go:3:17: undefined: undefinedName") {
		t.Fatalf("Build() = %q, %v; want the compiler's error", msgs, err)
	}
}
