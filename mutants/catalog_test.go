// Package mutants_test checks the lease exercise's catalog against the
// code it mutates: every mutant applies, at the fragment it documents, and
// rewrites exactly what its golden diff shows.
package mutants_test

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/handout"
	"github.com/fencelab/fencelab/internal/mutation"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

func load(t *testing.T, files ...string) (*exercise.Set, *mutation.Package) {
	t.Helper()
	s, err := exercise.Load("..", files)
	if err != nil {
		t.Fatal(err)
	}
	p, err := mutation.Load(filepath.Join("..", filepath.FromSlash(s.Package)))
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

// golden compares got with the file testdata/golden/name.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./mutants -update writes it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (go test ./mutants -update rewrites it):\n%s", path, got)
	}
}

// The catalog has the eight steps of the contract, in order, each with
// everything a learner reads.
func TestCatalog_EightStepsInOrder(t *testing.T) {
	s, _ := load(t)
	if len(s.Mutants) != 8 || s.Package != "./lease" {
		t.Fatalf("catalog: %d mutants of %q, want 8 of ./lease", len(s.Mutants), s.Package)
	}
	for i, m := range s.Mutants {
		if m.Step != i+1 {
			t.Errorf("mutant %d (%s) has step %d, want %d", i, m.ID, m.Step, i+1)
		}
		if m.Title == "" || m.Contract == "" || m.Rationale == "" || m.Seed == "" {
			t.Errorf("mutant %s lacks title, contract, rationale or seed", m.ID)
		}
	}
	if len(s.Worksheet) != 3 {
		t.Errorf("the worksheet has %d questions, want the note's closing three", len(s.Worksheet))
	}
}

// noteFragments are the faulty fragments as the design note writes them,
// cut mid-statement; each seed is the whole statement or expression
// around one.
var noteFragments = map[string]string{
	"init-not-idempotent":   `CREATE TABLE jobs`,
	"enqueue-replace":       `INSERT OR REPLACE INTO jobs`,
	"state-empty-not-nil":   `if row else {}`,
	"claim-boundary":        `row[0] >= now`,
	"renew-expired":         `AND until>=?", (now+ttl`,
	"complete-twice":        `AND done>=0 AND until>?", (result`,
	"release-resets-fence":  `SET owner=NULL,until=0,fence=0 WHERE`,
	"claim-many-first-only": `return [claim(path,job_id,owners[0],now,ttl)]`,
}

// Every seed holds the note's fragment, whole: its quotes and brackets
// close.
func TestCatalog_SeedsAreWholeStatements(t *testing.T) {
	s, _ := load(t)
	for _, m := range s.Mutants {
		if !strings.Contains(m.Seed, noteFragments[m.ID]) {
			t.Errorf("%s: seed %q lacks the note's fragment %q", m.ID, m.Seed, noteFragments[m.ID])
		}
		if !balanced(m.Seed) {
			t.Errorf("%s: seed %q is cut: a quote or bracket does not close", m.ID, m.Seed)
		}
	}
}

// balanced reports whether every double quote of s closes and every
// bracket outside quotes closes in order.
func balanced(s string) bool {
	var open []rune
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
		case quoted:
		case strings.ContainsRune("([{", r):
			open = append(open, r)
		case strings.ContainsRune(")]}", r):
			if len(open) == 0 || open[len(open)-1] != map[rune]rune{')': '(', ']': '[', '}': '{'}[r] {
				return false
			}
			open = open[:len(open)-1]
		}
	}
	return !quoted && len(open) == 0
}

// Every catalog mutant applies exactly once, on the line of its fragment,
// and its printed form differs from the reference exactly as its golden
// diff shows.
func TestCatalog_MatchesGoldenDiffs(t *testing.T) {
	s, p := load(t)
	for _, m := range s.Mutants {
		t.Run(m.ID, func(t *testing.T) {
			a, err := p.Apply(m)
			if err != nil {
				t.Fatalf("Apply(%s) error = %v", m.ID, err)
			}
			golden(t, m.ID+".diff", []byte(a.Diff("lease/"+filepath.Base(a.File))))
			line := strings.Split(string(a.Original), "\n")[a.Line-1]
			if first := strings.Split(m.Find, "\n")[0]; !strings.Contains(line, first) {
				t.Errorf("line %d is %q, want it to hold %q", a.Line, line, first)
			}
		})
	}
}

// Every catalog mutant, experiment and locking fault switches into one version of
// lease.go; the golden file shows it whole.
func TestCatalog_AndExperimentsSwitchIntoOneFile(t *testing.T) {
	s, p := load(t, "catalog.yaml", "experiments.yaml", "locking.yaml")
	sw, err := p.Switch(s.Mutants, nil, nil)
	if err != nil {
		t.Fatalf("Switch() error = %v", err)
	}
	if len(sw.Excluded) != 0 {
		t.Fatalf("Switch() excluded %v, want every mutant switched", sw.Excluded)
	}
	var ids []string
	for _, m := range s.Mutants {
		ids = append(ids, m.ID)
	}
	if !slices.Equal(sw.Included, ids) {
		t.Fatalf("Included = %v, want %v in that order", sw.Included, ids)
	}
	got := sw.Files[filepath.Join(p.Dir, "lease.go")]
	golden(t, "switched-lease.go.txt", got)
	helper := string(sw.Files[filepath.Join(p.Dir, mutation.HelperFile)])
	if !strings.Contains(helper, "package lease\n") || !strings.Contains(helper, `mutateSetting("MUTATE_ACTIVE", ".mutant")`) {
		t.Errorf("helper file:\n%s", helper)
	}
	// Each switch is blamed for its own lines only.
	for i, l := range strings.Split(string(got), "\n") {
		if strings.Contains(l, `mutateOn("claim-boundary")`) {
			if blamed := sw.Blame("lease.go", i+1); !slices.Equal(blamed, []string{"claim-boundary"}) {
				t.Errorf("Blame(lease.go:%d) = %v, want [claim-boundary]", i+1, blamed)
			}
		}
	}
	if blamed := sw.Blame("lease.go", 1); len(blamed) != 0 {
		t.Errorf("Blame(lease.go:1) = %v, want none", blamed)
	}
}

// The tests assignment's own chaffs: one or more per step of the
// contract, each with what it breaks and why it is plausible, each
// applying at its fragment; none of them is a mutant of the files the
// predictions hand-out ships (the catalog, the experiments, the locking
// faults, the wheats), by id or by rewrite.
func TestChaffs_ASecondSetForTheTestsAssignment(t *testing.T) {
	catalog, _ := load(t)
	if catalog.Tests.Chaffs != "mutants/chaffs.yaml" {
		t.Fatalf("the catalog's tests: chaffs: is %q, want mutants/chaffs.yaml", catalog.Tests.Chaffs)
	}
	chaffs, p := load(t, "chaffs.yaml")
	steps := map[int]bool{}
	for _, m := range chaffs.Mutants {
		steps[m.Step] = true
		if m.Title == "" || m.Contract == "" || m.Rationale == "" {
			t.Errorf("chaff %s lacks a title, contract or rationale", m.ID)
		}
		if _, err := p.Apply(m); err != nil {
			t.Errorf("Apply(%s) error = %v", m.ID, err)
		}
	}
	if len(chaffs.Mutants) < 8 || len(steps) != 8 || !steps[1] || !steps[8] {
		t.Errorf("%d chaffs of steps %v, want at least 8, one or more for each step 1 to 8", len(chaffs.Mutants), steps)
	}
	shipped, _ := load(t, "catalog.yaml", "experiments.yaml", "locking.yaml", "wheats.yaml")
	for _, c := range chaffs.Mutants {
		for _, m := range shipped.Mutants {
			if c.ID == m.ID || c.Target == m.Target && c.Find == m.Find && c.Replace == m.Replace {
				t.Errorf("chaff %s is %s of the predictions hand-out's files", c.ID, m.ID)
			}
		}
	}
}

// The predictions hand-out holds none of the chaffs: not their file, not
// their ids, and no mutants file of it rewrites the code as one does.
func TestChaffs_NotInThePredictionsHandout(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	set, err := exercise.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	chaffs, _ := load(t, "chaffs.yaml")
	out := filepath.Join(t.TempDir(), "handout")
	if _, _, err := handout.Write(set, out, handout.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "mutants", "chaffs.yaml")); !os.IsNotExist(err) {
		t.Errorf("the hand-out holds mutants/chaffs.yaml: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(out, "mutants", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the hand-out's mutants files: %v, %v", files, err)
	}
	for _, path := range files {
		f, err := exercise.LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if f.Tests != nil && f.Tests.Chaffs != "" {
			t.Errorf("%s names the chaffs: %s", path, f.Tests.Chaffs)
		}
		for _, m := range f.Mutants {
			for _, c := range chaffs.Mutants {
				if c.ID == m.ID || c.Target == m.Target && c.Find == m.Find && c.Replace == m.Replace {
					t.Errorf("%s holds chaff %s as %s", path, c.ID, m.ID)
				}
			}
		}
	}
}
