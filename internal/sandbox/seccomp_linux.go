package sandbox

import (
	"fmt"
	"slices"
	"strings"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/sys/unix"
)

// refused are the system calls a program in a sandbox may not make: each
// fails with EPERM. They are those that container runtimes' default
// seccomp profile refuses (moby/profiles' default.json, Docker's
// "significant syscalls blocked by the default profile"), by what they
// reach:
var refused = [][]string{
	// The kernel's keyrings, which are not namespaced: a key of the
	// user's, or one the program leaves behind.
	{"keyctl", "add_key", "request_key"},
	// Interfaces whose bugs have been the kernel's most exploited of
	// late, and that a test needs not: io_uring (its operations bypass
	// this filter), BPF programs, performance counters, userfaultfd.
	{"io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open", "userfaultfd"},
	// The kernel itself: modules, kexec, reboot, swap, accounting, the
	// kernel log, quotas.
	{"init_module", "finit_module", "delete_module", "create_module", "kexec_load", "kexec_file_load", "reboot",
		"swapon", "swapoff", "acct", "syslog", "quotactl", "quotactl_fd", "lookup_dcookie", "nfsservctl", "uselib",
		"ustat", "sysfs", "_sysctl", "vm86", "vm86old", "iopl", "ioperm", "get_kernel_syms", "query_module"},
	// The mounts, and namespaces to make new ones in (the sandbox's own
	// are made before this filter).
	{"mount", "umount", "umount2", "pivot_root", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree",
		"mount_setattr", "unshare", "setns"},
	// The clock, which is not namespaced.
	{"settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "stime"},
	// A file by its handle, past the mounts (the "Shocker" escape).
	{"open_by_handle_at", "name_to_handle_at"},
	// Another process's file descriptors, or a comparison of its
	// kernel objects with one's own.
	{"pidfd_getfd", "kcmp", "process_madvise"},
}

// self are the system calls that change a process's limits, priority or
// CPUs: refused unless they name the caller itself (pid 0), so that
// nothing of the sandbox's init, which runs as the same user when an
// ordinary user starts the sandbox, is reachable. The argument that names
// the process is given.
var self = map[string]uint32{
	"prlimit64": 0, "sched_setaffinity": 0, "sched_setscheduler": 0, "sched_setparam": 0, "sched_setattr": 0,
	"setpriority": 1, "ioprio_set": 1, "migrate_pages": 0, "move_pages": 0,
}

// personalities are the personas a program may take (personality(2)):
// Linux's, and a query of the current one. Others change how the kernel
// lays out memory and reads the program's calls.
var personalities = []uint64{0x0, 0xffffffff}

// A Landlock sandbox, which has no namespaces of its own, refuses more:
// what namespaces would have kept to the run.
var (
	// refusedLandlock are System V IPC and POSIX message queues, whose
	// objects would be the host's (an IPC namespace keeps them to the
	// run), and setns.
	refusedLandlock = []string{"shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl",
		"msgget", "msgsnd", "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr"}
	// newNamespaces are the flags of clone that make a namespace: a
	// Landlock sandbox refuses them (unshare and setns are refused in
	// both tiers), and clone3, whose flags are in memory that a filter
	// cannot read, fails with ENOSYS, as Docker's profile has it, so that
	// a C library falls back to clone.
	newNamespaces = uint64(unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
		unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET)
)

// errno is the action of a call refused with the error e.
func errno(e unix.Errno) seccomp.Action {
	return seccomp.Action(unix.SECCOMP_RET_ERRNO | uint32(e))
}

// policy returns the seccomp policy of a program in a sandbox of spec on
// this machine's architecture: every call allowed but those above. In a
// Landlock sandbox on a kernel of Landlock ABI abi, socket is refused for
// every family but AF_UNIX, unless the run has the host's network; and
// for AF_UNIX below ABI 9, where Landlock cannot keep a program from the
// host's unix sockets on paths.
func policy(spec Spec, abi int) (seccomp.Policy, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return seccomp.Policy{}, err
	}
	deny := seccomp.SyscallGroup{Action: seccomp.ActionErrno}
	known := func(name string) bool { _, ok := info.SyscallNames[name]; return ok }
	names := slices.Concat(refused...)
	landlock := spec.tier() == Landlock
	if landlock {
		names = append(names, refusedLandlock...)
		if abi < 9 && !spec.HostNetwork {
			names = append(names, "socket")
		}
	}
	deny.Names = slices.DeleteFunc(names, func(n string) bool { return !known(n) })
	for name, arg := range self {
		if known(name) {
			deny.NamesWithCondtions = append(deny.NamesWithCondtions, seccomp.NameWithConditions{Name: name,
				Conditions: seccomp.ArgumentConditions{{Argument: arg, Operation: seccomp.NotEqual, Value: 0}}})
		}
	}
	var others seccomp.ArgumentConditions
	for _, p := range personalities {
		others = append(others, seccomp.Condition{Argument: 0, Operation: seccomp.NotEqual, Value: p})
	}
	deny.NamesWithCondtions = append(deny.NamesWithCondtions, seccomp.NameWithConditions{Name: "personality", Conditions: others})
	if landlock {
		// clone's flags are its first argument on amd64 and arm64.
		deny.NamesWithCondtions = append(deny.NamesWithCondtions, seccomp.NameWithConditions{Name: "clone",
			Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: newNamespaces}}})
		// socket's family is its first argument.
		switch {
		case abi < 9 && spec.HostNetwork:
			deny.NamesWithCondtions = append(deny.NamesWithCondtions, seccomp.NameWithConditions{Name: "socket",
				Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.Equal, Value: unix.AF_UNIX}}})
		case abi >= 9 && !spec.HostNetwork:
			deny.NamesWithCondtions = append(deny.NamesWithCondtions, seccomp.NameWithConditions{Name: "socket",
				Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.NotEqual, Value: unix.AF_UNIX}}})
		}
	}
	slices.SortFunc(deny.NamesWithCondtions, func(a, b seccomp.NameWithConditions) int { return strings.Compare(a.Name, b.Name) })
	groups := []seccomp.SyscallGroup{deny}
	if landlock && known("clone3") {
		groups = append(groups, seccomp.SyscallGroup{Names: []string{"clone3"}, Action: errno(unix.ENOSYS)})
	}
	return seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups}, nil
}

// filterCalls installs the policy of spec on the calling thread, and on
// every process it starts after: on every thread of the process with
// flag seccomp.FilterFlagTSync. The init installs it once the sandbox is
// set up, before it starts the program.
func filterCalls(spec Spec, flag seccomp.FilterFlag) error {
	p, err := policy(spec, LandlockABI())
	if err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	if err := seccomp.LoadFilter(seccomp.Filter{NoNewPrivs: true, Flag: flag, Policy: p}); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}
