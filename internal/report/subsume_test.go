package report

import (
	"fmt"
	"slices"
	"testing"
)

// Kill sets in, dominators and what subsumes the rest out.
func TestSubsume_Table(t *testing.T) {
	for _, tc := range []struct {
		name       string
		sets       [][]string
		dominators []bool
		subsumedBy [][]int
	}{
		{"none", nil, []bool{}, [][]int{}},
		{"one", [][]string{{"A"}}, []bool{true}, [][]int{nil}},
		{"disjoint sets are all dominators", [][]string{{"A"}, {"B"}, {"C", "D"}},
			[]bool{true, true, true}, [][]int{nil, nil, nil}},
		{"a strict superset is subsumed", [][]string{{"A", "B"}, {"A"}},
			[]bool{false, true}, [][]int{{1}, nil}},
		{"equal sets: the first dominates, in any order of tests", [][]string{{"B", "A"}, {"A", "B"}, {"A", "B", "C"}},
			[]bool{true, false, false}, [][]int{nil, {0}, {0}}},
		{"empty sets are killed by nothing: neither", [][]string{{}, {"A"}, nil, {"A", "B"}},
			[]bool{false, true, false, false}, [][]int{nil, nil, nil, {1}}},
		{"a superset of two dominators is subsumed by both", [][]string{{"A"}, {"B"}, {"A", "B", "C"}, {"B", "C"}},
			[]bool{true, true, false, false}, [][]int{nil, nil, {0, 1}, {1}}},
		{"a chain has one dominator", [][]string{{"A", "B", "C"}, {"A", "B"}, {"A"}},
			[]bool{false, false, true}, [][]int{{2}, {2}, nil}},
		{"overlap without containment", [][]string{{"A", "B"}, {"B", "C"}},
			[]bool{true, true}, [][]int{nil, nil}},
		{"a repeated test counts once", [][]string{{"A", "A"}, {"A"}},
			[]bool{true, false}, [][]int{nil, {0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dom, by := subsume(tc.sets)
			if !slices.Equal(dom, tc.dominators) || fmt.Sprint(by) != fmt.Sprint(tc.subsumedBy) {
				t.Errorf("subsume(%q) = %v, %v; want %v, %v", tc.sets, dom, by, tc.dominators, tc.subsumedBy)
			}
		})
	}
}

// A full run's killed mutants are marked; duplicates, crashes and a run
// that stopped at first failures are not; the subsuming score counts the
// killed dominators over them and the undetected mutants.
func TestReport_Subsume(t *testing.T) {
	ms := []Mutant{
		{ID: "a", Status: Killed, FailedTests: []string{"T1"}},
		{ID: "b", Status: Killed, FailedTests: []string{"T1", "T2"}},
		{ID: "c", Status: Killed, FailedTests: []string{"T3"}},
		{ID: "c2", Status: Killed, FailedTests: []string{"T3"}, DuplicateOf: "c"},
		{ID: "d", Status: Survived},
		{ID: "d2", Status: Survived, DuplicateOf: "d"},
		{ID: "e", Status: Crashed},
		{ID: "f", Status: Equivalent},
	}
	r := &Report{Mutants: ms}
	r.Subsume()
	got := map[string]string{}
	for _, m := range r.Mutants {
		got[m.ID] = fmt.Sprint(m.Dominator, m.SubsumedBy)
	}
	want := map[string]string{"a": "true []", "b": "false [a]", "c": "true []", "c2": "false []", "d": "false []", "d2": "false []", "e": "false []", "f": "false []"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("marks = %v, want %v", got, want)
	}
	// 2 dominators killed of 2 dominators and 1 undetected (d; d2 is its
	// duplicate).
	if s := r.Summary(); !s.Subsumed || s.Dominators != 2 || s.SubsumingScore != 0.6667 {
		t.Errorf("summary = %+v, want 2 dominators, subsuming score 0.6667", s)
	}
	// The plain score: 5 detected (a, b, c, c2, e) of 7 scored.
	if r.Summary().Score != 0.7143 {
		t.Errorf("score = %v, want 0.7143", r.Summary().Score)
	}

	early := &Report{Mutants: []Mutant{{ID: "a", Status: Killed, FailedTests: []string{"T1"}, FirstFailureOnly: true}}}
	early.Subsume()
	if early.Mutants[0].Dominator || early.Summary().Subsumed {
		t.Errorf("a run stopped at first failures: %+v, %+v; want no subsumption", early.Mutants[0], early.Summary())
	}
}
