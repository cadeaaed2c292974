//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// Cmd is a program to run in a sandbox; there are none on this system.
type Cmd struct {
	*exec.Cmd
}

var errUnavailable = errors.New("sandboxes need Linux's namespaces or Landlock")

// Command returns an error: there are no sandboxes on this system.
func Command(Spec, string, []string, string, ...string) (*Cmd, error) {
	return nil, errUnavailable
}

// Start does nothing here.
func (c *Cmd) Start() error { return errUnavailable }

// Started does nothing here.
func (c *Cmd) Started() {}

// Stop does nothing here.
func (c *Cmd) Stop() bool { return false }

// Ending returns an error here.
func (c *Cmd) Ending() (Ending, error) { return Ending{}, errUnavailable }

func runInit(request) int { return initFailed }

// Check reports that there are no sandboxes on this system.
func Check(tier Tier) error {
	if _, err := ParseTier(string(tier)); err != nil {
		return err
	}
	return errUnavailable
}

// LandlockABI returns 0: there is no Landlock here.
func LandlockABI() int { return 0 }

// LandlockGaps returns nothing here.
func LandlockGaps(int, bool, bool) []string { return nil }

// OwnUsers is false here.
func OwnUsers() bool { return false }
