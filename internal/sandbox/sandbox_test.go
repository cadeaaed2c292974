//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// helperEnv makes the test binary, run in a sandbox, do one of the things
// a test under a mutant might, and print what came of it.
const helperEnv = "SANDBOX_TEST_HELPER"

func TestMain(m *testing.M) {
	Init()
	if what := os.Getenv(helperEnv); what != "" {
		os.Exit(helper(what))
	}
	os.Exit(m.Run())
}

// helper does what, and prints its result.
func helper(what string) int {
	arg := os.Getenv("ARG")
	switch what {
	case "write":
		fmt.Println(os.WriteFile(arg, []byte("x"), 0o644))
	case "read":
		data, err := os.ReadFile(arg)
		fmt.Printf("%q %v\n", data, err)
	case "exit":
		n, _ := strconv.Atoi(arg)
		return n
	case "kill":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
	case "daemon":
		// A process in a session of its own that writes its pid and
		// outlives the program.
		cmd := exec.Command("sh", "-c", "echo $$ > "+arg+"; exec sleep 1000")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Println(err)
			return 1
		}
		for range 1000 {
			if _, err := os.Stat(arg); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		fmt.Println("started")
	case "signal":
		pid, _ := strconv.Atoi(arg)
		fmt.Println(syscall.Kill(pid, syscall.SIGTERM))
	case "remount":
		fmt.Println(unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND, ""))
	}
	return 0
}

// run runs the helper doing what with arg in a sandbox of spec, and
// returns what it printed and how it ended.
func run(t *testing.T, spec Spec, what, arg string) (string, Status) {
	t.Helper()
	if ok, why := Available(); !ok {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no sandbox here, and CI runs the isolated path: %s", why)
		}
		t.Skipf("no sandbox here: %s", why)
	}
	// The test binary, under /tmp, stays visible.
	spec.ReadOnly = append(spec.ReadOnly, filepath.Dir(os.Args[0]))
	env := append(os.Environ(), helperEnv+"="+what, "ARG="+arg)
	c, err := Command(spec, spec.Writable[0], env, os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitErr := c.Wait()
	st, err := c.Status()
	if waitErr != nil {
		t.Fatalf("the init: %v (%v)\n%s", waitErr, err, out.String())
	}
	if err != nil {
		t.Fatalf("Status() error = %v\n%s", err, out.String())
	}
	return strings.TrimSpace(out.String()), st
}

// A run writes its own directories, and a private /tmp that is gone when
// it ends; everything else is read-only.
func TestSandbox_WritesOnlyItsOwnDirectoriesAndAPrivateTmp(t *testing.T) {
	own := t.TempDir()
	spec := Default(own)
	if out, _ := run(t, spec, "write", filepath.Join(own, "f")); out != "<nil>" {
		t.Errorf("writing its own directory: %s, want <nil>", out)
	}
	if data, err := os.ReadFile(filepath.Join(own, "f")); err != nil || string(data) != "x" {
		t.Errorf("its own file after the run = %q, %v; want x", data, err)
	}
	other := t.TempDir() // under $TMPDIR, or /tmp
	if out, _ := run(t, spec, "write", filepath.Join(other, "f")); !strings.Contains(out, "read-only file system") && !strings.Contains(out, "no such file") {
		t.Errorf("writing another directory: %s, want it refused", out)
	}
	if _, err := os.Stat(filepath.Join(other, "f")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the other directory got the file: %v", err)
	}
	shared := filepath.Join(spec.Private[0], fmt.Sprintf("sandbox-test-%d", os.Getpid())) // the host's temporary directory, private in a run
	defer os.Remove(shared)
	if out, _ := run(t, spec, "write", shared); out != "<nil>" {
		t.Errorf("writing /tmp: %s, want <nil> (a private /tmp)", out)
	}
	if _, err := os.Stat(shared); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is on the host's /tmp after the run: %v", shared, err)
	}
	if err := os.WriteFile(shared, []byte("host"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _ := run(t, spec, "read", shared); !strings.Contains(out, "no such file") {
		t.Errorf("reading the host's %s: %s, want no such file", shared, out)
	}
}

// An overlaid directory reads as it is and takes writes, which stay in the
// run's own layer.
func TestSandbox_OverlaidDirectoryTakesWritesThatStayInTheRun(t *testing.T) {
	cache := t.TempDir()
	if err := os.WriteFile(filepath.Join(cache, "old"), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := Default(t.TempDir())
	spec.Overlay = []string{cache}
	if out, _ := run(t, spec, "read", filepath.Join(cache, "old")); out != `"kept" <nil>` {
		t.Errorf("reading the overlaid directory: %s, want its file", out)
	}
	if out, _ := run(t, spec, "write", filepath.Join(cache, "new")); out != "<nil>" {
		t.Errorf("writing the overlaid directory: %s, want <nil>", out)
	}
	if _, err := os.Stat(filepath.Join(cache, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write reached the directory itself: %v", err)
	}
}

// A read-only directory within a writable one stays read-only.
func TestSandbox_ReadOnlyWithinWritable(t *testing.T) {
	own := t.TempDir()
	bin := filepath.Join(own, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := Default(own)
	spec.ReadOnly = []string{bin}
	if out, _ := run(t, spec, "write", filepath.Join(bin, "f")); !strings.Contains(out, "read-only file system") {
		t.Errorf("writing the read-only directory: %s, want read-only file system", out)
	}
}

// The program cannot undo the mounts: it has no power over them.
func TestSandbox_TheProgramCannotRemount(t *testing.T) {
	if out, _ := run(t, Default(t.TempDir()), "remount", ""); out == "<nil>" {
		t.Errorf("remounting / read-write: %s, want an error", out)
	}
}

// The init reports the program's exit code, or the signal that ended it.
func TestSandbox_StatusOfTheProgram(t *testing.T) {
	if _, st := run(t, Default(t.TempDir()), "exit", "3"); st != (Status{Code: 3}) {
		t.Errorf("Status() = %v, want exit 3", st)
	}
	if _, st := run(t, Default(t.TempDir()), "kill", ""); st != (Status{Code: -1, Signal: "killed"}) {
		t.Errorf("Status() = %v, want signal killed", st)
	}
}

// What the program starts ends with it, in a session of its own too; and
// it cannot signal processes outside its namespace.
func TestSandbox_NothingOutlivesTheRunOrReachesOut(t *testing.T) {
	own := t.TempDir()
	pidFile := filepath.Join(own, "pid")
	if out, _ := run(t, Default(own), "daemon", pidFile); out != "started" {
		t.Fatalf("the daemon: %s", out)
	}
	// The pid it wrote is its pid in the sandbox's namespace: that no
	// sleep 1000 is left anywhere says it ended.
	if n := sleepers(t); n != 0 {
		t.Errorf("%d sleep 1000 processes left after the run", n)
	}
	victim := exec.Command("sleep", "1000")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	if out, _ := run(t, Default(own), "signal", strconv.Itoa(victim.Process.Pid)); out == "<nil>" {
		t.Errorf("signalling pid %d outside: %s, want an error", victim.Process.Pid, out)
	}
}

// sleepers counts the processes running "sleep 1000".
func sleepers(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && string(cmdline) == "sleep\x001000\x00" {
			n++
		}
	}
	return n
}
