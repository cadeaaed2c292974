package gotest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCompiler compiles a package with one of its files replaced, as
// trivial compiler equivalence does, and refuses a package that needs more
// than the compiler.
func TestCompiler(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod":         "module example.com/m\n\ngo 1.21.3\n",
		"calc/calc.go":   "package calc\n\nimport \"strings\"\n\nfunc Twice(n int) int { return n * 2 }\n\nfunc Up(s string) string { return strings.ToUpper(s) }\n",
		"calc/other.go":  "package calc\n\nfunc One() int { return 1 }\n",
		"embed/embed.go": "package embed\n\nimport _ \"embed\"\n\n//go:embed data.txt\nvar data string\n",
		"embed/data.txt": "x\n",
	})
	ctx := context.Background()
	c, err := NewCompiler(ctx, "", dir, "./calc", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if c.lang != "go1.21" || c.importPath != "example.com/m/calc" {
		t.Errorf("lang, import path = %q, %q; want go1.21 (no patch release), example.com/m/calc", c.lang, c.importPath)
	}
	ref, err := c.Assembly(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(ref, []byte("example.com/m/calc.Twice STEXT")) || !bytes.Contains(ref, []byte("strings.ToUpper")) {
		t.Fatalf("the reference's listing lacks Twice or its call of strings.ToUpper:\n%s", ref)
	}
	file := filepath.Join(dir, "calc", "calc.go")
	same, err := c.Assembly(ctx, t.TempDir(), map[string][]byte{file: []byte("package calc\n\nimport \"strings\"\n\n// Moved.\n\nfunc Twice(n int) int { return n * 2 }\n\nfunc Up(s string) string { return strings.ToUpper(s) }\n")})
	if err != nil {
		t.Fatal(err)
	}
	other, err := c.Assembly(ctx, t.TempDir(), map[string][]byte{file: []byte("package calc\n\nimport \"strings\"\n\nfunc Twice(n int) int { return n * 3 }\n\nfunc Up(s string) string { return strings.ToUpper(s) }\n")})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(ref, other) {
		t.Error("n * 3 compiles to the listing of n * 2")
	}
	if !strings.Contains(string(same), "calc.One STEXT") {
		t.Errorf("the listing with a file replaced lacks the other file's One:\n%s", same)
	}
	if _, err := c.Assembly(ctx, t.TempDir(), map[string][]byte{file: []byte("package calc\n\nfunc Twice(n int) int { return m }\n")}); err == nil {
		t.Error("a file that does not compile: no error")
	}
	if _, err := NewCompiler(ctx, "", dir, "./embed", t.TempDir()); err == nil || !strings.Contains(err.Error(), "embedded files") {
		t.Errorf("NewCompiler(./embed) = %v, want an error for its embedded files", err)
	}
}
