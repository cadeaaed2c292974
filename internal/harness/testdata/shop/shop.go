// Package shop is a fixture of the harness's tests: code for every
// operator that generates mutants, tests that kill most of them, one
// weak test, and a function no test calls.
package shop

// Line is an item of an order.
type Line struct {
	Name  string
	Price int // cents
	Qty   int
}

// Total sums the lines, with a discount of 10% from 10000 cents on.
func Total(lines []Line) int {
	total := 0
	for _, l := range lines {
		total += l.Price * l.Qty
	}
	if total >= 10000 {
		total -= total / 10
	}
	return total
}

// Count counts down from n and returns how many steps it took.
func Count(n int) int {
	steps := 0
	for n > 0 {
		n--
		steps++
	}
	return steps
}

// Store keeps the queries it is asked to run.
type Store struct{ queries []string }

// Exec records a query.
func (s *Store) Exec(query string, args ...any) { s.queries = append(s.queries, query) }

// Reserve asks the store to reserve qty of name.
func Reserve(s *Store, name string, qty int) {
	s.Exec(`UPDATE stock SET qty=qty-? WHERE name=? AND qty>=?`, qty, name, qty)
}

// Refund is called by no test.
func Refund(total int) int {
	if total < 0 {
		return 0
	}
	return -total
}
