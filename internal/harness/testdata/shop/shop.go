// Package shop is a fixture of the harness's tests: code for the
// operators that generate mutants, tests that kill most of them, a weak
// test, a loop that a mutant makes endless, and a function no test calls.
package shop

import "time"

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

// Count waits for n ticks of a millisecond, counting down, and returns how
// many steps it took. The mutant that makes the loop endless waits rather
// than spins: its timeout costs no CPU.
func Count(n int) int {
	steps := 0
	for n > 0 {
		time.Sleep(time.Millisecond) //mutate:ignore
		n--
		steps++
	}
	return steps
}

// Refund is what a negative total pays back; its test is weak.
func Refund(total int) int {
	if total < 0 {
		return 0
	}
	return -total
}

// Tax is called by no test.
func Tax(total int) int {
	return total * 2 / 10
}
