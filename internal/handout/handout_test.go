package handout

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/exercise"
)

// The workflow a hand-out holds is the one docs/classroom.yml shows and
// doccheck runs.
func TestWorkflow_IsTheDocumentedOne(t *testing.T) {
	doc, err := os.ReadFile("../../docs/classroom.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc, Workflow) {
		t.Error("internal/handout/classroom.yml differs from docs/classroom.yml: copy one over the other")
	}
}

// The report section goes, with the comment just above it; the rest of
// the file stays as it was.
func TestWithoutReport(t *testing.T) {
	src := "# The catalog.\npackage: ./stock\n\n# What report regenerates.\nreport:\n  file: REPORT.md\n  predictions: p.yaml\n\nmutants:\n  - id: a\n"
	want := "# The catalog.\npackage: ./stock\n\nmutants:\n  - id: a\n"
	if got := string(withoutReport([]byte(src))); got != want {
		t.Errorf("withoutReport() =\n%s\nwant\n%s", got, want)
	}
	if got := string(withoutReport([]byte(want))); got != want {
		t.Errorf("withoutReport(no report) changed the file:\n%s", got)
	}
}

// writeExercise writes a module with an exercise as git tracks it: a
// package and its tests, a catalog whose report names a model answer and
// a report document, a helper package with tests, and the instructor's
// CI.
func writeExercise(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                       "module example.com/ex\n\ngo 1.26\n",
		"stock/stock.go":               "package stock\n\n// Take takes.\nfunc Take(n int) bool { return n > 0 }\n",
		"stock/stock_test.go":          "package stock\n\nimport \"testing\"\n\nfunc TestTake_One(t *testing.T) {\n\tif !Take(1) {\n\t\tt.Fatal(\"Take(1) = false\")\n\t}\n}\n",
		"stock/testdata/items.txt":     "apples\n",
		"tool/tool.go":                 "package tool\n",
		"tool/tool_test.go":            "package tool\n\n// Names the answer: TestTake_One.\n",
		"tool/testdata/answers.json":   "{\"take\": [\"TestTake_One\"]}\n",
		".ci/run":                      "go test ./...\n",
		".github/workflows/course.yml": "name: course\n",
		"predictions/example.yaml":     "predictions:\n  take-zero: {fails: [TestTake_One]}\n",
		"predictions/README.md":        "How to predict.\n",
		"REPORT.md":                    "# The answers\n\ntake-zero: TestTake_One\n",
		"mutants/catalog.yaml": `package: ./stock
# What report regenerates.
report:
  file: REPORT.md
  predictions: predictions/example.yaml
worksheet:
  - id: why
    question: Why does it hold?
mutants:
  - id: take-zero
    step: 1
    title: Take accepts zero
    contract: Take takes one or more.
    seed: take(n >= 0)
    target: Take
    kind: expr
    find: n > 0
    replace: n >= 0
`,
	}
	for name, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// A hand-out leaves out the model answer, the answered report, the tests
// and test data of every package but the exercise's, and the
// instructor's CI; it holds the worksheet in the report's place, the
// catalog without its report section, and the Classroom workflow.
func TestWrite_TheExerciseWithoutItsAnswers(t *testing.T) {
	root := writeExercise(t)
	set, err := exercise.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "handout")
	left, wrote, err := Write(set, out, Options{})
	if err != nil {
		t.Fatalf("Write() error = %v", err)
	}
	if got, want := strings.Join(left, ","), ".ci,.github,REPORT.md,predictions/example.yaml,tool/testdata,tool/tool_test.go"; got != want {
		t.Errorf("left out %s, want %s", got, want)
	}
	if got, want := strings.Join(wrote, ","), ".github/workflows/classroom.yml,REPORT.md,mutants/catalog.yaml"; got != want {
		t.Errorf("wrote %s, want %s", got, want)
	}
	for _, keep := range []string{"stock/stock_test.go", "stock/testdata/items.txt", "tool/tool.go", "predictions/README.md", "go.mod"} {
		if _, err := os.Stat(filepath.Join(out, keep)); err != nil {
			t.Errorf("the hand-out lacks %s: %v", keep, err)
		}
	}
	// Nothing in it names the test that kills the mutant, but the suite.
	filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "stock_test.go") {
			return err
		}
		if data, _ := os.ReadFile(path); bytes.Contains(data, []byte("TestTake_One")) {
			t.Errorf("%s names TestTake_One, the answer", path)
		}
		return nil
	})
	catalog, err := os.ReadFile(filepath.Join(out, "mutants", "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(catalog), "report") || !strings.Contains(string(catalog), "worksheet:") {
		t.Errorf("the hand-out's catalog:\n%s\nwant it without its report section, with its worksheet", catalog)
	}
	if _, err := exercise.Load(out, nil); err != nil {
		t.Errorf("the hand-out's catalog does not load: %v", err)
	}
	report, err := os.ReadFile(filepath.Join(out, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# The worksheet\n", "## Step 1: Take accepts zero (`take-zero`)\n", "**Contract.** Take takes one or more.\n", "```\ntake(n >= 0)\n```", "- **why**: Why does it hold?\n"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("the worksheet lacks %q:\n%s", want, report)
		}
	}
	// It goes into a new directory only.
	if _, _, err := Write(set, out, Options{}); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("Write(into the hand-out again) error = %v, want it refused", err)
	}
}

// Outside a git checkout (a copy of one, an archive), every file is the
// module's, and the same are left out.
func TestWrite_OutsideAGitCheckout(t *testing.T) {
	root := writeExercise(t)
	if err := os.RemoveAll(filepath.Join(root, ".git")); err != nil {
		t.Fatal(err)
	}
	set, err := exercise.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	left, _, err := Write(set, filepath.Join(t.TempDir(), "handout"), Options{})
	if err != nil {
		t.Fatalf("Write() error = %v", err)
	}
	if got, want := strings.Join(left, ","), ".ci,.github,REPORT.md,predictions/example.yaml,tool/testdata,tool/tool_test.go"; got != want {
		t.Errorf("left out %s, want %s", got, want)
	}
}

// The tests assignment: the exercise's package without its own tests (its
// test data kept), with the starter beside it, and a worksheet that asks
// for tests and describes each mutant by its step and contract, its
// fragment only when asked.
func TestWrite_TheTestsAssignment(t *testing.T) {
	root := writeExercise(t)
	set, err := exercise.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	starter := filepath.Join(t.TempDir(), "starter_test.go")
	if err := os.WriteFile(starter, []byte("package stock\n\nimport \"testing\"\n\nfunc TestTake_Example(t *testing.T) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fragments := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "handout")
		left, wrote, err := Write(set, out, Options{Starter: starter, Fragments: fragments})
		if err != nil {
			t.Fatalf("Write() error = %v", err)
		}
		if got, want := strings.Join(left, ","), ".ci,.github,REPORT.md,predictions/example.yaml,stock/stock_test.go,tool/testdata,tool/tool_test.go"; got != want {
			t.Errorf("left out %s, want %s", got, want)
		}
		if got, want := strings.Join(wrote, ","), "REPORT.md,mutants/catalog.yaml,stock/starter_test.go"; got != want {
			t.Errorf("wrote %s, want %s", got, want)
		}
		if _, err := os.Stat(filepath.Join(out, "stock", "testdata", "items.txt")); err != nil {
			t.Errorf("the package's test data: %v", err)
		}
		sheet, err := os.ReadFile(filepath.Join(out, "REPORT.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"# The worksheet: tests", "go tool mutate check stock/starter_test.go", "## Step 1: Take accepts zero", "**Contract.** Take takes one or more."} {
			if !strings.Contains(string(sheet), want) {
				t.Errorf("worksheet lacks %q:\n%s", want, sheet)
			}
		}
		if got := strings.Contains(string(sheet), "take(n >= 0)"); got != fragments {
			t.Errorf("Fragments %v: the worksheet shows the fragment: %v", fragments, got)
		}
		if strings.Contains(string(sheet), "TestTake_One") {
			t.Errorf("the worksheet names the suite's test:\n%s", sheet)
		}
	}
}
