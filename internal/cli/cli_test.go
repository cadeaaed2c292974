package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/testgrade"
)

// fake is an engine that selects an empty plan and answers every run with
// rep (or err), and records what it was asked.
type fake struct {
	rep *report.Report
	err error

	sel     *exercise.Selection
	opt     *harness.Options
	planDir string
}

func (f *fake) engine() testgrade.Engine {
	return testgrade.Engine{
		Select: func(_ context.Context, sel exercise.Selection) (*exercise.Plan, error) {
			f.sel = &sel
			return &exercise.Plan{Root: f.planDir, Package: "./lease"}, nil
		},
		Run: func(_ context.Context, _ *exercise.Plan, opt harness.Options) (*report.Report, error) {
			f.opt = &opt
			return f.rep, f.err
		},
	}
}

// mutateWith runs the mutate command with eng in a directory of its own,
// and returns its exit code, stdout and stderr.
func mutateWith(t *testing.T, ctx context.Context, f *fake, args ...string) (int, string, string) {
	t.Helper()
	f.planDir = t.TempDir()
	t.Chdir(f.planDir)
	var stdout, stderr bytes.Buffer
	code := mainWith(ctx, f.engine(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func mutants(statuses ...report.Status) *report.Report {
	rep := &report.Report{Package: "./lease", Baseline: report.Baseline{Tests: 1, TestNames: []string{"TestA"}}}
	for i, st := range statuses {
		m := report.Mutant{ID: string(rune('a' + i)), Status: st, FailedTests: []string{}, Failures: []report.Failure{}}
		if st == report.Killed {
			m.FailedTests = []string{"TestA"}
		}
		rep.Mutants = append(rep.Mutants, m)
	}
	return rep
}

func TestRun_ExitCodeIsTheWeightiestVerdict(t *testing.T) {
	for _, tc := range []struct {
		name     string
		statuses []report.Status
		want     int
	}{
		{"every mutant killed", []report.Status{report.Killed, report.Killed}, report.ExitKilled},
		{"a survivor", []report.Status{report.Killed, report.Survived}, report.ExitSurvived},
		{"a timeout", []report.Status{report.Killed, report.Timeout}, report.ExitTimeout},
		{"a survivor wins over a timeout", []report.Status{report.Survived, report.Timeout}, report.ExitSurvived},
		{"a flaky verdict", []report.Status{report.Killed, report.Flaky}, report.ExitError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, _ := mutateWith(t, t.Context(), &fake{rep: mutants(tc.statuses...)}, "run", "-q")
			if code != tc.want {
				t.Errorf("exit code %d, want %d; stdout:\n%s", code, tc.want, stdout)
			}
		})
	}
}

func TestRun_FlagsReachTheSelectionAndTheHarness(t *testing.T) {
	f := &fake{rep: mutants(report.Killed)}
	code, _, stderr := mutateWith(t, t.Context(), f, "run", "-q", "-pkg", "./x", "-only", "a,b", "-generate", "-diff", "HEAD~1",
		"-shard", "2/3", "-j", "3", "-timeout", "7s", "-mode", "overlay", "-no-cache", "-full", "-no-tce", "-memory", "2GiB", "-network", "-sandbox", "landlock")
	if code != 0 {
		t.Fatalf("exit code %d, stderr:\n%s", code, stderr)
	}
	sel := f.sel
	if sel.Pkg != "./x" || !slices.Equal(sel.Only, []string{"a", "b"}) || !sel.Generate || sel.Diff != "HEAD~1" || sel.Shard != "2/3" {
		t.Errorf("selection = %+v", *sel)
	}
	opt := f.opt
	if opt.Jobs != 3 || opt.Timeout != 7*time.Second || opt.Mode != harness.ModeOverlay || !opt.NoCache || !opt.Full || !opt.NoTCE ||
		opt.Memory != 2<<30 || !opt.Network || opt.Sandbox != harness.SandboxLandlock {
		t.Errorf("options = %+v", *opt)
	}
}

func TestRun_BadFlagsRunNothing(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-j", "0"}, "mutate run: -j 0: want at least 1"},
		{[]string{"-timeout", "-1s"}, "mutate run: -timeout -1s: want a positive duration"},
		{[]string{"-mode", "fast"}, "mutate run: -mode fast: want switch or overlay"},
		{[]string{"-min-score", "80"}, "mutate run: -min-score 80: want a ratio from 0 to 1, such as 0.8"},
		{[]string{"-json", "-github"}, "mutate run: -json and -github both write to stdout: pick one (-junit FILE writes a file)"},
		{[]string{"-memory", "lots"}, `invalid value "lots" for flag -memory: want a size such as 2GiB or 512MiB, or off`},
		{[]string{"-jobs", "2"}, "flag provided but not defined: -jobs"},
		{[]string{"-sandbox", "docker"}, `mutate run: -sandbox: unknown sandbox "docker": want auto, namespaces, landlock or none`},
		{[]string{"-no-sandbox", "-sandbox", "landlock"}, "mutate run: -no-sandbox runs without a sandbox, and -sandbox=landlock in one: choose one"},
		{[]string{"-sandbox", "none", "-bind", "."}, "mutate run: -bind gives sandboxes a directory of the host, and -sandbox=none runs without: choose one"},
	} {
		f := &fake{rep: mutants(report.Killed)}
		code, _, stderr := mutateWith(t, t.Context(), f, append([]string{"run"}, tc.args...)...)
		if code != report.ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("run %v: exit code %d, stderr:\n%s\nwant 2 and %q", tc.args, code, stderr, tc.want)
		}
		if f.sel != nil || f.opt != nil {
			t.Errorf("run %v: selected or ran mutants", tc.args)
		}
	}
}

func TestRun_AnErrorOfTheHarnessExits2WithItsMessage(t *testing.T) {
	code, stdout, stderr := mutateWith(t, t.Context(), &fake{err: errors.New("baseline: 2 tests failed")}, "run", "-q")
	if code != report.ExitError || stdout != "" || stderr != "mutate run: baseline: 2 tests failed\n" {
		t.Errorf("exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestRun_InterruptedPrintsWhatFinishedAndWritesNoFile(t *testing.T) {
	rep := mutants(report.Killed)
	rep.Interrupted = true
	code, stdout, stderr := mutateWith(t, t.Context(), &fake{rep: rep, err: harness.ErrInterrupted}, "run", "-q", "-junit", "j.xml", "-html", "r.html")
	if code != report.ExitError {
		t.Errorf("exit code %d, want 2", code)
	}
	if want := "mutate run: " + harness.ErrInterrupted.Error() + "\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	if !strings.Contains(stdout, "1 mutant: 1 killed") {
		t.Errorf("stdout lacks the finished mutant's summary:\n%s", stdout)
	}
	for _, file := range []string{"j.xml", "r.html"} {
		if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v, want no file", file, err)
		}
	}
}

func TestRun_ACancelledContextIsTheOneMessage(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	code, _, stderr := mutateWith(t, ctx, &fake{err: errors.New("go list: signal: interrupt")}, "run", "-q")
	if want := "mutate run: " + harness.ErrInterrupted.Error() + "\n"; code != report.ExitError || stderr != want {
		t.Errorf("exit code %d, stderr %q; want 2, %q", code, stderr, want)
	}
}

func TestRun_MinScoreGatesOnTheScore(t *testing.T) {
	for _, tc := range []struct {
		min  string
		want int
		says string
	}{
		{"0.5", report.ExitKilled, "mutate: mutation score 50.0%, at least the minimum 50.0%\n"},
		{"0.6", report.ExitSurvived, "mutate: mutation score 50.0%, below the minimum 60.0%\n"},
	} {
		code, _, stderr := mutateWith(t, t.Context(), &fake{rep: mutants(report.Killed, report.Survived)}, "run", "-q", "-min-score", tc.min)
		if code != tc.want || stderr != tc.says {
			t.Errorf("-min-score %s: exit code %d, stderr %q; want %d, %q", tc.min, code, stderr, tc.want, tc.says)
		}
	}
}

func TestRun_WritesEachFileFormatAsked(t *testing.T) {
	code, stdout, stderr := mutateWith(t, t.Context(), &fake{rep: mutants(report.Killed, report.Survived)}, "run", "-q", "-json", "-junit", "out/j.xml")
	if code != report.ExitSurvived {
		t.Fatalf("exit code %d, stderr:\n%s", code, stderr)
	}
	var got struct {
		Mutants []struct{ ID, Status string }
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || len(got.Mutants) != 2 || got.Mutants[1].Status != "survived" {
		t.Errorf("stdout is not the run as JSON (%v):\n%s", err, stdout)
	}
	data, err := os.ReadFile(filepath.Join("out", "j.xml"))
	if err != nil || !bytes.Contains(data, []byte(`<testcase name="b"`)) || !bytes.Contains(data, []byte("mutant survived: no test failed")) {
		t.Errorf("out/j.xml (%v):\n%s", err, data)
	}
	if want := "mutate: wrote out/j.xml; JUnit XML, a test case per mutant\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}

func TestMain_UnknownCommandSuggestsTheNearest(t *testing.T) {
	code, _, stderr := mutateWith(t, t.Context(), &fake{}, "rum")
	if code != report.ExitError || !strings.HasPrefix(stderr, `mutate: unknown command "rum"`) {
		t.Errorf("exit code %d, stderr:\n%s", code, stderr)
	}
}

// A learner's test file runs in a sandbox or not at all: check refuses to
// run one as the grader (-sandbox=none, -no-sandbox), before anything of
// it is read.
func TestCheckTests_RefusesToRunLearnersTestsWithoutASandbox(t *testing.T) {
	for _, flag := range []string{"-sandbox=none", "-no-sandbox"} {
		f := &fake{rep: mutants(report.Killed)}
		code, _, stderr := mutateWith(t, t.Context(), f, "check", flag, "learner_test.go")
		if code != report.ExitError || !strings.Contains(stderr, "-sandbox=none would run learners' tests as you") {
			t.Errorf("check %s learner_test.go: exit code %d, stderr:\n%s\nwant 2 and the refusal", flag, code, stderr)
		}
		if f.sel != nil || f.opt != nil {
			t.Errorf("check %s: selected or ran mutants", flag)
		}
	}
}

// -submission takes the place of the files, -tests says what it looks
// for, and -metadata names one submission's learner: each misuse is a
// usage error before anything runs.
func TestCheck_SubmissionFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-tests", "a_test.go"}, "-tests says what -submission looks for: give -submission DIR"},
		{[]string{"-submission", dir, "a.yaml"}, "-submission DIR finds the file to grade: give no FILE beside it (a.yaml)"},
		{[]string{"-metadata", filepath.Join(dir, "meta.json"), "a.yaml", "b.yaml"}, "-metadata says who handed in one submission, and 2 files were given"},
		{[]string{"-metadata", filepath.Join(dir, "meta.json"), "a.yaml"}, "meta.json: no such file or directory"},
		{[]string{"-submission", filepath.Join(dir, "nowhere")}, "nowhere: no such file or directory"},
	} {
		f := &fake{rep: mutants(report.Killed)}
		code, _, stderr := mutateWith(t, t.Context(), f, append([]string{"check"}, tc.args...)...)
		if code != report.ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("check %v: exit code %d, stderr:\n%s\nwant 2 and %q", tc.args, code, stderr, tc.want)
		}
		if f.sel != nil || f.opt != nil {
			t.Errorf("check %v: selected or ran mutants", tc.args)
		}
	}
}
