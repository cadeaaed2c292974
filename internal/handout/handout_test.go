package handout

import (
	"archive/zip"
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/mutation"
)

// The workflow a hand-out holds is the one docs/classroom.yml shows and
// doccheck runs.
func TestWorkflow_IsTheDocumentedOne(t *testing.T) {
	doc, err := os.ReadFile("../../docs/classroom.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc, workflow) {
		t.Error("internal/handout/classroom.yml differs from docs/classroom.yml: copy one over the other")
	}
}

// The report section goes, with the comment just above it; the rest of
// the file stays as it was.
func TestWithoutReport(t *testing.T) {
	src := "# The catalog.\npackage: ./stock\n\n# What report regenerates.\nreport:\n  file: REPORT.md\n  predictions: p.yaml\n\nmutants:\n  - id: a\n"
	want := "# The catalog.\npackage: ./stock\n\nmutants:\n  - id: a\n"
	if got := string(withoutKey([]byte(src), "report")); got != want {
		t.Errorf("withoutKey(report) =\n%s\nwant\n%s", got, want)
	}
	if got := string(withoutKey([]byte(want), "report")); got != want {
		t.Errorf("withoutKey(no report) changed the file:\n%s", got)
	}
}

// The tests section loses its chaffs line, with the comment right above
// it, and keeps the rest; a section of chaffs alone goes as a whole.
func TestWithoutKey_TheChaffs(t *testing.T) {
	src := "package: ./stock\ntests:\n  package: either\n  # The grader's.\n  chaffs: grader/chaffs.yaml\n  imports: [encoding/csv]\nmutants:\n  - id: a\n"
	want := "package: ./stock\ntests:\n  package: either\n  imports: [encoding/csv]\nmutants:\n  - id: a\n"
	if got := string(withoutKey([]byte(src), "tests", "chaffs")); got != want {
		t.Errorf("withoutKey(tests, chaffs) =\n%s\nwant\n%s", got, want)
	}
	src = "package: ./stock\n\n# The tests assignment's chaffs.\ntests:\n  chaffs: grader/chaffs.yaml\n\nmutants:\n  - id: a\n"
	want = "package: ./stock\n\nmutants:\n  - id: a\n"
	if got := string(withoutKey([]byte(src), "tests", "chaffs")); got != want {
		t.Errorf("withoutKey(tests of chaffs alone) =\n%s\nwant\n%s", got, want)
	}
	flow := "package: ./stock\ntests: {chaffs: grader/chaffs.yaml, package: either}\n"
	if got := string(withoutKey([]byte(flow), "tests", "chaffs")); got != flow {
		t.Errorf("withoutKey(flow) = %q, want it unchanged (Write then refuses)", got)
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
		"predictions/README.md":        "How to predict: [a first attempt](../docs/samples/first.yaml).\n",
		"REPORT.md":                    "# The answers\n\ntake-zero: TestTake_One\n",
		"README.md":                    "# The course\n\nSee [the guide](docs/course.md).\n",
		"docs/story.md":                "# The story\n\nThe note, and [its steps](#steps).\n",
		"docs/samples/first.yaml":      "predictions:\n  take-zero: {fails: []}\n",
		"docs/course.md":               "# The instructor's guide\n\ntake-zero: TestTake_One\n",
		"mutants/catalog.yaml": `package: ./stock
story: docs/story.md
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
	if got, want := strings.Join(left, ","), ".ci,.github,REPORT.md,docs/course.md,predictions/example.yaml,tool/testdata,tool/tool_test.go"; got != want {
		t.Errorf("left out %s, want %s", got, want)
	}
	if got, want := strings.Join(wrote, ","), ".github/workflows/classroom.yml,README.md,REPORT.md,mutants/catalog.yaml"; got != want {
		t.Errorf("wrote %s, want %s", got, want)
	}
	// The learner's documents: the story, and what the predictions'
	// README links to; a README of the hand-out's own, which links to
	// them and no instructor's document.
	for _, keep := range []string{"stock/stock_test.go", "stock/testdata/items.txt", "tool/tool.go", "predictions/README.md", "go.mod", "docs/story.md", "docs/samples/first.yaml"} {
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
	for _, want := range []string{"# The worksheet\n", "## Step 1: Take accepts zero (`take-zero`)\n", "**Contract.** Take takes one or more.\n", "```\ntake(n >= 0)\n```", "- **why**: Why does it hold?\n",
		"The exercise's story, where its steps come from: [docs/story.md](docs/story.md).\n"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("the worksheet lacks %q:\n%s", want, report)
		}
	}
	// It goes into a new directory only.
	if _, _, err := Write(set, out, Options{}); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("Write(into the hand-out again) error = %v, want it refused", err)
	}
}

// A learner's document that links to a file the hand-out leaves out (the
// model answer, here) is a broken link: Write refuses, and names it at
// its line; nothing is written.
func TestWrite_RefusesABrokenLink(t *testing.T) {
	root := writeExercise(t)
	readme := filepath.Join(root, "predictions", "README.md")
	if err := os.WriteFile(readme, []byte("How to predict.\n\nThe [model answer](example.yaml).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := exercise.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "handout")
	if _, _, err := Write(set, out, Options{}); err == nil || !strings.Contains(err.Error(), "\n  predictions/README.md:3: example.yaml") {
		t.Fatalf("Write() error = %v, want the broken link at its line", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("Write() refused, and %s exists: %v", out, err)
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
	if got, want := strings.Join(left, ","), ".ci,.github,REPORT.md,docs/course.md,predictions/example.yaml,tool/testdata,tool/tool_test.go"; got != want {
		t.Errorf("left out %s, want %s", got, want)
	}
}

// The tests assignment: the exercise's package without its own tests (its
// test data kept), with the starter beside it; no mutants file but the
// withheld catalog, no instructor's document but a README of its own; a
// worksheet that asks for tests by each step's contract, and says the
// rules of the file: never a mutant's title, fragment or code.
func TestWrite_TheTestsAssignment(t *testing.T) {
	root := writeExercise(t)
	for name, body := range map[string]string{
		"mutants/wheats.yaml": "package: ./stock\nmutants:\n  - id: take-other\n    title: the wording\n    target: Take\n    kind: expr\n    find: n > 0\n    replace: 0 < n\n",
		"docs/course.md":      "The chaffs: take-zero.\n",
		"README.md":           "go tool mutate show take-zero\n",
	} {
		path := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	add := exec.Command("git", "add", ".")
	add.Dir = root
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	set, err := exercise.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	starter := filepath.Join(t.TempDir(), "starter_test.go")
	if err := os.WriteFile(starter, []byte("package stock_test\n\nimport \"testing\"\n\nfunc TestTake_Example(t *testing.T) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "handout")
	left, wrote, err := Write(set, out, Options{Starter: starter})
	if err != nil {
		t.Fatalf("Write() error = %v", err)
	}
	if got, want := strings.Join(left, ","), ".ci,.github,README.md,REPORT.md,docs,mutants/catalog.yaml,mutants/wheats.yaml,predictions,predictions/example.yaml,stock/stock_test.go,tool/testdata,tool/tool_test.go"; got != want {
		t.Errorf("left out %s, want %s", got, want)
	}
	if got, want := strings.Join(wrote, ","), "README.md,REPORT.md,mutants/catalog.yaml,stock/starter_test.go"; got != want {
		t.Errorf("wrote %s, want %s", got, want)
	}
	if _, err := os.Stat(filepath.Join(out, "stock", "testdata", "items.txt")); err != nil {
		t.Errorf("the package's test data: %v", err)
	}
	withheld, err := exercise.LoadFile(filepath.Join(out, "mutants", "catalog.yaml"))
	if err != nil {
		t.Fatalf("the hand-out's catalog: %v", err)
	}
	if !withheld.Withheld || withheld.Package != "./stock" || len(withheld.Mutants) != 0 {
		t.Errorf("the hand-out's catalog: withheld %v, package %q, %d mutants; want withheld, ./stock, none", withheld.Withheld, withheld.Package, len(withheld.Mutants))
	}
	sheet, err := os.ReadFile(filepath.Join(out, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# The worksheet: tests", "go tool mutate check stock/starter_test.go", "## Step 1\n", "**Contract.** Take takes one or more.",
		"1 fault to catch.", "`package stock_test`", "`testing`", "`path`"} {
		if !strings.Contains(string(sheet), want) {
			t.Errorf("worksheet lacks %q:\n%s", want, sheet)
		}
	}
	for _, leak := range []string{"take-zero", "Take accepts zero", "take(n >= 0)", "n >= 0", "TestTake_One", "take-other", "0 < n"} {
		filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if data, _ := os.ReadFile(path); strings.Contains(string(data), leak) {
					t.Errorf("%s holds %q", path, leak)
				}
			}
			return nil
		})
	}
}

// A withheld catalog keeps what the catalog says of learners' files.
func TestWithheldCatalog_KeepsTheRules(t *testing.T) {
	set := &exercise.Set{Package: "./stock", Tests: exercise.Tests{Package: exercise.Either, Imports: []string{"encoding/csv"}}}
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.yaml")
	if err := os.WriteFile(path, []byte(withheldCatalog(set)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := exercise.LoadFile(path)
	if err != nil {
		t.Fatalf("LoadFile() error = %v\n%s", err, withheldCatalog(set))
	}
	if !f.Withheld || f.Tests == nil || f.Tests.Package != exercise.Either || !slices.Equal(f.Tests.Imports, []string{"encoding/csv"}) {
		t.Errorf("LoadFile() = withheld %v, tests %+v; want withheld, either, [encoding/csv]", f.Withheld, f.Tests)
	}
}

// The tests hand-out of lease holds no mutant of its exercise: no line
// that any mutant of mutants/ (the chaffs, the wheats, the experiments)
// writes into package lease is anywhere in it, nor any mutant's id or
// title (a name can tell the fault).
func TestWrite_TheLeaseTestsHandOutHoldsNoMutant(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	set, err := exercise.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "handout")
	if _, _, err := Write(set, out, Options{Starter: filepath.Join(root, "docs", "testdata", "learner", "starter_test.go")}); err != nil {
		t.Fatalf("Write() error = %v", err)
	}
	var hand []string // every line of the hand-out, trimmed
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			for line := range strings.Lines(string(data)) {
				hand = append(hand, strings.TrimSpace(line))
			}
		}
		return err
	})
	pkg, err := mutation.Load(filepath.Join(root, "lease"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "mutants", "*.yaml"))
	checked := 0
	for _, file := range files {
		f, err := exercise.LoadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range f.Mutants {
			a, err := pkg.Apply(m)
			if err != nil {
				t.Fatalf("%s: %v", m.ID, err)
			}
			for _, line := range written(a) {
				if slices.ContainsFunc(hand, func(h string) bool { return strings.Contains(h, line) }) {
					t.Errorf("the hand-out holds %q, which mutant %s (%s) writes", line, m.ID, filepath.Base(file))
				}
			}
			for _, name := range []string{m.ID, m.Title} {
				if i := slices.IndexFunc(hand, func(h string) bool { return strings.Contains(h, name) }); name != "" && i >= 0 {
					t.Errorf("the hand-out names mutant %s (%s): %q", m.ID, filepath.Base(file), hand[i])
				}
			}
			checked++
		}
	}
	if checked < 8+7 {
		t.Errorf("checked %d mutants, want the 8 chaffs and 7 wheats at least", checked)
	}
}

// written returns what a writes into its file that the file does not
// hold already: the lines of the rewritten file, trimmed, and those of
// its replacement.
func written(a *mutation.Applied) []string {
	had := map[string]bool{}
	for line := range strings.Lines(string(a.Original)) {
		had[strings.TrimSpace(line)] = true
	}
	var lines []string
	for line := range strings.Lines(string(a.Mutated) + "\n" + a.Mutant.Replace) {
		if l := strings.TrimSpace(line); len(l) > 3 && !had[l] && !strings.Contains(string(a.Original), l) {
			lines = append(lines, l)
		}
	}
	return lines
}

// The tests assignment's own chaffs (the catalog's tests: chaffs:) stay
// with the grader: neither hand-out holds the file, or names it, or holds
// a chaff's rewrite; the catalog of each loads without them.
func TestWrite_TheChaffsOfTheTestsAssignmentStay(t *testing.T) {
	root := writeExercise(t)
	catalog := filepath.Join(root, "mutants", "catalog.yaml")
	src, err := os.ReadFile(catalog)
	if err != nil {
		t.Fatal(err)
	}
	src = bytes.Replace(src, []byte("worksheet:\n"), []byte("# The tests assignment's own.\ntests:\n  chaffs: grader/chaffs.yaml\nworksheet:\n"), 1)
	for name, body := range map[string]string{
		"mutants/catalog.yaml": string(src),
		"grader/chaffs.yaml":   "package: ./stock\nmutants:\n  - id: take-minus-one\n    step: 1\n    title: Take accepts minus one\n    contract: Take takes one or more.\n    target: Take\n    kind: expr\n    find: n > 0\n    replace: n > -1\n",
	} {
		path := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	add := exec.Command("git", "add", ".")
	add.Dir = root
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	set, err := exercise.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{{}, {Starter: filepath.Join(root, "stock", "stock_test.go")}} {
		out := filepath.Join(t.TempDir(), "handout")
		left, _, err := Write(set, out, opt)
		if err != nil {
			t.Fatalf("Write(%+v) error = %v", opt, err)
		}
		if !slices.Contains(left, "grader/chaffs.yaml") {
			t.Errorf("Write(%+v) left out %v, want grader/chaffs.yaml among them", opt, left)
		}
		filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if data, _ := os.ReadFile(path); bytes.Contains(data, []byte("n > -1")) || bytes.Contains(data, []byte("chaffs.yaml")) || bytes.Contains(data, []byte("take-minus-one")) {
				t.Errorf("Write(%+v): %s holds a chaff of the tests assignment, or names its file:\n%s", opt, path, data)
			}
			return nil
		})
		handed, err := exercise.Load(out, nil)
		if err != nil || handed.Tests.Chaffs != "" {
			t.Errorf("Write(%+v): the hand-out's catalog loads as %+v, %v; want no chaffs", opt, handed, err)
		}
	}
}

// The recipes the autograder's zip holds are the ones docs/gradescope
// shows, and autograders.txtar runs.
func TestRecipes_AreTheDocumentedOnes(t *testing.T) {
	for _, name := range []string{"setup.sh", "run_autograder", "tests/setup.sh", "tests/run_autograder"} {
		doc, err := os.ReadFile("../../docs/gradescope/" + name)
		if err != nil {
			t.Fatal(err)
		}
		embedded, err := recipes.ReadFile("gradescope/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(doc, embedded) {
			t.Errorf("internal/handout/gradescope/%s differs from docs/gradescope/%s: copy one over the other", name, name)
		}
	}
}

// The autograder's zip: the recipe of the assignment at its root,
// executable; the module as git tracks it (the tests assignment's chaffs
// included: the zip is the grader's); the starter of the tests
// assignment where its setup.sh grades it; the same bytes each time.
func TestGradescopeZip(t *testing.T) {
	root := writeExercise(t)
	set, err := exercise.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	starter := filepath.Join(root, "stock", "stock_test.go")
	for _, tc := range []struct {
		opt    Options
		recipe string
	}{{Options{}, "gradescope/"}, {Options{Starter: starter}, "gradescope/tests/"}} {
		var b bytes.Buffer
		n, err := GradescopeZip(set, &b, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		z, err := zip.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
		if err != nil {
			t.Fatal(err)
		}
		if len(z.File) != n {
			t.Errorf("GradescopeZip() = %d files, the zip holds %d", n, len(z.File))
		}
		got := map[string]*zip.File{}
		for _, f := range z.File {
			got[f.Name] = f
		}
		for _, name := range []string{"setup.sh", "run_autograder"} {
			f := got[name]
			if f == nil || f.Mode().Perm() != 0o755 {
				t.Fatalf("%+v: %s is %v, want it at the root, executable", tc.opt, name, f)
			}
			data := read(t, f)
			want, _ := recipes.ReadFile(tc.recipe + name)
			if !bytes.Equal(data, want) {
				t.Errorf("%+v: %s is not %s%s", tc.opt, name, tc.recipe, name)
			}
		}
		for _, name := range []string{"go.mod", "stock/stock.go", "REPORT.md", "predictions/example.yaml", "mutants/catalog.yaml", ".ci/run"} {
			if got[name] == nil {
				t.Errorf("%+v: the zip lacks %s", tc.opt, name)
			}
		}
		if f := got[starterPath]; (f != nil) != (tc.opt.Starter != "") {
			t.Errorf("%+v: the zip's %s is %v", tc.opt, starterPath, f)
		} else if f != nil && !bytes.Contains(read(t, f), []byte("TestTake_One")) {
			t.Errorf("%s is not the starter", starterPath)
		}
		if got[".git/HEAD"] != nil {
			t.Errorf("%+v: the zip holds .git", tc.opt)
		}
		var again bytes.Buffer
		if _, err := GradescopeZip(set, &again, tc.opt); err != nil || !bytes.Equal(again.Bytes(), b.Bytes()) {
			t.Errorf("%+v: a second zip differs (%v)", tc.opt, err)
		}
	}
	// A module with a setup.sh of its own at its root: the zip would
	// replace it.
	if err := os.WriteFile(filepath.Join(root, "setup.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	add := exec.Command("git", "add", "setup.sh")
	add.Dir = root
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	if _, err := GradescopeZip(set, io.Discard, Options{}); err == nil || !strings.Contains(err.Error(), "the module holds setup.sh, which the autograder's zip holds of its own") {
		t.Errorf("GradescopeZip(a module with setup.sh) error = %v", err)
	}
}

// read returns the contents of f.
func read(t *testing.T, f *zip.File) []byte {
	t.Helper()
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
