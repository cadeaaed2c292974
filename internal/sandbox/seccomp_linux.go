package sandbox

import (
	"fmt"
	"slices"
	"strings"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
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

// policy returns the seccomp policy of a program in a sandbox on this
// machine's architecture: every call allowed but those above.
func policy() (seccomp.Policy, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return seccomp.Policy{}, err
	}
	deny := seccomp.SyscallGroup{Action: seccomp.ActionErrno}
	known := func(name string) bool { _, ok := info.SyscallNames[name]; return ok }
	for _, group := range refused {
		deny.Names = append(deny.Names, slices.DeleteFunc(slices.Clone(group), func(n string) bool { return !known(n) })...)
	}
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
	slices.SortFunc(deny.NamesWithCondtions, func(a, b seccomp.NameWithConditions) int { return strings.Compare(a.Name, b.Name) })
	return seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{deny}}, nil
}

// filterCalls installs the policy on every thread of this process, and so
// on every process it starts after: the init installs it once the
// sandbox is set up, before it starts the program.
func filterCalls() error {
	p, err := policy()
	if err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	if err := seccomp.LoadFilter(seccomp.Filter{NoNewPrivs: true, Flag: seccomp.FilterFlagTSync, Policy: p}); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}
