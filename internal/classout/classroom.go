// The result of a GitHub Classroom runner: the
// JSON that classroom-resources/autograding-grading-reporter reads from a
// runner's step output, base64-encoded: the grade of predictions and of
// learners' tests alike. The reporter records the sum of the tests'
// scores out of max_score, and fails the step when the status is fail or
// error.
package classout

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
