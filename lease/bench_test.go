package lease

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// The benchmarks measure one claim → complete cycle (two write
// transactions) against a floor: the same number of single-row UPDATE
// transactions through the same driver and pragmas. The ratio of the two is
// what the lease logic costs on top of SQLite itself.

var benchWorkers = []int{1, 8}

func BenchmarkClaimComplete(b *testing.B) {
	for _, workers := range benchWorkers {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "jobs.db")
			stores := make([]*Store, workers)
			for i := range stores {
				s, err := Open(path)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				stores[i] = s
			}
			insertJobs(b, stores[0].db, b.N)
			ctx := context.Background()
			var next atomic.Int64
			b.ResetTimer()
			runWorkers(b, workers, func(w int) error {
				s, owner := stores[w], fmt.Sprintf("w%d", w)
				for {
					i := next.Add(1) - 1
					if i >= int64(b.N) {
						return nil
					}
					id := jobID(i)
					fence, err := s.Claim(ctx, id, owner, 1, 10)
					if err != nil || fence != 1 {
						return fmt.Errorf("Claim(%s) = %d, %v", id, fence, err)
					}
					ok, err := s.Complete(ctx, id, owner, fence, 2, "r")
					if err != nil || !ok {
						return fmt.Errorf("Complete(%s) = %v, %v", id, ok, err)
					}
				}
			})
		})
	}
}

func BenchmarkRawUpdateBaseline(b *testing.B) {
	for _, workers := range benchWorkers {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "jobs.db")
			s, err := Open(path) // creates the table with the same pragmas
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			dbs := make([]*sql.DB, workers)
			for i := range dbs {
				db, err := sql.Open("sqlite", dsn(path))
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				dbs[i] = db
			}
			insertJobs(b, s.db, b.N)
			ctx := context.Background()
			var next atomic.Int64
			b.ResetTimer()
			runWorkers(b, workers, func(w int) error {
				db := dbs[w]
				for {
					i := next.Add(1) - 1
					if i >= int64(b.N) {
						return nil
					}
					// Two transactions per op, as claim and complete are.
					for range 2 {
						if _, err := db.ExecContext(ctx, `UPDATE jobs SET fence=fence+1 WHERE id=?`, jobID(i)); err != nil {
							return err
						}
					}
				}
			})
		})
	}
}

func jobID(i int64) string { return fmt.Sprintf("job-%d", i) }

// insertJobs registers n jobs in one transaction, outside the timed part.
func insertJobs(b *testing.B, db *sql.DB, n int) {
	b.Helper()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	for i := range int64(n) {
		if _, err := tx.Exec(`INSERT INTO jobs(id) VALUES(?)`, jobID(i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// runWorkers runs work on workers goroutines and fails b on any error.
func runWorkers(b *testing.B, workers int, work func(w int) error) {
	b.Helper()
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { errs[w] = work(w) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}
