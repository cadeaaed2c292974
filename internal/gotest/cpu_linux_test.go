package gotest

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/proc"
)

// A sandbox's meter that found a child of the init that has ended since
// (and whose pid may be another process's now) finds the binary again: the
// init's living child, whose CPU time it then reads.
func TestCPUMeter_AChildGoneIsNotTheBinary(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	// An init whose one child spins, as a test binary in a sandbox does.
	init := exec.Command("sh", "-c", "sh -c 'while :; do :; done' & wait")
	init.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := init.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-init.Process.Pid, syscall.SIGKILL)
		init.Wait()
	}()
	m := cpuMeter{pid: init.Process.Pid, inner: true, binary: gone.Process.Pid}
	deadline := time.Now().Add(time.Minute)
	for {
		used, ok := m.used()
		if ok && used >= 100*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute the meter reads %v (ok %v) from pid %d, want the spinning child's 100ms", used, ok, m.binary)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if kids := proc.Children(init.Process.Pid); len(kids) != 1 || m.binary != kids[0] {
		t.Errorf("the meter reads pid %d, want the init's child %v", m.binary, kids)
	}
}
