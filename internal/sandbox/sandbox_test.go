//go:build linux

package sandbox

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

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
	code := m.Run()
	if programDir != "" {
		os.RemoveAll(programDir)
	}
	os.Exit(code)
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
		// A process in a session of its own that outlives the program;
		// its pid is written once it runs sleep (Start returns after
		// the exec), so that the test counts it from "started" on.
		cmd := exec.Command("sleep", daemonSleep)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Println(err)
			return 1
		}
		if err := os.WriteFile(arg, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
			fmt.Println(err)
			return 1
		}
		fmt.Println("started")
		if os.Getenv("HANG") != "" {
			time.Sleep(time.Hour)
		}
	case "signal":
		pid, _ := strconv.Atoi(arg)
		fmt.Println(syscall.Kill(pid, syscall.SIGTERM))
	case "remount":
		fmt.Println(unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND, ""))
	case "identity":
		// By system calls: a Landlock sandbox has no /proc.
		var data [2]unix.CapUserData
		unix.Capget(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &data[0])
		caps := uint64(data[1].Effective)<<32 | uint64(data[0].Effective)
		nnp, _ := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
		groups, _ := os.Getgroups()
		fmt.Printf("uid %d gid %d groups %v caps %016x no_new_privs %d\n", os.Getuid(), os.Getgid(), groups, caps, nnp)
	case "open":
		// Each of arg's comma-separated paths, opened for writing (w:)
		// or reading (r:): one line each.
		for item := range strings.SplitSeq(arg, ",") {
			mode, path, _ := strings.Cut(item, ":")
			flag := os.O_RDONLY
			if mode == "w" {
				flag = os.O_WRONLY
			}
			f, err := os.OpenFile(path, flag, 0)
			if err == nil {
				f.Close()
				fmt.Println(path, "opened")
				continue
			}
			fmt.Println(path, "refused")
		}
	case "ls":
		entries, err := os.ReadDir(arg)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		fmt.Println(strings.Join(names, " "), err)
	case "net":
		// Dial arg, then listen on it.
		c, err := net.Dial("tcp", arg)
		if err == nil {
			c.Close()
		}
		fmt.Println("dial", err == nil)
		l, err := net.Listen("tcp", arg)
		if err == nil {
			l.Close()
		}
		fmt.Println("listen", err)
	case "hostname":
		fmt.Println(os.Hostname())
	case "shm":
		// A System V segment of key arg, left behind.
		key, _ := strconv.Atoi(arg)
		_, err := unix.SysvShmGet(key, 1<<20, unix.IPC_CREAT|0o600)
		fmt.Println(err)
	case "status-pipe":
		// What the init's status pipe would take, written where it was.
		_, err := syscall.Write(3, []byte("error forged\nsignal segmentation fault\n"))
		fmt.Println(err != nil)
		return 7
	case "signal-init":
		// The init is the program's parent (pid 1 in its namespace).
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGINT, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGKILL} {
			syscall.Kill(os.Getppid(), sig) // refused when the init is root's
		}
		time.Sleep(100 * time.Millisecond)
		fmt.Println("alive")
	case "calls":
		// Each call of refusedCalls, one line each: its name and how it
		// ended; then the process's seccomp mode.
		for _, c := range refusedCalls() {
			_, _, errno := unix.Syscall6(c.nr, c.args[0], c.args[1], c.args[2], c.args[3], c.args[4], c.args[5])
			fmt.Printf("%s: %v\n", c.name, errnoText(errno))
		}
		for _, c := range allowedCalls() {
			_, _, errno := unix.Syscall6(c.nr, c.args[0], c.args[1], c.args[2], c.args[3], c.args[4], c.args[5])
			fmt.Printf("%s: %v\n", c.name, errnoText(errno))
		}
		// By prctl: a Landlock sandbox has no /proc.
		mode, _ := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
		fmt.Printf("seccomp: %d\n", mode)
	case "threads":
		// Holds arg threads at once, each blocked in a read: the
		// runtime ends the process when the kernel refuses one.
		n, _ := strconv.Atoi(arg)
		// Both ends stay reachable to the end: a finalizer that closed
		// one would end the reads, and each thread with its goroutine,
		// so that fewer than n would be held at once.
		r, w, _ := os.Pipe()
		defer runtime.KeepAlive(w)
		defer runtime.KeepAlive(r)
		var started sync.WaitGroup
		started.Add(n)
		for range n {
			go func() {
				runtime.LockOSThread()
				started.Done()
				var b [1]byte
				syscall.Read(int(r.Fd()), b[:])
			}()
		}
		started.Wait()
		fmt.Println("held", n)
	case "shm-sizes":
		// System V segments of arg's comma-separated sizes, in MiB: how
		// each ended.
		for i, field := range strings.Split(arg, ",") {
			mib, _ := strconv.Atoi(field)
			_, err := unix.SysvShmGet(0x5e00+i, mib<<20, unix.IPC_CREAT|0o600)
			fmt.Println(mib, errText(err))
		}
	case "dial-unix":
		c, err := net.Dial("unix", arg)
		if err != nil {
			fmt.Println("refused")
			break
		}
		c.Close()
		fmt.Println("connected")
	case "keys":
		// Searches the session keyring for the key arg, then adds one
		// beside it.
		_, err := unix.KeyctlSearch(unix.KEY_SPEC_SESSION_KEYRING, "user", arg, 0)
		fmt.Println("search:", errText(err))
		_, err = unix.AddKey("user", arg+"-left", []byte("left"), unix.KEY_SPEC_SESSION_KEYRING)
		fmt.Println("add:", errText(err))
	case "ptrace":
		// Attaches to the process arg, and lets it go.
		pid, _ := strconv.Atoi(arg)
		runtime.LockOSThread()
		err := syscall.PtraceAttach(pid)
		if err == nil {
			syscall.PtraceDetach(pid)
		}
		fmt.Println(errText(err))
	case "dial-abstract":
		// Dials the abstract unix socket @arg.
		c, err := net.Dial("unix", "@"+arg)
		if err == nil {
			c.Close()
		}
		fmt.Println(errText(err))
	case "udp":
		// Sends a datagram to arg.
		c, err := net.Dial("udp", arg)
		if err == nil {
			_, err = c.Write([]byte("x"))
			c.Close()
		}
		fmt.Println(errText(err))
	case "namespaces":
		// Starts true in a user namespace of its own, by clone, and
		// makes clone3 with no arguments (EINVAL, unless refused).
		cmd := exec.Command("true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
		fmt.Println("clone:", errText(cmd.Run()))
		_, _, errno := unix.Syscall(unix.SYS_CLONE3, 0, 0, 0)
		fmt.Println("clone3:", errnoText(errno))
	case "ipc":
		// Makes a System V segment, queue and semaphore set, and a
		// POSIX message queue, each private (or of key 0).
		_, err := unix.SysvShmGet(unix.IPC_PRIVATE, 1<<20, unix.IPC_CREAT|0o600)
		fmt.Println("shmget:", errText(err))
		_, _, errno := unix.Syscall(unix.SYS_MSGGET, unix.IPC_PRIVATE, unix.IPC_CREAT|0o600, 0)
		fmt.Println("msgget:", errnoText(errno))
		_, _, errno = unix.Syscall(unix.SYS_SEMGET, unix.IPC_PRIVATE, 1, unix.IPC_CREAT|0o600)
		fmt.Println("semget:", errnoText(errno))
		name := []byte("sandbox-test\x00")
		fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(&name[0])), unix.O_CREAT|unix.O_RDWR, 0o600, 0, 0, 0)
		if errno == 0 {
			unix.Close(int(fd))
			unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(&name[0])), 0, 0)
		}
		fmt.Println("mq_open:", errnoText(errno))
	case "big-file":
		// Writes arg MiB into one file of its working directory.
		mib, _ := strconv.Atoi(arg)
		f, err := os.Create("big")
		if err == nil {
			chunk := make([]byte, 1<<20)
			for range mib {
				if _, err = f.Write(chunk); err != nil {
					break
				}
			}
			f.Close()
		}
		fmt.Println(errText(err))
	case "fill":
		// Writes files of 1 MiB into each of arg's comma-separated
		// directories until their disk is full, and prints how many it
		// wrote in each.
		for dir := range strings.SplitSeq(arg, ",") {
			chunk := make([]byte, 1<<20)
			n := 0
			var err error
			for ; n < 64; n++ {
				if err = os.WriteFile(filepath.Join(dir, "fill-"+strconv.Itoa(n)), chunk, 0o644); err != nil {
					break
				}
			}
			fmt.Println(n, errors.Is(err, syscall.ENOSPC))
		}
	}
	return 0
}

// run runs the helper doing what with arg in a sandbox of spec, and
// returns what it printed and how it ended.
func run(t *testing.T, spec Spec, what, arg string) (string, Ending) {
	t.Helper()
	out, st, err := runErr(t, spec, what, arg)
	if err != nil {
		t.Fatalf("Ending() error = %v\n%s", err, out)
	}
	return out, st
}

// start runs the helper doing what with arg in a sandbox of spec, and
// returns what it printed and the error of the sandbox's Ending.
func start(t *testing.T, spec Spec, what, arg string) (string, error) {
	t.Helper()
	out, _, err := runErr(t, spec, what, arg)
	return out, err
}

// runErr runs the helper doing what with arg in a sandbox of spec, and
// returns what it printed, how it ended and the error of the sandbox's
// Ending.
func runErr(t *testing.T, spec Spec, what, arg string) (string, Ending, error) {
	t.Helper()
	Need(t, spec.tier())
	bin := program(t, spec.tier())
	spec.ReadOnly = append(spec.ReadOnly, filepath.Dir(bin))
	env := append(os.Environ(), helperEnv+"="+what, "ARG="+arg)
	c, err := Command(spec, spec.Writable[0], env, bin)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitErr := c.Wait()
	st, err := c.Ending()
	if waitErr != nil && err == nil {
		t.Fatalf("the init: %v\n%s", waitErr, out.String())
	}
	return strings.TrimSpace(out.String()), st, err
}

// programDir holds a copy of the test binary that any user may run: with
// Landlock, root runs the program as a user of its own, who could not
// reach the test binary in the go command's private directory.
var programDir string

// program returns the test binary to run in a sandbox of tier: with
// namespaces, this one (the sandbox holds its directory); with Landlock,
// the copy in programDir, made once.
func program(t *testing.T, tier Tier) string {
	t.Helper()
	if tier == Namespaces {
		return os.Args[0]
	}
	copyProgram.Do(func() {
		dir, err := os.MkdirTemp("", "sandbox-test-bin-")
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		if err == nil {
			programDir = dir
			err = copyFile(os.Args[0], filepath.Join(dir, "sandbox.test"), 0o755)
		}
		copyErr = err
	})
	if copyErr != nil {
		t.Fatal(copyErr)
	}
	return filepath.Join(programDir, "sandbox.test")
}

var (
	copyProgram sync.Once
	copyErr     error
)

// copyFile copies src to dst, of mode.
func copyFile(src, dst string, mode os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, mode)
}

// ownDir returns a new directory for a run's files, that any user may
// reach (t.TempDir's parent is the test's alone), removed when t ends.
func ownDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// inLandlock returns spec in the Landlock tier.
func inLandlock(spec Spec) Spec {
	spec.Tier = Landlock
	return spec
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

// An overlaid directory reads as it is and takes writes, in it and in its
// subdirectories (a build cache's, one level deep), even when the program
// runs as nobody there; the writes stay in the run's own layer.
func TestSandbox_OverlaidDirectoryTakesWritesThatStayInTheRun(t *testing.T) {
	cache := t.TempDir()
	if err := os.WriteFile(filepath.Join(cache, "old"), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(cache, "00"), 0o755); err != nil {
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
	if out, _ := run(t, spec, "write", filepath.Join(cache, "00", "new")); out != "<nil>" {
		t.Errorf("writing a subdirectory of the overlaid directory: %s, want <nil>", out)
	}
	for _, name := range []string{"new", filepath.Join("00", "new")} {
		if _, err := os.Stat(filepath.Join(cache, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the write of %s reached the directory itself: %v", name, err)
		}
	}
}

// A read-only directory within a writable one stays read-only, with
// namespaces; Landlock, whose rules grant a directory's rights to all
// beneath it, refuses to run such a sandbox.
func TestSandbox_ReadOnlyWithinWritable(t *testing.T) {
	eachTier(t, func(t *testing.T, spec Spec) {
		own := spec.Writable[0]
		bin := filepath.Join(own, "bin")
		if err := os.Mkdir(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		spec.ReadOnly = []string{bin}
		if spec.Tier == Landlock {
			_, err := start(t, spec, "write", filepath.Join(bin, "f"))
			if want := bin + " must be read-only, but lies within " + own; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("a read-only directory within a writable one: %v, want an error: %s...", err, want)
			}
			return
		}
		if out, _ := run(t, spec, "write", filepath.Join(bin, "f")); !writeRefused(out) {
			t.Errorf("writing the read-only directory: %s, want it refused", out)
		}
		if _, err := os.Stat(filepath.Join(bin, "f")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the read-only directory got the file: %v", err)
		}
	})
}

// writeRefused reports whether a helper's output says that a write was
// refused: the file system is read-only (namespaces), or the write is not
// permitted (Landlock).
func writeRefused(out string) bool {
	return strings.Contains(out, "read-only file system") || strings.Contains(out, "permission denied")
}

// eachTier runs f in a subtest for each tier, with the default spec of a
// run that writes a new directory, in that tier.
func eachTier(t *testing.T, f func(t *testing.T, spec Spec)) {
	for _, tier := range Tiers {
		t.Run(string(tier), func(t *testing.T) {
			spec := Default(ownDir(t))
			spec.Tier = tier
			f(t, spec)
		})
	}
}

// The program cannot undo the mounts: it has no power over them.
func TestSandbox_TheProgramCannotRemount(t *testing.T) {
	eachTier(t, func(t *testing.T, spec Spec) {
		if out, _ := run(t, spec, "remount", ""); out != "operation not permitted" {
			t.Errorf("remounting / read-write: %s, want operation not permitted", out)
		}
	})
}

// The init reports the program's exit code, or the signal that ended it.
func TestSandbox_StatusOfTheProgram(t *testing.T) {
	eachTier(t, func(t *testing.T, spec Spec) {
		if _, st := run(t, spec, "exit", "3"); st != (Ending{Code: 3}) {
			t.Errorf("Ending() = %v, want exit 3", st)
		}
		if _, st := run(t, spec, "kill", ""); st != (Ending{Code: -1, Signal: "killed"}) {
			t.Errorf("Ending() = %v, want signal killed", st)
		}
	})
}

// What the program starts ends with it, in a session of its own too; and
// it cannot signal processes outside its sandbox: not in its PID
// namespace, or not of its Landlock domain (or of its user).
func TestSandbox_NothingOutlivesTheRunOrReachesOut(t *testing.T) {
	eachTier(t, func(t *testing.T, spec Spec) {
		pidFile := filepath.Join(spec.Writable[0], "pid")
		if out, _ := run(t, spec, "daemon", pidFile); out != "started" {
			t.Fatalf("the daemon: %s", out)
		}
		// The pid it wrote is its pid in the sandbox's namespace: that no
		// daemon's sleep is left anywhere says it ended.
		if n := sleepers(t); n != 0 {
			t.Errorf("%d sleep %s processes left after the run", n, daemonSleep)
		}
		victim := exec.Command("sleep", "1000")
		if err := victim.Start(); err != nil {
			t.Fatal(err)
		}
		defer victim.Process.Kill()
		want := map[Tier]string{Namespaces: "no such process", Landlock: "operation not permitted"}[spec.Tier]
		if out, _ := run(t, spec, "signal", strconv.Itoa(victim.Process.Pid)); out != want {
			t.Errorf("signalling pid %d outside: %s, want %s", victim.Process.Pid, out, want)
		}
	})
}

// daemonSleep is how long the daemon sleeps, a time no other test's
// process sleeps: sleepers tells the daemon by it.
const daemonSleep = "1000.0421"

// sleepers counts the processes running the daemon's sleep.
func sleepers(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && string(cmdline) == "sleep\x00"+daemonSleep+"\x00" {
			n++
		}
	}
	return n
}

// The program is an ordinary user: not root, with no capability, no
// supplementary group of root's, and no way to gain a privilege.
func TestSandbox_ProgramRunsAsAnOrdinaryUserWithNoCapability(t *testing.T) {
	out, _ := run(t, Default(t.TempDir()), "identity", "")
	want := fmt.Sprintf("uid %d gid %d groups [] caps 0000000000000000 no_new_privs 1", UID, GID)
	if os.Geteuid() != 0 {
		// A user namespace made without root cannot drop groups: the
		// program keeps those of the user who started it, which it may
		// have anyway.
		want = fmt.Sprintf("uid %d gid %d groups ", UID, GID)
		if !strings.HasPrefix(out, want) || !strings.HasSuffix(out, " caps 0000000000000000 no_new_privs 1") {
			t.Fatalf("identity: %s, want %s... caps 0000000000000000 no_new_privs 1", out, want)
		}
		return
	}
	if out != want {
		t.Fatalf("identity: %s, want %s", out, want)
	}
}

// Nothing that configures the kernel, logs to it, or belongs to root is
// within reach, even when root started the sandbox. The files tried are
// those the host has (its loop devices and terminals among them), so that
// each refusal is the sandbox's.
func TestSandbox_KernelFilesAreOutOfReach(t *testing.T) {
	var paths []string
	for _, p := range []string{
		"w:/proc/sys/kernel/core_pattern", "w:/proc/sys/kernel/domainname", "w:/proc/sys/vm/drop_caches",
		"w:/proc/sysrq-trigger", "w:/dev/kmsg", "w:/dev/mem", "r:/etc/shadow",
	} {
		if _, err := os.Stat(p[2:]); err == nil {
			paths = append(paths, p)
		}
	}
	for _, pattern := range []string{"/dev/loop[0-9]*", "/dev/tty[0-9]*"} {
		devs, _ := filepath.Glob(pattern)
		for _, dev := range devs[:min(len(devs), 2)] {
			paths = append(paths, "w:"+dev)
		}
	}
	if len(paths) < 5 {
		t.Fatalf("the host has only %v of the kernel's files and devices", paths)
	}
	eachTier(t, func(t *testing.T, spec Spec) {
		out, _ := run(t, spec, "open", strings.Join(paths, ","))
		for line := range strings.Lines(out) {
			if strings.HasSuffix(strings.TrimSpace(line), " opened") {
				t.Errorf("%s, want it refused", strings.TrimSpace(line))
			}
		}
		if n := strings.Count(out, " refused"); n != len(paths) {
			t.Errorf("open: %d refused, want %d:\n%s", n, len(paths), out)
		}
	})
}

// /dev holds the device files every program uses, and no other.
func TestSandbox_DevHoldsOnlyTheBasicDevices(t *testing.T) {
	if out, _ := run(t, Default(t.TempDir()), "ls", "/dev"); out != "fd full null ptmx pts random shm stderr stdin stdout urandom zero <nil>" {
		t.Errorf("ls /dev: %s", out)
	}
	if out, _ := run(t, Default(t.TempDir()), "open", "w:/dev/null,r:/dev/urandom,r:/dev/zero"); strings.Count(out, " opened") != 3 {
		t.Errorf("open: %s, want all three opened", out)
	}
}

// The network is the run's own: a port the host holds is free inside, and
// the host's listener cannot be reached; with HostNetwork it can.
func TestSandbox_NetworkIsItsOwn(t *testing.T) {
	addr := hostListener(t)
	if out, _ := run(t, Default(t.TempDir()), "net", addr); out != "dial false\nlisten <nil>" {
		t.Errorf("dial and listen on %s, the host's: %q, want the dial refused and the port free", addr, out)
	}
	spec := Default(t.TempDir())
	spec.HostNetwork = true
	if out, _ := run(t, spec, "net", addr); !strings.HasPrefix(out, "dial true\nlisten listen tcp "+addr+": bind: address already in use") {
		t.Errorf("dial and listen on %s with the host's network: %q, want the dial through and the port taken", addr, out)
	}
}

// hostListener serves on a port of the host's loopback until t ends,
// accepting and closing connections, and returns its address.
func hostListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l.Addr().String()
}

// The host name and System V IPC objects are the run's own: a segment it
// leaves is gone with it.
func TestSandbox_HostNameAndIPCAreItsOwn(t *testing.T) {
	if out, _ := run(t, Default(t.TempDir()), "hostname", ""); out != "sandbox <nil>" {
		t.Errorf("hostname: %s, want sandbox", out)
	}
	key := 0x4d550000 + os.Getpid()%0xffff
	if out, _ := run(t, Default(t.TempDir()), "shm", strconv.Itoa(key)); out != "<nil>" {
		t.Fatalf("shmget: %s", out)
	}
	data, err := os.ReadFile("/proc/sysvipc/shm")
	if err != nil {
		t.Skipf("no /proc/sysvipc/shm here: %v", err)
	}
	for line := range strings.Lines(string(data)) {
		if f := strings.Fields(line); len(f) > 0 && f[0] == strconv.Itoa(key) {
			t.Errorf("the segment of key %d is on the host after the run: %s", key, line)
		}
	}
}

// The program cannot write the init's report: what it writes where the
// status pipe was is not how it ended.
func TestSandbox_StatusPipeIsOutOfReach(t *testing.T) {
	eachTier(t, func(t *testing.T, spec Spec) {
		if out, st := run(t, spec, "status-pipe", ""); st != (Ending{Code: 7}) || out != "true" {
			t.Errorf("Ending() = %v, output %q; want exit 7, and the write refused", st, out)
		}
	})
}

// A signal the program sends the init is dropped, or refused: the run
// goes on.
func TestSandbox_SignalsToTheInitAreDropped(t *testing.T) {
	eachTier(t, func(t *testing.T, spec Spec) {
		if out, st := run(t, spec, "signal-init", ""); st != (Ending{}) || out != "alive" {
			t.Errorf("Ending() = %v, output %q; want exit 0, alive", st, out)
		}
	})
}

// The private directories, one within the run's own directory among
// them, share one bounded file system: past its size, a write fails in
// any of them; and they are gone when the run ends.
func TestSandbox_PrivateDirectoriesAreBounded(t *testing.T) {
	own := t.TempDir()
	tmp := filepath.Join(own, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := Default(own)
	spec.Private = append(spec.Private, tmp)
	spec.PrivateSize = 4 << 20
	if out, _ := run(t, spec, "fill", "/tmp,"+tmp); out != "4 true\n0 true" {
		t.Errorf("filling /tmp, then %s, of 4 MiB in all: %q, want 4 MiB written, then no space left in either", tmp, out)
	}
	if entries, err := os.ReadDir(tmp); err != nil || len(entries) != 0 {
		t.Errorf("%s after the run holds %v (%v), want nothing", tmp, entries, err)
	}
}

// asNobodyEnv marks the test binary that TestSandbox_AsAnOrdinaryUser runs.
const asNobodyEnv = "SANDBOX_TEST_AS_NOBODY"

// What holds when root starts a sandbox holds when an ordinary user does:
// run as root, the tests run again as nobody.
func TestSandbox_AsAnOrdinaryUser(t *testing.T) {
	if os.Geteuid() != 0 || os.Getenv(asNobodyEnv) != "" {
		t.Skip("runs the tests as nobody when run as root")
	}
	Need(t, Namespaces)
	// A copy of the test binary that nobody may run, in a directory of
	// nobody's own.
	dir, err := os.MkdirTemp("", "sandbox-as-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "sandbox.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, Nobody, Nobody); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^Test(Sandbox|Landlock)_", "-test.v")
	cmd.Env = append(os.Environ(), asNobodyEnv+"=1", "TMPDIR="+tmp, "HOME="+tmp)
	cmd.Dir = tmp
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the tests as nobody: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "--- PASS: Test"); n < 20 {
		t.Errorf("the tests as nobody: %d passed, want every test but this one:\n%s", n, out)
	}
}

// The host's files are not in the sandbox unless given: the source tree
// (a grader's checkout) is not there at all; given read-only, it is; and a
// private directory hides what a given one holds, which stays as it was.
func TestSandbox_APrivateDirectoryHidesTheHosts(t *testing.T) {
	_, src, _, _ := runtime.Caller(0)
	hidden := filepath.Join(filepath.Dir(src), "testdata", "hidden")
	secret := filepath.Join(hidden, "secret.txt")
	if _, err := os.ReadFile(secret); err != nil {
		t.Skipf("the source tree is out of this user's reach: %v", err)
	}
	spec := Default(t.TempDir())
	if out, _ := run(t, spec, "read", secret); !strings.Contains(out, "no such file or directory") {
		t.Errorf("the checkout, not given: reading %s: %s, want no such file", secret, out)
	}
	spec.ReadOnly = append(spec.ReadOnly, filepath.Dir(hidden))
	if out, _ := run(t, spec, "read", secret); !strings.HasPrefix(out, `"a secret of the grader's\n" <nil>`) {
		t.Fatalf("given read-only, reading %s: %s; want the file (the control)", secret, out)
	}
	spec.Private = append(spec.Private, hidden)
	if out, _ := run(t, spec, "ls", hidden); out != "<nil>" {
		t.Errorf("listing %s hidden: %q, want it empty", hidden, out)
	}
	if out, _ := run(t, spec, "read", secret); !strings.Contains(out, "no such file or directory") {
		t.Errorf("reading %s hidden: %s, want no such file", secret, out)
	}
	if data, err := os.ReadFile(secret); err != nil || string(data) != "a secret of the grader's\n" {
		t.Errorf("after the runs, %s = %q, %v; want it as it was", secret, data, err)
	}
}

// The sandbox's root is built from nothing: the system's programs and
// libraries, what /etc a program reads, its own users, its devices, /proc
// and its own directories. No home directory, no /run (the host's
// sockets), no /var, nothing of the host's /tmp.
func TestSandbox_TheRootHoldsWhatTestsNeedAlone(t *testing.T) {
	spec := Default(t.TempDir())
	out, _ := run(t, spec, "ls", "/")
	var got []string
	for _, name := range strings.Fields(strings.TrimSuffix(out, "<nil>")) {
		if !slices.Contains([]string{"bin", "sbin", "lib", "lib32", "lib64", "libx32"}, name) {
			got = append(got, name) // a system link or directory where the host has one
		}
	}
	if want := "dev etc proc tmp usr"; strings.Join(got, " ") != want {
		t.Errorf("/ holds %q, want %s (and the system's links)", out, want)
	}
	out, _ = run(t, spec, "read", "/etc/passwd")
	if !strings.Contains(out, "sandbox:x:1000:1000:") || strings.Count(out, `\n`) != 3 {
		t.Errorf("/etc/passwd: %s, want the sandbox's three users", out)
	}
	out, _ = run(t, spec, "ls", "/etc")
	for _, name := range strings.Fields(strings.TrimSuffix(out, "<nil>")) {
		if !slices.ContainsFunc(etc, func(e struct{ name, why string }) bool { return e.name == name }) && name != "passwd" && name != "group" {
			t.Errorf("/etc holds %s, which is not among the files it is given", name)
		}
	}
	out, _ = run(t, spec, "open", "r:/root,r:/home,r:/run,r:/var,r:/sys,r:/etc/shadow")
	for _, path := range []string{"/root", "/home", "/run", "/var", "/sys", "/etc/shadow"} {
		if !strings.Contains(out, path+" refused") {
			t.Errorf("%s in the sandbox: %q, want it absent", path, out)
		}
	}
}

// A unix socket of the host's, on a path, is out of reach: the root holds
// no /run, where a host keeps its daemons' (Docker's, D-Bus's), and no
// other of its directories but the system's, which are read-only.
func TestSandbox_HostSocketsAreOutOfReach(t *testing.T) {
	dir, err := os.MkdirTemp("/run", "sandbox-test-")
	if err != nil {
		t.Skipf("no /run to hold a socket here: %v", err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	sock := filepath.Join(dir, "daemon.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	os.Chmod(sock, 0o777)
	eachTier(t, func(t *testing.T, spec Spec) {
		if out, _ := run(t, spec, "dial-unix", sock); out != "refused" {
			t.Errorf("dialing %s, world-writable: %q, want refused", sock, out)
		}
	})
}

// call is a system call with its arguments.
type call struct {
	name string
	nr   uintptr
	args [6]uintptr
}

// refusedCalls are a call of each kind that a sandbox refuses, with
// arguments that would do something (or fail otherwise) without it.
func refusedCalls() []call {
	var (
		params [120]byte                           // struct io_uring_params
		attr   [128]byte                           // struct perf_event_attr, zero: a hardware counter
		bpfMap = [20]byte{0: 2, 4: 4, 8: 4, 12: 1} // BPF_MAP_TYPE_ARRAY, 4-byte keys and values, 1 entry
		cpus   [128]byte                           // a CPU set
		rlim   [16]byte                            // struct rlimit
		user   = []byte("user\x00")                // a key type
		desc   = []byte("sandbox-test\x00")        // a key's description
		tmp    = []byte("/tmp\x00")                // a mount point
	)
	ptr := func(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }
	calls := []call{
		{"keyctl", unix.SYS_KEYCTL, [6]uintptr{unix.KEYCTL_GET_KEYRING_ID, uintptr(^uint32(2)), 0}}, // KEY_SPEC_SESSION_KEYRING (-3)
		{"add_key", unix.SYS_ADD_KEY, [6]uintptr{ptr(user), ptr(desc), ptr(desc), 4, uintptr(^uint32(2))}},
		{"request_key", unix.SYS_REQUEST_KEY, [6]uintptr{ptr(user), ptr(desc), 0, uintptr(^uint32(2))}},
		{"io_uring_setup", unix.SYS_IO_URING_SETUP, [6]uintptr{1, uintptr(unsafe.Pointer(&params))}},
		{"bpf", unix.SYS_BPF, [6]uintptr{0, ptr(bpfMap[:]), uintptr(len(bpfMap))}}, // BPF_MAP_CREATE
		{"perf_event_open", unix.SYS_PERF_EVENT_OPEN, [6]uintptr{uintptr(unsafe.Pointer(&attr)), 0, ^uintptr(0), ^uintptr(0), 0}},
		{"userfaultfd", unix.SYS_USERFAULTFD, [6]uintptr{unix.O_CLOEXEC}},
		{"unshare", unix.SYS_UNSHARE, [6]uintptr{unix.CLONE_NEWUSER | unix.CLONE_NEWNS}},
		{"setns", unix.SYS_SETNS, [6]uintptr{^uintptr(0), 0}},
		{"mount", unix.SYS_MOUNT, [6]uintptr{ptr(tmp), ptr(tmp), ptr(tmp), unix.MS_REMOUNT | unix.MS_BIND}},
		{"fsopen", unix.SYS_FSOPEN, [6]uintptr{ptr(tmp), 0}},
		{"init_module", unix.SYS_INIT_MODULE, [6]uintptr{0, 0, ptr(user)}},
		{"kexec_load", unix.SYS_KEXEC_LOAD, [6]uintptr{0, 0, 0, 0}},
		{"personality", unix.SYS_PERSONALITY, [6]uintptr{0x0006}}, // PER_BSD
		{"clock_settime", unix.SYS_CLOCK_SETTIME, [6]uintptr{unix.CLOCK_REALTIME, ptr(rlim[:])}},
		{"open_by_handle_at", unix.SYS_OPEN_BY_HANDLE_AT, [6]uintptr{^uintptr(0), 0, 0}},
		{"prlimit64 of the init", unix.SYS_PRLIMIT64, [6]uintptr{1, unix.RLIMIT_NOFILE, 0, ptr(rlim[:])}},
		{"setpriority of the init", unix.SYS_SETPRIORITY, [6]uintptr{unix.PRIO_PROCESS, 1, 0}},
		{"sched_setaffinity of the init", unix.SYS_SCHED_SETAFFINITY, [6]uintptr{1, uintptr(len(cpus)), ptr(cpus[:])}},
	}
	return calls
}

// allowedCalls are calls a sandbox lets through: the same kinds, on the
// caller itself.
func allowedCalls() []call {
	var rlim [16]byte
	return []call{
		{"prlimit64 of itself", unix.SYS_PRLIMIT64, [6]uintptr{0, unix.RLIMIT_NOFILE, 0, uintptr(unsafe.Pointer(&rlim))}},
		{"personality query", unix.SYS_PERSONALITY, [6]uintptr{0xffffffff}},
		{"getpriority of itself", unix.SYS_GETPRIORITY, [6]uintptr{unix.PRIO_PROCESS, 0}},
	}
}

// errnoText says how a call ended: "ok", or its error.
func errnoText(errno syscall.Errno) string {
	if errno == 0 {
		return "ok"
	}
	return errno.Error()
}

// The sandbox refuses the calls that container runtimes' default seccomp
// profile refuses, each with EPERM, and the calls that would reach the
// init (its limits, priority, CPUs); the program's own stay open.
func TestSandbox_RefusesTheKernelsRiskyCalls(t *testing.T) {
	eachTier(t, func(t *testing.T, spec Spec) { testRiskyCalls(t, spec, nil) })
}

// testRiskyCalls checks that a program in a sandbox of spec is refused
// each of refusedCalls with EPERM, or the error wants has for its name,
// and allowed those of allowedCalls.
func testRiskyCalls(t *testing.T, spec Spec, wants map[string]string) {
	out, st := run(t, spec, "calls", "")
	if st != (Ending{}) {
		t.Fatalf("Ending() = %v, want exit 0\n%s", st, out)
	}
	got := map[string]string{}
	for line := range strings.Lines(out) {
		name, result, _ := strings.Cut(strings.TrimSpace(line), ": ")
		got[name] = result
	}
	if got["seccomp"] != "2" {
		t.Errorf("seccomp mode: %q, want 2 (a filter)", got["seccomp"])
	}
	for _, c := range refusedCalls() {
		t.Run(c.name, func(t *testing.T) {
			if want := cmp.Or(wants[c.name], "operation not permitted"); got[c.name] != want {
				t.Errorf("%s: %q, want %s", c.name, got[c.name], want)
			}
		})
	}
	for _, c := range allowedCalls() {
		if got[c.name] != "ok" {
			t.Errorf("%s: %q, want ok", c.name, got[c.name])
		}
	}
}

// The program's session keyring is not the session's of whoever started
// the sandbox: a key there is out of its reach, and it can leave none.
func TestSandbox_TheKeyringIsNotTheHosts(t *testing.T) {
	desc := fmt.Sprintf("sandbox-test-%d", os.Getpid())
	id, err := unix.AddKey("user", desc, []byte("a secret of the host's"), unix.KEY_SPEC_SESSION_KEYRING)
	if err != nil {
		t.Skipf("no keyring here: %v", err)
	}
	defer unix.KeyctlInt(unix.KEYCTL_UNLINK, id, unix.KEY_SPEC_SESSION_KEYRING, 0, 0)
	eachTier(t, func(t *testing.T, spec Spec) {
		out, _ := run(t, spec, "keys", desc)
		if out != "search: operation not permitted\nadd: operation not permitted" {
			t.Errorf("the program's keyring: %q, want search and add refused", out)
		}
		if _, err := unix.KeyctlSearch(unix.KEY_SPEC_SESSION_KEYRING, "user", desc+"-left", 0); err == nil {
			t.Error("the program left a key in the host's session keyring")
		}
	})
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// A program may have at most maxTasks processes and threads at once: one
// that makes more is refused (the runtime ends it, unable to make a
// thread); as many as a test needs are fine.
func TestSandbox_TasksAreBounded(t *testing.T) {
	eachTier(t, func(t *testing.T, spec Spec) {
		if out, st := run(t, spec, "threads", "100"); st != (Ending{}) || out != "held 100" {
			t.Errorf("100 threads: %v, %q; want them held", st, out)
		}
		out, st := run(t, spec, "threads", strconv.Itoa(maxTasks+1000))
		refused := strings.Contains(out, "failed to create new OS thread") || strings.Contains(out, "pthread_create failed: Resource temporarily unavailable")
		if st.Code != 2 || !refused {
			first, _, _ := strings.Cut(out, "\n")
			t.Errorf("%d threads: %v, %q…; want the runtime to end, refused a thread", maxTasks+1000, st, first)
		}
	})
}

// System V shared memory holds at most the sandbox's private size, in
// one segment or in all: a detached segment counts too.
func TestSandbox_SharedMemoryIsBounded(t *testing.T) {
	spec := Default(t.TempDir())
	spec.PrivateSize = 64 << 20
	out, _ := run(t, spec, "shm-sizes", "100,30,30,30")
	if want := "100 invalid argument\n30 ok\n30 ok\n30 no space left on device"; out != want {
		t.Errorf("segments of 100, then 3×30 MiB, in 64 MiB: %q, want %q", out, want)
	}
}
