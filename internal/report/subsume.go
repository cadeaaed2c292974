package report

import (
	"math"
	"slices"
)

// Subsume places the killed mutants of a full run in the subsumption of
// its kill matrix (Ammann, Delamaro and Offutt, "Establishing theoretical
// minimal sets of mutants", ICST 2014): mutant A subsumes mutant B when
// some test kills A and every test that kills A kills B. A killed mutant
// whose set of killing tests has no strict subset among the others' is a
// dominator (of several with the same set, the first); every other killed
// mutant is subsumed by the dominators whose sets its own contains. A
// suite that kills the dominators kills every mutant the run killed, so
// the rest add nothing to its assessment but weight to its score.
//
// It needs every failing test of every mutant: it does nothing when a
// run stopped at a mutant's first failing test (a generated run without
// -full). Duplicates (DuplicateOf) share their first's row and are left
// out; so are mutants killed by no named test (crashed).
func (r *Report) Subsume() {
	for i := range r.Mutants {
		r.Mutants[i].Dominator, r.Mutants[i].SubsumedBy = false, nil
	}
	var idx []int
	var sets [][]string
	for i, m := range r.Mutants {
		if m.FirstFailureOnly {
			return
		}
		if m.Status == Killed && m.DuplicateOf == "" && len(m.FailedTests) > 0 {
			idx = append(idx, i)
			sets = append(sets, m.FailedTests)
		}
	}
	dominator, by := subsume(sets)
	for k, i := range idx {
		r.Mutants[i].Dominator = dominator[k]
		for _, d := range by[k] {
			r.Mutants[i].SubsumedBy = append(r.Mutants[i].SubsumedBy, r.Mutants[idx[d]].ID)
		}
	}
}

// subsume returns, for kill sets (each a set of test names, in any
// order), which are dominators, and for each of the others the indexes
// of the dominators whose sets it contains. An empty set is killed by
// nothing: it is neither.
func subsume(sets [][]string) (dominator []bool, subsumedBy [][]int) {
	n := len(sets)
	dominator, subsumedBy = make([]bool, n), make([][]int, n)
	norm := make([][]string, n)
	for i, s := range sets {
		norm[i] = slices.Compact(slices.Sorted(slices.Values(s)))
	}
	for i := range n {
		if len(norm[i]) == 0 {
			continue
		}
		dominator[i] = true
		for j := range n {
			if j == i || len(norm[j]) == 0 || !subset(norm[j], norm[i]) {
				continue
			}
			// A strict subset, or an equal set that comes first, makes i
			// redundant.
			if len(norm[j]) < len(norm[i]) || j < i {
				dominator[i] = false
				break
			}
		}
	}
	for i := range n {
		if dominator[i] || len(norm[i]) == 0 {
			continue
		}
		for j := range n {
			if dominator[j] && subset(norm[j], norm[i]) {
				subsumedBy[i] = append(subsumedBy[i], j)
			}
		}
	}
	return dominator, subsumedBy
}

// subset reports whether sorted a is a subset of sorted b.
func subset(a, b []string) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}

// subsumingScore is the subsuming mutation score of ms: the killed
// dominators over the dominators and the mutants the suite did not
// detect (survived, not covered, skipped; duplicates left out), each of
// which no killed mutant can subsume. It reports false when the run was
// not placed in a subsumption (see Subsume).
func subsumingScore(ms []Mutant) (dominators int, score float64, ok bool) {
	undetected := 0
	for _, m := range ms {
		switch {
		case m.Dominator:
			dominators++
			ok = true
		case len(m.SubsumedBy) > 0:
			ok = true
		case m.DuplicateOf == "" && m.Status.Scored() && !m.Status.Detected():
			undetected++
		}
	}
	if !ok {
		return 0, 0, false
	}
	return dominators, math.Round(float64(dominators)/float64(dominators+undetected)*1e4) / 1e4, true
}
