package predict

import (
	"strings"
	"testing"
)

// An invalid file is set aside with its problems and the valid files are
// compared; when none is valid, the load fails with every problem.
func TestLoader_SetsInvalidFilesAside(t *testing.T) {
	files := []string{"testdata/good/alice.yaml", "testdata/bad/unknown-mutant.yaml"}

	lp := &Loader{Files: files}
	pfs, err := lp.Load(full)
	if err != nil || len(pfs) != 1 || pfs[0].Learner != "alice" || lp.NoneValid() {
		t.Fatalf("Load(class) = %d files, %v, none valid %v; want alice's alone", len(pfs), err, lp.NoneValid())
	}
	if len(lp.Invalid) != 1 || lp.Invalid[0].File != files[1] || len(lp.Problems) != len(lp.Invalid[0].Problems) || len(lp.Problems) == 0 {
		t.Errorf("Load(class) set aside %+v with %d problems; want the bad file and its problems", lp.Invalid, len(lp.Problems))
	}

	lp = &Loader{Files: files[1:]}
	if pfs, err := lp.Load(full); err == nil || pfs != nil || !lp.NoneValid() {
		t.Errorf("Load(one invalid file) = %d files, %v, none valid %v; want its problems", len(pfs), err, lp.NoneValid())
	} else if !strings.Contains(err.Error(), "unknown-mutant.yaml:") {
		t.Errorf("Load() error = %v, want it at the bad file's position", err)
	}
}

// Recheck sets aside a file whose subtest is unknown to the baseline.
func TestLoader_RecheckWithTheBaselinesNames(t *testing.T) {
	lp := &Loader{Files: []string{"testdata/good/alice.yaml"}}
	top := Known{Mutants: testIDs, Tests: []string{"TestClaim_ReassignsAtExactExpiry", "TestModel", "TestRenew_RefusesAnythingButTheLiveLease"}, TopLevelOnly: true}
	pfs, err := lp.Load(top)
	if err != nil || len(pfs) != 1 {
		t.Fatalf("Load(top-level names) = %d files, %v", len(pfs), err)
	}
	noSub := Known{Mutants: testIDs, Tests: []string{"TestClaim_ReassignsAtExactExpiry", "TestModel", "TestRenew_RefusesAnythingButTheLiveLease"}}
	if pfs, err := lp.Recheck(pfs, noSub); err == nil || pfs != nil {
		t.Errorf("Recheck(no such subtest) = %d files, %v; want the subtest's problem", len(pfs), err)
	}
	if len(lp.Invalid) != 1 {
		t.Errorf("Recheck set aside %+v, want alice's file", lp.Invalid)
	}
}
