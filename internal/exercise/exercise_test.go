package exercise

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

func TestLoadFile_ReadsMutantsPackageAndReport(t *testing.T) {
	f, err := LoadFile("testdata/files/ok.yaml")
	if err != nil {
		t.Fatalf("LoadFile() error = %v", err)
	}
	if f.Package != "./lease" {
		t.Errorf("Package = %q, want ./lease", f.Package)
	}
	if r := f.Report; r == nil || r.File != "REPORT.md" || strings.Join(r.Mutants, ",") != "more.yaml" || r.Predictions != "predictions/example.yaml" {
		t.Errorf("Report = %+v", f.Report)
	}
	if len(f.Mutants) != 2 {
		t.Fatalf("LoadFile() = %d mutants, want 2", len(f.Mutants))
	}
	m := f.Mutants[1]
	if m.ID != "claim-ignores-done" || m.Step != 4 || m.Kind != mutation.Stmt || m.Target != "Store.Claim" ||
		m.Find != "if done {\n\treturn 0, nil\n}" || m.Replace != "" || m.Rationale == "" || m.Occurrence != 1 {
		t.Fatalf("mutant 1 = %+v", m)
	}
	if got, want := m.Defined["target"].String(), "testdata/files/ok.yaml:19:13"; got != want {
		t.Errorf("position of target = %q, want %q", got, want)
	}
}

// Every problem of a file is reported at once, each at its position.
func TestLoadFile_EveryProblemWithItsPosition(t *testing.T) {
	_, err := LoadFile("testdata/files/many-problems.yaml")
	var list yamlfile.Errors
	if !errors.As(err, &list) {
		t.Fatalf("LoadFile() error = %v, want a list of problems", err)
	}
	want := []string{
		`testdata/files/many-problems.yaml:3:9: mutant Bad: id "Bad": use lower-case letters, digits and '-'`,
		`testdata/files/many-problems.yaml:5:11: mutant Bad: unknown kind "exp" (did you mean "expr"?): want one of body, expr, stmt, string`,
		`testdata/files/many-problems.yaml:8:5: mutant typo: missing field "target" (needs: id, target, kind, find, replace)`,
		`testdata/files/many-problems.yaml:9:5: unknown field "taget" in a mutant (did you mean "target"?); the fields are: id, step, title, contract, rationale, seed, question, points, target, kind, find, replace, occurrence, line`,
		`testdata/files/many-problems.yaml:14:11: want a whole number, got a string`,
		`testdata/files/many-problems.yaml:22:11: mutant broken: find is not a Go expr: line 1:8: expected operand, found 'EOF'`,
		`testdata/files/many-problems.yaml:23:14: mutant broken: replace is not a Go expr: line 1:9: expected operand, found 'EOF'`,
		`testdata/files/many-problems.yaml:29:9: mutant fine: duplicate id (first at line 24): ids must be unique`,
		`testdata/files/many-problems.yaml:35:13: points must be 1 or more: what an exact prediction of the mutant earns`,
	}
	if got := err.Error(); got != strings.Join(want, "\n") {
		t.Fatalf("LoadFile() errors:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func TestLoadFile_ErrorsNamePosition(t *testing.T) {
	tests := []struct {
		file, want string
	}{
		{"unparsable-find.yaml", "unparsable-find.yaml:5:11: mutant broken: find is not a Go expr: line 1:8: expected operand"},
		{"duplicate-id.yaml", `duplicate-id.yaml:7:9: mutant same: duplicate id (first at line 2): ids must be unique`},
		{"unknown-field.yaml", "unknown-field.yaml:2:5: mutant typo: missing field \"target\" (needs: id, target, kind, find, replace)\n" + filepath.Join("testdata", "files", "unknown-field.yaml:3:5: unknown field \"taget\" in a mutant (did you mean \"target\"?)")},
		{"missing-field.yaml", `missing-field.yaml:2:5: mutant no-replace: missing field "replace" (needs: id, target, kind, find, replace)`},
		{"wrong-type.yaml", "wrong-type.yaml:3:11: want a whole number, got a string"},
		{"not-a-list.yaml", "not-a-list.yaml:2:3: mutants must be a list, got a mapping"},
		{"empty.yaml", "empty.yaml:1:1: the file is empty"},
		{"not-yaml.yaml", "not-yaml.yaml:2:9: not valid YAML"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "files", tc.file)
			_, err := LoadFile(path)
			var pe *yamlfile.Error
			if !errors.As(err, &pe) {
				t.Fatalf("LoadFile() error = %v, want a positioned error", err)
			}
			if want := filepath.Join("testdata", "files", tc.want); !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("LoadFile() error =\n  %s\nwant prefix\n  %s", err, want)
			}
		})
	}
}

// Files of one run share one package and no id.
func TestLoad_FilesAgreeOnPackageAndIDs(t *testing.T) {
	s, err := Load(".", []string{"testdata/files/ok.yaml", "testdata/files/missing-field.yaml"})
	if err == nil {
		t.Fatalf("Load() = %+v, want the problem of missing-field.yaml", s)
	}
	_, err = Load(".", []string{"testdata/files/ok.yaml", "testdata/files/other-package.yaml"})
	want := []string{
		"testdata/files/other-package.yaml:1:10: package ./other differs from ./lease of testdata/files/ok.yaml: one run mutates one package",
		"testdata/files/other-package.yaml:3:9: mutant renew-at-expiry-ge: id already used in testdata/files/ok.yaml; choose another",
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Fatalf("Load() error:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	s, err = Load(".", []string{"testdata/files/ok.yaml"})
	if err != nil || s.Package != "./lease" || len(s.Mutants) != 2 {
		t.Fatalf("Load(ok.yaml) = %+v, %v", s, err)
	}
}

// With no file named, the module's catalog is read; a module without one
// says so.
func TestLoad_TheCatalogByDefault(t *testing.T) {
	root := t.TempDir()
	if _, err := Load(root, nil); err == nil || !strings.Contains(err.Error(), "the module has no mutants/catalog.yaml, and no -mutants FILE was given") {
		t.Fatalf("Load(no catalog) error = %v", err)
	}
	data, err := os.ReadFile("testdata/files/ok.yaml")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "mutants"), 0o755)
	if err := os.WriteFile(filepath.Join(root, Catalog), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(root, nil)
	if err != nil || len(s.Mutants) != 2 || s.Files[0].Path != filepath.Join(root, Catalog) {
		t.Fatalf("Load(catalog) = %+v, %v", s, err)
	}
}

func TestFindRoot_WalksUpToGoMod(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := FindRoot(deep); err != nil || got != root {
		t.Fatalf("FindRoot(%s) = %q, %v; want %q", deep, got, err, root)
	}
	if _, err := FindRoot(filepath.Dir(root)); !errors.Is(err, errNoModule) && err != nil {
		t.Fatalf("FindRoot(outside) error = %v, want ErrNoModule", err)
	}
}

// A mutant's points are what grading gives an exact prediction of it; a
// mutant without points is worth the default.
func TestLoadFile_Points(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.yaml")
	data := "package: ./lease\nmutants:\n  - id: heavy\n    points: 3\n    target: Store.Renew\n    kind: string\n    find: until>?\n    replace: until>=?\n" +
		"  - id: plain\n    target: Store.Claim\n    kind: expr\n    find: until > now\n    replace: until >= now\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := LoadFile(path)
	if err != nil {
		t.Fatalf("LoadFile() error = %v", err)
	}
	if f.Mutants[0].Points != 3 || f.Mutants[1].Points != 0 {
		t.Errorf("LoadFile() points = %d, %d; want 3, 0 (the default)", f.Mutants[0].Points, f.Mutants[1].Points)
	}
}

// A mutants file may carry the exercise's worksheet: closing questions,
// and a question of a step on its mutant.
func TestLoadFile_Worksheet(t *testing.T) {
	f, err := LoadFile("testdata/files/worksheet.yaml")
	if err != nil {
		t.Fatalf("LoadFile() error = %v", err)
	}
	want := []Question{
		{ID: "earlier-steps", Question: "Why do the earlier steps' tests still hold in later steps?"},
		{ID: "not-guaranteed", Question: "What does this experiment not guarantee?"},
	}
	if len(f.Worksheet) != 2 || f.Worksheet[0] != want[0] || f.Worksheet[1] != want[1] {
		t.Errorf("Worksheet = %+v, want %+v", f.Worksheet, want)
	}
	if q := f.Mutants[0].Question; q != "Which input shows it?" {
		t.Errorf("the mutant's question = %q", q)
	}
	_, err = LoadFile("testdata/files/bad-worksheet.yaml")
	wantErrs := []string{
		`3:9: question id "Earlier": use lower-case letters, digits and '-'`,
		`7:9: question twice: duplicate id (first at line 5)`,
		`9:5: a question of the worksheet needs an id and a question`,
		`12:5: unknown field "answer" in a question; the fields are: id, question`,
	}
	for i, w := range wantErrs {
		wantErrs[i] = "testdata/files/bad-worksheet.yaml:" + w
	}
	if err == nil || err.Error() != strings.Join(wantErrs, "\n") {
		t.Errorf("LoadFile(bad) error =\n%v\nwant\n%s", err, strings.Join(wantErrs, "\n"))
	}
}

// A catalog says what learners' test files may be; the default is the
// external test package and the standard imports alone.
func TestLoadFile_TheRulesOfLearnersTests(t *testing.T) {
	f, err := LoadFile("testdata/files/tests.yaml")
	if err != nil {
		t.Fatalf("LoadFile() error = %v", err)
	}
	if f.Tests == nil || f.Tests.Package != Either || strings.Join(f.Tests.Imports, ",") != "encoding/csv,golang.org/x/sync/errgroup" ||
		f.Tests.Chaffs != "internal/exercise/testdata/files/ok.yaml" {
		t.Errorf("Tests = %+v, want either, with two imports and chaffs of their own", f.Tests)
	}
	if set, err := Load(".", []string{"testdata/files/tests.yaml"}); err != nil || set.Tests.Chaffs != "internal/exercise/testdata/files/ok.yaml" {
		t.Errorf("Load() = %+v, %v; want the chaffs the catalog names", set, err)
	}
	// The chaffs must be a file of the module.
	if _, err := Load(".", []string{"testdata/files/missing-chaffs.yaml"}); err == nil || err.Error() != "testdata/files/missing-chaffs.yaml:3:11: tests chaffs mutants/nowhere.yaml: no such file in the module" {
		t.Errorf("Load(missing chaffs) error = %v", err)
	}
	set, err := Load(".", []string{"testdata/files/ok.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if set.Tests.Package != External || len(set.Tests.Imports) != 0 {
		t.Errorf("a catalog that says nothing: Tests = %+v, want external and no import", set.Tests)
	}
	_, err = LoadFile("testdata/files/bad-tests.yaml")
	want := []string{
		`2:11: want true or false, got a string`,
		`4:12: tests package "outside": want external (the package's _test package), internal (the package itself) or either`,
		`5:22: import "../up" is not an import path, such as encoding/csv`,
		`5:31: import "with space" is not an import path, such as encoding/csv`,
		`6:11: chaffs must be a mutants file of the module, such as mutants/chaffs.yaml, relative to its root`,
		`7:3: unknown field "extra" in tests; the fields are: package, imports, chaffs`,
	}
	for i, w := range want {
		want[i] = "testdata/files/bad-tests.yaml:" + w
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("LoadFile(bad) error =\n%v\nwant\n%s", err, strings.Join(want, "\n"))
	}
}

// A withheld catalog (a tests hand-out's) has no mutants; a command that
// needs them says so, unless it asks for the package alone.
func TestSelect_AWithheldCatalog(t *testing.T) {
	f, err := LoadFile("testdata/files/withheld.yaml")
	if err != nil || !f.Withheld || len(f.Mutants) != 0 {
		t.Fatalf("LoadFile() = %+v, %v; want withheld, no mutants", f, err)
	}
	if _, err := LoadFile("testdata/files/withheld-and-mutants.yaml"); err == nil || !strings.Contains(err.Error(), "3:1: the file says withheld: true, and has a list under \"mutants:\": keep one") {
		t.Errorf("LoadFile(withheld and mutants) error = %v", err)
	}
	if _, err := Choose(t.Context(), Selection{Files: []string{"testdata/files/withheld.yaml"}}); !errors.Is(err, ErrWithheld) {
		t.Errorf("Choose() error = %v, want ErrWithheld", err)
	}
	plan, err := Choose(t.Context(), Selection{Files: []string{"testdata/files/withheld.yaml"}, Withheld: true})
	if err != nil || len(plan.Units) != 1 || len(plan.Units[0].Mutants) != 0 {
		t.Errorf("Choose(Withheld) = %+v, %v; want the package, no mutant", plan, err)
	}
}

// A catalog's story is a document of the module, and must be there; the
// set has the first file's.
func TestLoad_TheStory(t *testing.T) {
	root := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	mutants := "mutants:\n  - {id: m, target: F, kind: expr, find: a, replace: b}\n"
	write("docs/story.md", "# The story\n")
	good := write("good.yaml", "package: ./p\nstory: docs/story.md\n"+mutants)
	s, err := Load(root, []string{good})
	if err != nil || s.Story != "docs/story.md" {
		t.Fatalf("Load(story: docs/story.md) = %+v, %v", s, err)
	}
	for body, want := range map[string]string{
		"package: ./p\nstory: docs/none.md\n" + mutants: "missing.yaml:2:8: story docs/none.md: no such document in the module",
		"package: ./p\nstory: ../secret.md\n" + mutants: "missing.yaml:2:8: story must be a document of the module, such as docs/exercise.md, relative to its root",
		"package: ./p\nstory: [docs/a.md]\n" + mutants:  "missing.yaml:2:8: story must be a document of the module, such as docs/exercise.md, relative to its root",
	} {
		path := write("missing.yaml", body)
		if _, err := Load(root, []string{path}); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("Load(%q) error = %v, want %q", body, err, want)
		}
	}
}

// Keep runs a part of a plan, each mutant at its place in the whole, and
// leaves the plan as it was.
func TestPlan_KeepLeavesThePlanAndTheOrdinals(t *testing.T) {
	a, b, c := &mutation.Mutant{ID: "a"}, &mutation.Mutant{ID: "b"}, &mutation.Mutant{ID: "c"}
	u := &Unit{Applied: []*mutation.Applied{{Mutant: a}, {Mutant: b}, {Mutant: c}}, Ordinals: []int{4, 5, 6}}
	p := &Plan{Package: "./x", Units: []*Unit{u}}
	q := p.Keep(func(m *mutation.Mutant) bool { return m.ID != "b" })
	if got := q.Units[0]; len(got.Applied) != 2 || got.Applied[0].Mutant != a || got.Applied[1].Mutant != c || !slices.Equal(got.Ordinals, []int{4, 6}) {
		t.Errorf("Keep(not b) = %v at %v, want a and c at 4 and 6", got.Applied, got.Ordinals)
	}
	if q.Package != "./x" || q.Count() != 2 || p.Count() != 3 || !slices.Equal(u.Ordinals, []int{4, 5, 6}) {
		t.Errorf("Keep counts %d (%s), and left the plan with %d at %v; want 2 (./x), and 3 at 4, 5, 6", q.Count(), q.Package, p.Count(), u.Ordinals)
	}
}
