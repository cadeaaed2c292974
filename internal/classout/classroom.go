// The result of a GitHub Classroom runner: the
// JSON that classroom-resources/autograding-grading-reporter reads from a
// runner's step output, base64-encoded: the grade of predictions and of
// learners' tests alike. The reporter records the sum of the tests'
// scores out of max_score, and fails the step when the status is fail or
// error.
//
// The reporter's own tables count entries instead: the log's "Grand total
// points" is the share of entries that pass, and its runner summary the
// same share of max_score (src/console-results.js and
// src/aggregate-results.js of
// github-education-resources/autograding-grading-reporter). So that
// every figure it shows is the grade, a result holds one entry per point
// (Add), every one of an item passing when the item earned its points, and
// nothing that is not graded is an entry of its own (Note).
package classout

import (
	"fmt"
	"math"
	"strings"
)

// ClassroomResult is a runner's result.
type ClassroomResult struct {
	Version  int             `json:"version"`
	Status   string          `json:"status"` // pass, fail or error
	MaxScore int             `json:"max_score"`
	Tests    []ClassroomTest `json:"tests"`
}

// ClassroomTest is one of its tests.
type ClassroomTest struct {
	Name     string  `json:"name"`
	Status   string  `json:"status"`
	Score    float64 `json:"score"`
	Message  string  `json:"message"`
	TestCode string  `json:"test_code"`
	Filename string  `json:"filename"`
}

// Add adds an item worth points, of which it earned earned, as t: one
// entry per point ("NAME (point 2 of 3)" when there are several), each
// scoring its share of earned, each passing when the item earned all its
// points. An item worth no point is one entry, which scores nothing.
func (r *ClassroomResult) Add(t ClassroomTest, points int, earned float64) {
	t.Status = "fail"
	if points > 0 && earned >= float64(points) {
		t.Status = "pass"
	}
	if points <= 1 {
		t.Score = earned
		r.Tests = append(r.Tests, t)
		return
	}
	left := earned
	for k := range points {
		e := t
		e.Name = fmt.Sprintf("%s (point %d of %d)", t.Name, k+1, points)
		e.Score = math.Round(earned/float64(points)*100) / 100
		if k == points-1 {
			e.Score = math.Round(left*100) / 100
		}
		left -= e.Score
		r.Tests = append(r.Tests, e)
	}
}

// Note adds what is not graded (the worksheet's answers, the tests that
// earn nothing) to the message of the first entry that fails, which the
// reporter's log shows, or else of the first entry.
func (r *ClassroomResult) Note(note string) {
	if note == "" || len(r.Tests) == 0 {
		return
	}
	i := 0
	for j, t := range r.Tests {
		if t.Status != "pass" {
			i = j
			break
		}
	}
	r.Tests[i].Message = strings.TrimLeft(r.Tests[i].Message+"\n\n"+note, "\n")
}
