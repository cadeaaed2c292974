//go:build !linux

// Package proc reads the machine's processes from Linux's /proc; here,
// where there is none, it reads nothing.
package proc

// PIDs returns nothing here.
func PIDs() []int { return nil }

// Stat is what a process's stat says; nothing here.
type Stat struct {
	Fields []string
}

// ReadStat reads nothing here.
func ReadStat(int) (Stat, bool) { return Stat{}, false }

// Zombie is false here.
func (Stat) Zombie() bool { return false }

// Parent is 0 here.
func (Stat) Parent() int { return 0 }

// Group is 0 here.
func (Stat) Group() int { return 0 }

// Started is unknown here.
func (Stat) Started() int64 { return -1 }

// CPUTicks is unknown here.
func (Stat) CPUTicks() (int64, bool) { return 0, false }

// Children returns nothing here.
func Children(int) []int { return nil }

// ResidentMemory is 0 here.
func ResidentMemory(int) int64 { return 0 }

// MemfdMemory is 0 here.
func MemfdMemory(int, map[[2]uint64]bool) int64 { return 0 }

// Environ returns nothing here.
func Environ(int) []string { return nil }

// Link returns nothing here.
func Link(int, string) string { return "" }
