// Package suggest finds the closest known word to a misspelt one, for
// "did you mean" hints in error messages.
package suggest

import "strings"

// Closest returns the candidate closest to word by edit distance, compared
// case-insensitively, or "" if none is close enough to be a plausible typo:
// at most half the word's length, and never more than 6 edits away.
func Closest(word string, candidates []string) string {
	best, bestDist := "", -1
	w := strings.ToLower(word)
	limit := min(max(len(w)/2, 1), 6)
	for _, c := range candidates {
		d := distance(w, strings.ToLower(c))
		if d > limit {
			continue
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Hint returns ` (did you mean "x"?)` for the closest candidate, or "".
func Hint(word string, candidates []string) string {
	if c := Closest(word, candidates); c != "" {
		return ` (did you mean "` + c + `"?)`
	}
	return ""
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
