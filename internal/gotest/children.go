package gotest

import (
	"bytes"
	"os/exec"
	"sync"
)

// started holds the pids of the processes this package started and has
// not reaped yet: the children that are mutate's own. Any other child of
// mutate that leads a process group of its own is an orphan that a test
// left behind (see SweepOrphans). A process is started and registered
// under the lock, so that no sweep sees it in between.
var started = struct {
	sync.Mutex
	pids map[int]bool
}{pids: map[int]bool{}}

// start starts cmd and registers its process.
func start(cmd *exec.Cmd) error {
	started.Lock()
	defer started.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	started.pids[cmd.Process.Pid] = true
	return nil
}

// wait waits for cmd, which start started, and forgets its process.
func wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	forget(cmd)
	return err
}

// forget forgets the process of cmd, which has been reaped.
func forget(cmd *exec.Cmd) {
	started.Lock()
	delete(started.pids, cmd.Process.Pid)
	started.Unlock()
}

// run starts cmd and waits for it.
func run(cmd *exec.Cmd) error {
	if err := start(cmd); err != nil {
		return err
	}
	return wait(cmd)
}

// output runs cmd and returns its standard output.
func output(cmd *exec.Cmd) ([]byte, error) {
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := run(cmd)
	return stdout.Bytes(), err
}
