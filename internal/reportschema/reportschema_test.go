package reportschema

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A minimal report that follows the schema passes.
func TestValidate_AcceptsAMinimalReport(t *testing.T) {
	ok := `{"schemaVersion":"2","thresholds":{"high":80,"low":60},"files":{"a.go":{"language":"go","source":"package a\n",
		"mutants":[{"id":"x","mutatorName":"expr","location":{"start":{"line":1,"column":1},"end":{"line":1,"column":8}},"status":"Killed"}]}}}`
	if err := Validate([]byte(ok)); err != nil {
		t.Fatalf("Validate(minimal report) = %v, want nil", err)
	}
}

// The check rejects what breaks the schema, and names where.
func TestValidate_RejectsABadReport(t *testing.T) {
	bad := `{"schemaVersion":"2","thresholds":{"high":80,"low":60},"files":{"a.go":{"language":"go","source":"",
		"mutants":[{"id":"x","mutatorName":"m","location":{"start":{"line":0,"column":1},"end":{"line":1,"column":1}},"status":"Bogus"}]}}}`
	err := Validate([]byte(bad))
	if err == nil || !strings.Contains(err.Error(), "/status': value must be one of") || !strings.Contains(err.Error(), "/line': minimum: got 0") {
		t.Fatalf("Validate(bad) = %v, want errors naming the status and the line 0", err)
	}
	if err := Validate([]byte(`{"schemaVersion":`)); err == nil || !strings.HasPrefix(err.Error(), "not JSON") {
		t.Fatalf("Validate(truncated) = %v, want a JSON error", err)
	}
}

// ValidateFile checks against a schema file, and a value the schema does
// not allow fails it.
func TestValidateFile_ChecksAgainstTheSchemaInTheFile(t *testing.T) {
	schema := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","required":["status"],"properties":{"status":{"enum":["pass","fail"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ValidateFile(schema, []byte(`{"status":"pass"}`)); err != nil {
		t.Errorf("ValidateFile(pass) = %v, want nil", err)
	}
	if err := ValidateFile(schema, []byte(`{"status":"passed"}`)); err == nil || !strings.Contains(err.Error(), "/status': value must be one of") {
		t.Errorf("ValidateFile(passed) = %v, want an error naming the status", err)
	}
	if err := ValidateFile(filepath.Join(t.TempDir(), "none.json"), []byte(`{}`)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ValidateFile(missing schema) = %v, want fs.ErrNotExist", err)
	}
}
