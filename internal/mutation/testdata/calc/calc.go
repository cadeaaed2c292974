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
