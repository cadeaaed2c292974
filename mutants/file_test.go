package mutants

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/yamlfile"
)

func TestLoadFile_ReadsMutants(t *testing.T) {
	ms, err := LoadFile("testdata/files/ok.yaml")
	if err != nil {
		t.Fatalf("LoadFile() error = %v", err)
	}
	if len(ms) != 2 {
		t.Fatalf("LoadFile() = %d mutants, want 2", len(ms))
	}
	m := ms[1]
	if m.ID != "claim-ignores-done" || m.Step != 4 || m.Kind != Stmt || m.Target != "Store.Claim" ||
		m.Find != "if done {\n\treturn 0, nil\n}" || m.Replace != "" || m.Rationale == "" {
		t.Fatalf("mutant 1 = %+v", m)
	}
	if got, want := m.Origin("target"), "testdata/files/ok.yaml:14:13"; got != want {
		t.Errorf("Origin(target) = %q, want %q", got, want)
	}
	all, err := Combine(Catalog(), ms)
	if err != nil {
		t.Fatalf("Combine() error = %v", err)
	}
	if len(all) != 10 {
		t.Fatalf("Combine() = %d mutants, want 10", len(all))
	}
	p := loadLease(t)
	for _, m := range ms {
		a, err := p.Apply(m)
		if err != nil {
			t.Fatalf("Apply(%s) error = %v", m.ID, err)
		}
		if string(a.Mutated) == string(a.Original) {
			t.Fatalf("Apply(%s) changed nothing", m.ID)
		}
	}
}

func TestLoadFile_ErrorsNamePosition(t *testing.T) {
	tests := []struct {
		file, want string
	}{
		{"unparsable-find.yaml", "unparsable-find.yaml:5:11: mutant broken: find is not a Go expr: line 1:8: expected operand"},
		{"duplicate-id.yaml", `duplicate-id.yaml:7:9: mutant same: duplicate id "same" (first at line 2): ids must be unique`},
		{"unknown-field.yaml", `unknown-field.yaml:3:5: unknown field "taget" in a mutant (did you mean "target"?)`},
		{"missing-field.yaml", `missing-field.yaml:2:5: mutant no-replace: missing field "replace" (needs: id, target, kind, find, replace)`},
		{"wrong-type.yaml", "wrong-type.yaml:3:11: want a whole number, got a string"},
		{"not-a-list.yaml", "not-a-list.yaml:2:3: want a list, got a mapping"},
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

func TestCombine_RejectsCatalogID(t *testing.T) {
	ms, err := LoadFile("testdata/files/catalog-id.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Combine(Catalog(), ms)
	want := `testdata/files/catalog-id.yaml:2:9: mutant claim-boundary: id "claim-boundary" is already taken by the built-in catalog`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Combine() error = %v, want prefix %q", err, want)
	}
}

func TestApply_UnknownTargetOfFileNamesPosition(t *testing.T) {
	ms, err := LoadFile("testdata/files/unknown-target.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = loadLease(t).Apply(ms[0])
	want := `testdata/files/unknown-target.yaml:3:13: mutant renew-typo: package lease has no function, method or const "Store.Renw" (did you mean "Store.Renew"?)`
	if !errors.Is(err, ErrUnknownTarget) || err.Error() != want {
		t.Fatalf("Apply() error =\n  %v\nwant\n  %s", err, want)
	}
}

func TestLookup(t *testing.T) {
	ms := Catalog()
	if m, err := Lookup(ms, "renew-expired"); err != nil || m.Step != 5 {
		t.Fatalf("Lookup(renew-expired) = %v, %v", m, err)
	}
	_, err := Lookup(ms, "renew-expird")
	if err == nil || err.Error() != `no mutant "renew-expird" (did you mean "renew-expired"?)` {
		t.Fatalf("Lookup(typo) error = %v", err)
	}
}
