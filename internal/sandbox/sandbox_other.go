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

var errUnavailable = errors.New("sandboxes need Linux's namespaces")

// Command returns an error: there are no sandboxes on this system.
func Command(Spec, string, []string, string, ...string) (*Cmd, error) {
	return nil, errUnavailable
}

// Start does nothing here.
func (c *Cmd) Start() error { return errUnavailable }

// Started does nothing here.
func (c *Cmd) Started() {}

// Status returns an error here.
func (c *Cmd) Status() (Status, error) { return Status{}, errUnavailable }

func runInit(request) int { return initFailed }

// Available reports that there are no sandboxes on this system.
func Available() (bool, string) {
	return false, "namespaces are Linux's: no sandbox on this system"
}
