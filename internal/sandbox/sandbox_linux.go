package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/fencelab/fencelab/internal/proc"
	"golang.org/x/sys/unix"
)

// Cmd is a program to run in a sandbox: exec.Cmd starts its init, whose
// stdin, stdout and stderr the program gets. Set those, start it with
// Start (or exec.Cmd's, then call Started), wait for it, and ask Ending how
// the program ended. Stop ends the program early.
type Cmd struct {
	*exec.Cmd
	status *os.File // the read end of the status pipe
	write  *os.File // its write end, which the init gets as fd 3
	// stop is the write end of the stop pipe, whose read end the init
	// gets as fd 4 (Landlock's init only): closing it ends the run.
	stop, stopRead *os.File
}

// Command returns the command that runs path with args (without argv[0])
// in dir with env, in a sandbox of spec.
//
// With namespaces, started by root, the init runs as root in new mount,
// PID, network, IPC and UTS namespaces, and the program as nobody; started
// by another user, the init runs in a user namespace of its own too, as
// that user. With Landlock the init runs as the user who started it, in
// no namespace, and the program as a user of the run's own (see ownUser)
// or that user.
func Command(spec Spec, dir string, env []string, path string, args ...string) (*Cmd, error) {
	if _, err := ParseTier(string(spec.tier())); err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	root := os.Geteuid() == 0
	data, err := json.Marshal(request{Spec: spec, Path: path, Args: append([]string{path}, args...), Dir: dir, Root: root})
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	// The init reads its request from the environment. Its arguments run
	// no test, should the program be a test binary that does not call Init.
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(env[:len(env):len(env)], initEnv+"="+string(data))
	cmd.ExtraFiles = []*os.File{w}
	c := &Cmd{Cmd: cmd, status: r, write: w}
	if spec.tier() == Landlock {
		// No parent-death signal: when mutate dies, the stop pipe closes,
		// and the init ends everything of the run before it exits.
		if c.stopRead, c.stop, err = os.Pipe(); err != nil {
			r.Close()
			w.Close()
			return nil, err
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, c.stopRead)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return c, nil
	}
	attr := &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS,
		Setpgid:    true,
		Pdeathsig:  syscall.SIGKILL,
	}
	if !spec.HostNetwork {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	if !root {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	cmd.SysProcAttr = attr
	return c, nil
}

// Start starts the init.
func (c *Cmd) Start() error {
	err := c.Cmd.Start()
	c.Started()
	if err != nil && c.stop != nil {
		c.stop.Close()
	}
	return err
}

// Started lets go of this process's ends of the init's pipes, once the
// init has started (or failed to).
func (c *Cmd) Started() {
	c.write.Close()
	if c.stopRead != nil {
		c.stopRead.Close()
	}
}

// Stop asks the init to end the program and everything it started, and
// to report, and says whether it will: with namespaces it does nothing
// (false), as killing the init's process group ends its PID namespace,
// and everything in it.
func (c *Cmd) Stop() bool {
	if c.stop == nil {
		return false
	}
	c.stop.Close()
	return true
}

// Ending returns how the program ended, once the init has exited; an
// error if the init could not set up the sandbox or start the program, or
// ErrInitEnded if it was killed before the program ended.
func (c *Cmd) Ending() (Ending, error) {
	defer c.status.Close()
	if c.stop != nil {
		c.stop.Close()
	}
	data, err := io.ReadAll(c.status)
	if err != nil {
		return Ending{}, err
	}
	line := strings.TrimSpace(string(data))
	if why, ok := strings.CutPrefix(line, "error "); ok {
		return Ending{}, errors.New(why)
	}
	st, ok := parseStatus(line)
	if !ok {
		return Ending{}, fmt.Errorf("%w (%s)", ErrInitEnded, c.ProcessState)
	}
	return st, nil
}

// runInit sets up the sandbox, runs the program, reports how it ended on
// the status pipe, and returns the init's exit code.
func runInit(req request) int {
	// The status pipe, fd 3, moves to a descriptor that the program does
	// not inherit: what it writes there cannot be taken for the init's
	// report.
	status, err := keep(3, "status")
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: the status pipe: %v\n", err)
		return initFailed
	}
	fail := func(err error) int {
		fmt.Fprintf(status, "error %v\n", err)
		return initFailed
	}
	// Every signal is caught, and dropped: the program, in the init's
	// PID namespace, can signal it, and must not end it. (Caught, not
	// ignored: the program starts with every signal's default action.)
	signals := make(chan os.Signal, 16)
	signal.Notify(signals)
	go func() {
		for range signals {
		}
	}()
	if req.Spec.tier() == Landlock {
		stop, err := keep(4, "stop")
		if err != nil {
			return fail(fmt.Errorf("the stop pipe: %w", err))
		}
		st, err := runLandlock(req, stop)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintln(status, st)
		return 0
	}
	if err := bound(req.Spec, maxTasks); err != nil {
		return fail(err)
	}
	if err := boundIPC(req.Spec); err != nil {
		return fail(err)
	}
	if err := setUp(req.Spec, req.Root); err != nil {
		return fail(err)
	}
	child := programCmd(req)
	child.SysProcAttr = programAttr(req.Root)
	// The program's session keyring is a new, empty one: not the
	// session's of the user who started the sandbox. (Where the kernel
	// has no keyrings, there is none to share.)
	if err := newSessionKeyring(); err != nil && !errors.Is(err, unix.ENOSYS) {
		return fail(fmt.Errorf("a session keyring of its own: %w", err))
	}
	// Nothing the program runs gains a privilege (a set-user-ID file, a
	// file capability), and it makes none of the system calls of
	// refused: the filter holds for the init, and for every process it
	// starts from now on.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("no_new_privs: %w", err))
	}
	if err := filterCalls(req.Spec, seccomp.FilterFlagTSync); err != nil {
		return fail(err)
	}
	if err := child.Start(); err != nil {
		return fail(err)
	}
	reapOrphans(child.Process.Pid)
	child.Wait()
	fmt.Fprintln(status, statusOf(child.ProcessState))
	return 0
}

// keep moves the descriptor fd, inherited, to one that closes on exec, and
// returns it as a file called name.
func keep(fd int, name string) (*os.File, error) {
	moved, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, err
	}
	unix.Close(fd)
	return os.NewFile(uintptr(moved), name), nil
}

// programCmd returns the command of the program that req runs: for a
// probe, the init's own program, which exits at once.
func programCmd(req request) *exec.Cmd {
	path, args := req.Path, req.Args
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, initEnv+"=") {
			env = append(env, kv)
		}
	}
	if path == "" {
		path, args, env = "/proc/self/exe", []string{"probe"}, append(env, probeEnv+"=1")
	}
	return &exec.Cmd{Path: path, Args: args, Dir: req.Dir, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
}

// statusOf returns how the process of ps ended.
func statusOf(ps *os.ProcessState) Ending {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Ending{Code: -1, Signal: ws.Signal().String()}
	}
	return Ending{Code: ps.ExitCode()}
}

// maxTasks bounds the processes and threads that a sandbox's program may
// have at once, itself and all it starts: a test binary has tens.
const maxTasks = 2048

// maxFiles bounds the descriptors that each process of a sandbox may hold
// open: a test binary holds tens, a suite of many database connections
// hundreds.
const maxFiles = 1 << 16

// bound sets the limits of a process that both tiers keep, on the init
// and so on every process it starts: its tasks (RLIMIT_NPROC, which the
// kernel counts per user; the caller says how many); the size of a file
// it writes (RLIMIT_FSIZE, the sandbox's private size: a write past it
// fails with EFBIG, and Go ignores SIGXFSZ); its open descriptors
// (RLIMIT_NOFILE); and core dumps, none (RLIMIT_CORE of 1: no core file
// is smaller than a page, and the kernel takes a limit of 1 to mean no
// dump when core_pattern pipes cores to a program, as Ubuntu's apport
// does; see do_coredump in the kernel's fs/coredump.c).
func bound(spec Spec, tasks uint64) error {
	size := uint64(spec.size())
	for _, l := range []struct {
		what     string
		resource int
		value    uint64
	}{
		{"the tasks", unix.RLIMIT_NPROC, tasks},
		{"the files", unix.RLIMIT_FSIZE, size},
		{"the descriptors", unix.RLIMIT_NOFILE, maxFiles},
		{"core dumps", unix.RLIMIT_CORE, 1},
	} {
		lim := unix.Rlimit{Cur: l.value, Max: l.value}
		var old unix.Rlimit
		if unix.Getrlimit(l.resource, &old) == nil && old.Max < l.value {
			lim = unix.Rlimit{Cur: old.Max, Max: old.Max} // lower already
		}
		if err := unix.Setrlimit(l.resource, &lim); err != nil {
			return fmt.Errorf("bound %s: %w", l.what, err)
		}
	}
	return nil
}

// boundIPC bounds System V shared memory and message queues, with
// namespaces: their objects, mapped or not, may hold at most the
// sandbox's private size (IPC's sysctls are the IPC namespace's).
func boundIPC(spec Spec) error {
	size := spec.size()
	page := int64(os.Getpagesize())
	for name, value := range map[string]int64{"shmmax": size, "shmall": size / page, "shmmni": 64, "msgmni": 64} {
		path := "/proc/sys/kernel/" + name
		if err := os.WriteFile(path, []byte(strconv.FormatInt(value, 10)), 0); err != nil {
			return fmt.Errorf("bound System V IPC (%s): %w", name, err)
		}
	}
	return nil
}

// newSessionKeyring makes the process join a new, anonymous session
// keyring: one that no other process has, by name or otherwise.
func newSessionKeyring() error {
	// A NULL name, which unix.KeyctlJoinSessionKeyring cannot pass: a
	// named keyring is one another process can join too.
	_, _, errno := unix.Syscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// programAttr returns how the init starts the program: in a user namespace
// of its own, as UID and GID, with no supplementary group, mapped to the
// init's own user (the host user who started the sandbox) or, when the
// init is the host's root, to nobody. Its user is not root in that
// namespace, so it runs with no capability; and it has none over the init's
// namespaces, the mounts among them.
func programAttr(root bool) *syscall.SysProcAttr {
	host := 0 // the init's user, in its own user namespace
	if root {
		host = Nobody
	}
	attr := &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: UID, HostID: host, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: GID, HostID: host, Size: 1}},
		Credential:  &syscall.Credential{Uid: UID, Gid: GID, Groups: []uint32{}},
	}
	if root {
		// root's supplementary groups are dropped; a user namespace made
		// without root denies setgroups, and the program keeps the
		// groups of the user who started it.
		attr.GidMappingsEnableSetgroups = true
	} else {
		attr.Credential.NoSetGroups = true
	}
	return attr
}

// devices are the device files of a sandbox's /dev.
var devices = []string{"null", "zero", "full", "random", "urandom"}

// protectedProc are the files of /proc that configure the kernel, which
// stay read-only in a sandbox (as container runtimes keep them).
var protectedProc = []string{"sys", "sysrq-trigger", "irq", "bus", "fs"}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// loopbackUp brings the network namespace's loopback interface up.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// Check returns nil if programs can run in sandboxes of tier here, or an
// error that says why not. It tries once per tier in a process's life: a
// sandbox that starts a program as a run does.
func Check(tier Tier) error {
	check, ok := checks[tier]
	if !ok {
		_, err := ParseTier(string(tier))
		return err
	}
	return check()
}

var checks = map[Tier]func() error{
	Namespaces: sync.OnceValue(func() error { return probe(Namespaces) }),
	Landlock:   sync.OnceValue(func() error { return probe(Landlock) }),
}

// probe starts, in a sandbox of tier, a program that exits at once, in
// the root directory, where any user may be.
func probe(tier Tier) error {
	if tier == Landlock && LandlockABI() < 1 {
		return errNoLandlock
	}
	spec := Default()
	spec.Tier = tier
	c, err := Command(spec, "/", os.Environ(), "")
	if err != nil {
		return err
	}
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err = c.Start()
	if err == nil {
		c.Wait()
	}
	if err != nil {
		if tier == Landlock {
			return fmt.Errorf("cannot start a process: %w", err)
		}
		return fmt.Errorf("cannot start a process in new mount, PID, network, IPC and UTS namespaces%s: %w", map[bool]string{false: " and a user namespace"}[os.Geteuid() == 0], err)
	}
	st, err := c.Ending()
	switch {
	case err != nil && c.ProcessState.ExitCode() != initFailed:
		return errors.New("the program does not call sandbox.Init first")
	case err != nil:
		return err
	case st != (Ending{}):
		return fmt.Errorf("the program started in a sandbox ended with %s: %s", st, strings.TrimSpace(out.String()))
	}
	return nil
}

// reapOrphans reaps, from now on, the children of this process that end,
// but the program (whose end its Wait takes): what the program left and
// ended, so that no zombie counts against its tasks.
func reapOrphans(program int) {
	ended := make(chan os.Signal, 1)
	signal.Notify(ended, syscall.SIGCHLD)
	go func() {
		self := os.Getpid()
		for range ended {
			for _, pid := range proc.Children(self) {
				if st, ok := proc.ReadStat(pid); pid != program && ok && st.Zombie() {
					var ws syscall.WaitStatus
					syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
				}
			}
		}
	}()
}
