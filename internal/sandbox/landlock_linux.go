package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/fencelab/fencelab/internal/proc"
)

// A Landlock sandbox is made of what a process may do to itself without a
// privilege, set up by an init that runs as the user who started it, in
// no namespace:
//
//   - the init is a child subreaper: what the program starts and leaves,
//     in a session of its own or not, becomes the init's, and the init
//     ends it all once the program has ended, or when its stop pipe
//     closes (mutate stops the run, or dies);
//   - the program runs as a user of the run's own, with no supplementary
//     group, when the host's root starts the sandbox (see ownUser), and
//     as that user otherwise;
//   - the limits of bound hold for the init and so for the program;
//   - the program is started from a thread of the init that alone is
//     restricted (the thread is locked to its goroutine, which never lets
//     it go): no capability in its bounding set, no_new_privs, a new
//     session keyring, the Landlock rules of landlockRules and the
//     seccomp filter of policy. The program inherits the thread's
//     restrictions; the init's other threads, which end the run and
//     report, have none.

// errNoLandlock is why a kernel without Landlock has no Landlock sandbox.
var errNoLandlock = errors.New("the kernel offers no Landlock: it is older than Linux 5.13, or Landlock is not among the security modules it enabled at boot (its lsm= parameter, /sys/kernel/security/lsm)")

// LandlockABI returns the version of Landlock's ABI that the kernel
// offers, 0 where it has none (or it is disabled). A kernel of ABI 6 or
// more without the fix of its signal scoping (erratum 2) counts as ABI 5,
// as go-landlock counts it: its scopes are not used there.
var LandlockABI = sync.OnceValue(func() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	if v >= 6 {
		if errata, err := llsys.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return v
})

// LandlockGaps returns what a Landlock sandbox on a kernel of Landlock ABI
// abi lacks of the walls it would have on the newest, each with the ABI
// that brings it; root says that the host's root starts the sandboxes,
// and users that it may switch to a user of the run's own (see ownUser).
// None of them is a wall that namespaces would add; see docs/internals.md
// for those.
func LandlockGaps(abi int, root, users bool) []string {
	var gaps []string
	if root && !users {
		gaps = append(gaps, "root may switch to no user of the run's own here (a user namespace maps root alone): the run's tasks are not bounded, and it runs as root with no capability")
	}
	if abi < 3 {
		gaps = append(gaps, "a file the run may only read can still be truncated (Landlock ABI 3)")
	}
	if abi < 5 {
		gaps = append(gaps, "the devices it may open (/dev/null and its kin) take any ioctl (Landlock ABI 5)")
	}
	if abi < 6 && (!root || !users) {
		gaps = append(gaps, "it may signal your other processes, mutate and the other runs among them (Landlock ABI 6)")
	}
	if abi < 9 {
		gaps = append(gaps, "it may make no unix socket, not even one of its own (Landlock ABI 9 tells the host's from the run's)")
	}
	return gaps
}

// runLandlock runs the program of req in a Landlock sandbox: it returns
// how the program ended once it has, and everything it started has been
// ended, or when stop reads end of file, once it has ended the program
// too.
func runLandlock(req request, stop *os.File) (Ending, error) {
	abi := LandlockABI()
	if abi < 1 {
		return Ending{}, errNoLandlock
	}
	spec := req.Spec
	if err := fits(spec); err != nil {
		return Ending{}, err
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return Ending{}, fmt.Errorf("become a subreaper: %w", err)
	}
	u := ownUser(req.Root)
	tasks := uint64(maxTasks)
	if u.own {
		for _, path := range slices.Concat(spec.Writable, spec.Own, spec.Copies, spec.Files) {
			if err := give(path, spec.ReadOnly, u.uid, u.gid); err != nil {
				return Ending{}, fmt.Errorf("give %s to the sandbox's user: %w", path, err)
			}
		}
		for _, path := range []string{req.Dir, filepath.Dir(req.Path)} {
			if err := reachable(path, u); err != nil {
				return Ending{}, err
			}
		}
	} else if !req.Root {
		// The kernel counts an ordinary user's tasks as one: the run may
		// have maxTasks more than the user has now.
		tasks += uint64(proc.TasksOf(os.Getuid()))
	}
	if err := bound(spec, tasks); err != nil {
		return Ending{}, err
	}
	rules, err := landlockRules(spec, req.Path == "")
	if err != nil {
		return Ending{}, err
	}
	child := programCmd(req)
	child.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if u.own {
		child.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid), Groups: []uint32{}}
	}
	started, ended := make(chan error, 1), make(chan struct{})
	go func() {
		// Never unlocked: the thread, restricted, ends with the
		// goroutine, after the program it is the parent of.
		runtime.LockOSThread()
		if err := restrictThread(spec, rules, req.Root); err != nil {
			started <- err
			return
		}
		if err := child.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		child.Wait()
		close(ended)
	}()
	if err := <-started; err != nil {
		return Ending{}, err
	}
	reapOrphans(child.Process.Pid)
	stopped := make(chan struct{})
	go func() {
		io.Copy(io.Discard, stop)
		close(stopped)
	}()
	select {
	case <-ended:
	case <-stopped:
		syscall.Kill(child.Process.Pid, syscall.SIGKILL)
		<-ended
	}
	endAll()
	return statusOf(child.ProcessState), nil
}

// restrictThread restricts the calling thread, locked to its goroutine,
// for the program it will start: see above.
func restrictThread(spec Spec, rules []landlock.Rule, root bool) error {
	if root {
		if err := dropBoundingSet(); err != nil {
			return err
		}
	}
	if err := newSessionKeyring(); err != nil && !errors.Is(err, unix.ENOSYS) {
		return fmt.Errorf("a session keyring of its own: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	config := landlock.V11
	if spec.HostNetwork {
		config.HandledAccessNet = 0
	}
	fd, flags, err := config.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return errNoLandlock // best effort found nothing to restrict
	}
	err = llsys.LandlockRestrictSelf(fd, flags)
	unix.Close(fd)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return filterCalls(spec, 0)
}

// dropBoundingSet empties the calling thread's bounding set of
// capabilities: a program that runs as root (the host's root, where the
// sandbox's user cannot be switched) gets none when it starts.
func dropBoundingSet() error {
	last := 63
	if data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	return nil
}

// landlockRules returns the rules of a Landlock sandbox of spec: devices
// are read and written, with no ioctl but the harmless ones; system, the
// listed files of /etc, /proc, spec's ReadOnly and Overlay are read and
// executed; spec's Writable, Own and Copies are read, written and
// executed, and files may move between them; spec's Files are read and
// written. No TCP port is bound or connected to (unless the host's network
// is the run's), and the run's signals and abstract unix sockets reach
// only its own processes. Nothing else: not /sys, /tmp, /dev/shm, /run,
// /var, the home directories, the host's users. A probe may run the init's
// own program.
//
// /proc is read as a test reads its own (/proc/self/fd, to count its
// descriptors): of another process, Landlock lets it read what anyone
// may (its command line, its status), not what the kernel guards as it
// guards tracing (its environment, memory, descriptors, maps), since it
// may trace no process outside the run.
func landlockRules(spec Spec, probe bool) ([]landlock.Rule, error) {
	readable := []string{"/proc"}
	for _, d := range system {
		readable = append(readable, d.path)
	}
	for _, e := range etc {
		readable = append(readable, filepath.Join("/etc", e.name))
	}
	readable = slices.Concat(readable, spec.ReadOnly, spec.Overlay)
	if probe {
		readable = append(readable, mustExecutable())
	}
	var rules []landlock.Rule
	for _, path := range readable {
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			continue // not on this host
		case fi.IsDir():
			rules = append(rules, landlock.RODirs(path))
		default:
			rules = append(rules, landlock.ROFiles(path))
		}
	}
	for _, name := range devices {
		rules = append(rules, landlock.RWFiles("/dev/"+name).IgnoreIfMissing())
	}
	for _, dir := range slices.Concat(spec.Writable, spec.Own, spec.Copies) {
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("a directory the run writes, %s: not a directory (%v)", dir, err)
		}
		rules = append(rules, landlock.RWDirs(dir).WithRefer())
	}
	for _, file := range spec.Files {
		fi, err := os.Stat(file)
		if err != nil || !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("a file the run writes, %s: not a file (%v)", file, err)
		}
		rules = append(rules, landlock.RWFiles(file))
	}
	return rules, nil
}

// fits returns an error if spec asks what Landlock cannot give: its rules
// grant a directory's rights to everything beneath it, so no private
// directory may lie within a directory the run may read or write, and no
// read-only one within a directory it may write.
func fits(spec Spec) error {
	writable := slices.Concat(spec.Writable, spec.Own, spec.Copies)
	readable := slices.Concat(writable, spec.ReadOnly, spec.Overlay)
	for _, d := range system {
		readable = append(readable, d.path)
	}
	for _, p := range spec.Private {
		for _, o := range readable {
			if within(p, o) {
				return fmt.Errorf("%s must be out of the run's reach, but lies within %s, which it may read: Landlock cannot hide a directory within another", p, o)
			}
		}
	}
	for _, r := range slices.Concat(spec.ReadOnly, spec.Overlay) {
		for _, w := range writable {
			if within(r, w) {
				return fmt.Errorf("%s must be read-only, but lies within %s, which the run may write: Landlock cannot keep a directory read-only within another", r, w)
			}
		}
	}
	return nil
}

// mustExecutable returns the path of this process's program.
func mustExecutable() string {
	self, err := os.Executable()
	if err != nil {
		return "/proc/self/exe"
	}
	return self
}

// user is whom a Landlock sandbox's program runs as.
type user struct {
	uid, gid int
	own      bool // a user of the run's own, which the init switches to
}

// ownUser returns the user a program runs as: where root starts the
// sandbox, a user of its own, which no process has, so that the run's
// tasks are counted apart (RLIMIT_NPROC counts a user's), its files are
// its own, and it can signal no other process; otherwise, or where root
// can switch to no such user (a user namespace that maps root alone), the
// user who started it, whose tasks then count against one limit with all
// of that user's.
func ownUser(root bool) user {
	me := user{uid: os.Getuid(), gid: os.Getgid()}
	if !root {
		return me
	}
	uids, gids := idRanges("/proc/self/uid_map"), idRanges("/proc/self/gid_map")
	for range 16 {
		id, ok := pickID(uids)
		if !ok {
			return me
		}
		if !mapped(gids, id) || proc.TasksOf(id) > 0 {
			continue
		}
		return user{uid: id, gid: id, own: true}
	}
	return me
}

// reachable returns an error unless u, with no supplementary group, may
// pass through every directory above path, and path itself: a user of
// the run's own reaches what anyone may.
func reachable(path string, u user) error {
	if !filepath.IsAbs(path) || strings.HasPrefix(path, "/proc/") {
		return nil
	}
	for dir := path; ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		search := uint32(0o001)
		switch {
		case int(st.Uid) == u.uid:
			search = 0o100
		case int(st.Gid) == u.gid:
			search = 0o010
		}
		if fi.IsDir() && st.Mode&search == 0 {
			return fmt.Errorf("the sandbox's user of its own cannot reach %s: %s is closed to other users (it needs o+x)", path, dir)
		}
		if dir == "/" {
			return nil
		}
	}
}

// OwnUsers reports whether the host's root, starting Landlock sandboxes
// here, runs each program as a user of its own (see ownUser).
func OwnUsers() bool {
	return os.Geteuid() == 0 && ownUser(true).own
}

// idRange is a range of ids that a user namespace maps: [first, first+count).
type idRange struct{ first, count int64 }

// idRanges reads the ranges of a uid_map or gid_map file, as seen from
// inside: the ids the process may switch to.
func idRanges(path string) []idRange {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ranges []idRange
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) != 3 {
			continue
		}
		first, err1 := strconv.ParseInt(fields[0], 10, 64)
		count, err2 := strconv.ParseInt(fields[2], 10, 64)
		if err1 == nil && err2 == nil {
			ranges = append(ranges, idRange{first, count})
		}
	}
	return ranges
}

// Ids of a user of the run's own: above those of a system's users (and
// of the 65,536 that a container's map usually holds), below the
// overflow id of 32-bit fields.
const (
	lowID  = 1 << 20
	highID = 1<<31 - 1
)

// pickID picks an id at random from the widest range of ranges within
// [lowID, highID), or, failing that, within [1000, 65534): false if there
// is none.
func pickID(ranges []idRange) (int, bool) {
	for _, bounds := range [][2]int64{{lowID, highID}, {1000, 65534}} {
		var best idRange
		for _, r := range ranges {
			first, end := max(r.first, bounds[0]), min(r.first+r.count, bounds[1])
			if end-first > best.count {
				best = idRange{first, end - first}
			}
		}
		if best.count > 0 {
			return int(best.first + rand.Int64N(best.count)), true
		}
	}
	return 0, false
}

// mapped reports whether ranges hold id.
func mapped(ranges []idRange, id int) bool {
	return slices.ContainsFunc(ranges, func(r idRange) bool { return int64(id) >= r.first && int64(id) < r.first+r.count })
}

// endAll kills every process that this one is the parent of, and their
// children, which come to it (a subreaper) as their parents die: what
// the program left, wherever in its tree and in whatever session.
func endAll() {
	self := os.Getpid()
	for range 100 {
		kids := proc.Children(self)
		if len(kids) == 0 {
			return
		}
		var tree []int
		for next := kids; len(next) > 0; {
			tree = append(tree, next...)
			var below []int
			for _, pid := range next {
				below = append(below, proc.Children(pid)...)
			}
			next = below
		}
		for _, pid := range tree {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range kids {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		}
	}
}

// give makes uid and gid the owners of everything under path but what is
// within keep.
func give(path string, keep []string, uid, gid int) error {
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && slices.Contains(keep, p) {
			return filepath.SkipDir
		}
		return os.Lchown(p, uid, gid)
	})
}
