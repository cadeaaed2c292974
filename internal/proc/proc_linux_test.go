package proc

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// What /proc says of this process and of a child it starts.
func TestRead_ThisProcessAndAChild(t *testing.T) {
	self := os.Getpid()
	st, ok := ReadStat(self)
	if !ok || st.Parent() != os.Getppid() || st.Zombie() || st.Started() < 0 {
		t.Fatalf("ReadStat(self) = %+v, %v; want this process, alive, child of %d", st, ok, os.Getppid())
	}
	if ticks, ok := st.CPUTicks(); !ok || ticks < 0 {
		t.Errorf("CPUTicks() = %d, %v", ticks, ok)
	}
	if m := ResidentMemory(self); m <= 0 {
		t.Errorf("ResidentMemory(self) = %d, want some", m)
	}
	exe, _ := os.Executable()
	if got := Link(self, "exe"); got != exe {
		t.Errorf("Link(self, exe) = %q, want %q", got, exe)
	}
	cmd := exec.Command("sleep", "10")
	cmd.Env = append(os.Environ(), "PROC_TEST_MARK=1")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep to start: %v", err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	kid := cmd.Process.Pid
	if kids := Children(self); !slices.Contains(kids, kid) {
		t.Errorf("Children(self) = %v, want it to hold %d", kids, kid)
	}
	if !slices.Contains(PIDs(), kid) {
		t.Errorf("PIDs() lacks %d", kid)
	}
	if env := Environ(kid); !slices.Contains(env, "PROC_TEST_MARK=1") {
		t.Errorf("Environ(child) = %d entries, without PROC_TEST_MARK=1", len(env))
	}
	if _, ok := ReadStat(1 << 30); ok {
		t.Errorf("ReadStat of a pid that is no process's: ok")
	}
}
