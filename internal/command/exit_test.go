package command

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// Every problem of every file reaches stderr: the lists that errors join
// are each printed, the first maxProblems of each, and counted.
func TestExitCode_EveryFilesProblems(t *testing.T) {
	pos := func(file string, line int, msg string) error {
		return &yamlfile.Error{Pos: yamlfile.Pos{File: file, Line: line, Col: 1}, Msg: msg}
	}
	var many yamlfile.Errors
	for i := range maxProblems + 2 {
		many = append(many, pos("c_test.go", i+1, "unused"))
	}
	err := errors.Join(
		yamlfile.Errors{pos("a_test.go", 4, `import "os" is refused`), pos("a_test.go", 9, "TestMain is refused")},
		errors.New("b_test.go does not compile:\nb_test.go:6:2: declared and not used: fence"),
		many,
	)
	var stderr bytes.Buffer
	if code := ExitCode(t.Context(), &Call{Name: "check", Stderr: &stderr}, err); code != report.ExitError {
		t.Errorf("exitCode() = %d, want %d", code, report.ExitError)
	}
	got := stderr.String()
	for _, want := range []string{
		"a_test.go:4:1: import \"os\" is refused\na_test.go:9:1: TestMain is refused\n",
		"b_test.go does not compile:\nb_test.go:6:2: declared and not used: fence\n",
		"c_test.go:20:1: unused\n… and 2 more\n",
		"mutate check: 25 problems\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got)
		}
	}
}
