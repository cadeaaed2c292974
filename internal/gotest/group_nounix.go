//go:build !unix

package gotest

import (
	"os"
	"os/exec"
	"time"
)

// setProcAttr does nothing where process groups are not available.
func setProcAttr(*exec.Cmd) {}

// killGroupOnCancel kills only the command itself where process groups are
// not available.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.WaitDelay = 5 * time.Second
}

func killGroup(p *os.Process) { p.Kill() }

func signalOf(*os.ProcessState) string { return "" }
