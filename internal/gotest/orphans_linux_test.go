package gotest

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/proc"
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
	if !proc.Gone(pid, 10*time.Second) {
		t.Fatalf("process %d, in a session of its own, is still running", pid)
	}
}

// A sweep after one run kills what that run left, not what a test binary
// running beside it started and may still need; the last sweep kills all.
func TestSweepOrphans_OnlyThoseOfTheRun(t *testing.T) {
	startOrphan := func(token string) *exec.Cmd {
		t.Helper()
		cmd := exec.Command("sleep", "1000")
		cmd.Env = append(os.Environ(), runEnv+"="+token)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	mine, other := startOrphan("mine"), startOrphan("other")
	SweepOrphans("mine")
	if !proc.Gone(mine.Process.Pid, 10*time.Second) {
		t.Errorf("the orphan of the run swept is still running")
	}
	if !proc.Alive(other.Process.Pid) {
		t.Fatalf("the orphan of another run was killed")
	}
	SweepOrphans("")
	if !proc.Gone(other.Process.Pid, 10*time.Second) {
		t.Errorf("the last sweep left an orphan running")
	}
}
