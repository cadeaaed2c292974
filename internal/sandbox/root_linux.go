package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// A sandbox's root is built from nothing: a file system of its own, in
// memory, that holds what a test binary needs of the host, each read-only,
// and its own directories. The host's other files (home directories,
// /root, /run and its sockets, /var, /tmp, the checkout, mutate's cache)
// are not in it.

// system are the host's directories that a sandbox's root holds,
// read-only, and why: where the host has them. On a system whose /bin,
// /lib and kin are links into /usr, the root has the same links.
var system = []struct{ path, why string }{
	{"/usr", "programs a test runs (sh, git, the go command's tools), the libraries of a binary linked with cgo, the zone database, the certificates"},
	{"/bin", "programs, by the paths scripts name them"},
	{"/sbin", "programs, by the paths scripts name them"},
	{"/lib", "the libraries and the dynamic loader of a binary linked with cgo"},
	{"/lib32", "the libraries of a binary linked with cgo"},
	{"/lib64", "the dynamic loader of a binary linked with cgo"},
	{"/libx32", "the libraries of a binary linked with cgo"},
}

// etc are the files (and directories) of the host's /etc that a sandbox's
// /etc holds, read-only, and why: what a Go program, or a program a test
// runs, reads there. Each is the file its link resolves to, where it is a
// link (resolv.conf often is, into /run).
var etc = []struct{ name, why string }{
	{"hosts", "names the net package resolves without a DNS server (localhost)"},
	{"resolv.conf", "the net package's resolver, which a network of the sandbox's own cannot reach but reads"},
	{"nsswitch.conf", "the order in which the net and os/user packages look names up"},
	{"host.conf", "the C library's resolver, for a binary linked with cgo"},
	{"gai.conf", "the C library's address order, for a binary linked with cgo"},
	{"services", "ports by name (net.LookupPort)"},
	{"protocols", "protocols by name"},
	{"localtime", "time.Local"},
	{"timezone", "the zone's name"},
	{"ssl", "the certificates crypto/x509 trusts"},
	{"ca-certificates", "the certificates crypto/x509 trusts"},
	{"pki", "the certificates crypto/x509 trusts (on Red Hat's systems)"},
	{"ld.so.cache", "where the dynamic loader finds the libraries of a binary linked with cgo"},
	{"ld.so.conf", "where the dynamic loader finds the libraries of a binary linked with cgo"},
	{"ld.so.conf.d", "where the dynamic loader finds the libraries of a binary linked with cgo"},
	{"alternatives", "what the links in /usr/bin point at (cc, editor)"},
}

// passwd and group are the sandbox's own /etc/passwd and /etc/group: its
// users (root, its program's user, nobody), not the host's.
var (
	passwd = "root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n" +
		"sandbox:x:" + strconv.Itoa(UID) + ":" + strconv.Itoa(GID) + ":sandbox:/nonexistent:/usr/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
	group = "root:x:0:\nsandbox:x:" + strconv.Itoa(GID) + ":\nnogroup:x:65534:\n"
)

// newRoot is where the init builds the sandbox's root, before it moves
// in: a file system in memory mounted over /tmp in the init's mount
// namespace, once everything of the host the root holds is taken aside.
const newRoot = "/tmp"

// setUp makes the sandbox of spec in the init's namespaces; root says that
// the init is the host's root, and the program will be nobody.
func setUp(spec Spec, root bool) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	r := &rootFS{spec: spec, root: root, devs: map[string]int{}}
	defer r.close()
	for _, step := range []func() error{r.takeAside, r.mountRoot, r.placeSystem, r.newDev, r.coverPrivates, r.placeDirs,
		r.coverInner, r.seedCopies, r.placeFiles, r.overlays, r.newProc, r.seal, r.pivot, r.giveWritable} {
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

// rootFS builds a sandbox's root, step by step: what it holds of the host
// is taken aside first (each a clone of the host's mount, detached); a
// file system in memory is mounted at newRoot; the host's system
// directories and files, its device files, the private directories and
// the run's own directories are put in it; then the init moves in.
type rootFS struct {
	spec  Spec
	root  bool
	binds []clone           // of the system directories and /etc, in order
	links map[string]string // the root's links of system, by path
	dirs  []clone           // of spec's Writable, ReadOnly and Overlay, in that order
	files []clone           // of spec's Files
	devs  map[string]int    // clones of the device files, by name
	ps    *privates
	inner []string // private directories within dirs
}

// clone is a clone of the host's mount at a path, and where it goes in the
// sandbox's root.
type clone struct {
	fd       int
	at       string // in the root
	dir      bool
	readOnly bool
}

// at returns where path is in the root being built.
func at(path string) string { return filepath.Join(newRoot, path) }

// readOnlyAttr makes a mount read-only, nosuid and nodev.
var readOnlyAttr = &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}

func (r *rootFS) close() {
	for _, c := range slices.Concat(r.binds, r.dirs, r.files) {
		unix.Close(c.fd)
	}
	for _, fd := range r.devs {
		unix.Close(fd)
	}
}

// takeAside clones every mount of the host that the root will hold.
func (r *rootFS) takeAside() error {
	r.links = map[string]string{}
	for _, d := range system {
		fi, err := os.Lstat(d.path)
		switch {
		case err != nil:
			continue // not on this host
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(d.path)
			if err != nil {
				return err
			}
			r.links[d.path] = target
			continue
		}
		c, err := cloneOf(d.path, d.path, true)
		if err != nil {
			return err
		}
		r.binds = append(r.binds, c)
	}
	for _, e := range etc {
		path, err := filepath.EvalSymlinks(filepath.Join("/etc", e.name))
		if err != nil {
			continue // not on this host, or a dangling link
		}
		c, err := cloneOf(path, filepath.Join("/etc", e.name), true)
		if err != nil {
			return err
		}
		r.binds = append(r.binds, c)
	}
	for i, dir := range slices.Concat(r.spec.Writable, r.spec.ReadOnly, r.spec.Overlay) {
		c, err := cloneOf(dir, dir, i >= len(r.spec.Writable))
		if err != nil {
			return err
		}
		if !c.dir {
			unix.Close(c.fd)
			return fmt.Errorf("take %s aside: not a directory", dir)
		}
		r.dirs = append(r.dirs, c)
	}
	for _, file := range r.spec.Files {
		c, err := cloneOf(file, file, false)
		if err != nil {
			return err
		}
		if c.dir {
			unix.Close(c.fd)
			return fmt.Errorf("take %s aside: a directory, not a file", file)
		}
		r.files = append(r.files, c)
	}
	for _, name := range devices {
		fd, err := unix.OpenTree(unix.AT_FDCWD, "/dev/"+name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			return fmt.Errorf("take /dev/%s aside: %w", name, err)
		}
		r.devs[name] = fd
	}
	return nil
}

// cloneOf clones the host's mount at path (with the mounts below it), to
// go at the path to in the root, read-only if so.
func cloneOf(path, to string, readOnly bool) (clone, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return clone{}, fmt.Errorf("take %s aside: %w", path, err)
	}
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return clone{}, fmt.Errorf("take %s aside: %w", path, err)
	}
	c := clone{fd: fd, at: to, dir: fi.IsDir(), readOnly: readOnly}
	if readOnly {
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, readOnlyAttr); err != nil {
			unix.Close(fd)
			return clone{}, fmt.Errorf("make %s read-only: %w", path, err)
		}
	}
	return c, nil
}

// mountRoot mounts the file system of the root, and makes its skeleton:
// the directories every program expects, and the sandbox's own users.
func (r *rootFS) mountRoot() error {
	if err := unix.Mount("tmpfs", newRoot, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=4m"); err != nil {
		return fmt.Errorf("mount the sandbox's root: %w", err)
	}
	for _, dir := range []string{"/dev", "/proc", "/etc", "/tmp", "/usr"} {
		if err := os.MkdirAll(at(dir), 0o755); err != nil {
			return err
		}
	}
	if err := os.Chmod(at("/tmp"), 0o1777); err != nil {
		return err
	}
	for name, data := range map[string]string{"passwd": passwd, "group": group} {
		if err := os.WriteFile(at("/etc/"+name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	for path, target := range r.links {
		if err := os.Symlink(target, at(path)); err != nil {
			return err
		}
	}
	return nil
}

// placeSystem puts the host's system directories and files in the root.
func (r *rootFS) placeSystem() error {
	for _, c := range r.binds {
		if err := place(c); err != nil {
			return err
		}
	}
	return nil
}

// place moves the clone c to its place in the root, made for it: a
// directory, or an empty file for a file.
func place(c clone) error {
	to := at(c.at)
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return fmt.Errorf("put %s in place: %w", c.at, err)
	}
	if c.dir {
		if err := os.MkdirAll(to, 0o755); err != nil {
			return fmt.Errorf("put %s in place: %w", c.at, err)
		}
	} else if _, err := os.Stat(to); errors.Is(err, fs.ErrNotExist) {
		if err := os.WriteFile(to, nil, 0o644); err != nil {
			return fmt.Errorf("put %s in place: %w", c.at, err)
		}
	}
	if err := unix.MoveMount(c.fd, "", unix.AT_FDCWD, to, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("put %s in place: %w", c.at, err)
	}
	return nil
}

// newDev mounts the root's /dev, read-only once made: the device files
// (clones of the host's), the links every program expects, a private pts
// and the directory of a private /dev/shm.
func (r *rootFS) newDev() error {
	dev := at("/dev")
	if err := unix.Mount("tmpfs", dev, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=1m"); err != nil {
		return fmt.Errorf("mount a private /dev: %w", err)
	}
	for _, name := range devices {
		path := filepath.Join(dev, name)
		if err := os.WriteFile(path, nil, 0o666); err != nil {
			return err
		}
		if err := unix.MoveMount(r.devs[name], "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("put /dev/%s in place: %w", name, err)
		}
	}
	links := map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2", "ptmx": "pts/ptmx"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dev, name)); err != nil {
			return err
		}
	}
	for dir, mode := range map[string]fs.FileMode{"pts": 0o755, "shm": 0o1777} {
		if err := os.Mkdir(filepath.Join(dev, dir), mode); err != nil {
			return err
		}
		if err := os.Chmod(filepath.Join(dev, dir), mode); err != nil {
			return err
		}
	}
	// A terminal of its own, for a test that needs one; where the
	// system refuses, there is none.
	unix.Mount("devpts", filepath.Join(dev, "pts"), "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
	if err := unix.MountSetattr(unix.AT_FDCWD, dev, 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("make /dev read-only: %w", err)
	}
	return nil
}

// coverPrivates mounts the private directories that are not within the
// run's own directories: they share one file system of the run's size,
// mounted on the first. A private directory that the root does not hold
// (a checkout to hide, which no system directory holds) needs none.
func (r *rootFS) coverPrivates() error {
	r.ps = &privates{size: cmp.Or(max(r.spec.PrivateSize, 0), defaultPrivateSize)}
	for _, dir := range slices.Concat(r.spec.Private, r.spec.Own) {
		if slices.ContainsFunc(r.dirs, func(c clone) bool { return within(dir, c.at) }) {
			r.inner = append(r.inner, dir)
			continue
		}
		if err := r.ps.mount(dir); err != nil {
			return err
		}
	}
	return nil
}

// placeDirs puts the run's own directories in the root: the writable
// ones, then the read-only ones and those that get an overlay, which may
// be within them.
func (r *rootFS) placeDirs() error {
	for _, c := range r.dirs {
		if err := place(c); err != nil {
			return err
		}
	}
	return nil
}

// seedCopies gives each directory of spec.Copies a copy of what the root
// holds there (the host's, read-only), in the private file system, which
// then takes its place.
func (r *rootFS) seedCopies() error {
	for _, dir := range r.spec.Copies {
		if r.ps.store == "" {
			return errors.New("a copy needs a private directory to hold it")
		}
		sub := filepath.Join(r.ps.store, ".sandbox-copy", strconv.Itoa(r.ps.n))
		r.ps.n++
		if err := copyTree(at(dir), sub); err != nil {
			return fmt.Errorf("copy %s: %w", dir, err)
		}
		if r.root {
			if err := give(sub, nil, Nobody, Nobody); err != nil {
				return err
			}
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, sub, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			return fmt.Errorf("copy %s: %w", dir, err)
		}
		err = unix.MoveMount(fd, "", unix.AT_FDCWD, at(dir), unix.MOVE_MOUNT_F_EMPTY_PATH)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("put the copy of %s in place: %w", dir, err)
		}
	}
	return nil
}

// copyTree copies the directory src into dst, a new directory: its
// directories, regular files and links, with their modes.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case info.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, info.Mode().Perm())
		}
		return nil // a device, a socket: not part of a copy
	})
}

// placeFiles puts the host's files that the run writes in the root, on
// top of the read-only directories that hold them.
func (r *rootFS) placeFiles() error {
	for _, c := range r.files {
		if err := place(c); err != nil {
			return err
		}
	}
	return nil
}

// coverInner mounts the private directories within the run's own.
func (r *rootFS) coverInner() error {
	for _, dir := range r.inner {
		if err := r.ps.mount(dir); err != nil {
			return err
		}
	}
	return nil
}

// overlays mounts the overlays of spec.Overlay (see overlay).
func (r *rootFS) overlays() error {
	for i, dir := range r.spec.Overlay {
		if err := overlay(r.ps, i, dir, r.root); err != nil {
			return err
		}
	}
	return nil
}

// newProc mounts the root's /proc: that of the new PID namespace, which
// shows its processes only, with its files that configure the kernel
// read-only. Some containers forbid the mount; the host's /proc, read-only
// then, takes its place, and the namespace hides the others' processes
// from signals all the same.
func (r *rootFS) newProc() error {
	proc := at("/proc")
	if err := unix.Mount("proc", proc, "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		c, err := cloneOf("/proc", "/proc", true)
		if err != nil {
			return err
		}
		defer unix.Close(c.fd)
		return place(c)
	}
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOEXEC}
	for _, name := range protectedProc {
		path := filepath.Join(proc, name)
		fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			continue // not on this kernel
		}
		if unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, ro) == nil {
			unix.MoveMount(fd, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH)
		}
		unix.Close(fd)
	}
	return nil
}

// seal makes the root's own file system read-only: its skeleton, its
// /etc and the directories made to hold the mounts.
func (r *rootFS) seal() error {
	if err := unix.MountSetattr(unix.AT_FDCWD, newRoot, 0, readOnlyAttr); err != nil {
		return fmt.Errorf("make the sandbox's root read-only: %w", err)
	}
	return nil
}

// pivot makes the root the init's, and lets go of the host's, which
// nothing in the sandbox can reach from then on.
func (r *rootFS) pivot() error {
	if err := unix.Chdir(newRoot); err != nil {
		return err
	}
	// The old root goes on top of the new one, and is unmounted from
	// there: no directory of the new root needs to hold it.
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("move into the sandbox's root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("let go of the host's root: %w", err)
	}
	return unix.Chdir("/")
}

// giveWritable gives nobody, whom root runs the program as, the writable
// directories and files, and the private directories within the run's
// own.
func (r *rootFS) giveWritable() error {
	if !r.root {
		return nil
	}
	for _, dir := range slices.Concat(r.spec.Writable, r.spec.Files, r.inner) {
		if err := give(dir, r.spec.ReadOnly, Nobody, Nobody); err != nil {
			return fmt.Errorf("give %s to the sandbox's user: %w", dir, err)
		}
	}
	return nil
}

// privates are the private directories of a sandbox: one file system of
// size bytes, mounted on the first (store), and a directory of it under
// its .sandbox directory for each of the others, which keeps the mode of
// the directory it covers. Paths are the sandbox's, in the root being
// built.
type privates struct {
	size  int64
	store string // in the root being built
	n     int
}

// mount makes dir private, if the root holds it: one that is not a
// directory there is left alone.
func (ps *privates) mount(dir string) error {
	target := at(dir)
	fi, err := os.Stat(target)
	if err != nil || !fi.IsDir() {
		return nil
	}
	if ps.store == "" {
		// Neither nosuid nor nodev: the program gains no privilege
		// anyway (no_new_privs) and cannot make a device.
		opts := "mode=1777,size=" + strconv.FormatInt(ps.size, 10)
		if err := unix.Mount("tmpfs", target, "tmpfs", 0, opts); err != nil {
			return fmt.Errorf("mount a private %s: %w", dir, err)
		}
		ps.store = target
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
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("a private %s: %w", dir, err)
	}
	return nil
}

// overlay mounts the i-th overlaid directory dir, which the root holds
// read-only: it reads as it is, and its writes go to a layer of the run's,
// in its private file system. Refused (an old kernel), the directory stays
// read-only. When the program runs as nobody (root), the layer holds the
// directory and its subdirectories already, owned by nobody, so that the
// program may write in them (a build cache's, one level deep).
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
	target := at(dir)
	opts := "lowerdir=" + target + ",upperdir=" + upper + ",workdir=" + work
	if root {
		// Each directory is given as it is made, relative to the layer
		// (a build cache has 256 of them): a walk of the layer would
		// open each again.
		if err := giveSubdirs(upper, target); err != nil {
			return err
		}
	} else {
		opts += ",userxattr" // a user namespace's overlay
	}
	unix.Mount("overlay", target, "overlay", 0, opts)
	return nil
}

// giveSubdirs makes in dir, owned by nobody as dir itself then is, a
// directory for each directory of like.
func giveSubdirs(dir, like string) error {
	fd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	if err := unix.Fchown(fd, Nobody, Nobody); err != nil {
		return &os.PathError{Op: "chown", Path: dir, Err: err}
	}
	entries, _ := os.ReadDir(like)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if err := unix.Mkdirat(fd, e.Name(), 0o755); err != nil {
			return &os.PathError{Op: "mkdir", Path: filepath.Join(dir, e.Name()), Err: err}
		}
		if err := unix.Fchownat(fd, e.Name(), Nobody, Nobody, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return &os.PathError{Op: "chown", Path: filepath.Join(dir, e.Name()), Err: err}
		}
	}
	return nil
}
