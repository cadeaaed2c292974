package testgrade

import (
	"context"
	"errors"
	"fmt"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
)

var stdImp = sync.OnceValue(func() types.Importer { return importer.Default() })

// stdImporter imports the standard library, from go's export data.
func stdImporter(t *testing.T) types.Importer {
	t.Helper()
	return stdImp()
}

// shelfModule writes the module of a small exercise: package shelf, which
// imports a package of its module, with its own tests, test data and a
// fuzz corpus; and a package that shelf does not import.
func shelfModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"go.mod":                          "module example.com\n\ngo 1.26\n",
		"shelf/shelf.go":                  "package shelf\n\nimport \"example.com/internal/size\"\n\n// Put reports whether n items fit.\nfunc Put(n int) bool { return n > 0 && n <= size.Max }\n",
		"shelf/shelf_test.go":             "package shelf\n\n// The grader's own test.\n",
		"shelf/testdata/items.txt":        "apples\n",
		"shelf/testdata/fuzz/FuzzPut/one": "go test fuzz v1\nint(1)\n",
		"internal/size/size.go":           "package size\n\n// Max is the most a shelf holds.\nconst Max = 10\n",
		"other/other.go":                  "package other\n",
		"mutants/catalog.yaml":            "package: ./shelf\n",
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fake is an engine whose runs are scripted: each scripted run is given
// the learner's file as the copy holds it then, and answers for every
// mutant; the stages of one version of the file (its wheats, then its
// chaffs: the stages of one call of Run) share it, each given the mutants
// it runs.
type fake struct {
	t        *testing.T
	withheld bool
	runs     []func(src string) (*report.Report, error)
	calls    int        // the scripted runs used
	srcs     []string   // the file at each of them
	stages   [][]string // the mutants of each call of Run or Baseline
	last     *report.Report
	answered map[string]bool // the mutants of last already run
	imports  []string        // the catalog's tests.imports
	sealed   []bool          // Options.Sealed of each call of Run
}

// chaffsAndWheat are the fake plan's mutants: two chaffs, one wheat.
var chaffsAndWheat = []*mutation.Mutant{
	{ID: "put-zero", Step: 1, Title: "Put takes zero", Contract: "Put refuses zero."},
	{ID: "put-eleven", Step: 2, Title: "Put takes eleven", Contract: "Put refuses more than Max.", Points: 2},
	{ID: "wording", Title: "the wording is open"},
}

func (f *fake) engine() Engine {
	return Engine{
		Select: func(_ context.Context, sel exercise.Selection) (*exercise.Plan, error) {
			src, err := mutation.Load(filepath.Join(sel.Dir, "shelf"))
			if err != nil {
				return nil, err
			}
			u := &exercise.Unit{Source: src, Target: &exercise.Target{ImportPath: "example.com/shelf", Module: "example.com",
				ModuleDir: sel.Dir, Dir: filepath.Join(sel.Dir, "shelf"), Rel: "./shelf", Deps: []string{"example.com/internal/size", "fmt"}}}
			if !f.withheld {
				for _, m := range chaffsAndWheat {
					u.Applied = append(u.Applied, &mutation.Applied{Mutant: m})
				}
			}
			return &exercise.Plan{Root: sel.Dir, Units: []*exercise.Unit{u}}, nil
		},
		Run: func(_ context.Context, plan *exercise.Plan, opt harness.Options) (*report.Report, error) {
			f.sealed = append(f.sealed, opt.Sealed)
			if !opt.Blind || !opt.NoCache {
				f.t.Errorf("Run(%+v): want a blind run, uncached", opt)
			}
			if opt.First == nil {
				return f.next(plan)
			}
			// The stages of harness.Options.First: the picked mutants,
			// then the others if Next says so.
			first, rest := plan.Keep(opt.First), plan.Keep(func(m *mutation.Mutant) bool { return !opt.First(m) })
			if first.Count() == 0 || rest.Count() == 0 {
				return f.next(plan)
			}
			rep, err := f.next(first)
			if err != nil || !opt.Next(rep) {
				return rep, err
			}
			more, err := f.next(rest)
			if err != nil {
				return nil, err
			}
			rep.Mutants = append(rep.Mutants, more.Mutants...)
			return rep, nil
		},
		Baseline: func(_ context.Context, plan *exercise.Plan, opt harness.Options) ([]string, error) {
			_, err := f.next(plan)
			return nil, err
		},
		Exports: func(ctx context.Context, dir string, paths []string) (map[string]string, error) {
			return gotest.ExportFiles(ctx, dir, paths...)
		},
	}
}

func (f *fake) next(plan *exercise.Plan) (*report.Report, error) {
	src, err := os.ReadFile(filepath.Join(plan.Units[0].Target.Dir, learnerName))
	if err != nil {
		f.t.Fatalf("the learner's file is not in the copy: %v", err)
	}
	var ids []string
	for _, a := range plan.Units[0].Applied {
		ids = append(ids, a.Mutant.ID)
	}
	f.stages = append(f.stages, ids)
	later := len(ids) > 0 && f.last != nil && f.srcs[len(f.srcs)-1] == string(src) &&
		!slices.ContainsFunc(ids, func(id string) bool { return f.answered[id] })
	if !later {
		f.srcs = append(f.srcs, string(src))
		if f.calls >= len(f.runs) {
			f.t.Fatalf("run %d: only %d scripted", f.calls+1, len(f.runs))
		}
		f.calls++
		rep, err := f.runs[f.calls-1](string(src))
		f.last, f.answered = rep, map[string]bool{}
		if err != nil || rep == nil {
			f.last = nil
			return rep, err
		}
	}
	out := &report.Report{Mutants: []report.Mutant{}, FlakyTests: f.last.FlakyTests}
	for _, m := range f.last.Mutants {
		if slices.Contains(ids, m.ID) {
			out.Mutants = append(out.Mutants, m)
			f.answered[m.ID] = true
		}
	}
	return out, nil
}

// learnerFile writes a learner's file of the shelf exercise.
func learnerFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const goodFile = `package shelf_test

import (
	"fmt"
	"testing"

	"example.com/shelf"
)

func TestPutZero(t *testing.T) {
	if shelf.Put(0) {
		t.Fatal("Put(0) = true")
	}
}

func TestPutEleven(t *testing.T) {
	if shelf.Put(11) {
		t.Fatal("Put(11) = true")
	}
}

func ExamplePut() {
	fmt.Println(shelf.Put(1))
	// Output: true
}
`

// grade grades files with the fake's scripted runs.
func (f *fake) grade(t *testing.T, files ...string) ([]*Grade, error) {
	t.Helper()
	root := shelfModule(t)
	set := &exercise.Set{Root: root, Files: []*exercise.File{{Path: filepath.Join(root, "mutants", "catalog.yaml")}}, Tests: exercise.Tests{Package: exercise.External, Imports: f.imports}, Withheld: f.withheld}
	return GradeFiles(t.Context(), Config{Set: set, Wheats: map[string]bool{"wording": true}, Engine: f.engine()}, files)
}

// killed is a run's report: each chaff killed by the tests given, the
// wheat survived.
func killed(zero, eleven []string) *report.Report {
	return &report.Report{Mutants: []report.Mutant{
		{ID: "put-zero", Step: 1, Title: "Put takes zero", Contract: "Put refuses zero.", Status: report.Killed, FailedTests: zero},
		{ID: "put-eleven", Step: 2, Title: "Put takes eleven", Contract: "Put refuses more than Max.", Points: 2, Status: report.Killed, FailedTests: eleven},
		{ID: "wording", Title: "the wording is open", Status: report.Survived},
	}}
}

func TestGradeFiles_AValidFileEarnsTheChaffsItCatches(t *testing.T) {
	f := &fake{t: t, runs: []func(string) (*report.Report, error){
		func(string) (*report.Report, error) {
			return killed([]string{"TestPutZero"}, []string{"TestPutEleven"}), nil
		},
	}}
	grades, err := f.grade(t, learnerFile(t, "ann_test.go", goodFile))
	if err != nil {
		t.Fatal(err)
	}
	g := grades[0]
	if g.Problem != "" || g.Points != 3 || g.Max != 3 || !g.Exact() || !slices.Equal(g.Tests, []string{"TestPutZero", "TestPutEleven", "ExamplePut"}) {
		t.Errorf("grade = %+v, want 3 of 3 points, exact, three tests", g)
	}
	if f.calls != 1 || f.srcs[0] != goodFile {
		t.Errorf("ran %d times, the file as %q; want once, as written", f.calls, f.srcs)
	}
	if want := [][]string{{"wording"}, {"put-zero", "put-eleven"}}; !slices.EqualFunc(f.stages, want, slices.Equal) {
		t.Errorf("ran the mutants %v, want the wheat first, then the chaffs: %v", f.stages, want)
	}
}

// A file held to the standard imports reads no environment, file or
// memory it was not handed, so its chaffs and wheats share one build
// (harness.Options.Sealed); a catalog that widens the imports could let
// it read them, and gets a build for each.
func TestGradeFiles_TheStandardImportsAloneShareOneBuild(t *testing.T) {
	for _, tc := range []struct {
		imports []string
		want    bool
	}{{nil, true}, {[]string{"os"}, false}} {
		f := &fake{t: t, imports: tc.imports, runs: []func(string) (*report.Report, error){
			func(string) (*report.Report, error) {
				return killed([]string{"TestPutZero"}, []string{"TestPutEleven"}), nil
			},
		}}
		if _, err := f.grade(t, learnerFile(t, "ann_test.go", goodFile)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.sealed, []bool{tc.want}) {
			t.Errorf("with tests.imports %q, Run's Sealed = %v; want [%v]", tc.imports, f.sealed, tc.want)
		}
	}
}

// A test that both passed and failed with no mutant active is invalid: it
// depends on an order or a timing, and catches no chaff it failed under.
func TestGradeFiles_ATestFlakyOnThePackageIsInvalid(t *testing.T) {
	f := &fake{t: t, runs: []func(string) (*report.Report, error){
		func(string) (*report.Report, error) {
			rep := killed([]string{"TestPutZero"}, []string{"TestPutEleven"})
			rep.FlakyTests = []string{"TestPutZero"}
			return rep, nil
		},
	}}
	grades, err := f.grade(t, learnerFile(t, "mo_test.go", goodFile))
	if err != nil {
		t.Fatal(err)
	}
	g := grades[0]
	if len(g.Invalid) != 1 || g.Invalid[0].Test != "TestPutZero" || !g.Invalid[0].Sometimes || g.Invalid[0].On != Reference {
		t.Errorf("invalid = %+v, want TestPutZero, now and then on the reference", g.Invalid)
	}
	if g.Points != 2 || g.Caught != 1 || g.Chaffs[0].Caught() {
		t.Errorf("grade = %d points, %d caught, chaffs %+v; want 2, 1: put-eleven alone", g.Points, g.Caught, g.Chaffs)
	}
}

// A file whose binary ended under a wheat with no test of it running
// earns nothing, and no chaff runs.
func TestGradeFiles_NoChaffRunsWhenTheFileEndedAWheatsBinary(t *testing.T) {
	f := &fake{t: t, runs: []func(string) (*report.Report, error){
		func(string) (*report.Report, error) {
			rep := killed([]string{"TestPutZero"}, []string{"TestPutEleven"})
			rep.Mutants[2].Status, rep.Mutants[2].Reason = report.Crashed, "the test binary exited with status 3 between tests"
			return rep, nil
		},
	}}
	file := learnerFile(t, "nia_test.go", goodFile)
	grades, err := f.grade(t, file)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"wording"}}; !slices.EqualFunc(f.stages, want, slices.Equal) {
		t.Errorf("ran the mutants %v, want the wheat alone: %v", f.stages, want)
	}
	if g := grades[0]; g.Points != 0 || !strings.HasPrefix(g.Problem, file+": under wheat wording, a correct alternative") {
		t.Errorf("grade = %d points, problem %q; want 0, and why", g.Points, g.Problem)
	}
}

// A file none of whose tests passed under every wheat can catch no chaff:
// the chaffs are not built or run, and each is missed.
func TestGradeFiles_NoChaffRunsWhenNoTestIsLeftValid(t *testing.T) {
	f := &fake{t: t, runs: []func(string) (*report.Report, error){
		func(string) (*report.Report, error) {
			rep := killed([]string{"TestPutZero"}, []string{"TestPutEleven"})
			rep.Mutants[2].Status, rep.Mutants[2].FailedTests = report.Killed, []string{"TestPutZero", "TestPutEleven", "ExamplePut"}
			return rep, nil
		},
	}}
	grades, err := f.grade(t, learnerFile(t, "lu_test.go", goodFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"wording"}}; !slices.EqualFunc(f.stages, want, slices.Equal) {
		t.Errorf("ran the mutants %v, want the wheat alone: %v", f.stages, want)
	}
	g := grades[0]
	if got := names(g.Invalid); !slices.Equal(got, []string{"ExamplePut", "TestPutEleven", "TestPutZero"}) || g.Invalid[0].On != "wording" {
		t.Errorf("invalid = %v (%+v), want every test, on the wheat", got, g.Invalid)
	}
	if g.Points != 0 || g.Caught != 0 || g.Max != 3 || len(g.Chaffs) != 2 || g.Chaffs[0].Caught() || g.Chaffs[1].Caught() {
		t.Errorf("grade = %d of %d points, %d caught, chaffs %+v; want 0 of 3, both missed", g.Points, g.Max, g.Caught, g.Chaffs)
	}
}

// A test that fails on the package, by any form (a subtest, an example),
// is invalid: the file runs again without it (the same length, so every
// message keeps its place), and it earns nothing.
func TestGradeFiles_ATestThatFailsOnThePackageRunsNoMore(t *testing.T) {
	f := &fake{t: t, runs: []func(string) (*report.Report, error){
		func(string) (*report.Report, error) {
			return nil, &harness.BaselineError{Failed: []string{"ExamplePut", "TestPutZero/sub"}, Messages: map[string]string{"TestPutZero/sub": "learner_test.go:12: Put(0) = true"}}
		},
		func(src string) (*report.Report, error) {
			if !strings.Contains(src, "func _xamplePut()") || !strings.Contains(src, "func _estPutZero(") || len(src) != len(goodFile) {
				t.Errorf("the second run's file:\n%s\nwant ExamplePut and TestPutZero renamed, nothing else", src)
			}
			return killed(nil, []string{"TestPutEleven"}), nil
		},
	}}
	grades, err := f.grade(t, learnerFile(t, "bob_test.go", goodFile))
	if err != nil {
		t.Fatal(err)
	}
	g := grades[0]
	if got := names(g.Invalid); !slices.Equal(got, []string{"ExamplePut", "TestPutZero"}) {
		t.Errorf("invalid = %v, want ExamplePut, TestPutZero", got)
	}
	if g.Invalid[1].Message != "bob_test.go:12: Put(0) = true" {
		t.Errorf("message = %q, want it at the learner's file", g.Invalid[1].Message)
	}
	if g.Points != 2 || g.Caught != 1 {
		t.Errorf("grade = %d points, %d caught; want 2, 1", g.Points, g.Caught)
	}
}

// A file whose binary ends before any test (an init that panics, or
// exits) earns nothing, and says why; the next file of the class is
// graded all the same.
func TestGradeFiles_AFileThatEndsItsBinaryCostsNoOneElse(t *testing.T) {
	f := &fake{t: t, runs: []func(string) (*report.Report, error){
		func(string) (*report.Report, error) {
			return nil, &harness.BaselineError{Output: "panic: early\n\ngoroutine 1 [running]:"}
		},
		func(string) (*report.Report, error) {
			return killed([]string{"TestPutZero"}, []string{"TestPutEleven"}), nil
		},
	}}
	bad := learnerFile(t, "cy_test.go", goodFile)
	grades, err := f.grade(t, bad, learnerFile(t, "dee_test.go", goodFile))
	if err != nil {
		t.Fatal(err)
	}
	if g := grades[0]; g.Points != 0 || g.Max != 3 || g.Err == nil ||
		!strings.HasPrefix(g.Problem, bad+": the test binary ended before any of its tests finished; it said:\n  panic: early") {
		t.Errorf("the first file = %+v, want 0 of 3 and why", g)
	}
	if g := grades[1]; g.Problem != "" || g.Points != 3 {
		t.Errorf("the second file = %+v, want it graded, 3 points", g)
	}
}

// A run that blames no test not yet left out teaches nothing: the file is
// graded as a whole, and no run follows.
func TestGradeFiles_NoRunAgainWithoutANewCulprit(t *testing.T) {
	fail := func(string) (*report.Report, error) {
		return nil, &harness.BaselineError{Failed: []string{"TestPutZero"}, Messages: map[string]string{}}
	}
	f := &fake{t: t, runs: []func(string) (*report.Report, error){fail, fail, fail}}
	grades, err := f.grade(t, learnerFile(t, "eve_test.go", goodFile))
	if err != nil {
		t.Fatal(err)
	}
	if f.calls != 2 || !strings.Contains(grades[0].Problem, "no test of the file that is still run was to blame") {
		t.Errorf("%d runs, problem %q; want 2 runs and the file graded as a whole", f.calls, grades[0].Problem)
	}
}

// Tests that crash or hang the binary one after another cost the grader
// maxRounds runs at most.
func TestGradeFiles_CrashesOneByOneAreBounded(t *testing.T) {
	var src strings.Builder
	src.WriteString("package shelf_test\n\nimport \"testing\"\n")
	var runs []func(string) (*report.Report, error)
	for i := range maxRounds + 2 {
		name := "TestCrash" + string(rune('A'+i))
		src.WriteString("\nfunc " + name + "(t *testing.T) {}\n")
		runs = append(runs, func(string) (*report.Report, error) {
			return nil, &harness.BaselineError{TimedOut: true, Package: "./shelf", Failed: []string{name}}
		})
	}
	f := &fake{t: t, runs: runs}
	grades, err := f.grade(t, learnerFile(t, "fay_test.go", src.String()))
	if err != nil {
		t.Fatal(err)
	}
	if f.calls != maxRounds || !strings.Contains(grades[0].Problem, "failed on the package in 5 runs, one after another (TestCrashA, TestCrashB, TestCrashC, TestCrashD, TestCrashE)") {
		t.Errorf("%d runs, problem %q; want %d and the file graded as a whole", f.calls, grades[0].Problem, maxRounds)
	}
}

// A test that hangs on the package is invalid, and says so.
func TestGradeFiles_AHangIsInvalid(t *testing.T) {
	f := &fake{t: t, runs: []func(string) (*report.Report, error){
		func(string) (*report.Report, error) {
			return nil, &harness.BaselineError{TimedOut: true, Package: "./shelf", Failed: []string{"TestPutEleven"}}
		},
		func(string) (*report.Report, error) { return killed([]string{"TestPutZero"}, nil), nil },
	}}
	grades, err := f.grade(t, learnerFile(t, "gus_test.go", goodFile))
	if err != nil {
		t.Fatal(err)
	}
	g := grades[0]
	if len(g.Invalid) != 1 || g.Invalid[0].Test != "TestPutEleven" || !strings.Contains(g.Invalid[0].Message, "did not finish within its limit") || g.Points != 1 {
		t.Errorf("grade = %+v, want TestPutEleven invalid for its hang, 1 point", g)
	}
}

// A file against the rules, or that does not compile, is refused before
// anything runs, every problem at its place.
func TestGradeFiles_NothingRunsOfAFileAgainstTheRules(t *testing.T) {
	f := &fake{t: t}
	src := "package shelf_test\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestEnv(t *testing.T) {\n\tif os.Getenv(\"MUTATE_ACTIVE\") != \"\" {\n\t\tt.Fatal(\"caught\")\n\t}\n}\n"
	broken := "package shelf_test\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n\tfence := 1\n\tother := 2\n}\n"
	env, bad := learnerFile(t, "hal_test.go", src), learnerFile(t, "ian_test.go", broken)
	grades, err := f.grade(t, env, bad)
	if err != nil {
		t.Fatal(err)
	}
	if f.calls != 0 {
		t.Errorf("%d runs, want none", f.calls)
	}
	if g := grades[0]; g.Points != 0 || g.Problem != env+`:4:2: import "os" is refused: it reads the environment, files and the test binary itself` {
		t.Errorf("problem = %q", g.Problem)
	}
	var list interface{ Unwrap() []error }
	if g := grades[1]; !errors.As(g.Err, &list) || len(list.Unwrap()) != 2 || !strings.Contains(g.Problem, bad+":6:2: declared and not used: fence\n"+bad+":7:2: declared and not used: other") {
		t.Errorf("problems = %q, want both unused variables", g.Problem)
	}
}

// A file of more tests than maxTests earns nothing, and runs nothing:
// each test runs under every chaff and wheat.
func TestGradeFiles_AFileOfTooManyTestsEarnsNothing(t *testing.T) {
	f := &fake{t: t}
	var b strings.Builder
	b.WriteString("package shelf_test\n\nimport \"testing\"\n\n")
	for i := range maxTests + 1 {
		fmt.Fprintf(&b, "func TestN%d(t *testing.T) {}\n", i)
	}
	many := learnerFile(t, "many_test.go", b.String())
	grades, err := f.grade(t, many)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%s: %d tests: a file holds at most %d", many, maxTests+1, maxTests); f.calls != 0 || !strings.HasPrefix(grades[0].Problem, want) {
		t.Errorf("%d runs, problem %q; want none, and %q…", f.calls, grades[0].Problem, want)
	}
}

// A learner's file is read as a class's file is (see infile): a file that
// is not one, or that links out of its directory, earns nothing, and runs
// nothing.
func TestGradeFiles_AFileThatIsNoFileEarnsNothing(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero_test.go")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	f := &fake{t: t}
	grades, err := f.grade(t, zero)
	if err != nil {
		t.Fatal(err)
	}
	if f.calls != 0 || !strings.Contains(grades[0].Problem, "links to a file outside its directory: refused") {
		t.Errorf("%d runs, problem %q; want none, and the link refused", f.calls, grades[0].Problem)
	}
}

// In a hand-out, whose chaffs and wheats are withheld, a file runs on the
// package alone.
func TestGradeFiles_WithheldRunsThePackageAlone(t *testing.T) {
	f := &fake{t: t, withheld: true, runs: []func(string) (*report.Report, error){
		func(string) (*report.Report, error) {
			return nil, &harness.BaselineError{Failed: []string{"TestPutZero"}, Messages: map[string]string{"TestPutZero": "learner_test.go:12: Put(0) = true"}}
		},
		func(string) (*report.Report, error) { return nil, nil },
	}}
	file := learnerFile(t, "jo_test.go", goodFile)
	grades, err := f.grade(t, file)
	if err != nil {
		t.Fatal(err)
	}
	g := grades[0]
	if want := file + ": 1 of 3 tests invalid on the package; the chaffs and wheats are with your instructor, who grades the file"; g.Summary() != want || len(g.Chaffs) != 0 {
		t.Errorf("Summary() = %q, %d chaffs; want %q, none", g.Summary(), len(g.Chaffs), want)
	}
}

// An error of the grader's (not the file's doing) stops the class: no
// grade is given.
func TestGradeFiles_TheGradersErrorStops(t *testing.T) {
	boom := errors.New("the harness cannot run")
	f := &fake{t: t, runs: []func(string) (*report.Report, error){func(string) (*report.Report, error) { return nil, boom }}}
	if grades, err := f.grade(t, learnerFile(t, "kim_test.go", goodFile)); !errors.Is(err, boom) || grades != nil {
		t.Errorf("GradeFiles() = %v, %v; want no grade and the harness's error", grades, err)
	}
}

// The copy holds the package without its tests, its test data without
// the fuzz corpora of its own tests, what it imports of its module, and
// nothing else of the grader's.
func TestCopyModule_ThePackageAndWhatItImports(t *testing.T) {
	root := shelfModule(t)
	dst := t.TempDir()
	target := &exercise.Target{ImportPath: "example.com/shelf", Module: "example.com", ModuleDir: root, Dir: filepath.Join(root, "shelf"),
		Deps: []string{"example.com/internal/size", "fmt"}, TestImports: []string{"example.com/shelf"}}
	if err := copyModule(target, dst); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(dst, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dst, path)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if want := []string{"go.mod", "internal/size/size.go", "shelf/shelf.go", "shelf/testdata/items.txt"}; !slices.Equal(got, want) {
		t.Errorf("copied %v, want %v", got, want)
	}
}

// Every form of test go runs is left out the same way, keeping every
// position; an example without output, which go never runs, is not one.
func TestDisable_EveryFormOfTest(t *testing.T) {
	src := `package shelf_test

import "testing"

func TestA(t *testing.T) {}

func FuzzB(f *testing.F) { f.Add(1) }

func ExampleC() {
	// Output:
}

func ExampleD() {}

func BenchmarkE(b *testing.B) {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out, left := disable(fset, f, []byte(src), []Invalid{{Test: "FuzzB"}, {Test: "ExampleC"}})
	want := strings.NewReplacer("func FuzzB", "func _uzzB", "func ExampleC", "func _xampleC").Replace(src)
	if string(out) != want || !left {
		t.Errorf("disable() = %v,\n%s\nwant true,\n%s", left, out, want)
	}
	if _, left := disable(fset, f, []byte(src), []Invalid{{Test: "TestA"}, {Test: "FuzzB"}, {Test: "ExampleC"}}); left {
		t.Error("disable(every test) left one: ExampleD and BenchmarkE are not run, and are none")
	}
}
