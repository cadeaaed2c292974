// Package sandbox runs a program in a sandbox, on Linux, as a judge
// system runs untrusted code: the program gets no privilege on the host,
// reaches only what it needs, and leaves nothing behind. A sandbox is of
// one of two tiers, the strongest that the system allows (see Check).
//
// Namespaces, the tier of a host that lets a process make them:
//
//   - User: the program runs as an ordinary user (UID, GID) with no
//     capability and no_new_privs set. On the host it is the user who
//     started the sandbox, or nobody when that is root: a test binary run
//     by root, as containers and autograders run it, is not host root.
//   - Mount: every file system is read-only, nosuid and nodev but the
//     directories the run may write; /tmp and /dev/shm are empty, private
//     and of bounded size; /dev holds null, zero, full, random, urandom
//     and a private pts; /proc is the PID namespace's, with the files
//     that configure the kernel (/proc/sys and its kin) read-only.
//   - PID: its end ends every process the program started, daemons
//     included, and it hides every other process.
//   - Network: only a loopback interface, up (unless Spec.HostNetwork): a
//     test that binds a fixed port meets no other run, and reaches
//     nothing outside.
//   - IPC and UTS: System V IPC objects and the host name are the run's.
//
// Landlock, the tier of a host that refuses namespaces (a Docker
// container, Ubuntu 24.04's unprivileged user namespaces), which needs
// neither a namespace nor a privilege: the Landlock security module keeps
// the program to the files of its Spec, and to no TCP port; a seccomp
// filter refuses it every socket but a unix one (and that too where
// Landlock cannot tell the host's unix sockets from the run's), System V
// IPC and new namespaces; Landlock's scopes keep its signals and abstract
// unix sockets within the run; and the limits of a process bound its
// files, descriptors and, under a user of the run's own (when the host's
// root starts it), its tasks. LandlockGaps names the walls a kernel's
// Landlock lacks.
//
// Both tiers refuse the system calls that container runtimes refuse (see
// refused), and in both a sandbox's init, the calling program itself
// started again, where Init (which its main function, and the TestMain of
// a test that runs sandboxes, calls first) takes over, starts the program,
// waits for it, ends everything it started, reports how it ended on a
// pipe the program cannot reach, and exits. The init ignores every signal
// the program can send it.
package sandbox

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Tier is a kind of sandbox: what walls it is built of.
type Tier string

// The tiers, strongest first.
const (
	// Namespaces builds a sandbox of the kernel's namespaces, with an
	// empty root.
	Namespaces Tier = "namespaces"
	// Landlock builds one of the Landlock security module's rules, seccomp
	// and the limits of a process, with no namespace.
	Landlock Tier = "landlock"
)

// Tiers are the tiers, strongest first: what a choice tries in turn.
var Tiers = []Tier{Namespaces, Landlock}

// ParseTier returns the tier named s.
func ParseTier(s string) (Tier, error) {
	for _, t := range Tiers {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("unknown sandbox %q: want namespaces or landlock", s)
}

// Spec says what a run may see and touch.
type Spec struct {
	// Tier is the sandbox's tier; "" is Namespaces.
	Tier Tier `json:"tier,omitempty"`
	// Writable are the host's directories the run writes, and that stay
	// as they are. Everything else is read-only. What they hold is not
	// bounded by PrivateSize: a harness gives a run Own, Copies and Files.
	Writable []string `json:"writable"`
	// Own are directories of the run's own, made empty for it and removed
	// after it by the caller, which the run writes: its HOME and TMPDIR.
	// With namespaces each is a private file system (as Private); with
	// Landlock the run writes the directory itself.
	Own []string `json:"own,omitempty"`
	// Copies are directories that the run reads and writes as a copy of
	// its own. With namespaces, what the host holds there is copied into
	// its private file system (so its writes count against PrivateSize),
	// gone when the run ends: a test's copy of its package. With Landlock,
	// which has no private file system, the run writes the directory
	// itself: the caller makes it a copy of the run's own.
	Copies []string `json:"copies,omitempty"`
	// Files are the host's files the run writes, each at most PrivateSize
	// bytes (RLIMIT_FSIZE), and that stay: what the testing package writes
	// at the end of its run, a coverage file. Each must exist.
	Files []string `json:"files,omitempty"`
	// ReadOnly are directories the run reads, even if they are under a
	// private one, and cannot write, even if they are within a writable
	// one: the directory of the test binary.
	ReadOnly []string `json:"read_only,omitempty"`
	// Private are directories of the host that the run must not see. With
	// namespaces each gets an empty file system of its own, gone when the
	// run ends (/tmp and /dev/shm, the grader's checkout); with Landlock
	// the run can neither read nor write them, and none may lie within a
	// directory it reads or writes.
	Private []string `json:"private"`
	// Overlay are directories the run reads as they are. With namespaces
	// it may write them too, its writes kept in a layer of its own (under
	// the first of Private) and gone when the run ends: the go command's
	// caches, for a test that runs go. Where the system refuses the layer,
	// and with Landlock, they are read-only.
	Overlay []string `json:"overlay,omitempty"`
	// HostNetwork shares the host's network with the run. Without it, with
	// namespaces, the run has a network of its own, with only a loopback
	// interface; with Landlock, it has no network at all.
	HostNetwork bool `json:"host_network,omitempty"`
	// PrivateSize caps the size of each private file system, and of each
	// file the run writes, in bytes; 0 is defaultPrivateSize.
	PrivateSize int64 `json:"private_size,omitempty"`
}

// tier returns the spec's tier.
func (s Spec) tier() Tier { return cmp.Or(s.Tier, Namespaces) }

// size returns the spec's private size.
func (s Spec) size() int64 { return cmp.Or(max(s.PrivateSize, 0), defaultPrivateSize) }

// defaultPrivateSize caps the size of a private directory, such as /tmp,
// when Spec.PrivateSize does not.
const defaultPrivateSize = 1 << 30

// The program runs, in its sandbox, as the ordinary user UID of group GID,
// with no capability. It owns the Writable directories there; on the host
// it is the user who started the sandbox, or nobody (Nobody) when that is
// root, who then gives it the Writable directories (chown).
const (
	UID    = 1000
	GID    = 1000
	Nobody = 65534
)

// Default returns the spec of a run that writes the directories writable:
// /tmp and /dev/shm are private.
func Default(writable ...string) Spec {
	return Spec{Writable: writable, Private: []string{"/tmp", "/dev/shm"}}
}

// initEnv carries, into the init, what it sets up and starts.
const initEnv = "MUTATE_SANDBOX_INIT"

// request is what the init is asked to do.
type request struct {
	Spec Spec     `json:"spec"`
	Path string   `json:"path"` // the program, "" for a probe
	Args []string `json:"args"` // its arguments, argv[0] included
	Dir  string   `json:"dir"`
	// Root says that the init runs as the host's root, in no user
	// namespace of its own: the program then runs as nobody.
	Root bool `json:"root,omitempty"`
}

// probeEnv makes the program that Init starts in a probe (itself) exit 0
// at once: a probe starts the program as a run does.
const probeEnv = "MUTATE_SANDBOX_PROBE"

// Init makes the process the init of a sandbox, if it was started as one:
// it then never returns. Call it first in main, and in the TestMain of a
// test whose process starts sandboxes.
func Init() {
	if os.Getenv(probeEnv) != "" {
		os.Exit(0)
	}
	data, ok := os.LookupEnv(initEnv)
	if !ok {
		return
	}
	var req request
	if err := json.Unmarshal([]byte(data), &req); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: bad request: %v\n", err)
		os.Exit(initFailed)
	}
	os.Exit(runInit(req))
}

// ErrInitEnded is the error of Ending when the init ended without saying
// how the program ended: it was killed from outside the sandbox, since no
// process inside can signal it.
var ErrInitEnded = errors.New("the sandbox's init ended before the program it ran")

// initFailed is the exit code of an init that could not set up the
// sandbox; it says why on stderr.
const initFailed = 125

// Ending is how a sandboxed program ended, as its init reports it on the
// status pipe: "exit N" or "signal NAME".
type Ending struct {
	Code   int    // -1 when a signal ended it
	Signal string // the signal's name
}

func (s Ending) String() string {
	if s.Signal != "" {
		return "signal " + s.Signal
	}
	return "exit " + strconv.Itoa(s.Code)
}

// parseStatus reads what String wrote.
func parseStatus(s string) (Ending, bool) {
	kind, val, ok := strings.Cut(strings.TrimSpace(s), " ")
	switch {
	case !ok:
		return Ending{}, false
	case kind == "signal":
		return Ending{Code: -1, Signal: val}, true
	case kind == "exit":
		n, err := strconv.Atoi(val)
		return Ending{Code: n}, err == nil
	}
	return Ending{}, false
}
