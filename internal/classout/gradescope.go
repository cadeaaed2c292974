// Gradescope's results.json, the fields mutate
// writes (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
// the grade of predictions and of learners' tests alike.
package classout

// GradescopeResults is a results.json.
type GradescopeResults struct {
	Score            float64          `json:"score"`
	Output           string           `json:"output"`
	OutputFormat     string           `json:"output_format"`
	TestOutputFormat string           `json:"test_output_format"`
	Visibility       string           `json:"visibility"`
	StdoutVisibility string           `json:"stdout_visibility"`
	Tests            []GradescopeTest `json:"tests"`
}

// GradescopeTest is one of its tests: a mutant, worth its points.
type GradescopeTest struct {
	Name       string  `json:"name"`
	Number     string  `json:"number,omitempty"`
	Score      float64 `json:"score"`
	MaxScore   float64 `json:"max_score"`
	Status     string  `json:"status"`
	Output     string  `json:"output"`
	Visibility string  `json:"visibility"`
}

// Gradescope lets a test override the visibility of the results ("a test
// can override this setting with its own visibility setting ... useful
// for pre-submission checks", the specification's "Controlling Test Case
// Visibility"), and hides the total score while a test is hidden. So a
// grade says at once what became of the submission as a whole (read, or
// why not: a problem gives nothing away) in a test that is always
// visible, and what gives answers away follows the instructor's choice.

// SubmissionTest is the test that says what became of the submission as a
// whole: visible at once, worth nothing; passed when it could be graded.
func SubmissionTest(graded bool, output string) GradescopeTest {
	t := GradescopeTest{Name: "your submission", Status: "failed", Output: output, Visibility: "visible"}
	if graded {
		t.Status = "passed"
	}
	return t
}

// InstructorTest is a test for the instructor's eyes only (Gradescope
// shows instructors every test): what went wrong on the grader's side.
func InstructorTest(output string) GradescopeTest {
	return GradescopeTest{Name: "for the instructor", Status: "failed", Output: output, Visibility: "hidden"}
}

// Shows says when the tests of a visibility show to the learner.
func Shows(visibility string) string {
	switch visibility {
	case "after_due_date":
		return "after the due date"
	case "after_published":
		return "when your instructor publishes the grades"
	case "hidden":
		return "to your instructor only"
	}
	return "below"
}
