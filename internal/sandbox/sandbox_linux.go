package sandbox

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Cmd is a program to run in a sandbox: exec.Cmd starts its init, whose
// stdin, stdout and stderr the program gets. Set those, start it with
// Start (or exec.Cmd's, then call Started), wait for it, and ask Status how
// the program ended.
type Cmd struct {
	*exec.Cmd
	status *os.File // the read end of the status pipe
	write  *os.File // its write end, which the init gets as fd 3
}

// Command returns the command that runs path with args (without argv[0])
// in dir with env, in a sandbox of spec.
//
// Started by root, the init runs as root in new mount, PID, network, IPC
// and UTS namespaces, and the program as nobody; started by another user,
// the init runs in a user namespace of its own too, as that user.
func Command(spec Spec, dir string, env []string, path string, args ...string) (*Cmd, error) {
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
	return &Cmd{Cmd: cmd, status: r, write: w}, nil
}

// Start starts the init.
func (c *Cmd) Start() error {
	err := c.Cmd.Start()
	c.Started()
	return err
}

// Started lets go of this process's end of the status pipe, once the init
// has started (or failed to).
func (c *Cmd) Started() {
	c.write.Close()
}

// Status returns how the program ended, once the init has exited; an
// error if the init could not set up the sandbox or start the program, or
// ErrInitEnded if it was killed before the program ended.
func (c *Cmd) Status() (Status, error) {
	defer c.status.Close()
	data, err := io.ReadAll(c.status)
	if err != nil {
		return Status{}, err
	}
	line := strings.TrimSpace(string(data))
	if why, ok := strings.CutPrefix(line, "error "); ok {
		return Status{}, errors.New(why)
	}
	st, ok := parseStatus(line)
	if !ok {
		return Status{}, fmt.Errorf("%w (%s)", ErrInitEnded, c.ProcessState)
	}
	return st, nil
}

// runInit sets up the sandbox, runs the program, reports how it ended on
// the status pipe, and returns the init's exit code.
func runInit(req request) int {
	// The status pipe, fd 3, moves to a descriptor that the program does
	// not inherit: what it writes there cannot be taken for the init's
	// report.
	fd, err := unix.FcntlInt(3, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: the status pipe: %v\n", err)
		return initFailed
	}
	unix.Close(3)
	status := os.NewFile(uintptr(fd), "status")
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
	if err := bound(req.Spec); err != nil {
		return fail(err)
	}
	if err := setUp(req.Spec, req.Root); err != nil {
		return fail(err)
	}
	path, args := req.Path, req.Args
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, initEnv+"=") {
			env = append(env, kv)
		}
	}
	if path == "" {
		// A probe: the init's own program, which exits at once.
		path, args, env = "/proc/self/exe", []string{"probe"}, append(env, probeEnv+"=1")
	}
	child := &exec.Cmd{Path: path, Args: args, Dir: req.Dir, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
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
	if err := filterCalls(); err != nil {
		return fail(err)
	}
	if err := child.Start(); err != nil {
		return fail(err)
	}
	child.Wait()
	st := Status{Code: child.ProcessState.ExitCode()}
	if ws, ok := child.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		st = Status{Code: -1, Signal: ws.Signal().String()}
	}
	fmt.Fprintln(status, st)
	return 0
}

// MaxTasks bounds the processes and threads that a sandbox's program may
// have at once, itself and all it starts: a test binary has tens.
const MaxTasks = 2048

// bound sets the bounds that the sandbox's namespaces keep: the tasks its
// program may have (RLIMIT_NPROC, which the kernel counts per user
// namespace, and the program has one of its own); the size of a file it
// writes (RLIMIT_FSIZE, the sandbox's private size); and System V shared
// memory and message queues, whose objects, mapped or not, may hold at
// most the sandbox's private size (IPC's sysctls are the IPC namespace's).
func bound(spec Spec) error {
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: MaxTasks, Max: MaxTasks}); err != nil {
		return fmt.Errorf("bound the tasks: %w", err)
	}
	size := cmp.Or(max(spec.PrivateSize, 0), DefaultPrivateSize)
	// A file the run writes on the host (spec.Files) holds at most what
	// its private file system does.
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: uint64(size), Max: uint64(size)}); err != nil {
		return fmt.Errorf("bound the files: %w", err)
	}
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

// give makes nobody the owner of everything under dir but what is within
// keep.
func give(dir string, keep []string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && slices.Contains(keep, path) {
			return filepath.SkipDir
		}
		return os.Lchown(path, Nobody, Nobody)
	})
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

// Available reports whether programs can run in sandboxes here, and if
// not, why. It tries once, in a process's life: a sandbox that starts a
// program as a run does.
func Available() (bool, string) { return probe() }

var probe = sync.OnceValues(func() (bool, string) {
	dir, err := os.MkdirTemp("", "sandbox-probe-")
	if err != nil {
		return false, err.Error()
	}
	defer os.RemoveAll(dir)
	c, err := Command(Default(dir), dir, os.Environ(), "")
	if err != nil {
		return false, err.Error()
	}
	out, _ := os.Create(filepath.Join(dir, "out"))
	c.Stdout, c.Stderr = out, out
	err = c.Start()
	if err == nil {
		c.Wait()
	}
	out.Close()
	if err != nil {
		return false, fmt.Sprintf("cannot start a process in new mount, PID, network, IPC and UTS namespaces%s: %v", map[bool]string{false: " and a user namespace"}[os.Geteuid() == 0], err)
	}
	st, err := c.Status()
	switch {
	case err != nil && c.ProcessState.ExitCode() != initFailed:
		return false, "the program does not call sandbox.Init first"
	case err != nil:
		return false, err.Error()
	case st != (Status{}):
		said, _ := os.ReadFile(filepath.Join(dir, "out"))
		return false, fmt.Sprintf("the program started in a sandbox ended with %s: %s", st, strings.TrimSpace(string(said)))
	}
	return true, ""
})
