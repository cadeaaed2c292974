//go:build !linux

package gotest

import "errors"

// BecomeSubreaper is not available: only Linux has child subreapers. A
// process a test starts in a session of its own can outlive the run.
func BecomeSubreaper() error {
	return errors.New("child subreapers are a Linux feature")
}

// SweepOrphans does nothing where orphans go to init.
func SweepOrphans(string) {}
