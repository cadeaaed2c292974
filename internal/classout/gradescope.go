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
