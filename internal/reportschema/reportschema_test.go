package reportschema

import (
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
