//go:build linux

package scripttest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// restrictMain is the program restrict, which the scripts run: it takes
// from itself and every process it starts what a host takes from mutate,
// then runs its command. Its flags:
//
//	-mounts    no mount: a user namespace is made, but nothing can be
//	           mounted in it, as Ubuntu 24.04 (GitHub's ubuntu-latest) has
//	           it for an unprivileged user (apparmor_restrict_unprivileged_userns)
//	-landlock  no Landlock: a kernel older than 5.13, or one that did not
//	           enable it at boot
//	-container no user namespace: the command runs in one of its own, as
//	           its root, which may make no other (max_user_namespaces 0),
//	           as in a container under Docker's default seccomp profile
//
// It works with a seccomp filter, as no_new_privs allows any user to, and
// util-linux's unshare.
func restrictMain() {
	args := os.Args[1:]
	var names []string
	var noLandlock, container bool
	for len(args) > 0 && args[0] != "--" {
		switch args[0] {
		case "-mounts":
			names = append(names, "mount", "umount2", "pivot_root", "setns", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr")
		case "-landlock":
			noLandlock = true
		case "-container":
			container = true
		default:
			fmt.Fprintf(os.Stderr, "usage: restrict [-mounts] [-landlock] [-container] -- command [arg...]\n")
			os.Exit(2)
		}
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintf(os.Stderr, "usage: restrict [-mounts] [-landlock] [-container] -- command [arg...]\n")
		os.Exit(2)
	}
	args = args[1:]
	if container {
		args = append([]string{"unshare", "--user", "--map-root-user", "sh", "-c", `echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"`, "container"}, args...)
	}
	var groups []seccomp.SyscallGroup
	if len(names) > 0 {
		groups = append(groups, seccomp.SyscallGroup{Names: names, Action: seccomp.ActionErrno})
	}
	if noLandlock {
		// As a kernel without Landlock answers.
		groups = append(groups, seccomp.SyscallGroup{Names: []string{"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"},
			Action: seccomp.Action(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))})
	}
	if len(groups) > 0 {
		filter := seccomp.Filter{NoNewPrivs: true, Flag: seccomp.FilterFlagTSync, Policy: seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups}}
		if err := seccomp.LoadFilter(filter); err != nil {
			fmt.Fprintf(os.Stderr, "restrict: %v\n", err)
			os.Exit(1)
		}
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "restrict: %v\n", err)
		os.Exit(1)
	}
	err = syscall.Exec(path, args, slices.Clone(os.Environ()))
	fmt.Fprintf(os.Stderr, "restrict: %v\n", err)
	os.Exit(1)
}

// nobodyCache is the go command's build cache of the runs as nobody, the
// same in every run of the scripts, nobody's: the standard library is
// compiled once for them.
var nobodyCache = filepath.Join(os.TempDir(), "fencelab-scripts-nobody-cache")

// goBin is the directory of the go command.
var goBin = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	return filepath.Join(strings.TrimSpace(string(out)), "bin"), err
})

// nobody DIR copies DIR into a new directory that nobody owns, outside
// $WORK (which is root's alone), with copies of this program as mutate and
// restrict beside it in bin, and a program there, asnobody, that runs its
// command as nobody (no group, no capability) with an environment of
// nobody's own (HOME, TMPDIR, mutate's cache, the go command's caches)
// and the script's otherwise. It sets
// $NOBODY to the new directory, which it removes when the script ends.
// It needs root.
func cmdNobody(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: nobody DIR")
	}
	const uid, gid = 65534, 65534
	top, err := os.MkdirTemp("", "fencelab-nobody-")
	ts.Check(err)
	ts.Defer(func() { os.RemoveAll(top) })
	ts.Check(os.Chmod(top, 0o755))
	ts.Check(os.CopyFS(filepath.Join(top, filepath.Base(args[0])), os.DirFS(ts.MkAbs(args[0]))))
	bin := filepath.Join(top, "bin")
	ts.Check(os.Mkdir(bin, 0o755))
	self, err := os.ReadFile(os.Args[0])
	ts.Check(err)
	for _, name := range []string{"mutate", "restrict"} {
		ts.Check(os.WriteFile(filepath.Join(bin, name), self, 0o755))
	}
	for _, dir := range []string{"home", "gomod"} {
		ts.Check(os.Mkdir(filepath.Join(top, dir), 0o755))
	}
	if err := os.Mkdir(nobodyCache, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		ts.Fatalf("%v", err)
	}
	fi, err := os.Lstat(nobodyCache)
	ts.Check(err)
	if st, ok := fi.Sys().(*syscall.Stat_t); !fi.IsDir() || !ok || st.Uid != uid && st.Uid != 0 {
		ts.Fatalf("%s is not a directory of nobody's or root's", nobodyCache)
	}
	ts.Check(os.Chown(nobodyCache, uid, gid))
	gobin, err := goBin()
	ts.Check(err)
	home := filepath.Join(top, "home")
	script := fmt.Sprintf("#!/bin/sh\nexec setpriv --reuid=%d --regid=%d --clear-groups --inh-caps=-all env PATH=%s:%s:/usr/bin:/bin HOME=%s TMPDIR=%s XDG_CACHE_HOME=%s GOCACHE=%s GOMODCACHE=%s GOPATH=%s GOTOOLCHAIN=local GOPROXY=off \"$@\"\n",
		uid, gid, bin, gobin, home, home, filepath.Join(home, ".cache"), nobodyCache, filepath.Join(top, "gomod"), filepath.Join(top, "gopath"))
	ts.Check(os.WriteFile(filepath.Join(bin, "asnobody"), []byte(script), 0o755))
	ts.Check(filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	}))
	ts.Setenv("NOBODY", top)
}
