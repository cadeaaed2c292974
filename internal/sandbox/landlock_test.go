//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A Landlock sandbox's program writes its own directories and files and
// nothing else; it reads the system's directories, the files of /etc a
// program needs, /proc and what it is given, and nothing else of the
// host's, not even to list it: not /tmp or /sys, the home directories,
// /run or /var, the host's users.
func TestLandlock_FilesBeyondItsOwnAreOutOfReach(t *testing.T) {
	own, home, other := ownDir(t), ownDir(t), ownDir(t)
	copied := ownDir(t)
	file := filepath.Join(ownDir(t), "cover.out")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(other, "secret")
	if err := os.WriteFile(secret, []byte("the host's"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := inLandlock(Default(own))
	spec.Own, spec.Copies, spec.Files = []string{home}, []string{copied}, []string{file}
	for _, path := range []string{filepath.Join(own, "f"), filepath.Join(home, "f"), filepath.Join(copied, "f"), file} {
		if out, _ := run(t, spec, "write", path); out != "<nil>" {
			t.Errorf("writing %s, its own: %s, want <nil>", path, out)
		}
		if data, err := os.ReadFile(path); err != nil || string(data) != "x" {
			t.Errorf("%s after the run = %q, %v; want x, written in place", path, data, err)
		}
	}
	for _, path := range []string{filepath.Join(other, "f"), filepath.Join(os.TempDir(), fmt.Sprintf("sandbox-test-%d", os.Getpid())), "/dev/shm/sandbox-test"} {
		if out, _ := run(t, spec, "write", path); !strings.Contains(out, "permission denied") {
			t.Errorf("writing %s: %s, want permission denied", path, out)
		}
		if _, err := os.Stat(path); err == nil {
			os.Remove(path)
			t.Errorf("the run wrote %s", path)
		}
	}
	if out, _ := run(t, spec, "read", "/etc/hosts"); !strings.HasSuffix(out, " <nil>") {
		t.Errorf("reading /etc/hosts: %s, want it read", out)
	}
	if out, _ := run(t, spec, "ls", "/usr"); !strings.Contains(out, "bin") {
		t.Errorf("listing /usr: %s, want its directories", out)
	}
	if out, _ := run(t, spec, "open", "r:/proc/self/status,r:/proc/self/fd"); out != "/proc/self/status opened\n/proc/self/fd opened" {
		t.Errorf("its own /proc: %q, want it read", out)
	}
	var tried []string
	for _, p := range []string{"r:" + secret, "r:" + other, "r:/etc/passwd", "r:/etc/shadow", "w:/proc/sys/kernel/domainname", "r:/sys/kernel/mm/transparent_hugepage/enabled",
		"r:/root", "r:/home", "r:/run", "r:/var", "r:/tmp", "w:/dev/kmsg", "w:/dev/tty"} {
		if _, err := os.Stat(p[2:]); err == nil {
			tried = append(tried, p)
		}
	}
	out, _ := run(t, spec, "open", strings.Join(tried, ","))
	for line := range strings.Lines(out) {
		if strings.HasSuffix(strings.TrimSpace(line), " opened") {
			t.Errorf("%s, want it refused", strings.TrimSpace(line))
		}
	}
	if n := strings.Count(out, " refused"); n != len(tried) {
		t.Errorf("open: %d refused, want %d:\n%s", n, len(tried), out)
	}
}

// A private directory is out of the run's reach; Landlock, whose rules
// grant a directory's rights to everything beneath it, cannot hide one
// within a directory the run reads, and refuses to run such a sandbox.
func TestLandlock_PrivateDirectoriesAreOutOfReach(t *testing.T) {
	own, private := ownDir(t), ownDir(t)
	if err := os.WriteFile(filepath.Join(private, "answers"), []byte("the grader's"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := inLandlock(Default(own))
	spec.Private = append(spec.Private, private)
	if out, _ := run(t, spec, "read", filepath.Join(private, "answers")); !strings.Contains(out, "permission denied") {
		t.Errorf("reading a private directory's file: %s, want permission denied", out)
	}
	inner := filepath.Join(own, "checkout")
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	spec.Private = append(spec.Private, inner)
	_, err := start(t, spec, "read", filepath.Join(inner, "answers"))
	if want := inner + " must be out of the run's reach, but lies within " + own; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a private directory within a writable one: %v, want an error: %s...", err, want)
	}
}

// The program runs with no capability, no supplementary group and
// no_new_privs: started by root, as a user of its own, another in each
// run; started by another user, as that user.
func TestLandlock_ProgramRunsAsAUserOfItsOwnWithNoCapability(t *testing.T) {
	spec := inLandlock(Default(ownDir(t)))
	var uids []int
	for range 2 {
		out, _ := run(t, spec, "identity", "")
		var uid, gid int
		var groups, caps, nnp string
		if _, err := fmt.Sscanf(out, "uid %d gid %d groups %s caps %s no_new_privs %s", &uid, &gid, &groups, &caps, &nnp); err != nil {
			t.Fatalf("identity: %q: %v", out, err)
		}
		if groups != "[]" || caps != "0000000000000000" || nnp != "1" {
			t.Errorf("identity: %s, want groups [], caps 0000000000000000, no_new_privs 1", out)
		}
		want := os.Getuid()
		if os.Geteuid() == 0 {
			if uid < lowID || gid != uid {
				t.Errorf("identity: %s, want a user and group of the run's own, at least %d", out, lowID)
			}
			want = uid
		}
		if uid != want {
			t.Errorf("identity: %s, want uid %d", out, want)
		}
		uids = append(uids, uid)
	}
	if os.Geteuid() == 0 && uids[0] == uids[1] {
		t.Errorf("two runs as uid %d, want a user of its own for each", uids[0])
	}
}

// The program has no network: it reaches no listener of the host's and
// binds no port, TCP or UDP; with HostNetwork it has the host's.
func TestLandlock_NoNetworkButTheHostsWhenGiven(t *testing.T) {
	addr := hostListener(t)
	spec := inLandlock(Default(ownDir(t)))
	if out, _ := run(t, spec, "net", addr); out != "dial false\nlisten listen tcp "+addr+": socket: operation not permitted" {
		t.Errorf("dial and listen on %s, the host's: %q, want both refused", addr, out)
	}
	if out, _ := run(t, spec, "udp", "127.0.0.1:53"); out != "dial udp 127.0.0.1:53: socket: operation not permitted" {
		t.Errorf("a datagram to 127.0.0.1:53: %q, want it refused", out)
	}
	spec.HostNetwork = true
	if out, _ := run(t, spec, "net", addr); !strings.HasPrefix(out, "dial true\nlisten listen tcp "+addr+": bind: address already in use") {
		t.Errorf("dial and listen on %s with the host's network: %q, want the dial through and the port taken", addr, out)
	}
}

// The host's unix sockets are out of reach: on a path (where a host keeps
// its daemons', and an ordinary user its agents') and abstract ones.
func TestLandlock_UnixSocketsOfTheHostAreOutOfReach(t *testing.T) {
	dir := ownDir(t)
	sock := filepath.Join(dir, "daemon.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	os.Chmod(sock, 0o777)
	name := fmt.Sprintf("sandbox-test-%d", os.Getpid())
	abstract, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer abstract.Close()
	spec := inLandlock(Default(ownDir(t)))
	spec.ReadOnly = []string{dir}
	if out, _ := run(t, spec, "dial-unix", sock); out != "refused" {
		t.Errorf("dialing %s, world-writable, in a directory it reads: %q, want refused", sock, out)
	}
	if out, _ := run(t, spec, "dial-abstract", name); !strings.Contains(out, "operation not permitted") {
		t.Errorf("dialing @%s: %q, want operation not permitted", name, out)
	}
}

// Of another process's /proc, the program reads what anyone may (its
// command line), not what the kernel guards as it guards tracing: its
// environment, memory and descriptors. Not the init's, not the process
// that started the sandbox, not another of the user's.
func TestLandlock_AnotherProcessesEnvironmentAndMemoryAreOutOfReach(t *testing.T) {
	victim := exec.Command("sleep", "1000")
	victim.Env = []string{"SECRET=the host's"}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	spec := inLandlock(Default(ownDir(t)))
	for _, pid := range []int{victim.Process.Pid, os.Getpid()} {
		dir := "/proc/" + strconv.Itoa(pid)
		out, _ := run(t, spec, "open", "r:"+dir+"/cmdline,r:"+dir+"/environ,r:"+dir+"/mem,r:"+dir+"/fd/1,r:"+dir+"/maps")
		if want := dir + "/cmdline opened\n" + dir + "/environ refused\n" + dir + "/mem refused\n" + dir + "/fd/1 refused\n" + dir + "/maps refused"; out != want {
			t.Errorf("the /proc of pid %d: %q, want %q", pid, out, want)
		}
	}
}

// The program can neither trace nor signal a process outside its run,
// whoever started it: not its init, not the process that started the
// sandbox, not another of the user's.
func TestLandlock_ProcessesOutsideTheRunAreOutOfReach(t *testing.T) {
	victim := exec.Command("sleep", "1000")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	spec := inLandlock(Default(ownDir(t)))
	for _, pid := range []int{victim.Process.Pid, os.Getpid()} {
		if out, _ := run(t, spec, "ptrace", strconv.Itoa(pid)); out != "operation not permitted" {
			t.Errorf("tracing pid %d: %q, want operation not permitted", pid, out)
		}
		if out, _ := run(t, spec, "signal", strconv.Itoa(pid)); out != "operation not permitted" {
			t.Errorf("signalling pid %d: %q, want operation not permitted", pid, out)
		}
	}
}

// What a namespace would keep to the run is refused: a namespace of its
// own (clone's flags; clone3 fails as if the kernel had none, so that a C
// library falls back to clone), System V IPC and POSIX message queues;
// and so is everything both tiers refuse.
func TestLandlock_RefusesWhatNamespacesWouldKeepToTheRun(t *testing.T) {
	spec := inLandlock(Default(ownDir(t)))
	want := "clone: fork/exec /usr/bin/true: operation not permitted\nclone3: function not implemented"
	if out, _ := run(t, spec, "namespaces", ""); out != want {
		t.Errorf("namespaces: %q, want %q", out, want)
	}
	want = "shmget: operation not permitted\nmsgget: operation not permitted\nsemget: operation not permitted\nmq_open: operation not permitted"
	if out, _ := run(t, spec, "ipc", ""); out != want {
		t.Errorf("IPC: %q, want %q", out, want)
	}
	testRiskyCalls(t, spec, nil)
}

// A file the program writes holds at most the sandbox's private size.
func TestLandlock_FilesAreBounded(t *testing.T) {
	spec := inLandlock(Default(ownDir(t)))
	spec.PrivateSize = 4 << 20
	if out, _ := run(t, spec, "big-file", "3"); out != "ok" {
		t.Errorf("3 MiB in a file: %q, want ok", out)
	}
	if out, _ := run(t, spec, "big-file", "8"); out != "write big: file too large" {
		t.Errorf("8 MiB in a file, of 4 MiB at most: %q, want file too large", out)
	}
}

// Stop ends the program, and every process it started, in a session of
// its own too: the init ends them all before it reports.
func TestLandlock_StopEndsEverything(t *testing.T) {
	Need(t, Landlock)
	own := ownDir(t)
	spec := inLandlock(Default(own))
	bin := program(t, Landlock)
	spec.ReadOnly = []string{filepath.Dir(bin)}
	pidFile := filepath.Join(own, "pid")
	env := append(os.Environ(), helperEnv+"=daemon", "ARG="+pidFile, "HANG=1")
	c, err := Command(spec, own, env, bin)
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c.Stdout, c.Stderr = w, w
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// A test that fails before its Stop leaves no daemon to the next.
	t.Cleanup(func() { c.Stop() })
	w.Close()
	line := make([]byte, len("started\n"))
	if _, err := r.Read(line); err != nil || string(line) != "started\n" {
		t.Fatalf("the daemon: %q, %v", line, err)
	}
	if n := sleepers(t); n != 1 {
		t.Fatalf("%d sleep %s processes before Stop, want 1", n, daemonSleep)
	}
	c.Stop()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the init: %v", err)
		}
	case <-time.After(time.Minute):
		c.Process.Kill()
		t.Fatal("the init did not end a minute after Stop")
	}
	if st, err := c.Ending(); err != nil || st != (Ending{Code: -1, Signal: "killed"}) {
		t.Errorf("Ending() = %v, %v; want signal killed", st, err)
	}
	if n := sleepers(t); n != 0 {
		t.Errorf("%d sleep %s processes left after Stop", n, daemonSleep)
	}
}

// A kernel's Landlock ABI, whether root starts the sandboxes and whether
// it may switch users tell which walls the tier lacks: on the newest
// kernels, none, unless root runs the programs as root.
func TestLandlockGaps(t *testing.T) {
	for _, tc := range []struct {
		abi         int
		root, users bool
		want        []string
	}{
		{9, false, false, nil},
		{9, true, true, nil},
		{9, true, false, []string{"root"}},
		{7, true, true, []string{"ABI 9"}},
		{5, true, true, []string{"ABI 9"}},
		{5, false, false, []string{"ABI 6", "ABI 9"}},
		{5, true, false, []string{"root", "ABI 6", "ABI 9"}},
		{1, true, true, []string{"ABI 3", "ABI 5", "ABI 9"}},
	} {
		var got []string
		for _, gap := range LandlockGaps(tc.abi, tc.root, tc.users) {
			if i := strings.Index(gap, "Landlock ABI "); i >= 0 {
				got = append(got, gap[i+len("Landlock "):i+len("Landlock ABI 9")])
			} else if strings.HasPrefix(gap, "root may switch to no user") {
				got = append(got, "root")
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("LandlockGaps(%d, %v, %v) names %v, want %v", tc.abi, tc.root, tc.users, got, tc.want)
		}
	}
}

// The ids a user of the run's own is picked from: above a system's
// users where the map has room, within the container's 65,536 otherwise,
// none where root alone is mapped.
func TestPickID(t *testing.T) {
	for _, tc := range []struct {
		ranges    []idRange
		low, high int64
		ok        bool
	}{
		{[]idRange{{0, 1 << 32}}, lowID, highID, true},
		{[]idRange{{0, 65536}}, 1000, 65534, true},
		{[]idRange{{0, 1}}, 0, 0, false},
		{[]idRange{{0, 1}, {5 << 20, 100}}, 5 << 20, 5<<20 + 100, true},
	} {
		for range 20 {
			id, ok := pickID(tc.ranges)
			if ok != tc.ok || ok && (int64(id) < tc.low || int64(id) >= tc.high) {
				t.Errorf("pickID(%v) = %d, %v; want one in [%d, %d), %v", tc.ranges, id, ok, tc.low, tc.high, tc.ok)
			}
		}
	}
}
