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

// setUp makes the sandbox of spec in the init's namespaces; root says that
// the init is the host's root, and the program will be nobody.
func setUp(spec Spec, root bool) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	m := &fileSystems{spec: spec, root: root, dirs: slices.Concat(spec.Writable, spec.ReadOnly, spec.Overlay)}
	defer m.close()
	for _, step := range []func() error{m.takeAside, m.readOnly, m.cover, m.putBack, m.giveWritable} {
		if err := step(); err != nil {
			return err
		}
	}
	if !spec.HostNetwork {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("bring the loopback interface up: %w", err)
		}
	}
	if err := unix.Sethostname([]byte("sandbox")); err != nil {
		return fmt.Errorf("set the host name: %w", err)
	}
	return nil
}

// fileSystems sets up a sandbox's mounts, step by step: the directories
// the run reads and writes (dirs: the writable ones, the read-only ones,
// those that get an overlay) and the device files are taken aside; the
// rest turns read-only; /dev, /proc, the private directories and, for
// nobody, what nobody may not enter, are covered; dirs are put back in
// place.
type fileSystems struct {
	spec   Spec
	root   bool
	dirs   []string
	clones []int          // of dirs, detached
	devs   map[string]int // clones of the device files, by name
	covers []string       // see unreachable
	ps     *privates
	inner  []string // private directories within dirs
}

// readOnlyAttr makes a mount read-only, nosuid and nodev.
var readOnlyAttr = &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}

func (f *fileSystems) takeAside() error {
	if f.root {
		f.covers = unreachable(f.dirs, f.spec.Private)
	}
	for _, dir := range f.dirs {
		fd, err := unix.OpenTree(unix.AT_FDCWD, dir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("take %s aside: %w", dir, err)
		}
		f.clones = append(f.clones, fd)
	}
	f.devs = map[string]int{}
	for _, name := range devices {
		fd, err := unix.OpenTree(unix.AT_FDCWD, "/dev/"+name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			return fmt.Errorf("take /dev/%s aside: %w", name, err)
		}
		f.devs[name] = fd
	}
	return nil
}

func (f *fileSystems) close() {
	for _, fd := range f.clones {
		unix.Close(fd)
	}
	for _, fd := range f.devs {
		unix.Close(fd)
	}
}

func (f *fileSystems) readOnly() error {
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, readOnlyAttr); err != nil {
		return fmt.Errorf("make / read-only: %w", err)
	}
	return newDev(f.devs)
}

// cover mounts, over what the host has there: the directories that
// nobody may not enter (root's home, with its caches), each by one that
// will hold the run's directories only; the private directories but those
// within dirs, which share one file system of the run's size; and /proc.
func (f *fileSystems) cover() error {
	for _, dir := range f.covers {
		if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=1m"); err != nil {
			return fmt.Errorf("cover %s: %w", dir, err)
		}
	}
	f.ps = &privates{size: cmp.Or(max(f.spec.PrivateSize, 0), DefaultPrivateSize)}
	for _, dir := range f.spec.Private {
		if slices.ContainsFunc(f.dirs, func(d string) bool { return within(dir, d) }) {
			f.inner = append(f.inner, dir)
			continue
		}
		if slices.ContainsFunc(f.covers, func(c string) bool { return within(dir, c) }) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		if err := f.ps.mount(dir); err != nil {
			return err
		}
	}
	newProc()
	return nil
}

// putBack puts dirs back in place: the writable ones, then the read-only
// ones, which may be within them, and those that get an overlay; then the
// private directories within them.
func (f *fileSystems) putBack() error {
	for i, dir := range f.dirs {
		if i >= len(f.spec.Writable) {
			if err := unix.MountSetattr(f.clones[i], "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, readOnlyAttr); err != nil {
				return fmt.Errorf("make %s read-only: %w", dir, err)
			}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("put %s back: %w", dir, err)
		}
		if err := unix.MoveMount(f.clones[i], "", unix.AT_FDCWD, dir, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("put %s back: %w", dir, err)
		}
	}
	for _, dir := range f.inner {
		if err := f.ps.mount(dir); err != nil {
			return err
		}
	}
	for _, dir := range f.covers {
		if err := unix.MountSetattr(unix.AT_FDCWD, dir, 0, readOnlyAttr); err != nil {
			return fmt.Errorf("make %s read-only: %w", dir, err)
		}
	}
	for i, dir := range f.spec.Overlay {
		if err := overlay(f.ps, i, dir, f.root); err != nil {
			return err
		}
	}
	return nil
}

// giveWritable gives nobody, whom root runs the program as, the writable
// directories.
func (f *fileSystems) giveWritable() error {
	if !f.root {
		return nil
	}
	for _, dir := range f.spec.Writable {
		if err := give(dir, f.spec.ReadOnly); err != nil {
			return fmt.Errorf("give %s to the sandbox's user: %w", dir, err)
		}
	}
	return nil
}

// newDev mounts a /dev of its own, read-only once made: the device files
// devs (clones of the host's, by name), the links every program expects,
// a private pts and an empty shm for a private directory.
func newDev(devs map[string]int) error {
	if err := unix.Mount("tmpfs", "/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=1m"); err != nil {
		return fmt.Errorf("mount a private /dev: %w", err)
	}
	for _, name := range devices {
		path := "/dev/" + name
		if err := os.WriteFile(path, nil, 0o666); err != nil {
			return err
		}
		if err := unix.MoveMount(devs[name], "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("put %s back: %w", path, err)
		}
	}
	links := map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2", "ptmx": "pts/ptmx"}
	for name, target := range links {
		if err := os.Symlink(target, "/dev/"+name); err != nil {
			return err
		}
	}
	for _, dir := range []string{"/dev/pts", "/dev/shm"} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
	}
	// A terminal of its own, for a test that needs one; where the
	// system refuses, there is none.
	unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
	if err := unix.MountSetattr(unix.AT_FDCWD, "/dev", 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("make /dev read-only: %w", err)
	}
	return nil
}

// newProc mounts a /proc of the new PID namespace, which shows its
// processes only, and keeps its files that configure the kernel
// read-only. Some containers forbid the mount; the host's /proc, read-only
// then, stays, and the namespace hides the others' processes from signals
// all the same.
func newProc() {
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return
	}
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOEXEC}
	for _, name := range protectedProc {
		path := "/proc/" + name
		fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			continue // not on this kernel
		}
		if unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, ro) == nil {
			unix.MoveMount(fd, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH)
		}
		unix.Close(fd)
	}
}

// privates are the private directories of a sandbox: one file system of
// size bytes, mounted on the first (store), and a directory of it under
// its .sandbox directory for each of the others, which keeps the mode of
// the directory it covers.
type privates struct {
	size  int64
	store string
	n     int
}

// mount makes dir private; one that is not a directory is left alone.
func (ps *privates) mount(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil
	}
	if ps.store == "" {
		// Neither nosuid nor nodev: the program gains no privilege
		// anyway (no_new_privs) and cannot make a device, and a test may
		// bind a directory of its TMPDIR read-only in a namespace of its
		// own, which a locked flag would forbid.
		opts := "mode=1777,size=" + strconv.FormatInt(ps.size, 10)
		if err := unix.Mount("tmpfs", dir, "tmpfs", 0, opts); err != nil {
			return fmt.Errorf("mount a private %s: %w", dir, err)
		}
		ps.store = dir
		return nil
	}
	sub := filepath.Join(ps.store, ".sandbox", strconv.Itoa(ps.n))
	ps.n++
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(sub, fi.Mode()&(fs.ModePerm|fs.ModeSticky)); err != nil {
		return err
	}
	fd, err := unix.OpenTree(unix.AT_FDCWD, sub, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return fmt.Errorf("a private %s: %w", dir, err)
	}
	defer unix.Close(fd)
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, dir, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("a private %s: %w", dir, err)
	}
	return nil
}

// overlay mounts the i-th overlaid directory dir: it reads as it is, and
// its writes go to a layer of the run's, in its private file system.
// Refused (an old kernel), the directory stays read-only. When the program
// runs as nobody (root), the layer holds the directory and its
// subdirectories already, owned by nobody, so that the program may write
// in them (a build cache's, one level deep).
func overlay(ps *privates, i int, dir string, root bool) error {
	if ps.store == "" {
		return errors.New("an overlay needs a private directory for its layer")
	}
	layer := filepath.Join(ps.store, ".sandbox-overlay", strconv.Itoa(i))
	upper, work := filepath.Join(layer, "upper"), filepath.Join(layer, "work")
	if err := os.MkdirAll(upper, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	opts := "lowerdir=" + dir + ",upperdir=" + upper + ",workdir=" + work
	if root {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() {
				if err := os.Mkdir(filepath.Join(upper, e.Name()), 0o755); err != nil {
					return err
				}
			}
		}
		if err := give(upper, nil); err != nil {
			return err
		}
	} else {
		opts += ",userxattr" // a user namespace's overlay
	}
	unix.Mount("overlay", dir, "overlay", 0, opts)
	return nil
}

// unreachable returns the directories that a run of dirs covers when its
// program is nobody: for each of dirs, the first of its ancestors that
// others may not enter (root's home, say), unless a private directory
// covers it already. The directory covering it holds dirs only.
func unreachable(dirs, private []string) []string {
	var covers []string
	for _, dir := range dirs {
		for a := "/"; ; {
			rel, err := filepath.Rel(a, dir)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				break
			}
			a = filepath.Join(a, strings.Split(rel, string(filepath.Separator))[0])
			if a == dir || slices.ContainsFunc(private, func(p string) bool { return within(a, p) }) {
				break
			}
			fi, err := os.Stat(a)
			if err != nil {
				break
			}
			if fi.Mode().Perm()&0o001 == 0 {
				if !slices.Contains(covers, a) {
					covers = append(covers, a)
				}
				break
			}
		}
	}
	return covers
}

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
