package lease_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/fencelab/fencelab/lease"
)

// Worker A claims a job and stalls. Its lease expires, worker B claims the
// job and completes it, and then A wakes up and tries to complete it too:
// A's fence is stale, so its result is rejected and B's is kept.
func Example() {
	dir, err := os.MkdirTemp("", "lease-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := lease.Open(filepath.Join(dir, "jobs.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()

	if _, err := s.Enqueue(ctx, "report"); err != nil {
		log.Fatal(err)
	}
	fenceA, _ := s.Claim(ctx, "report", "A", 5, 10) // A holds the lease until 15
	fmt.Println("claim A: fence", fenceA)
	fenceB, _ := s.Claim(ctx, "report", "B", 16, 10) // A's lease has expired
	fmt.Println("claim B: fence", fenceB)
	ok, _ := s.Complete(ctx, "report", "B", fenceB, 17, "written by B")
	fmt.Println("B completes:", ok)
	ok, _ = s.Complete(ctx, "report", "A", fenceA, 18, "written by A")
	fmt.Println("A completes with fence", fenceA, "->", ok)

	j, err := s.State(ctx, "report")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("stored: owner=%s fence=%d result=%q done=%v\n", j.Owner, j.Fence, j.Result, j.Done)
	// Output:
	// claim A: fence 1
	// claim B: fence 2
	// B completes: true
	// A completes with fence 1 -> false
	// stored: owner=B fence=2 result="written by B" done=true
}
