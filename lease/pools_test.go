package lease

import (
	"context"
	"database/sql"
	"errors"
	"os"
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

// The Stores of one file in one process share its connections however
// their paths name it: absolute, relative to the working directory,
// through a symbolic link to the file or to its directory, with a "."
// in it.
func TestOpen_StoresOfOneFileShareItsConnectionsWhateverItsPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "jobs.db")
	first := openHere(t, path)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil {
		t.Fatal(err)
	}
	links := t.TempDir()
	fileLink, dirLink := filepath.Join(links, "file.db"), filepath.Join(links, "dir")
	if err := errors.Join(os.Symlink(path, fileLink), os.Symlink(dir, dirLink)); err != nil {
		t.Fatal(err)
	}
	paths := []string{rel, fileLink, filepath.Join(dirLink, "jobs.db"), dir + "/./jobs.db"}
	for _, p := range paths {
		if s := openHere(t, p); s.file != first.file {
			t.Errorf("Open(%q) has connections of its own; want those of the Store of %q, the same file", p, path)
		}
	}
	if got, want := first.file.stores, 1+len(paths); got != want {
		t.Errorf("the file's connections count %d Stores, want %d", got, want)
	}
}
