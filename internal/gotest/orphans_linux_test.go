package gotest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/proctest"
)

// A process that a test starts in a session of its own, which no process
// group kill reaches, and that ignores SIGTERM, is gone when Run returns.
func TestExec_KillsWhatATestLeavesInASessionOfItsOwn(t *testing.T) {
	e := built(t, "TestLeaves")
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
