// Package gen is a fixture for the generation of mutants: one place for
// each operator, and places that must be left alone.
package gen

import (
	"context"
	"database/sql"
)

const byOwner = `SELECT id FROM jobs WHERE owner=? AND until BETWEEN ? AND ?`

// Sum adds the positive numbers of xs.
func Sum(xs []int) int {
	total := 0
	for i := 0; i < len(xs); i++ {
		if xs[i] > 0 && xs[i] != 7 {
			total += xs[i]
		}
	}
	return -total
}

// Greet is a concatenation: + is not arithmetic there.
func Greet(name string) string {
	return "hello, " + name
}

// Store writes through database/sql.
type Store struct{ db *sql.DB }

// Put inserts a row unless it exists, and reads the jobs of owner.
func (s *Store) Put(ctx context.Context, id, owner string) error {
	if _, err := s.db.ExecContext(ctx, `INSERT OR IGNORE INTO jobs(id) VALUES(?)`, id); err != nil {
		return err
	}
	rows, err := s.db.QueryContext(ctx, byOwner, owner, 1, 2)
	if err != nil {
		return err
	}
	defer rows.Close()
	return nil
}

// Skipped is left alone as a whole.
//
//mutate:ignore too slow to test
func Skipped(a, b int) bool {
	return a < b
}

// Partly has one line left alone.
func Partly(a, b int) bool {
	if a == b { //mutate:ignore
		return true
	}
	return a < b
}

// Nothing has an empty body: there is nothing to take away.
func Nothing() {}

// Size has a constant inside, whose value has mutants, and an array type,
// whose length stays constant.
func Size() int {
	const n = 2 + 3
	var a [n * 2]int
	return len(a)
}

// Limit is a constant of the package, whose value has mutants too.
const Limit = len("ab")*0 + 8*5 - -1
