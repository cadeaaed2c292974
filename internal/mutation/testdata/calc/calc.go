// Package calc is a fixture for the rewrite engine's tests.
package calc

import (
	"strings"
)

const query = `SELECT x FROM t WHERE a>? AND b>?`

// Max returns the larger of a and b.
func Max(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// Both compares twice, so its fragment matches twice.
func Both(a, b int) bool {
	return a > b && a > b
}

// Upper upper-cases s unless it is empty.
func Upper(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s)
}

// Scale multiplies x by f.
func Scale(x, f int) int {
	return x * f
}

// Clamp keeps x within lo and hi: its comparisons repeat.
func Clamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi || x < lo {
		return hi
	}
	return x
}

// Stack is a stack of items of any type.
type Stack[T any] struct {
	items []T
}

// Pop removes and returns the top item, and false when there is none.
func (s *Stack[T]) Pop() (T, bool) {
	var zero T
	if len(s.items) == 0 {
		return zero, false
	}
	top := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return top, true
}

// Pair is a key and a value.
type Pair[K comparable, V any] struct {
	key K
	val V
}

// Key returns the pair's key.
func (p Pair[K, V]) Key() K {
	return p.key
}
