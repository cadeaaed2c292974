// Package sandbox runs a program in namespaces of its own, on Linux, as a
// judge system runs untrusted code: the program gets no privilege on the
// host, sees only what it needs, and leaves nothing behind.
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
// The mounts are set up by an init: the calling program itself, started
// again in the new namespaces, where Init, which its main function (and the
// TestMain of a test that runs sandboxes) calls first, takes over. It
// starts the program in a user namespace of its own, so that the program
// has no power over the mounts, waits for it, reports how it ended on a
// pipe the program cannot reach, and exits; the kernel then kills whatever
// else is left in the namespace. The init ignores every signal the program
// can send it.
//
// Where namespaces are not available (another system, a container that
// forbids them), Available says why.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Spec says what a run may see and touch.
type Spec struct {
	// Writable are the host's directories the run writes, and that stay
	// as they are. Everything else is read-only. What they hold is not
	// bounded by PrivateSize: a harness gives a run Copies and Files.
	Writable []string `json:"writable"`
	// Copies are directories that the run reads and writes as a copy of
	// its own: what the host holds there, copied into its private file
	// system (so its writes count against PrivateSize), gone when the run
	// ends. A test's copy of its package.
	Copies []string `json:"copies,omitempty"`
	// Files are the host's files the run writes, each at most PrivateSize
	// bytes (RLIMIT_FSIZE), and that stay: what the testing package writes
	// at the end of its run, a coverage file. Each must exist.
	Files []string `json:"files,omitempty"`
	// ReadOnly are directories the run reads, even if they are under a
	// private one, and cannot write, even if they are within a writable
	// one: the directory of the test binary.
	ReadOnly []string `json:"read_only,omitempty"`
	// Private are directories that get an empty file system of their
	// own, gone when the run ends: /tmp and /dev/shm.
	Private []string `json:"private"`
	// Overlay are directories the run reads as they are and may write,
	// its writes kept in a layer of its own (under the first of Private)
	// and gone when the run ends: the go command's caches, for a test that
	// runs go. Where the system refuses the layer, they stay read-only.
	Overlay []string `json:"overlay,omitempty"`
	// HostNetwork shares the host's network with the run; without it the
	// run has a network of its own, with only a loopback interface.
	HostNetwork bool `json:"host_network,omitempty"`
	// PrivateSize caps the size of each private file system, in bytes;
	// 0 is DefaultPrivateSize.
	PrivateSize int64 `json:"private_size,omitempty"`
}

// DefaultPrivateSize caps the size of a private directory, such as /tmp,
// when Spec.PrivateSize does not.
const DefaultPrivateSize = 1 << 30

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

// ErrInitEnded is the error of Status when the init ended without saying
// how the program ended: it was killed from outside the sandbox, since no
// process inside can signal it.
var ErrInitEnded = errors.New("the sandbox's init ended before the program it ran")

// initFailed is the exit code of an init that could not set up the
// sandbox; it says why on stderr.
const initFailed = 125

// Status is how a sandboxed program ended, as its init reports it on the
// status pipe: "exit N" or "signal NAME".
type Status struct {
	Code   int    // -1 when a signal ended it
	Signal string // the signal's name
}

func (s Status) String() string {
	if s.Signal != "" {
		return "signal " + s.Signal
	}
	return "exit " + strconv.Itoa(s.Code)
}

// parseStatus reads what String wrote.
func parseStatus(s string) (Status, bool) {
	kind, val, ok := strings.Cut(strings.TrimSpace(s), " ")
	switch {
	case !ok:
		return Status{}, false
	case kind == "signal":
		return Status{Code: -1, Signal: val}, true
	case kind == "exit":
		n, err := strconv.Atoi(val)
		return Status{Code: n}, err == nil
	}
	return Status{}, false
}
