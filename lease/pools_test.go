package lease

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// Each pool of a Store opens at most its number of connections (8 that
// write, 4 that read) and keeps every one it opened until the last Store
// of the file closes: a connection closed earlier would leave its
// descriptor of the file open while the others lock it.
func TestStore_KeepsEveryConnectionItOpensUntilClose(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, pool := range []struct {
		name string
		db   *sql.DB
		max  int
	}{{"writes", s.db, 8}, {"reads", s.reads, 4}} {
		// Every connection the pool may open, held at once, then handed
		// back.
		var conns []*sql.Conn
		for range pool.max {
			c, err := pool.db.Conn(Bounded(t))
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		for _, c := range conns {
			c.Close()
		}
		st := pool.db.Stats()
		if st.MaxOpenConnections != pool.max || st.OpenConnections != pool.max || st.MaxIdleClosed != 0 || st.MaxLifetimeClosed != 0 || st.MaxIdleTimeClosed != 0 {
			t.Errorf("the %s' pool: at most %d connections, %d open after %d were handed back, %d closed as idle; want at most %d, all %d open, none closed",
				pool.name, st.MaxOpenConnections, st.OpenConnections, pool.max, st.MaxIdleClosed+st.MaxLifetimeClosed+st.MaxIdleTimeClosed, pool.max, pool.max)
		}
	}
}

// Two Opens of a file that no Store of the process has open, at once: the
// one that comes second to share its connections takes the first's, and
// each Store's Close counts: the file's connections close with the last.
func TestOpen_TwoOpensOfANewFileAtOnceShareItsConnections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.db")
	var (
		other    *Store
		otherErr error
	)
	// The other Open runs to its end while this one has prepared the file
	// and is about to share its connections.
	ctx := context.WithValue(Bounded(t), beforeShareHook{}, func() { other, otherErr = Open(path) })
	s, err := OpenContext(ctx, path)
	if err != nil || otherErr != nil {
		t.Fatalf("two Opens at once: %v, %v", err, otherErr)
	}
	if s.file != other.file || s.file.stores != 2 {
		t.Fatalf("two Opens at once share %v and count %d Stores; want one file's connections, counting 2", s.file == other.file, s.file.stores)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if added, err := s.Enqueue(Bounded(t), "job"); err != nil || !added {
		t.Fatalf("Enqueue() after the other Store closed = %v, %v; want true, nil", added, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if st := s.db.Stats(); st.OpenConnections != 0 {
		t.Fatalf("after both Stores closed, the file has %d connections open, want 0", st.OpenConnections)
	}
}
