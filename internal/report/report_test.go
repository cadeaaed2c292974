package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func sample() *Report {
	ms := []Mutant{
		{ID: "claim-boundary", Step: 4, Title: "the expiry comparison in Claim is inclusive", Target: "Store.Claim",
			File: "lease/lease.go", Line: 226, Status: Killed, Build: "switch", Seconds: 3.25, TestSeconds: 1.5, Points: 2,
			FailedTests: []string{"TestClaim_ReassignsAtExactExpiry", "TestModel/seq"},
			Failures: []Failure{
				{Test: "TestClaim_ReassignsAtExactExpiry", Message: "claim_test.go:40: Claim(now == until) = 0, want 2"},
				{Test: "TestModel/seq", Message: "model_test.go:9: first line\n    second line"},
			}},
		{ID: "renew-expired", Step: 5, Title: "Renew accepts a lease at its exact expiry", Target: "Store.Renew",
			File: "lease/lease.go", Line: 252, Status: Survived, Build: "switch", Seconds: 2, FailedTests: []string{}, Failures: []Failure{},
			FlakyTests: []string{"TestRenew_Slow"}, Reason: "TestRenew_Slow failed in one run under it, and not when run again; a second run of the same tests passed: its outcome changes from run to run (the suite's own randomness, or the machine's load)"},
		{ID: "hangs-after", Step: 6, Title: "Complete hangs after a failure", Target: "Store.Complete",
			File: "lease/lease.go", Line: 270, Status: Timeout, Build: "switch", Seconds: 60, Partial: true,
			FailedTests: []string{"TestComplete_Twice"}, Failures: []Failure{{Test: "TestComplete_Twice", Message: "complete_test.go:12: Complete() = true"}},
			Reason: "stopped at the limit of 60s while TestComplete_Stale ran", Running: []string{"TestComplete_Stale"}},
		{ID: "jitter", Step: 7, Title: "a mutant only flaky tests fail under", Target: "Store.Release",
			File: "lease/lease.go", Line: 290, Status: Flaky, Build: "switch", Seconds: 4, FailedTests: []string{}, Failures: []Failure{},
			FlakyTests: []string{"TestRelease_Race"}, Reason: "TestRelease_Race failed in both runs under it, and no failure reproduced without the other tests or failed only under the mutant"},
		{ID: "loops", Step: 0, Title: "a loop that never ends, 100%", Target: "Loop",
			File: "calc/calc.go", Line: 7, Status: Timeout, Build: "switch", Seconds: 60, FailedTests: []string{}, Failures: []Failure{},
			Reason: "stopped at the limit of 60s while TestLoop ran", Running: []string{"TestLoop"}},
		{ID: "exits", Step: 1, Title: "init exits", Target: "init",
			File: "calc/calc.go", Line: 2, Status: Crashed, Build: "switch", Seconds: 0.25, FailedTests: []string{}, Failures: []Failure{},
			Reason: "the test binary exited with status 0 before any test ran (3 tests never reported)", Output: "bye"},
		{ID: "broken", Step: 2, Title: "does not compile", Target: "Max",
			File: "calc/calc.go", Line: 3, Status: BuildFailed, Build: "overlay", Seconds: 0.5, Output: "calc.go:3:9: cannot use \"a\" as int value",
			FailedTests: []string{}, Failures: []Failure{}},
	}
	return &Report{
		Module: "example.com/m", Package: "./lease", GoVersion: "go1.26.8", Mode: "switch", Jobs: 2, Limit: 60,
		Baseline: Baseline{Tests: 3, Seconds: 2.5, TestNames: []string{"TestA", "TestB", "TestB/sub"}},
		Mutants:  ms, FlakyTests: []string{"TestRelease_Race"}, Seconds: 10.75,
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

func TestSummary(t *testing.T) {
	s := sample().Summary()
	if got, want := s.String(), "7 mutants: 1 killed, 1 survived, 1 crashed, 2 timeout, 1 build-failed, 1 flaky"; got != want {
		t.Fatalf("Summary = %q, want %q", got, want)
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		name     string
		statuses []Status
		want     int
	}{
		{"AllKilled", []Status{Killed, Killed}, ExitKilled},
		{"CrashedIsDetected", []Status{Killed, Crashed}, ExitKilled},
		{"Survived", []Status{Killed, Survived}, ExitSurvived},
		{"TimeoutOnly", []Status{Killed, Timeout}, ExitTimeout},
		{"SurvivedBeatsTimeout", []Status{Timeout, Survived}, ExitSurvived},
		{"BuildFailedIsAnError", []Status{Survived, BuildFailed}, ExitError},
		{"FlakyIsAnError", []Status{Survived, Timeout, Flaky}, ExitError},
		{"NotCoveredIsASurvivor", []Status{Killed, NotCovered, Timeout}, ExitSurvived},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ms []Mutant
			for _, s := range tc.statuses {
				ms = append(ms, Mutant{Status: s})
			}
			r := &Report{Mutants: ms}
			if got := r.ExitCode(); got != tc.want {
				t.Fatalf("ExitCode() = %d, want %d", got, tc.want)
			}
		})
	}
}

// The kill matrix counts the tests that failed under an exercise's
// mutants, and names those of the others (with their messages, verbose).
func TestWriteText(t *testing.T) {
	exercise := map[string]bool{}
	for _, m := range sample().Mutants {
		if !m.Generated() {
			exercise[m.ID] = true
		}
	}
	for name, opt := range map[string]TextOptions{
		"matrix.txt":         {Exercise: exercise},
		"matrix-answers.txt": {},
		"matrix-verbose.txt": {Verbose: true},
	} {
		var buf bytes.Buffer
		if err := sample().WriteText(&buf, opt); err != nil {
			t.Fatal(err)
		}
		golden(t, name, buf.Bytes())
	}
}

func TestWriteJUnit(t *testing.T) {
	var buf bytes.Buffer
	if err := sample().WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "junit.xml", buf.Bytes())
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit output is not XML: %v", err)
	}
	if doc.Tests != 7 || doc.Failures != 1 || doc.Errors != 4 {
		t.Fatalf("tests, failures, errors = %d, %d, %d; want 7, 1, 4", doc.Tests, doc.Failures, doc.Errors)
	}
}

func TestWriteGitHub(t *testing.T) {
	var buf bytes.Buffer
	if err := sample().WriteGitHub(&buf, func(id string) string { return "go tool mutate -C ex show " + id }); err != nil {
		t.Fatal(err)
	}
	golden(t, "github.txt", buf.Bytes())
}

func TestJSONRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := sample().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json", buf.Bytes())
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatalf("ReadFile() error = %v", err)
	}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(sample())
	if !bytes.Equal(a, b) {
		t.Fatalf("round trip changed the report:\n%s\n%s", a, b)
	}
}

func TestReadFile_RejectsOtherJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(path, []byte(`{"learner": "alice"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil {
		t.Fatal("ReadFile(other JSON) error = nil, want an error")
	}
}

func TestReadFile_RejectsMisalignedFailures(t *testing.T) {
	for name, edit := range map[string]func(*Report){
		"MissingFailures": func(r *Report) { r.Mutants[0].Failures = nil },
		"OtherTest":       func(r *Report) { r.Mutants[0].Failures[1].Test = "TestOther" },
	} {
		t.Run(name, func(t *testing.T) {
			r := sample()
			edit(r)
			var buf bytes.Buffer
			if err := r.WriteJSON(&buf); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "r.json")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadFile(path); err == nil {
				t.Fatal("ReadFile() error = nil, want one: failures must match failed_tests")
			}
		})
	}
}

// A result written before failed_tests was always a list reads as one.
func TestReadFile_NullListsReadAsEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	data := `{"baseline": {"tests": 1, "test_names": ["TestA"]}, "mutants": [{"id": "m", "status": "killed", "failed_tests": null, "failures": null}]}`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ReadFile(path)
	if err != nil {
		t.Fatalf("ReadFile() error = %v", err)
	}
	if m := r.Mutants[0]; m.FailedTests == nil || m.Failures == nil {
		t.Fatalf("FailedTests, Failures = %#v, %#v; want empty lists", m.FailedTests, m.Failures)
	}
}

// The JSON form carries its version: one written before versions (1) is
// read, one of a later version is refused, with a reason.
func TestReadFile_VersionsItReads(t *testing.T) {
	data, err := json.Marshal(sample())
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["version"] != float64(Version) {
		t.Fatalf("version = %v, want %d", doc["version"], Version)
	}
	for _, tc := range []struct {
		version any
		ok      bool
	}{{nil, true}, {1, true}, {2, true}, {Version, true}, {Version + 1, false}} {
		if tc.version == nil {
			delete(doc, "version")
		} else {
			doc["version"] = tc.version
		}
		data, _ := json.Marshal(doc)
		path := filepath.Join(t.TempDir(), "run.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := ReadFile(path)
		if tc.ok && (err != nil || r.Mutants[0].Kind != "" || r.Mode != ModeSwitch || r.Mutants[1].Status != Survived) {
			t.Errorf("ReadFile(version %v) = %v; want the report", tc.version, err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "a newer mutate wrote it")) {
			t.Errorf("ReadFile(version %v) error = %v, want it refused", tc.version, err)
		}
	}
}

// Version 2 called the sandboxes of namespaces, then the only ones, full:
// a report of it reads as namespaces.
func TestReadFile_Version2sFullIsNamespaces(t *testing.T) {
	for _, tc := range []struct {
		version   int
		isolation string
		want      Isolation
	}{{2, "full", IsolationNamespaces}, {2, "reduced", IsolationReduced}, {3, "landlock", IsolationLandlock}} {
		data, err := json.Marshal(sample())
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		doc["version"], doc["isolation"] = tc.version, tc.isolation
		data, _ = json.Marshal(doc)
		var r Report
		if err := json.Unmarshal(data, &r); err != nil || r.Isolation != tc.want {
			t.Errorf("version %d, isolation %q: read %q, %v; want %q", tc.version, tc.isolation, r.Isolation, err, tc.want)
		}
	}
}

// Every output says what the test binaries ran in: the tier of their
// sandboxes, and Landlock's ABI; a run of parts, the weakest of theirs.
func TestOutputsNameTheSandbox(t *testing.T) {
	for _, tc := range []struct {
		isolation Isolation
		abi       int
		text      string
	}{
		{IsolationNamespaces, 0, "; in sandboxes of namespaces\n"},
		{IsolationLandlock, 7, "; in sandboxes of Landlock (ABI 7)\n"},
		{IsolationReduced, 0, "\nisolation reduced (-sandbox=none): the test binaries ran without sandboxes, as you; nothing was cached\n"},
	} {
		r := sample()
		r.Isolation, r.LandlockABI = tc.isolation, tc.abi
		var text, junit bytes.Buffer
		if err := r.WriteText(&text, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), tc.text) {
			t.Errorf("%s: text\n%s\nwant %q", tc.isolation, text.String(), tc.text)
		}
		if err := r.WriteJUnit(&junit); err != nil {
			t.Fatal(err)
		}
		want := []string{`<property name="isolation" value="` + string(tc.isolation) + `"></property>`}
		if tc.abi > 0 {
			want = append(want, `<property name="landlock_abi" value="7"></property>`)
		}
		for _, w := range want {
			if !strings.Contains(junit.String(), w) {
				t.Errorf("%s: JUnit\n%s\nwant %s", tc.isolation, junit.String(), w)
			}
		}
		if tc.abi == 0 && strings.Contains(junit.String(), "landlock_abi") {
			t.Errorf("%s: JUnit names a Landlock ABI", tc.isolation)
		}
		s := r.Stryker(sampleSources())
		if s.Config["isolation"] != tc.isolation || tc.abi > 0 && s.Config["landlock_abi"] != tc.abi {
			t.Errorf("%s: Stryker's config %v, want the isolation and the ABI", tc.isolation, s.Config)
		}
	}
	parts := []*Report{sample(), sample(), sample()}
	parts[0].Isolation = IsolationNamespaces
	parts[1].Isolation, parts[1].LandlockABI = IsolationLandlock, 9
	parts[2].Isolation, parts[2].LandlockABI = IsolationLandlock, 6
	if j := Join("./...", parts); j.Isolation != IsolationLandlock || j.LandlockABI != 6 {
		t.Errorf("Join: isolation %s, ABI %d; want landlock, 6: the weakest", j.Isolation, j.LandlockABI)
	}
	parts[1].Isolation = IsolationReduced
	if j := Join("./...", parts); j.Isolation != IsolationReduced {
		t.Errorf("Join: isolation %s; want reduced", j.Isolation)
	}
}

// The reference of statuses gives, for each, how the score, the exit
// code and each output count it, from the one table.
func TestStatusReference(t *testing.T) {
	ref := StatusReference()
	for _, want := range []string{
		"killed\n    a test failed",
		"score: detected; exit code: 0; Stryker: Killed; JUnit: passed; GitHub\n    annotation: none",
		"survived\n    every test of the baseline ran and passed",
		"score: not detected; exit code: 1; Stryker: Survived; JUnit: failure;",
		"build-failed\n    the mutant is not valid Go",
		"score: not in the score; exit code: 2; Stryker: CompileError; JUnit:\n    error",
		"timeout\n",
		"score: detected; exit code: 3; Stryker: Timeout",
	} {
		if !strings.Contains(ref, want) {
			t.Errorf("StatusReference() lacks %q:\n%s", want, ref)
		}
	}
	for _, s := range Statuses() {
		if !strings.HasPrefix(ref, string(s)+"\n") && !strings.Contains(ref, "\n\n"+string(s)+"\n") {
			t.Errorf("StatusReference() has no entry for %s", s)
		}
	}
}

// The exit codes by command, in one place.
func TestExitReference(t *testing.T) {
	ref := ExitReference()
	for _, want := range []string{
		"0 run, merge: every mutant killed (or crashed)\n  check: every prediction in every file exact (with -partial, every prediction\n  made)\n",
		"\n\n1 run, merge: some mutant survived",
		"\n  report: with -check, the document is out of date\n",
		"\n\n3 run, merge: some mutant timed out or ran out of memory, and none survived\n\nlist, show, template and help exit 0",
	} {
		if !strings.Contains(ref, want) {
			t.Errorf("ExitReference() lacks %q:\n%s", want, ref)
		}
	}
}

// The verdicts of several packages' tests on one mutant combine into the
// most telling: the compiler's proof, then a kill, down to no test
// reaching the mutant; a status of a newer version's results says least.
func TestStatus_MoreTelling(t *testing.T) {
	order := []Status{Equivalent, Killed, Timeout, OutOfMemory, Crashed, Flaky, BuildFailed, Skipped, Survived, NotCovered, Status("newer")}
	if got := len(order) - 1; got != len(Statuses()) {
		t.Fatalf("the order ranks %d statuses, the table has %d", got, len(Statuses()))
	}
	for i, s := range order {
		for j, o := range order {
			if got, want := s.MoreTelling(o), i < j; got != want {
				t.Errorf("%s.MoreTelling(%s) = %v, want %v", s, o, got, want)
			}
		}
	}
}

func TestMutantCacheableFollowsTheStatusTable(t *testing.T) {
	for _, tc := range []struct {
		m    Mutant
		want bool
	}{
		{Mutant{Status: Killed}, true},
		{Mutant{Status: Killed, Partial: true}, false},
		{Mutant{Status: Killed, FlakyTests: []string{"TestB"}}, false},
		{Mutant{Status: Survived}, true},
		{Mutant{Status: Timeout}, false},
		{Mutant{Status: Timeout, SpinsAlone: true}, true},
		{Mutant{Status: OutOfMemory}, false},
		{Mutant{Status: Flaky, FlakyTests: []string{"TestA"}}, false},
		{Mutant{Status: BuildFailed}, true},
		{Mutant{Status: Equivalent}, true},
		{Mutant{Status: "from-a-newer-version"}, false},
	} {
		if got := tc.m.Cacheable(); got != tc.want {
			t.Errorf("%+v: Cacheable() = %v, want %v", tc.m, got, tc.want)
		}
	}
}
