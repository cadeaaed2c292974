//go:build unix

package proc

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Fatal("Alive(self) = false")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if !Alive(pid) {
		t.Fatal("Alive(running child) = false")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Killed but not yet reaped: a zombie, which runs no code.
	if !Gone(pid, 10*time.Second) {
		t.Fatal("Gone(killed child) = false")
	}
	cmd.Wait()
	if Alive(pid) {
		t.Fatal("Alive(reaped child) = true")
	}
}
