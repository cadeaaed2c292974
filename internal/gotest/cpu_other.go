//go:build !linux

package gotest

import (
	"os"
	"time"
)

// cpuMetered says that a running binary's CPU time cannot be read here:
// Exec.CPULimit is ignored.
const cpuMetered = false

type cpuMeter struct {
	pid     int
	inner   bool
	written []string // unread here
}

func (*cpuMeter) used() (time.Duration, bool) { return 0, false }

// memoryMetered says that the memory of a running binary cannot be read
// here: Exec.Memory is ignored.
const memoryMetered = false

func (*cpuMeter) memory() int64 { return 0 }

// MachineMemory returns 0: a binary's memory is not limited here.
func MachineMemory() int64 { return 0 }

func maxResident(*os.ProcessState) int64 { return 0 }

// limitProcess does nothing here: a build's wall time is its one limit.
func limitProcess(int, BuildLimits) error { return nil }
