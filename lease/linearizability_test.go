package lease_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencelab/fencelab/lease"
)

// The linearizability test: clients in goroutines and in other processes
// issue random operations on a few jobs of one file at the same time, each
// operation's call and return stamped on the wall clock that every process
// of the machine shares, and now read from the same clock (milliseconds
// since the test began, so that leases expire while it runs). porcupine
// then searches for one order of the operations, consistent with those
// stamps, in which the contract's sequential model gives every answer
// that the store gave.

// lzInput is an operation: its kind and arguments.
type lzInput struct {
	Op     string // enqueue, claim, renew, complete, release, state
	Job    string
	Owner  string
	Fence  int64
	Now    float64
	TTL    float64
	Result string
}

// lzOutput is what the store answered.
type lzOutput struct {
	Fence int64     // claim
	OK    bool      // enqueue, renew, complete, release
	Found bool      // state: a job, not nil
	State lease.Job // state
}

// lzEvent is one operation of one client, as recorded.
type lzEvent struct {
	Client       int
	In           lzInput
	Out          lzOutput
	Call, Return int64 // Unix nanoseconds
}

const (
	lzJobs       = 4
	lzOpsPerProc = 60
	epochEnv     = "FENCELAB_LEASE_EPOCH"
	clientEnv    = "FENCELAB_LEASE_CLIENT"
)

// lzClient issues n random operations as client id, with the fences it was
// granted (and, now and then, stale or made-up ones), and records each. A
// few follow-ups make the sequences that break the contract's rules
// common: it first reads a job that nobody enqueues, completes again right
// after a completion, and claims again right after a release.
func lzClient(ctx context.Context, s *lease.Store, id, n int, epoch time.Time, record func(lzEvent)) error {
	rng := rand.New(rand.NewPCG(uint64(id), 7))
	owner := fmt.Sprintf("c%d", id)
	granted := map[string]int64{}
	do := func(in lzInput) (lzOutput, error) {
		ev, err := lzDo(ctx, s, id, epoch, in)
		if err != nil {
			return ev.Out, err
		}
		if in.Op == "claim" && in.Owner == owner && ev.Out.Fence != 0 {
			granted[in.Job] = ev.Out.Fence
		}
		record(ev)
		return ev.Out, nil
	}
	if _, err := do(lzInput{Op: "state", Job: "absent", Owner: owner}); err != nil {
		return err
	}
	for range n {
		in := lzInput{Job: fmt.Sprintf("j%d", rng.IntN(lzJobs)), Owner: owner, TTL: float64(20 + rng.IntN(60))}
		in.Fence = granted[in.Job]
		if rng.IntN(5) == 0 {
			in.Fence += int64(rng.IntN(3)) - 1
		}
		switch p := rng.IntN(100); {
		case p < 10:
			in.Op = "enqueue"
		case p < 45:
			in.Op = "claim"
		case p < 60:
			in.Op = "renew"
		case p < 70:
			in.Op = "complete"
			in.Result = fmt.Sprintf("%s-%d", owner, in.Fence)
		case p < 85:
			in.Op = "release"
		default:
			in.Op = "state"
		}
		out, err := do(in)
		if err != nil {
			return err
		}
		// Follow-ups, each the sequence that one kind of broken rule gets
		// wrong: a grant is then enqueued again, renewed by an impostor
		// with its fence, and completed with the fence before it; a
		// completion is completed again; a release is claimed again.
		var follow []lzInput
		switch {
		case in.Op == "claim" && out.Fence > 0:
			follow = append(follow,
				lzInput{Op: "enqueue", Job: in.Job, Owner: owner},
				lzInput{Op: "renew", Job: in.Job, Owner: owner + "-impostor", Fence: out.Fence, TTL: in.TTL})
			if out.Fence > 1 {
				follow = append(follow, lzInput{Op: "complete", Job: in.Job, Owner: owner, Fence: out.Fence - 1, Result: "stale"})
			}
		case in.Op == "complete" && out.OK:
			follow = append(follow, in)
		case in.Op == "release" && out.OK:
			follow = append(follow, lzInput{Op: "claim", Job: in.Job, Owner: owner, TTL: in.TTL})
		}
		for _, f := range follow {
			if _, err := do(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// lzDo runs one operation as client id, as in.Owner, with now read from
// the clock, and returns it as recorded.
func lzDo(ctx context.Context, s *lease.Store, id int, epoch time.Time, in lzInput) (lzEvent, error) {
	ev := lzEvent{Client: id, In: in}
	ev.Call = time.Now().UnixNano()
	// now in milliseconds, to the nanosecond: no two operations read the
	// same now, so no claim lands exactly on an expiry by chance.
	ev.In.Now = float64(time.Since(epoch).Nanoseconds()) / 1e6
	var err error
	switch in.Op {
	case "enqueue":
		ev.Out.OK, err = s.Enqueue(ctx, in.Job)
	case "claim":
		ev.Out.Fence, err = s.Claim(ctx, in.Job, in.Owner, ev.In.Now, in.TTL)
	case "renew":
		ev.Out.OK, err = s.Renew(ctx, in.Job, in.Owner, in.Fence, ev.In.Now, in.TTL)
	case "complete":
		ev.Out.OK, err = s.Complete(ctx, in.Job, in.Owner, in.Fence, ev.In.Now, in.Result)
	case "release":
		ev.Out.OK, err = s.Release(ctx, in.Job, in.Owner, in.Fence)
	case "state":
		var j *lease.Job
		j, err = s.State(ctx, in.Job)
		if j != nil {
			ev.Out.Found, ev.Out.State = true, *j
		}
	}
	ev.Return = time.Now().UnixNano()
	if err != nil {
		return ev, fmt.Errorf("client %d: %s %+v: %w", id, in.Op, ev.In, err)
	}
	return ev, nil
}

// historian is the child process's side: it waits for a line on in, runs
// one client, and writes its events to out as JSON lines.
func historian(s *lease.Store, in io.Reader, out io.Writer) error {
	id, err := strconv.Atoi(os.Getenv(clientEnv))
	if err != nil {
		return err
	}
	nanos, err := strconv.ParseInt(os.Getenv(epochEnv), 10, 64)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "ready")
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	var encErr error
	err = lzClient(context.Background(), s, id, lzOpsPerProc, time.Unix(0, nanos), func(ev lzEvent) {
		if encErr == nil {
			encErr = enc.Encode(ev)
		}
	})
	if err != nil {
		return err
	}
	return encErr
}

// lzState is the model's state of one job: the partitions are per job.
type lzState struct {
	Exists bool
	Job    lease.Job
}

// lzModel is the contract as a sequential model for porcupine: the model
// test's model (its operations), on one job.
var lzModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byJob := map[string][]porcupine.Operation{}
		var jobs []string
		for _, op := range history {
			job := op.Input.(lzInput).Job
			if _, ok := byJob[job]; !ok {
				jobs = append(jobs, job)
			}
			byJob[job] = append(byJob[job], op)
		}
		var parts [][]porcupine.Operation
		for _, job := range jobs {
			parts = append(parts, byJob[job])
		}
		return parts
	},
	Init: func() any { return lzState{} },
	Step: func(state, input, output any) (bool, any) {
		st, in, out := state.(lzState), input.(lzInput), output.(lzOutput)
		m := model{}
		if st.Exists {
			m[in.Job] = st.Job
		}
		var ok bool
		switch in.Op {
		case "enqueue":
			ok = out.OK == m.enqueue(in.Job)
		case "claim":
			fence, _ := m.claim(in.Job, in.Owner, in.Now, in.TTL)
			ok = out.Fence == fence
		case "renew":
			ok = out.OK == m.renew(in.Job, in.Owner, in.Fence, in.Now, in.TTL)
		case "complete":
			ok = out.OK == m.complete(in.Job, in.Owner, in.Fence, in.Now, in.Result)
		case "release":
			ok = out.OK == m.release(in.Job, in.Owner, in.Fence)
		case "state":
			ok = out.Found == st.Exists && (!st.Exists || out.State == st.Job)
		}
		j, exists := m[in.Job]
		return ok, lzState{Exists: exists, Job: j}
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(lzInput), output.(lzOutput)
		return fmt.Sprintf("%s(%s, %s, fence %d, now %v, ttl %v) → %+v", in.Op, in.Job, in.Owner, in.Fence, in.Now, in.TTL, out)
	},
}

func TestLinearizable_ConcurrentClientsInGoroutinesAndProcesses(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	s := openAt(t, path)
	epoch := time.Now()
	// Every client, goroutine or process, is stopped at the run's limit
	// (a few seconds' work takes one): a client stuck on a lock fails the
	// test, which says so.
	ctx, cancel := context.WithTimeout(t.Context(), childLimit)
	defer cancel()
	stuck := func() {
		t.Helper()
		if ctx.Err() != nil && t.Context().Err() == nil {
			t.Fatalf("the clients were still running after %v, stuck on a lock or a wait, and were stopped", childLimit)
		}
	}
	var (
		mu     sync.Mutex
		events []lzEvent
	)
	record := func(ev lzEvent) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}

	// Two processes, each a client; they start on the line "go".
	type child struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Scanner
	}
	var children []child
	for id := 3; id <= 4; id++ {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=historian", pathEnv+"="+path,
			clientEnv+"="+strconv.Itoa(id), epochEnv+"="+strconv.FormatInt(epoch.UnixNano(), 10))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		if !sc.Scan() || sc.Text() != "ready" {
			t.Fatalf("client process %d did not start: %q %v", id, sc.Text(), sc.Err())
		}
		children = append(children, child{cmd, stdin, sc})
	}
	// First, one at a time, the sequences that each broken rule gets wrong,
	// so that a mutant of the rule fails this test whatever the timing:
	// job "jd" is completed, completed again, released once done, and (at
	// the end) claimed once done; job "jr" is released, claimed again,
	// enqueued again, renewed by an impostor with the new fence, and
	// completed and released by its holder with the old one.
	for _, in := range []lzInput{
		{Op: "enqueue", Job: "jd"},
		{Op: "claim", Job: "jd", Owner: "first", TTL: 300},
		{Op: "complete", Job: "jd", Owner: "first", Fence: 1, Result: "r"},
		{Op: "complete", Job: "jd", Owner: "first", Fence: 1, Result: "again"},
		{Op: "release", Job: "jd", Owner: "first", Fence: 1},
		{Op: "enqueue", Job: "jr"},
		{Op: "claim", Job: "jr", Owner: "first", TTL: 300},
		{Op: "release", Job: "jr", Owner: "first", Fence: 1},
		{Op: "claim", Job: "jr", Owner: "second", TTL: 300},
		{Op: "enqueue", Job: "jr"},
		{Op: "renew", Job: "jr", Owner: "impostor", Fence: 2, TTL: 300},
		{Op: "complete", Job: "jr", Owner: "second", Fence: 1, Result: "stale"},
		{Op: "release", Job: "jr", Owner: "second", Fence: 1},
	} {
		ev, err := lzDo(ctx, s, 7, epoch, in)
		if err != nil {
			stuck()
			t.Fatal(err)
		}
		record(ev)
	}
	for _, c := range children {
		fmt.Fprintln(c.stdin, "go")
	}
	// Three goroutines of this process, meanwhile.
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for id := range 3 {
		wg.Go(func() { errs[id] = lzClient(ctx, s, id, lzOpsPerProc, epoch, record) })
	}
	for _, c := range children {
		for c.out.Scan() {
			var ev lzEvent
			if err := json.Unmarshal(c.out.Bytes(), &ev); err != nil {
				t.Fatalf("client process: %v: %q", err, c.out.Text())
			}
			record(ev)
		}
		if err := c.cmd.Wait(); err != nil {
			stuck()
			t.Fatalf("client process: %v", err)
		}
	}
	wg.Wait() // the goroutines' calls end with ctx
	for _, err := range errs {
		if err != nil {
			stuck()
			t.Fatal(err)
		}
	}

	// Once every lease has expired, one last client claims every job: a
	// done job must stay done.
	var until float64
	for _, ev := range events {
		if ev.Out.Fence > 0 || ev.In.Op == "renew" && ev.Out.OK {
			until = max(until, ev.In.Now+ev.In.TTL)
		}
	}
	time.Sleep(time.Duration((until-float64(time.Since(epoch).Nanoseconds())/1e6)*float64(time.Millisecond)) + time.Millisecond)
	for _, job := range []string{"j0", "j1", "j2", "j3", "jd"} {
		ev, err := lzDo(ctx, s, 5, epoch, lzInput{Op: "claim", Job: job, Owner: "closer", TTL: 20})
		if err != nil {
			t.Fatal(err)
		}
		record(ev)
	}

	ops := make([]porcupine.Operation, len(events))
	var grants int
	for i, ev := range events {
		ops[i] = porcupine.Operation{ClientId: ev.Client, Input: ev.In, Output: ev.Out, Call: ev.Call, Return: ev.Return}
		if ev.Out.Fence > 0 {
			grants++
		}
	}
	if len(ops) < 5*lzOpsPerProc || grants == 0 {
		t.Fatalf("history has %d operations and %d grants; want at least %d, and some grants", len(ops), grants, 5*lzOpsPerProc)
	}
	if res := porcupine.CheckOperationsTimeout(lzModel, ops, 10*time.Second); res != porcupine.Ok {
		t.Fatalf("the history of %d operations is not linearizable under the contract: %v", len(ops), res)
	}

	// The checker must catch a false grant: after every operation has
	// returned, one more claim that is handed a fence already granted.
	last := lastReturn(events)
	var job string
	var fence int64
	for _, ev := range events {
		if ev.In.Op == "claim" && ev.Out.Fence > fence {
			job, fence = ev.In.Job, ev.Out.Fence
		}
	}
	forged := porcupine.Operation{
		ClientId: 6,
		Input:    lzInput{Op: "claim", Job: job, Owner: "intruder", Now: 1e12, TTL: 1},
		Output:   lzOutput{Fence: fence},
		Call:     last + 1, Return: last + 2,
	}
	if res := porcupine.CheckOperationsTimeout(lzModel, append(ops, forged), 10*time.Second); res != porcupine.Illegal {
		t.Fatalf("a history with fence %d of %s granted twice checked as %v, want Illegal", fence, job, res)
	}
}

// lastReturn returns the latest return stamp of events.
func lastReturn(events []lzEvent) int64 {
	var last int64
	for _, ev := range events {
		last = max(last, ev.Return)
	}
	return last
}
