// Package classouttest reproduces what GitHub Classroom's reporter,
// classroom-resources/autograding-grading-reporter, computes from the
// results of its runners, for tests that check a grade shows as itself.
package classouttest

import (
	"math"

	"github.com/fencelab/fencelab/internal/classout"
)

// Totals are the reporter's three figures for the results of its
// runners, in percent.
type Totals struct {
	// Console is the log's "Grand total points": the share of all the
	// runners' tests whose status is pass (src/console-results.js).
	Console float64
	// Aggregate is the "Total" of the runner summary table
	// (src/aggregate-results.js): per runner, the share of its passing
	// tests times max_score, over max_score, times the runner's weight
	// (its max_score's share of all, rounded to a whole percent).
	Aggregate float64
	// Recorded is what it records in the check run, "Points X/Y": the
	// sum of the tests' scores out of the sum of max_score, of the
	// runners with a max_score (src/notify-classroom.js).
	Recorded float64
}

// Reporter returns the reporter's totals for results, one per runner.
func Reporter(results ...classout.ClassroomResult) Totals {
	var t Totals
	passed, tests, allMax := 0, 0, 0
	for _, r := range results {
		allMax += r.MaxScore
	}
	var score, maxScore float64
	for _, r := range results {
		p := 0
		for _, test := range r.Tests {
			if test.Status == "pass" {
				p++
			}
		}
		passed += p
		tests += len(r.Tests)

		max := float64(r.MaxScore)
		if max == 0 {
			max = 1 // results.max_score || 1
		}
		runnerScore := float64(p) / float64(len(r.Tests)) * max
		weight := 0.0
		if r.MaxScore != 0 && allMax != 0 {
			weight = math.Round(float64(r.MaxScore) / float64(allMax) * 100)
		}
		t.Aggregate += runnerScore / max * weight

		if r.MaxScore != 0 {
			maxScore += float64(r.MaxScore)
			for _, test := range r.Tests {
				score += test.Score
			}
		}
	}
	t.Console = float64(passed) / float64(tests) * 100
	if maxScore > 0 {
		t.Recorded = score / maxScore * 100
	}
	return t
}
