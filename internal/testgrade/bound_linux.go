package testgrade

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// setLimits sets the limits of this process (and of those it starts):
// each a soft and hard limit of value, by resource, named by what.
func setLimits(limits map[string]struct {
	resource int
	value    uint64
}) error {
	for what, l := range limits {
		if err := unix.Setrlimit(l.resource, &unix.Rlimit{Cur: l.value, Max: l.value}); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}

// boundCheck bounds the process of a type check: its CPU time (the
// kernel kills it at the limit; Go ignores SIGXCPU) and its heap's
// mappings (RLIMIT_DATA: the runtime ends, out of memory).
func boundCheck() error {
	return setLimits(map[string]struct {
		resource int
		value    uint64
	}{
		"CPU time": {unix.RLIMIT_CPU, uint64(checkCPU.Seconds())},
		"memory":   {unix.RLIMIT_DATA, checkMemory},
	})
}
