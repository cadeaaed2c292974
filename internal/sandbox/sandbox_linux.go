package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
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
func Command(spec Spec, dir string, env []string, path string, args ...string) (*Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(request{Spec: spec, Path: path, Args: append([]string{path}, args...), Dir: dir})
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
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
		Setpgid:                    true,
		Pdeathsig:                  syscall.SIGKILL,
	}
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
// was killed before the program ended.
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
		return Status{}, fmt.Errorf("the sandbox's init ended before the program it ran (%s)", c.ProcessState)
	}
	return st, nil
}

// runInit sets up the sandbox, runs the program, reports how it ended on
// the status pipe, and returns the init's exit code.
func runInit(req request) int {
	status := os.NewFile(3, "status")
	fail := func(err error) int {
		fmt.Fprintf(status, "error %v\n", err)
		return initFailed
	}
	if err := setUp(req.Spec); err != nil {
		return fail(err)
	}
	if req.Path == "" {
		fmt.Fprintln(status, Status{})
		return 0
	}
	child := &exec.Cmd{Path: req.Path, Args: req.Args, Dir: req.Dir, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, initEnv+"=") {
			child.Env = append(child.Env, kv)
		}
	}
	// A user namespace of its own: the program is root there, with no
	// power over the mounts, which belong to the init's.
	child.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}},
		GidMappingsEnableSetgroups: false,
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

// setUp makes the mounts of spec in the init's mount namespace.
func setUp(spec Spec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	// The directories the run reads and writes, taken aside before the
	// rest turns read-only and the private directories are covered.
	dirs := slices.Concat(spec.Writable, spec.ReadOnly, spec.Overlay)
	clones := make([]int, len(dirs))
	for i, dir := range dirs {
		fd, err := unix.OpenTree(unix.AT_FDCWD, dir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("take %s aside: %w", dir, err)
		}
		defer unix.Close(fd)
		clones[i] = fd
	}
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, ro); err != nil {
		return fmt.Errorf("make / read-only: %w", err)
	}
	for _, dir := range spec.Private {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
			return fmt.Errorf("mount a private %s: %w", dir, err)
		}
	}
	// A /proc of the new PID namespace shows its processes only. Some
	// containers forbid it; the namespace hides the others' processes
	// from signals all the same.
	unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	// The writable ones back in place, then the read-only ones, which may
	// be within them, and those that get an overlay.
	for i, dir := range dirs {
		if i >= len(spec.Writable) {
			if err := unix.MountSetattr(clones[i], "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, ro); err != nil {
				return fmt.Errorf("make %s read-only: %w", dir, err)
			}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("put %s back: %w", dir, err)
		}
		if err := unix.MoveMount(clones[i], "", unix.AT_FDCWD, dir, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("put %s back: %w", dir, err)
		}
	}
	for i, dir := range spec.Overlay {
		if len(spec.Private) == 0 {
			return errors.New("an overlay needs a private directory for its layer")
		}
		layer := filepath.Join(spec.Private[0], ".sandbox-overlay", strconv.Itoa(i))
		upper, work := filepath.Join(layer, "upper"), filepath.Join(layer, "work")
		if err := os.MkdirAll(upper, 0o755); err != nil {
			return err
		}
		if err := os.MkdirAll(work, 0o755); err != nil {
			return err
		}
		// Refused (an old kernel), the directory stays read-only.
		unix.Mount("overlay", dir, "overlay", 0, "lowerdir="+dir+",upperdir="+upper+",workdir="+work+",userxattr")
	}
	return nil
}

// Available reports whether programs can run in sandboxes here, and if
// not, why. It tries once, in a process's life.
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
		return false, fmt.Sprintf("cannot start a process in new user, mount and PID namespaces: %v", err)
	}
	if _, err := c.Status(); err != nil {
		if c.ProcessState.ExitCode() != initFailed {
			return false, "the program does not call sandbox.Init first"
		}
		return false, err.Error()
	}
	return true, ""
})
