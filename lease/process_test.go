package lease_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// Child processes are this test binary run again with childEnv set; the
// jobs file is named by pathEnv.
const pathEnv = "FENCELAB_LEASE_PATH"

func runChild(role string) int {
	path := os.Getenv(pathEnv)
	if role == "read-only-opener" {
		if err := readOnlyOpener(path, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	s, err := lease.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	switch role {
	case "claimer":
		err = claimer(s, os.Stdin, os.Stdout)
	case "crasher":
		err = crasher(s, os.Stdout)
	case "historian":
		err = historian(s, os.Stdin, os.Stdout)
	case "disk-filler":
		err = diskFiller(s, os.Stdout)
	default:
		err = fmt.Errorf("unknown child role %q", role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// claimer answers every line "JOB OWNER NOW TTL" read from in with the
// fence that Claim returns, until in is closed.
func claimer(s *lease.Store, in io.Reader, out io.Writer) error {
	fmt.Fprintln(out, "ready")
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var (
			job, owner string
			now, ttl   float64
		)
		if _, err := fmt.Sscan(sc.Text(), &job, &owner, &now, &ttl); err != nil {
			return fmt.Errorf("claimer: bad request %q: %w", sc.Text(), err)
		}
		// "waiting" once the claim waits for another connection's lock:
		// the parent holds it until every claimer does.
		// (The driver consults a context that can end in its busy
		// handler: Background's cannot.)
		base, cancel := context.WithCancel(context.Background())
		ctx := lease.WaitWatch(base)
		type claimed struct {
			fence int64
			err   error
		}
		done := make(chan claimed, 1)
		go func() {
			fence, err := s.Claim(ctx, job, owner, now, ttl)
			done <- claimed{fence, err}
		}()
		var c claimed
		select {
		case <-lease.Waiting(ctx):
			fmt.Fprintln(out, "waiting")
			c = <-done
		case c = <-done:
		}
		cancel()
		if c.err != nil {
			return c.err
		}
		fmt.Fprintln(out, c.fence)
	}
	return sc.Err()
}

// crasher claims and completes jobs in a loop until it is killed. A line is
// written only after the call it reports has returned, so every line is an
// acknowledged, committed write:
//
//	done JOB FENCE RESULT   Complete returned true
//	fence N                 Claim of "shared" returned N
func crasher(s *lease.Store, out io.Writer) error {
	ctx := context.Background()
	if _, err := s.Enqueue(ctx, "shared"); err != nil {
		return err
	}
	for i := 1; ; i++ {
		now := float64(i)
		id, result := fmt.Sprintf("job-%d", i), fmt.Sprintf("result-%d", i)
		if _, err := s.Enqueue(ctx, id); err != nil {
			return err
		}
		fence, err := s.Claim(ctx, id, "crasher", now, 1e6)
		if err != nil || fence == 0 {
			return fmt.Errorf("claim %s = %d, %v", id, fence, err)
		}
		ok, err := s.Complete(ctx, id, "crasher", fence, now, result)
		if err != nil || !ok {
			return fmt.Errorf("complete %s = %v, %v", id, ok, err)
		}
		fmt.Fprintf(out, "done %s %d %s\n", id, fence, result)
		// Each claim comes after the one before has expired.
		fence, err = s.Claim(ctx, "shared", "crasher", now, 0.5)
		if err != nil || fence == 0 {
			return fmt.Errorf("claim shared = %d, %v", fence, err)
		}
		fmt.Fprintf(out, "fence %d\n", fence)
	}
}

// child is a running child process with its pipes.
type child struct {
	cmd *exec.Cmd
	ctx context.Context // ends when the child is killed for running too long
	in  io.WriteCloser
	out *bufio.Scanner
}

func startChild(t *testing.T, role, path string) *child {
	t.Helper()
	// A child that is stuck (waiting on a lock that never ends) is killed:
	// the test then fails, saying so, instead of waiting for it.
	ctx, cancel := context.WithTimeout(t.Context(), childLimit)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+role, pathEnv+"="+path)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", role, err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return &child{cmd: cmd, ctx: ctx, in: in, out: bufio.NewScanner(out)}
}

// childLimit bounds a child's life: its work takes a second at most, and
// it is killed after childLimit.
const childLimit = 4 * lease.WaitLimit

func (c *child) readLine(t *testing.T) string {
	t.Helper()
	if !c.out.Scan() {
		c.stuck(t)
		t.Fatalf("child %d ended early: %v", c.cmd.Process.Pid, c.out.Err())
	}
	return c.out.Text()
}

// stuck fails the test if c was killed for running past childLimit.
func (c *child) stuck(t *testing.T) {
	t.Helper()
	if c.ctx.Err() != nil && t.Context().Err() == nil {
		t.Fatalf("child %d was still running after %v, stuck on a lock or a wait, and was killed", c.cmd.Process.Pid, childLimit)
	}
}

func TestClaim_OneWinnerAcrossProcesses(t *testing.T) {
	t.Parallel()
	const procs, rounds = 4, 8
	path := newPath(t)
	enqueue(t, openAt(t, path), "job")
	// One after the other: the claimers meet on the claims below, never
	// on opening the file (the Open tests pin that), so that what this
	// test sees does not depend on how the processes' starts interleave.
	children := make([]*child, procs)
	for i := range children {
		children[i] = startChild(t, "claimer", path)
		if got := children[i].readLine(t); got != "ready" {
			t.Fatalf("child said %q, want ready", got)
		}
	}
	for round := range rounds {
		now := float64(round)*10 + 1 // after the previous grant has expired
		// Every claimer meets the write lock of another connection, and
		// waits for it: their claims meet on the lock whatever the
		// scheduler does.
		commit := holdLock(t, path, "BEGIN IMMEDIATE")
		var wg sync.WaitGroup
		errs := make([]error, procs)
		for i, c := range children {
			wg.Go(func() {
				_, errs[i] = fmt.Fprintf(c.in, "job p%d %v 5\n", i, now)
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		for i, c := range children {
			if got := c.readLine(t); got != "waiting" {
				commit()
				t.Fatalf("round %d: claimer %d said %q while another connection held the write lock, want waiting", round, i, got)
			}
		}
		commit()
		fences := make([]int64, procs)
		for i, c := range children {
			f, err := strconv.ParseInt(c.readLine(t), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			fences[i] = f
		}
		won := winners(fences)
		if len(won) != 1 || fences[won[0]] != int64(round+1) {
			t.Fatalf("round %d: fences = %v, want exactly one fence %d", round, fences, round+1)
		}
	}
}

func TestCrash_AcknowledgedWritesSurviveSIGKILL(t *testing.T) {
	t.Parallel()
	const acksBeforeKill = 40
	path := newPath(t)
	c := startChild(t, "crasher", path)

	results := map[string]string{} // acknowledged completions
	var maxFence int64             // largest fence of "shared" ever acknowledged
	killed := false
	for c.out.Scan() {
		f := strings.Fields(c.out.Text())
		switch {
		case len(f) == 4 && f[0] == "done":
			results[f[1]] = f[3]
		case len(f) == 2 && f[0] == "fence":
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			maxFence = max(maxFence, n)
		default:
			t.Fatalf("crasher wrote %q", c.out.Text())
		}
		if !killed && len(results) == acksBeforeKill {
			// SIGKILL on Unix: no deferred Close, no clean shutdown.
			if err := c.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err := c.cmd.Wait()
	if !killed {
		c.stuck(t)
		t.Fatalf("crasher ended by itself before %d acknowledgements: %v", acksBeforeKill, err)
	}

	s := openAt(t, path)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(t.Context(), "PRAGMA integrity_check").Scan(&check); err != nil {
		t.Fatal(err)
	}
	if check != "ok" {
		t.Fatalf("integrity_check = %q, want ok", check)
	}
	for id, result := range results {
		j := state(t, s, id)
		if !j.Done || j.Result != result {
			t.Errorf("acknowledged completion of %s lost: State = %+v, want done with %q", id, j, result)
		}
	}
	next := mustClaim(t, s, "shared", "after-crash", 1e9, 1)
	if next <= maxFence {
		t.Fatalf("Claim() after crash = fence %d, want more than %d, the largest fence handed out before", next, maxFence)
	}
}
