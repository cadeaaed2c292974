package gotest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/proctest"
)

func TestMain(m *testing.M) {
	// As mutate does: what the tests' test binaries leave running comes
	// back to this process.
	if err := BecomeSubreaper(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// A process that a test starts in a session of its own, which no process
// group kill reaches, and that ignores SIGTERM, is gone when Run returns.
func TestExec_KillsWhatATestLeavesInASessionOfItsOwn(t *testing.T) {
	e := built(t, `package m

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

func TestLeaves(t *testing.T) {
	child := exec.Command("sh", "-c", "trap '' TERM; sleep 1000")
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(os.Getenv("PID_FILE"), []byte(strconv.Itoa(child.Process.Pid)), 0o644)
}
`)
	pidFile := filepath.Join(t.TempDir(), "pid")
	e.Env = []string{"PID_FILE=" + pidFile}
	res, err := e.Run(t.Context())
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if !res.Passed {
		t.Fatalf("Run() passed = false, want true:\n%s", res.Output)
	}
	pid := readPid(t, pidFile)
	if pid == 0 {
		t.Fatal("the test did not record its child")
	}
	if !proctest.Gone(pid, 10*time.Second) {
		t.Fatalf("process %d, in a session of its own, is still running", pid)
	}
}
