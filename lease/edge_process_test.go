package lease_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
	"modernc.org/sqlite"

	"github.com/fencelab/fencelab/lease"
)

// Two children whose world a test process cannot make for itself: one
// whose jobs file is on a read-only mount (root writes any file whatever
// its mode; an ordinary user's test makes it read-only by its mode), one
// that cannot grow a file (a full disk).

// outcome is what a child reports of one call.
type outcome struct {
	Fence  int64  `json:"fence,omitempty"`
	Err    string `json:"err,omitempty"`
	Code   int    `json:"code,omitempty"` // SQLite's primary result code, if any
	Waited bool   `json:"waited,omitempty"`
}

func outcomeOf(fence int64, err error) outcome {
	o := outcome{Fence: fence}
	if err != nil {
		o.Err = err.Error()
		var se *sqlite.Error
		if errors.As(err, &se) {
			o.Code = se.Code() & 0xff
		}
	}
	return o
}

// readOnlyOpener, in a mount namespace of its own, makes the directory of
// the jobs file read-only and opens the file, and reports how Open ended.
func readOnlyOpener(path string, out io.Writer) error {
	dir := filepath.Dir(path)
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind %s: %w", dir, err)
	}
	// The flags the mount has stay: a namespace of its own may not drop
	// them.
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms uintptr }{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC}} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := unix.Mount("", dir, "", flags, ""); err != nil {
		return fmt.Errorf("make %s read-only: %w", dir, err)
	}
	s, waited, err := openStoppingAtAWait(path)
	if err == nil {
		s.Close()
	}
	o := outcomeOf(0, err)
	o.Waited = waited
	return json.NewEncoder(out).Encode(o)
}

// openStoppingAtAWait opens path with a context that ends as soon as Open
// waits for a lock, and says whether it waited: an Open that must not wait
// is caught at its first wait, not after the busy timeout.
func openStoppingAtAWait(path string) (s *lease.Store, waited bool, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watched := lease.WaitWatch(ctx)
	stopped := make(chan bool, 1)
	go func() {
		select {
		case <-lease.Waiting(watched):
			cancel()
			stopped <- true
		case <-ctx.Done():
			stopped <- false
		}
	}()
	s, err = lease.OpenContext(watched, path)
	cancel()
	return s, <-stopped, err
}

// An error that is not SQLITE_BUSY is not waited out: Open on a read-only
// file fails at once, saying so.
func TestOpen_DoesNotWaitOutAReadOnlyFile(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	s := openAt(t, path)
	enqueue(t, s, "job")
	s.Close()
	var o outcome
	if os.Geteuid() != 0 {
		// The file and its directory read-only by their modes.
		o = readOnlyByMode(t, path)
	} else {
		o = readOnlyByMount(t, path)
	}
	// SQLITE_READONLY, or SQLITE_CANTOPEN for a WAL file, whose -shm
	// file it cannot create: never SQLITE_BUSY, and no wait.
	if o.Waited || o.Code != 8 && o.Code != 14 {
		t.Fatalf("Open(read-only file) waited %v, error %q (code %d); want SQLITE_READONLY or SQLITE_CANTOPEN at once", o.Waited, o.Err, o.Code)
	}
}

// readOnlyByMode makes path and its directory read-only by their modes,
// until the test ends, and reports how Open of path ends.
func readOnlyByMode(t *testing.T, path string) outcome {
	t.Helper()
	dir := filepath.Dir(path)
	for _, p := range []string{path, dir} {
		if err := os.Chmod(p, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	s, waited, err := openStoppingAtAWait(path)
	if err == nil {
		s.Close()
	}
	o := outcomeOf(0, err)
	o.Waited = waited
	return o
}

// readOnlyByMount opens path in a child whose mount namespace has its
// directory read-only: root writes any file whatever its mode.
func readOnlyByMount(t *testing.T, path string) outcome {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=read-only-opener", pathEnv+"="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	cmd.Stderr = os.Stderr
	data, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Skipf("no user and mount namespace for a read-only mount here (%v): as root, a file's mode does not keep a process from writing it", err)
	}
	var o outcome
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatalf("the child said %q (%v)", data, err)
	}
	return o
}

// diskFiller claims a job, then claims it again, after that lease has
// expired, with the file size limit at 0 (a disk that is full), then again
// with the limit lifted, and reports each outcome.
func diskFiller(s *lease.Store, out io.Writer) error {
	ctx := context.Background()
	enc := json.NewEncoder(out)
	if _, err := s.Enqueue(ctx, "job"); err != nil {
		return err
	}
	enc.Encode(outcomeOf(s.Claim(ctx, "job", "A", 1, 1)))
	// Past the limit a write fails with EFBIG, instead of the signal.
	signal.Ignore(syscall.SIGXFSZ)
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return err
	}
	full := lim
	full.Cur = 0
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &full); err != nil {
		return err
	}
	enc.Encode(outcomeOf(s.Claim(ctx, "job", "B", 3, 1)))
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return err
	}
	return enc.Encode(outcomeOf(s.Claim(ctx, "job", "C", 5, 1)))
}

// A claim whose commit fails (the disk is full) grants nothing; the next
// claim gets the fence that was never handed out, never one that was.
func TestClaim_AFailedCommitNeverGrants(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	c := startChild(t, "disk-filler", path)
	var got []outcome
	for c.out.Scan() {
		var o outcome
		if err := json.Unmarshal(c.out.Bytes(), &o); err != nil {
			t.Fatalf("the child said %q (%v)", c.out.Text(), err)
		}
		got = append(got, o)
	}
	c.stuck(t)
	if err := c.cmd.Wait(); err != nil || len(got) != 3 {
		t.Fatalf("the child ended with %v after %d outcomes %+v, want 3", err, len(got), got)
	}
	if got[0].Fence != 1 || got[0].Err != "" {
		t.Fatalf("first Claim() = %+v, want fence 1", got[0])
	}
	// The write of the commit fails (SQLITE_IOERR, or SQLITE_FULL where
	// the disk is really full): SQLite's own error, kept for errors.As.
	if got[1].Fence != 0 || got[1].Code != 10 && got[1].Code != 13 {
		t.Fatalf("Claim() on a full disk = %+v, want no fence and a *sqlite.Error of SQLITE_IOERR or SQLITE_FULL", got[1])
	}
	if got[2].Fence != 2 || got[2].Err != "" {
		t.Fatalf("Claim() once the disk has room = %+v, want fence 2: the one never handed out", got[2])
	}
	wantState(t, openAt(t, path), lease.Job{ID: "job", Owner: "C", Until: 6, Fence: 2})
}
